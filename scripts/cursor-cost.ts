// Prints the cost of one anchored cursor for the default order (a UUID id, a platform timestamp):
// encoding, and reading it back as a request's `after` does. Run on an idle machine:
//   ./node_modules/.bin/node scripts/cursor-cost.ts
import { randomUUID } from 'node:crypto';
import { anchoredCursorEncoder, readCursor } from '../src/connections/cursor.ts';

const BINDING = 'exceptions?status=NEW&sort=createdAt,DESC';
const COUNT = 20_000;
const ROUNDS = 7;

const anchors = Array.from({ length: COUNT }, (_, index) => {
  const id = randomUUID();
  const createdAt = `${new Date(Date.UTC(2026, 0, 1) + index * 61_013).toISOString().slice(0, 23)}+0000`;
  return { id, keys: [createdAt, id] };
});

function median(values: number[]): number {
  return [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;
}

const encodeTimes: number[] = [];
const decodeTimes: number[] = [];
let cursors: string[] = [];
for (let round = 0; round < ROUNDS; round++) {
  const encode = anchoredCursorEncoder(BINDING);
  let start = process.hrtime.bigint();
  cursors = anchors.map((anchor, index) => encode(index, anchor));
  encodeTimes.push(Number(process.hrtime.bigint() - start) / 1e3 / COUNT);
  start = process.hrtime.bigint();
  for (const cursor of cursors) readCursor(cursor, BINDING);
  decodeTimes.push(Number(process.hrtime.bigint() - start) / 1e3 / COUNT);
}
const encodeUs = median(encodeTimes);
const decodeUs = median(decodeTimes);
console.log(`cursor length ${cursors[0]?.length} characters`);
console.log(`encode ${encodeUs.toFixed(2)} µs, decode ${decodeUs.toFixed(2)} µs, together ${(encodeUs + decodeUs).toFixed(2)} µs per cursor (median of ${ROUNDS} rounds of ${COUNT})`);
