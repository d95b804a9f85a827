import { expect } from '@jest/globals';

interface PageInfo {
  hasNextPage: boolean;
  hasPreviousPage: boolean;
  startCursor: string | null;
  endCursor: string | null;
}

export interface ConnectionPage {
  edges: { cursor: string; node: { id: string } }[];
  pageInfo: PageInfo;
  totalCount: number | null;
}

/** One connection page through the gateway, failing the test on any GraphQL error. */
export async function fetchConnection(
  gql: (query: string, variables?: Record<string, unknown>, options?: { token?: string | null }) => Promise<{ body: { data?: unknown; errors?: unknown } }>,
  query: string,
  field: string,
  variables: Record<string, unknown>,
  token?: string,
): Promise<ConnectionPage> {
  const response = await gql(query, variables, { token });
  expect(response.body.errors).toBeUndefined();
  return (response.body.data as Record<string, ConnectionPage>)[field]!;
}

export type PageFetcher = (window: { first?: number; after?: string; last?: number; before?: string }) => Promise<ConnectionPage>;

/**
 * Walks a whole connection with `first: n` / `after`, asserting at every step that
 * the page is exactly the expected slice and that pageInfo is exact in both directions.
 */
export async function walkForward(fetch: PageFetcher, expectedIds: readonly string[], n: number, totalCount: number | null): Promise<number> {
  let after: string | undefined;
  let offset = 0;
  let calls = 0;
  for (;;) {
    const page = await fetch(after === undefined ? { first: n } : { first: n, after });
    calls++;
    const ids = page.edges.map((e) => e.node.id);
    expect(ids).toEqual(expectedIds.slice(offset, offset + n));
    expect(page.totalCount).toBe(totalCount);
    expect(page.pageInfo).toEqual({
      hasNextPage: offset + n < expectedIds.length,
      hasPreviousPage: offset > 0,
      startCursor: page.edges[0]?.cursor ?? null,
      endCursor: page.edges.at(-1)?.cursor ?? null,
    });
    offset += ids.length;
    if (!page.pageInfo.hasNextPage) break;
    after = page.pageInfo.endCursor!;
  }
  expect(offset).toBe(expectedIds.length);
  return calls;
}

/** Walks a whole connection backwards with `last: n` / `before`, from the end. */
export async function walkBackward(fetch: PageFetcher, expectedIds: readonly string[], n: number, totalCount: number | null): Promise<number> {
  let before: string | undefined;
  let end = expectedIds.length;
  let calls = 0;
  for (;;) {
    const page = await fetch(before === undefined ? { last: n } : { last: n, before });
    calls++;
    const start = Math.max(0, end - n);
    expect(page.edges.map((e) => e.node.id)).toEqual(expectedIds.slice(start, end));
    expect(page.totalCount).toBe(totalCount);
    expect(page.pageInfo).toEqual({
      hasNextPage: end < expectedIds.length,
      hasPreviousPage: start > 0,
      startCursor: page.edges[0]?.cursor ?? null,
      endCursor: page.edges.at(-1)?.cursor ?? null,
    });
    end = start;
    if (!page.pageInfo.hasPreviousPage) break;
    before = page.pageInfo.startCursor!;
  }
  expect(end).toBe(0);
  return calls;
}
