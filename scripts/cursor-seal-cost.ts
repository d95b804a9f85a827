// The sealing of a Relay page's anchored cursors, before and after they were sealed together, in
// one run: each way makes the same cursor texts (checked) for pages of 20 records of the default
// order (a UUID id, a platform timestamp), for one caller. Before: each cursor on its own, its
// HMAC-SHA256 tag then a new AES-256-CTR cipher object (as cursor-seal.ts did). Now: the tags one by
// one, then every cursor's keystream in one AES call (anchoredPageEncoder). Run on an idle machine:
//   ./node_modules/.bin/node scripts/cursor-seal-cost.ts
import { createCipheriv, createSecretKey, hash, hkdfSync, randomUUID } from 'node:crypto';
import { packAnchored } from '../src/connections/anchored-cursor.ts';
import { hashesOf } from '../src/connections/binding-hash.ts';
import { CursorCaller } from '../src/connections/caller.ts';
import { anchoredPageEncoder } from '../src/connections/cursor.ts';
import { callerHash, useCursorSecret } from '../src/connections/cursor-seal.ts';
import type { Anchor } from '../src/connections/index.ts';

const SECRET = 'a benchmark secret of 32 characters or more';
const BINDING = 'exceptions?status=NEW&sort=createdAt,DESC';
const PAGE = 20;
const PAGES = 1_000;
const ROUNDS = 11;

useCursorSecret(SECRET);
const material = Buffer.from(hkdfSync('sha256', SECRET, 'gateway cursors', 'anchored cursor keys', 68));
const cipherKey = createSecretKey(material.subarray(32, 64));
const keyId = material.subarray(64, 68);
const caller = new CursorCaller('Bearer demo-token-acme');
const callerBytes = callerHash('demo-token-acme');
const digest = hashesOf(BINDING).digest;

// HMAC-SHA256 over the one-shot hash(), its padded keys made once, as cursor-seal.ts computes it.
const inner = Buffer.alloc(64 + 1024 + 32);
const outer = Buffer.alloc(96);
for (let index = 0; index < 64; index++) {
  const byte = index < 32 ? (material[index] as number) : 0;
  inner[index] = byte ^ 0x36;
  outer[index] = byte ^ 0x5c;
}
function tagOf(...parts: Buffer[]): Buffer {
  let end = 64;
  for (const part of parts) {
    inner.set(part, end);
    end += part.length;
  }
  outer.set(hash('sha256', inner.subarray(0, end), 'buffer'), 64);
  return hash('sha256', outer, 'buffer').subarray(0, 16);
}

/** Before: one cursor at a time, a CTR cipher object each. */
function sealedOneByOne(positions: number[], anchors: Anchor[]): string[] {
  return anchors.map((anchor, index) => {
    const clear = Buffer.from(packAnchored(positions[index] as number, digest, anchor, true), 'base64url');
    // Version, the position (one byte below 128, two below 16384), the binding's hash.
    const sealAt = 1 + ((positions[index] as number) < 128 ? 1 : 2) + 8;
    const head = Buffer.from(clear.subarray(0, sealAt));
    head[0] = 3;
    const record = clear.subarray(sealAt);
    const tag = tagOf(head, keyId, record, callerBytes);
    const sealed = createCipheriv('aes-256-ctr', cipherKey, tag).update(record);
    return Buffer.concat([head, tag, keyId, sealed]).toString('base64url');
  });
}

const pages = Array.from({ length: PAGES }, (_, page) => {
  const anchors = Array.from({ length: PAGE }, (_, index) => {
    const id = randomUUID();
    const createdAt = `${new Date(Date.UTC(2026, 0, 1) - (page * PAGE + index) * 61_013).toISOString().slice(0, 23)}+0000`;
    return { id, keys: [createdAt, id] };
  });
  return { positions: anchors.map((_, index) => (page % 10) * PAGE + index), anchors };
});
const together = anchoredPageEncoder(BINDING, caller);
for (const { positions, anchors } of pages) {
  if (JSON.stringify(sealedOneByOne(positions, anchors)) !== JSON.stringify(together(positions, anchors))) throw new Error('the two ways made different cursors');
}

function median(values: number[]): number {
  return [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;
}
const ways = {
  'before: each cursor sealed on its own': { encode: sealedOneByOne, times: [] as number[] },
  'now: a page sealed together': { encode: (positions: number[], anchors: Anchor[]) => anchoredPageEncoder(BINDING, caller)(positions, anchors), times: [] as number[] },
};
let characters = 0;
for (let round = 0; round < ROUNDS; round++) {
  for (const way of Object.values(ways)) {
    const start = process.hrtime.bigint();
    for (const { positions, anchors } of pages) for (const cursor of way.encode(positions, anchors)) characters += cursor.length;
    way.times.push(Number(process.hrtime.bigint() - start) / 1e3 / PAGES);
  }
}
for (const [name, way] of Object.entries(ways)) console.log(`${name}: ${median(way.times).toFixed(1)} µs per page of ${PAGE} (${(median(way.times) / PAGE).toFixed(2)} µs per cursor)`);
console.log(`median of ${ROUNDS} interleaved rounds of ${PAGES} pages; ${characters / ROUNDS / 2 / PAGES / PAGE} characters per cursor`);
