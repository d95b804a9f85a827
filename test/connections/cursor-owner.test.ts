import { createHash } from 'node:crypto';
import { afterEach, describe, expect, it } from '@jest/globals';
import type { GraphQLError } from 'graphql';
import { accountOfPage } from '../../src/connections/cursor-owner.ts';
import { useCursorSecret } from '../../src/connections/cursor-seal.ts';
import { CursorOwner, paginate, type AnchorOutcome, type Connection, type ConnectionArgs, type PagingOptions } from '../../src/connections/index.ts';
import { callerToken } from '../../src/request/caller-token.ts';
import { DEFAULT_ORDER, KeyedPlatform, item, type Item } from './keyed-platform.ts';

// Whose cursor a request may page by (docs/security.md, "Cursors"): the Business Account its rows
// belong to, whatever token issued it.

const BINDING = 'exceptions?sort=createdAt%2CDESC';
const ACME = '3f6c1e2a-8b4d-4c7e-9f10-2a5b6c7d8e01';
const GLOBEX = '9a2d4b6f-1c3e-4a5b-8d7c-6e5f4a3b2c02';
const OTHER_CALLER = "after cursor belongs to another account's list; restart paging without it";

/** A platform that answers each token with its account's rows, as the platform does; `account` undefined: rows that name none (LinX). */
function accountList(first: number, count: number, account?: string): KeyedPlatform {
  const rows = Array.from({ length: count }, (_, index) => ({ ...item(first + index), ...(account === undefined ? {} : { businessAccountId: account }) }) as Item);
  return new KeyedPlatform(rows, { pageBase: 0, totals: true });
}

function reader(platform: KeyedPlatform, token: string) {
  const outcomes: AnchorOutcome[] = [];
  const options: PagingOptions = {
    pageBase: 0, defaultSize: 20, maxSize: 100, upstreamMaxPageSize: 100, binding: BINDING, totals: 'always', order: DEFAULT_ORDER,
    caller: new CursorOwner(`Bearer ${token}`),
    onAnchor: (outcome) => outcomes.push(outcome),
  };
  const page = (args: ConnectionArgs): Promise<Connection<Item>> => paginate(args, options, platform.fetchPage);
  const refusal = (args: ConnectionArgs) => page(args).then(() => undefined, (error: GraphQLError) => [error.message, error.extensions]);
  return { page, refusal, outcomes };
}

const idsOf = (connection: Connection<Item>) => connection.nodes.map((node) => node.id);

afterEach(() => useCursorSecret(undefined));

describe('a cursor of rows that name their Business Account', () => {
  it('pages on for a renewed token of the same account, by its anchor', async () => {
    const acme = accountList(1, 30, ACME);
    const first = await reader(acme, 'acme-token-1').page({ first: 5 });
    const after = first.pageInfo.endCursor!;
    const ids = acme.ids();
    // A record arrives at the head: only the anchor tells where the cursor's record went.
    acme.insert({ ...item(99), businessAccountId: ACME } as Item);
    const renewed = reader(acme, 'acme-token-2');
    expect(idsOf(await renewed.page({ first: 5, after }))).toEqual(ids.slice(5, 10));
    expect(renewed.outcomes).toEqual(['moved']);
    // Each edge's cursor, too.
    expect(idsOf(await renewed.page({ first: 2, after: first.edges[1]!.cursor }))).toEqual(ids.slice(2, 4));
  });

  it("is refused to another account's token with CURSOR_OTHER_CALLER after the one call that shows its rows, nothing of the first account served or placed", async () => {
    const acme = accountList(1, 30, ACME);
    const globex = accountList(101, 30, GLOBEX);
    const first = await reader(acme, 'acme-token-1').page({ first: 5 });
    const other = reader(globex, 'globex-token');
    for (const args of [{ first: 5, after: first.pageInfo.endCursor! }, { last: 3, before: first.edges[2]!.cursor }, { first: 5, after: first.edges[0]!.cursor }]) {
      globex.take();
      const side = 'after' in args ? 'after' : 'before';
      expect(await other.refusal(args)).toEqual([OTHER_CALLER.replace('after', side), { code: 'BAD_USER_INPUT', argumentName: side, reason: 'CURSOR_OTHER_CALLER' }]);
      expect(globex.take()).toHaveLength(1);
    }
    expect(other.outcomes).toEqual([]);
  });

  it("is refused to another account's token reading the list's end (last without before)", async () => {
    const acme = accountList(1, 30, ACME);
    const first = await reader(acme, 'acme-token-1').page({ first: 5 });
    expect(await reader(accountList(101, 30, GLOBEX), 'globex-token').refusal({ last: 3, after: first.pageInfo.endCursor! })).toEqual([
      OTHER_CALLER, { code: 'BAD_USER_INPUT', argumentName: 'after', reason: 'CURSOR_OTHER_CALLER' },
    ]);
  });

  it("is refused to another account's token whose list has no row near the cursor's place, once the wider call shows none of its account's", async () => {
    const acme = accountList(1, 60, ACME);
    const first = await reader(acme, 'acme-token-1').page({ first: 5, after: (await reader(acme, 'acme-token-1').page({ first: 50 })).pageInfo.endCursor! });
    const globex = accountList(101, 3, GLOBEX);
    expect(await reader(globex, 'globex-token').refusal({ first: 5, after: first.pageInfo.endCursor! })).toEqual([
      OTHER_CALLER, { code: 'BAD_USER_INPUT', argumentName: 'after', reason: 'CURSOR_OTHER_CALLER' },
    ]);
  });
});

