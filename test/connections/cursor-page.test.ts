import { createCipheriv, hkdfSync } from 'node:crypto';
import { afterEach, describe, expect, it } from '@jest/globals';
import { CursorCaller } from '../../src/connections/caller.ts';
import { anchoredCursorEncoder, anchoredPageEncoder } from '../../src/connections/cursor.ts';
import { ctrInPlace, useCursorSecret } from '../../src/connections/cursor-seal.ts';
import { paginate, readCursor, type Anchor, type PagingOptions } from '../../src/connections/index.ts';
import { anchorReader } from '../../src/connections/order.ts';
import { DEFAULT_ORDER, KeyedPlatform, type Item } from './keyed-platform.ts';

// A page's sealed cursors are sealed together (one cipher call): the same texts as one by one.

const BINDING = 'exceptions?sort=createdAt%2CDESC';
const SECRET = 'replicas share this secret, 32+ chars';
const UUID = '144dd391-6a98-4e9f-906f-34d220a04a6b';
const acme = new CursorCaller('Bearer acme-token-0123456789');

afterEach(() => useCursorSecret(undefined));

describe('the keystream of sealed cursors', () => {
  it("is AES-256-CTR's under each tag, the counter carried across every byte of its block, for many in one call", () => {
    useCursorSecret(SECRET);
    const key = Buffer.from(hkdfSync('sha256', SECRET, 'gateway cursors', 'anchored cursor keys', 64)).subarray(32, 64);
    const data = Buffer.from(Array.from({ length: 1024 }, (_, index) => (index * 7) & 0xff));
    const tags = [
      Buffer.alloc(16, 0xff),
      Buffer.from([...Buffer.alloc(14, 0x12), 0xff, 0xc1]),
      Buffer.from([...Buffer.alloc(8, 0x34), ...Buffer.alloc(8, 0xff)]),
      Buffer.from([...Buffer.alloc(15, 0), 0xf0]),
      Buffer.alloc(16, 0),
    ];
    const lengths = [1, 15, 16, 17, 63, 1024];
    const cases = tags.flatMap((tag) => lengths.map((length) => ({ tag, length })));
    const parts = cases.map(({ length }) => Buffer.from(data.subarray(0, length)));
    ctrInPlace(
      cases.map(({ tag }) => tag),
      parts,
    );
    cases.forEach(({ tag, length }, index) => {
      const expected = createCipheriv('aes-256-ctr', key, tag).update(data.subarray(0, length));
      expect([tag.toString('hex'), length, parts[index]]).toEqual([tag.toString('hex'), length, expected]);
    });
  });
});

describe('the cursors of a page', () => {
  const anchors: Anchor[] = [
    { id: UUID, keys: ['2026-08-23T23:52:26.888+0000', UUID] },
    { id: 'i'.repeat(129), keys: null },
    { id: 'batch/42', keys: ['Müller, Zoë 🚀', 'batch/42'] },
    { id: UUID, keys: null },
    { id: '', keys: [1] },
  ];
  const positions = [0, 127, 128, 300, 2 ** 30];

  it('are, sealed together, the texts each would have alone, ids too long to anchor left plain positions', () => {
    const one = anchoredCursorEncoder(BINDING, acme);
    expect(anchoredPageEncoder(BINDING, acme)(positions, anchors)).toEqual(positions.map((position, index) => one(position, anchors[index]!)));
    expect(anchoredPageEncoder(BINDING, acme)([], [])).toEqual([]);
  });

  it('are the texts each would have alone on a page larger than the buffers kept for pages, and read back each with its anchor', () => {
    useCursorSecret(SECRET);
    // 100 cursors of about 560 bytes: past the page buffer and the tag input kept by the process.
    const large = Array.from({ length: 100 }, (_, index): Anchor => ({ id: `row-${index}`, keys: ['x'.repeat(380) + String(index).padStart(3, '0'), 'y'.repeat(10), `row-${index}`] }));
    const places = large.map((_, index) => 1_000 + index);
    const one = anchoredCursorEncoder(BINDING, acme);
    const together = anchoredPageEncoder(BINDING, acme)(places, large);
    expect(together).toEqual(places.map((position, index) => one(position, large[index]!)));
    expect(together.map((cursor) => readCursor(cursor, BINDING, 'after', acme))).toEqual(places.map((position, index) => ({ position, anchor: large[index] })));
    // The next, small page is sealed alike in the grown buffers.
    expect(anchoredPageEncoder(BINDING, acme)(positions, anchors)).toEqual(positions.map((position, index) => one(position, anchors[index]!)));
  });

  it('refuse a position no list can have', () => {
    expect(() => anchoredPageEncoder(BINDING, acme)([1, 2 ** 30 + 1], anchors.slice(0, 2))).toThrow(new RangeError('cursor position must be an integer between 0 and 1073741824, got 1073741825'));
  });

  it('are each the cursor of its record and place, whichever is read first', async () => {
    const platform = KeyedPlatform.seeded(30, { pageBase: 0, totals: true });
    const options: PagingOptions = { pageBase: 0, defaultSize: 20, maxSize: 100, upstreamMaxPageSize: 100, binding: BINDING, totals: 'always', order: DEFAULT_ORDER, caller: acme };
    const anchorOf = anchorReader(DEFAULT_ORDER);
    const one = anchoredCursorEncoder(BINDING, acme);
    const expected = (connection: { nodes: Item[] }) => connection.nodes.map((node, index) => one(5 + index, anchorOf(node)));

    const endFirst = await paginate({ first: 10, after: one(4, anchorOf(platform.items[4])) }, options, platform.fetchPage);
    expect(endFirst.pageInfo.endCursor).toBe(expected(endFirst)[9]);
    expect(endFirst.edges.map((edge) => edge.cursor)).toEqual(expected(endFirst));
    expect(endFirst.pageInfo.startCursor).toBe(expected(endFirst)[0]);

    const edgesFirst = await paginate({ first: 10, after: one(4, anchorOf(platform.items[4])) }, options, platform.fetchPage);
    expect(edgesFirst.edges[3]!.cursor).toBe(expected(edgesFirst)[3]);
    expect([edgesFirst.pageInfo.startCursor, edgesFirst.pageInfo.endCursor]).toEqual([expected(edgesFirst)[0], expected(edgesFirst)[9]]);
    expect(edgesFirst.edges.map((edge) => readCursor(edge.cursor, BINDING, 'after', acme).position)).toEqual([5, 6, 7, 8, 9, 10, 11, 12, 13, 14]);

    const empty = await paginate({ first: 10, after: one(29, anchorOf(platform.items[29])) }, options, platform.fetchPage);
    expect([empty.edges, empty.pageInfo.startCursor, empty.pageInfo.endCursor]).toEqual([[], null, null]);
  });
});
