import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from '@jest/globals';
import { createLogger } from '../../src/logger.ts';
import type { ExceptionRecord } from '../../sandbox/data/records.ts';
import { startStack, type Stack } from '../support/stack.ts';
import { accountOf } from '../support/expected.ts';
import { fetchConnection, type ConnectionPage } from '../support/walk.ts';

const PAGE = /* GraphQL */ `
  query Exceptions($filter: ExceptionFilter, $first: Int, $after: String, $last: Int, $before: String) {
    exceptions(filter: $filter, first: $first, after: $after, last: $last, before: $before) {
      edges { cursor node { id } }
      pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
      totalCount
    }
  }
`;

let stack: Stack | undefined;
afterEach(async () => {
  await stack?.close();
  stack = undefined;
});

const ids = (list: readonly { id: string }[]) => list.map((record) => record.id);
const idsOf = (page: ConnectionPage) => page.edges.map((edge) => edge.node.id);

/** The account's exceptions as the platform lists them now (createdAt DESC, id ASC), filtered. */
function listNow(s: Stack, keep: (record: ExceptionRecord) => boolean = () => true): ExceptionRecord[] {
  return s.sandbox.store.exceptions(accountOf(s.sandbox, s.acme)).filter(keep);
}

function upstreamPages(s: Stack): [string | null, string | null][] {
  return s.platformCalls().map((call) => {
    const query = new URLSearchParams(call.query);
    return [query.get('page'), query.get('size')];
  });
}

/** Resolves once the live timer has made a change beyond the first `seen`. */
function changeAfter(s: Stack, seen: number): Promise<void> {
  return new Promise((resolve) => {
    const poll = setInterval(() => {
      if (s.sandbox.live.changes().length > seen) {
        clearInterval(poll);
        resolve();
      }
    }, 5);
  });
}