describe("the cursors of a page of an account's rows", () => {
  it('are as long for a page of 100 as for a page of 2, at most 200 characters, and show nothing of the rows', async () => {
    const acme = accountList(1, 150, ACME);
    const acmeReader = reader(acme, 'acme-token-1');
    const lengths = async (args: ConnectionArgs) => [...new Set((await acmeReader.page(args)).edges.map((edge) => edge.cursor.length))];
    expect([await lengths({ first: 2 }), await lengths({ first: 100 }), await lengths({ first: 100, after: (await acmeReader.page({ first: 40 })).pageInfo.endCursor! })]).toEqual([[194], [194], [194]]);
    const cursor = Buffer.from((await acmeReader.page({ first: 100 })).edges[50]!.cursor, 'base64url');
    for (const row of acme.ids().slice(0, 100)) expect(cursor.includes(Buffer.from(row.replaceAll('-', ''), 'hex'))).toBe(false);
    expect(cursor.includes(Buffer.from(ACME.replaceAll('-', ''), 'hex'))).toBe(false);
  });
});

describe('the caller a page is sealed for', () => {
  it("is named by 64 bits of its token's SHA-256, the request's token key's first, the same for any spelling of its header", () => {
    const tag = createHash('sha256').update('acme-token-1').digest().subarray(0, 8);
    const headers = { authorization: 'bearer  acme-token-1' };
    expect([new CursorOwner('Bearer acme-token-1').tag(), new CursorOwner(callerToken(headers)).tag()]).toEqual([tag, tag]);
    expect(callerToken(headers).key!.slice(0, 16)).toBe(tag.toString('hex'));
    expect(new CursorOwner(callerToken(headers)).isNamedBy(tag)).toBe(true);
    expect(new CursorOwner('Bearer acme-token-2').isNamedBy(tag)).toBe(false);
    // No bearer token: the empty tag, which names the pages of code paging without a request only.
    expect([new CursorOwner(undefined).tag(), new CursorOwner('Basic YTpi').tag()]).toEqual([Buffer.alloc(0), Buffer.alloc(0)]);
    expect(new CursorOwner(undefined).isNamedBy(tag)).toBe(false);
  });
});

describe("a page's account", () => {
  it('is the one every row names; none when a row names none or another, or when it is longer than 128 bytes', () => {
    const row = (businessAccountId?: unknown) => ({ id: 'r', ...(businessAccountId === undefined ? {} : { businessAccountId }) });
    expect(accountOfPage([row(ACME), row(ACME)])).toBe(ACME);
    expect(accountOfPage(['é'.repeat(64)].map(row))).toBe('é'.repeat(64));
    for (const rows of [[], [row(ACME), row(GLOBEX)], [row(ACME), row()], [row()], [row('')], [row(42)], [row('é'.repeat(65))], [null]]) {
      expect([rows, accountOfPage(rows)]).toEqual([rows, null]);
    }
  });
});

describe('a cursor of rows that name no account (LinX batch search)', () => {
  it('pages on for another token that reads its record: the platform shows each token its own rows only', async () => {
    const linx = accountList(1, 30);
    const first = await reader(linx, 'acme-token-1').page({ first: 5 });
    const ids = linx.ids();
    linx.remove(ids[1]!);
    const renewed = reader(linx, 'acme-token-2');
    expect(idsOf(await renewed.page({ first: 5, after: first.pageInfo.endCursor! }))).toEqual(ids.slice(5, 10));
    expect(renewed.outcomes).toEqual(['moved']);
  });

  it("is refused to another token when its record is not among the rows read: its sort values may be another account's", async () => {
    const linx = accountList(1, 30);
    const first = await reader(linx, 'acme-token-1').page({ first: 5 });
    const ids = linx.ids();
    linx.remove(ids[4]!);
    expect(await reader(linx, 'acme-token-2').refusal({ first: 5, after: first.pageInfo.endCursor! })).toEqual([
      OTHER_CALLER, { code: 'BAD_USER_INPUT', argumentName: 'after', reason: 'CURSOR_OTHER_CALLER' },
    ]);
    // The token it was issued to finds its place by those values.
    const same = reader(linx, 'acme-token-1');
    expect(idsOf(await same.page({ first: 5, after: first.pageInfo.endCursor! }))).toEqual(ids.slice(5, 10));
    expect(same.outcomes).toEqual(['sort-keys']);
  });
});
