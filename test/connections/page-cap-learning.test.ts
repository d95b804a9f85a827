import { afterEach, describe, expect, it } from '@jest/globals';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { testConfig } from '../../src/settings/config.ts';
import { PAGE_CAP_FLOOR } from '../../src/connections/index.ts';
import { createLogger } from '../../src/logger.ts';
import { startGateway, type Gateway } from '../../src/server.ts';
import { bearer, postGraphQL, postJson } from '../support/graphql-client.ts';
import { LogCapture } from '../support/log-capture.ts';
import { item, type Item } from './keyed-platform.ts';

/** 300 exceptions, newest first, as GET /exceptions holds them. */
const EXCEPTIONS = Array.from({ length: 300 }, (_, index) => item(300 - index));

/** The platform's page envelope of `size` rows from page `page`, as Spring Data computes it. */
function envelope(page: number, size: number, rows: readonly Item[] = EXCEPTIONS) {
  const content = rows.slice(page * size, page * size + size);
  const totalPages = Math.ceil(rows.length / size);
  return { totalElements: rows.length, totalPages, number: page, numberOfElements: content.length, hasNext: page + 1 < totalPages, content };
}

type Answer = (page: number, size: number, call: number) => unknown;

interface FakePlatform {
  url: string;
  /** page and size of every GET /exceptions, in order. */
  calls: [number, number][];
  close(): Promise<void>;
}

/** A platform on a free loopback port answering GET /exceptions with `answer`. */
async function fakePlatform(answer: Answer): Promise<FakePlatform> {
  const calls: [number, number][] = [];
  let count = 0;
  const server: Server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://platform');
    if (url.pathname !== '/exceptions') {
      response.writeHead(404).end();
      return;
    }
    const page = Number(url.searchParams.get('page'));
    const size = Number(url.searchParams.get('size'));
    const body = JSON.stringify(answer(page, size, count++));
    calls.push([page, size]);
    response.writeHead(200, { 'content-type': 'application/json' }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    calls,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const PAGE = `query Page($first: Int) { exceptions(first: $first) { edges { node { id } } pageInfo { hasNextPage } totalCount } }`;

let platform: FakePlatform | undefined;
let gateway: Gateway | undefined;

afterEach(async () => {
  await gateway?.close();
  await platform?.close();
  gateway = platform = undefined;
});

async function gatewayOver(answer: Answer, log: LogCapture) {
  platform = await fakePlatform(answer);
  gateway = await startGateway(testConfig(), platform.url, { logger: createLogger('info', { destination: log }) });
  const url = gateway.url;
  return async (first: number, token: string) => {
    const { body } = await postGraphQL<{ exceptions: { edges: { node: { id: string } }[]; pageInfo: { hasNextPage: boolean }; totalCount: number } }>(`${url}/graphql`, { query: PAGE, variables: { first } }, bearer(token));
    expect(body.errors).toBeUndefined();
    return body.data!.exceptions;
  };
}

describe('one answer cannot lower the page size of every later request', () => {
  it('learns no cap from an envelope whose totalPages no page size explains', async () => {
    const log = new LogCapture();
    // The first answer is short and claims a billion pages; every later one is honest.
    const page = await gatewayOver((index, size, call) => (call === 0 ? { ...envelope(index, 40), totalPages: 1e9, hasNext: false } : envelope(index, size)), log);
    await page(100, 'tenant-a');
    const calls = platform!.calls.splice(0);
    expect(calls).toEqual([[0, 100]]);

    const other = await page(100, 'tenant-b');
    expect(other.edges.map((edge) => edge.node.id)).toEqual(EXCEPTIONS.slice(0, 100).map((row) => row.id));
    expect([other.pageInfo.hasNextPage, other.totalCount]).toEqual([true, 300]);
    // One call of the configured size: nothing was learned from the contradictory answer.
    expect(platform!.calls).toEqual([[0, 100]]);
    expect(log.lines().filter((line) => line.pageCap !== undefined)).toEqual([]);
    const metrics = await (await fetch(`${gateway!.url}/metrics`)).text();
    expect(metrics).not.toContain('upstream_page_size_cap{');
  });

  it(`plans with no fewer than ${PAGE_CAP_FLOOR} rows a page after an answer that shows a smaller cap`, async () => {
    const log = new LogCapture();
    // A consistent answer of a platform serving one row a page, then an honest platform.
    const page = await gatewayOver((index, size, call) => (call === 0 ? envelope(index, 1) : envelope(index, size)), log);
    await page(100, 'tenant-a');
    platform!.calls.splice(0);
    const other = await page(100, 'tenant-b');
    expect(other.edges.map((edge) => edge.node.id)).toEqual(EXCEPTIONS.slice(0, 100).map((row) => row.id));
    expect(platform!.calls).toEqual(Array.from({ length: 10 }, (_, index) => [index, PAGE_CAP_FLOOR]));
    expect(log.lines().filter((line) => line.pageCap !== undefined).map((line) => [line.list, line.pageCap])).toEqual([['exceptions', 1]]);
  });
});

describe('a plan of several pages reads nothing past the end its first answer shows', () => {
  it('asks the later pages of a plan only up to the total the first page reported', async () => {
    const log = new LogCapture();
    const nine = EXCEPTIONS.slice(0, 9);
    // A platform capping pages at 7 rows, over a list of 9.
    const page = await gatewayOver((index, size) => envelope(index, Math.min(size, 7), nine), log);
    const learning = await page(99, 'tenant-a');
    expect(learning.edges.map((edge) => edge.node.id)).toEqual(nine.map((row) => row.id));
    expect(platform!.calls.splice(0)).toEqual([
      [0, 99],
      [2, 3],
    ]);
    // Planned with the learned cap (at the floor, 10): ten pages of 10, of which the first tells the
    // list ends at 9; the rows it lacks come with one call joined to the rows held.
    const next = await page(99, 'tenant-b');
    expect([next.edges.map((edge) => edge.node.id), next.pageInfo.hasNextPage, next.totalCount]).toEqual([nine.map((row) => row.id), false, 9]);
    expect(platform!.calls).toEqual([
      [0, 10],
      [2, 3],
    ]);
  });
});

describe('what the request that learns a cap is priced', () => {
  it('the plan it was estimated with, plus the calls it plans once an answer shows the cap; the next request its plan under the cap', async () => {
    const log = new LogCapture();
    // A platform capping pages at 25 rows, over 300.
    await gatewayOver((index, size) => envelope(index, Math.min(size, 25)), log);
    const cost = async (token: string) => {
      const response = await postJson(`${gateway!.url}/graphql`, { query: '{ exceptions(first: 100) { nodes { id } } }' }, bearer(token));
      const body = (await response.json()) as { errors?: unknown; extensions: { cost: unknown } };
      expect(body.errors).toBeUndefined();
      return [body.extensions.cost, platform!.calls.splice(0).length];
    };
    // One page of 100 estimated; it comes back with 25 rows, and the four pages of 25 that complete
    // the window (joined to the rows held at row 24) are priced as they are planned.
    expect(await cost('tenant-a')).toEqual([{ requestedQueryCost: 5, actualQueryCost: 5 }, 5]);
    expect(await cost('tenant-b')).toEqual([{ requestedQueryCost: 4, actualQueryCost: 4 }, 4]);
  });
});