describe('walks over a list that changes underneath them', () => {
  const walking = ['NEW', 'IN_PROGRESS'];
  const inFilter = (record: ExceptionRecord) => walking.includes(record.status);

  it.each([
    ['the whole list, as exceptions arrive', undefined, () => true],
    ['a status filter, as exceptions arrive and leave it', { status: walking }, inFilter],
  ] as const)('walks %s: every exception that stays is returned once, in order', async (_, filter, keep) => {
    stack = await startStack({}, { live: true, liveIntervalMs: 0 });
    const s = stack;
    const order = new Map(ids(listNow(s)).map((id, index) => [id, index]));
    let stayed = new Set(ids(listNow(s, keep)));
    const returned: string[] = [];
    let after: string | null = null;
    let arrivedBeforePosition = 0;
    let leftAfterBeingSeen = 0;
    for (let step = 0; ; step++) {
      if (step > 0) {
        // Three steps between pages: three arrivals at the head, and exceptions moving between statuses.
        const changes = [...s.sandbox.live.step(), ...s.sandbox.live.step(), ...s.sandbox.live.step()].filter(
          (change) => change.businessAccountId === accountOf(s.sandbox, s.acme),
        );
        arrivedBeforePosition += changes.filter((change) => change.kind === 'arrived').length;
        leftAfterBeingSeen += changes.filter((change) => change.kind === 'status' && returned.includes(change.id) && walking.includes(change.from) && !walking.includes(change.to)).length;
        const now = new Set(ids(listNow(s, keep)));
        stayed = new Set([...stayed].filter((id) => now.has(id)));
      }
      const page = await fetchConnection(s.gql, PAGE, 'exceptions', { first: 10, after, filter });
      // Each page is a run of the list as it is at its request, with totals and pageInfo of that list.
      const list = ids(listNow(s, keep));
      const first = list.indexOf(idsOf(page)[0]!);
      expect(idsOf(page)).toEqual(list.slice(first, first + page.edges.length));
      expect(page.totalCount).toBe(list.length);
      expect(page.pageInfo.hasNextPage).toBe(first + page.edges.length < list.length);
      expect(page.pageInfo.hasPreviousPage).toBe(first > 0);
      returned.push(...idsOf(page));
      if (!page.pageInfo.hasNextPage) break;
      after = page.pageInfo.endCursor;
    }
    // The list did change under the walk, on both sides of its position.
    expect(arrivedBeforePosition).toBeGreaterThan(30);
    if (filter) expect(leftAfterBeingSeen).toBeGreaterThan(0);
    // No exception twice; every one that stayed in the list exactly once; arrivals (all at the head,
    // behind the walk's position) never; everything in the list's order.
    expect(new Set(returned).size).toBe(returned.length);
    expect([...stayed].filter((id) => !returned.includes(id))).toEqual([]);
    expect(returned.every((id) => order.has(id))).toBe(true);
    expect([...returned].sort((a, b) => order.get(a)! - order.get(b)!)).toEqual(returned);
  });

  it('walks backwards while exceptions arrive and leave a status filter', async () => {
    stack = await startStack({}, { live: true, liveIntervalMs: 0 });
    const s = stack;
    const filter = { status: walking };
    const order = new Map(ids(listNow(s)).map((id, index) => [id, index]));
    let stayed = new Set(ids(listNow(s, inFilter)));
    const returned: string[] = [];
    let before: string | null = null;
    for (let step = 0; ; step++) {
      if (step > 0) {
        s.sandbox.live.step();
        s.sandbox.live.step();
        const now = new Set(ids(listNow(s, inFilter)));
        stayed = new Set([...stayed].filter((id) => now.has(id)));
      }
      const page = await fetchConnection(s.gql, PAGE, 'exceptions', { last: 10, before, filter });
      returned.unshift(...idsOf(page));
      if (!page.pageInfo.hasPreviousPage) break;
      before = page.pageInfo.startCursor;
    }
    expect(new Set(returned).size).toBe(returned.length);
    expect([...stayed].filter((id) => !returned.includes(id))).toEqual([]);
    // Arrivals come before the walk's position in a backward walk too: all are returned, newest first.
    const known = returned.filter((id) => order.has(id));
    expect([...known].sort((a, b) => order.get(a)! - order.get(b)!)).toEqual(known);
  });

  it('walks the whole list while live mode runs on its own timer', async () => {
    stack = await startStack({}, { live: true, liveIntervalMs: 15 });
    const s = stack;
    const atStart = ids(listNow(s));
    const returned: string[] = [];
    let after: string | null = null;
    for (;;) {
      // The timer changes the list whenever it fires, during requests too; each page waits for at
      // least one change since the previous one, so every page sees a different list.
      if (after !== null) await changeAfter(s, s.sandbox.live.changes().length);
      const page = await fetchConnection(s.gql, PAGE, 'exceptions', { first: 10, after });
      returned.push(...idsOf(page));
      if (!page.pageInfo.hasNextPage) break;
      after = page.pageInfo.endCursor;
    }
    // Nothing leaves the unfiltered list and every arrival is newer than the walk's position: the
    // walk returns the list as it was at its first request, which is what was read before it plus
    // what arrived before that request.
    const head = returned.indexOf(atStart[0]!);
    expect(returned.slice(head)).toEqual(atStart);
    expect(returned.slice(0, head).filter((id) => atStart.includes(id))).toEqual([]);
  });
});

/** Every log line the gateway writes, parsed. */
class LogLines extends Writable {
  readonly lines: Record<string, unknown>[] = [];
  override _write(chunk: Buffer, _encoding: string, done: () => void) {
    for (const line of chunk.toString().split('\n').filter(Boolean)) this.lines.push(JSON.parse(line) as Record<string, unknown>);
    done();
  }
}

