// The sealing of a Relay page's anchored cursors, three ways in one run, for pages of 20 records of
// the default order (a UUID id, a platform timestamp), for one caller:
// - clear: the record part unsealed (the version 2 spelling), what packing alone costs;
// - HMAC: each cursor's tag an HMAC-SHA256 (two SHA-256 calls), then every keystream in one AES call,
//   as version 3 cursors were sealed (read back here, to check they are the cursors the gateway reads);
// - CMAC: the tags of the page computed together (AES-CMAC, a few AES calls for the page), then every
//   keystream in one AES call: version 4, what anchoredPageEncoder makes.
// Median of interleaved rounds. Run on an idle machine:
//   ./node_modules/.bin/node scripts/cursor-seal-cost.ts
import { hash, hkdfSync, randomUUID } from 'node:crypto';
import { packAnchored } from '../src/connections/anchored-cursor.ts';
import { hashesOf } from '../src/connections/binding-hash.ts';
import { CursorCaller } from '../src/connections/caller.ts';
import { anchoredPageEncoder, readCursor } from '../src/connections/cursor.ts';
import { callerHash, ctrInPlace, useCursorSecret } from '../src/connections/cursor-seal.ts';
import type { Anchor } from '../src/connections/index.ts';

const SECRET = 'a benchmark secret of 32 characters or more';
const BINDING = 'exceptions?status=NEW&sort=createdAt,DESC';
const PAGE = 20;
const PAGES = 1_000;
const ROUNDS = 11;

useCursorSecret(SECRET);
const material = Buffer.from(hkdfSync('sha256', SECRET, 'gateway cursors', 'anchored cursor keys', 68));
const keyId = material.subarray(64, 68);
const caller = new CursorCaller('Bearer demo-token-acme');
const callerBytes = callerHash('demo-token-acme');
const digest = hashesOf(BINDING).digest;

// HMAC-SHA256 over the one-shot hash(), its padded keys made once, as version 3 tags were computed.
const inner = Buffer.alloc(64 + 1024 + 32);
const outer = Buffer.alloc(96);
for (let index = 0; index < 64; index++) {
  const byte = index < 32 ? (material[index] as number) : 0;
  inner[index] = byte ^ 0x36;
  outer[index] = byte ^ 0x5c;
}
function hmacTag(...parts: Buffer[]): Buffer {
  let end = 64;
  for (const part of parts) {
    inner.set(part, end);
    end += part.length;
  }
  outer.set(hash('sha256', inner.subarray(0, end), 'buffer'), 64);
  return hash('sha256', outer, 'buffer').subarray(0, 16);
}

/** Version 3: an HMAC tag per cursor, the keystreams of the page in one call. */
function hmacSealed(positions: number[], anchors: Anchor[]): string[] {
  const parts = anchors.map((anchor, index) => {
    const clear = Buffer.from(packAnchored(positions[index] as number, digest, anchor, true), 'base64url');
    // Version, the position (one byte below 128, two below 16384), the binding's hash.
    const sealAt = 1 + ((positions[index] as number) < 128 ? 1 : 2) + 8;
    const head = Buffer.from(clear.subarray(0, sealAt));
    head[0] = 3;
    const record = Buffer.from(clear.subarray(sealAt));
    return { head, record, tag: hmacTag(head, keyId, record, callerBytes) };
  });
  ctrInPlace(
    parts.map(({ tag }) => tag),
    parts.map(({ record }) => record),
  );
  return parts.map(({ head, tag, record }) => Buffer.concat([head, tag, keyId, record]).toString('base64url'));
}

const pages = Array.from({ length: PAGES }, (_, page) => {
  const anchors = Array.from({ length: PAGE }, (_, index) => {
    const id = randomUUID();
    const createdAt = `${new Date(Date.UTC(2026, 0, 1) - (page * PAGE + index) * 61_013).toISOString().slice(0, 23)}+0000`;
    return { id, keys: [createdAt, id] };
  });
  return { positions: anchors.map((_, index) => (page % 10) * PAGE + index), anchors };
});
const ways = {
  'clear (no seal)': (positions: number[], anchors: Anchor[]) => anchors.map((anchor, index) => packAnchored(positions[index] as number, digest, anchor, true)),
  'HMAC tag per cursor (version 3)': hmacSealed,
  'CMAC tags per page (version 4)': (positions: number[], anchors: Anchor[]) => anchoredPageEncoder(BINDING, caller)(positions, anchors),
};
// Every sealed cursor is one the gateway reads back, for this caller, with its anchor.
for (const { positions, anchors } of pages.slice(0, 50)) {
  for (const encode of [hmacSealed, ways['CMAC tags per page (version 4)']]) {
    encode(positions, anchors).forEach((cursor, index) => {
      if (JSON.stringify(readCursor(cursor, BINDING, 'after', caller)) !== JSON.stringify({ position: positions[index], anchor: anchors[index] })) throw new Error(`${cursor} does not read back`);
    });
  }
}

function median(values: number[]): number {
  return [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;
}
const times = new Map<string, number[]>(Object.keys(ways).map((name) => [name, []]));
const characters = new Map<string, number>();
for (let round = 0; round < ROUNDS; round++) {
  for (const [name, encode] of Object.entries(ways)) {
    let length = 0;
    const start = process.hrtime.bigint();
    for (const { positions, anchors } of pages) for (const cursor of encode(positions, anchors)) length += cursor.length;
    times.get(name)!.push(Number(process.hrtime.bigint() - start) / 1e3 / PAGES);
    characters.set(name, length / PAGES / PAGE);
  }
}
for (const [name, list] of times) console.log(`${name}: ${median(list).toFixed(1)} µs per page of ${PAGE} (${(median(list) / PAGE).toFixed(2)} µs per cursor, ${characters.get(name)} characters)`);
console.log(`median of ${ROUNDS} interleaved rounds of ${PAGES} pages`);