describe('telling how a cursor was found again', () => {
  it('logs and counts a cursor whose record moved', async () => {
    const log = new LogLines();
    stack = await startStack({}, { live: true, liveIntervalMs: 0 }, createLogger('info', { destination: log }));
    const s = stack;
    const first = await fetchConnection(s.gql, PAGE, 'exceptions', { first: 10 });
    s.sandbox.live.step();
    // One exception arrived at the head: the cursor's record is one row further down.
    const second = await fetchConnection(s.gql, PAGE, 'exceptions', { first: 10, after: first.pageInfo.endCursor });
    expect(idsOf(second)).toEqual(ids(listNow(s)).slice(11, 21));
    const lines = log.lines.filter((line) => line.msg === 'cursor record was not where the cursor left it');
    expect(lines.map((line) => [line.list, line.anchor, typeof line.requestId])).toEqual([['exceptions', 'moved', 'string']]);
    const metrics = await (await fetch(`${s.gateway.url}/metrics`)).text();
    expect(metrics).toContain('connection_cursor_anchors_total{list="exceptions",outcome="moved"} 1');
    expect(metrics).not.toContain('outcome="exact"');
  });
});

describe('a platform that silently serves fewer rows than asked', () => {
  it('learns the cap from the envelope, re-plans with it and returns exact windows', async () => {
    const log = new LogLines();
    stack = await startStack({}, { maxPageSize: 25 }, createLogger('info', { destination: log }));
    const s = stack;
    const all = ids(listNow(s));

    // Asked for 40, served 25 with hasNext: the 25 rows are placed as page 0 of 25, and the rest
    // is fetched with a plan of pages no larger than 25.
    const first = await fetchConnection(s.gql, PAGE, 'exceptions', { first: 40 });
    expect(idsOf(first)).toEqual(all.slice(0, 40));
    expect([first.totalCount, first.pageInfo.hasNextPage, first.pageInfo.hasPreviousPage]).toEqual([300, true, false]);
    expect(upstreamPages(s)).toEqual([
      ['0', '40'],
      ['1', '20'],
    ]);

    // Once learned, the cap plans every window from the start: rows 8..40 and the cursor's own row 7.
    s.sandbox.resetRequests();
    const unaligned = await fetchConnection(s.gql, PAGE, 'exceptions', { first: 33, after: first.edges[7]!.cursor });
    expect(idsOf(unaligned)).toEqual(all.slice(8, 41));
    expect([unaligned.totalCount, unaligned.pageInfo.hasNextPage, unaligned.pageInfo.hasPreviousPage]).toEqual([300, true, true]);
    expect(upstreamPages(s)).toEqual([
      ['0', '21'],
      ['1', '21'],
    ]);

    const metrics = await (await fetch(`${s.gateway.url}/metrics`)).text();
    expect(metrics).toContain('upstream_page_size_cap{list="exceptions"} 25');
    // Said once, when learned.
    expect(log.lines.filter((line) => line.pageCap !== undefined).map((line) => [line.level, line.list, line.pageCap])).toEqual([[40, 'exceptions', 25]]);
    expect(metrics).toContain('connection_cursor_anchors_total{list="exceptions",outcome="exact"} 1');
  });

  it('takes one extra call to learn the cap in the middle of a walk, losing and repeating nothing', async () => {
    stack = await startStack({}, { maxPageSize: 25 });
    const s = stack;
    const all = ids(listNow(s));
    // A cursor at row 7 of the list, made before the platform ever showed its cap.
    const seven = (await fetchConnection(s.gql, PAGE, 'exceptions', { first: 8 })).edges[7]!.cursor;
    s.sandbox.resetRequests();
    const page = await fetchConnection(s.gql, PAGE, 'exceptions', { first: 33, after: seven });
    expect(idsOf(page)).toEqual(all.slice(8, 41));
    // The first call asked for rows 7..40 in one page and got rows 0..24; the second fetches the rest
    // with the cap it just learned.
    expect(upstreamPages(s)).toEqual([
      ['0', '41'],
      ['1', '21'],
    ]);
    let after: string | null = page.pageInfo.endCursor;
    const rest: string[] = [];
    while (after !== null) {
      const next = await fetchConnection(s.gql, PAGE, 'exceptions', { first: 40, after });
      rest.push(...idsOf(next));
      after = next.pageInfo.hasNextPage ? next.pageInfo.endCursor : null;
    }
    expect(rest).toEqual(all.slice(41));
  });
});
