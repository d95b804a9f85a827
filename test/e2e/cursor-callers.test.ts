import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import type { ExceptionRecord } from '../../sandbox/data/records.ts';
import { startStack, type Stack } from '../support/stack.ts';
import { accountOf } from '../support/expected.ts';

// docs/security.md, "Cursors": whose cursor pages where, and each reason a cursor is refused for,
// through the gateway and the sandbox.

const PAGE = /* GraphQL */ `
  query Exceptions($first: Int, $after: String, $status: [ExceptionStatus!]) {
    exceptions(first: $first, after: $after, filter: { status: $status }) {
      edges { cursor node { id } }
      pageInfo { hasNextPage endCursor }
    }
  }
`;

/** A second token of Acme's account, as after a renewal (docs/sandbox.md). */
const RENEWED = 'demo-token-acme-renewed';

/** The cursor's own bytes (version, index), the binding digest, then the secret id. */
const SECRET_ID_AT = 11;

interface Page {
  exceptions: { edges: { cursor: string; node: { id: string } }[]; pageInfo: { hasNextPage: boolean; endCursor: string } } | null;
}

function changed(cursor: string, at: number, mask = 0x01): string {
  const bytes = Buffer.from(cursor, 'base64url');
  bytes[at] = (bytes[at] as number) ^ mask;
  return bytes.toString('base64url');
}

const idsOf = (page: Page) => page.exceptions!.edges.map((edge) => edge.node.id);

describe('cursors across tokens and accounts', () => {
  let stack: Stack;
  let acme: readonly ExceptionRecord[];
  beforeAll(async () => {
    stack = await startStack({ CURSOR_SECRET: 'the replicas of this deployment share it' });
    acme = stack.sandbox.store.exceptions(accountOf(stack.sandbox, stack.acme));
  });
  afterAll(() => stack.close());
  beforeEach(() => stack.sandbox.resetRequests());

  /** The refusal of `after` for `token`: the whole answer, and the platform calls it took. */
  async function refused(after: string, token: string, variables: Record<string, unknown> = {}) {
    stack.sandbox.resetRequests();
    const response = await stack.gql<Page>(PAGE, { first: 5, after, ...variables }, { token });
    return { body: response.body, calls: stack.platformCalls().length };
  }

  function refusal(reason: string, message: string) {
    return {
      data: { exceptions: null },
      errors: [{ message, path: ['exceptions'], locations: expect.any(Array), extensions: { code: 'BAD_USER_INPUT', argumentName: 'after', reason, requestId: expect.any(String) } }],
    };
  }

  it("pages on with a renewed token of the same account, from every edge's cursor and the endCursor", async () => {
    const first = await stack.gql<Page>(PAGE, { first: 5 });
    expect(idsOf(first.body.data!)).toEqual(acme.slice(0, 5).map((r) => r.id));
    const next = await stack.gql<Page>(PAGE, { first: 5, after: first.body.data!.exceptions!.pageInfo.endCursor }, { token: RENEWED });
    expect([next.body.errors, idsOf(next.body.data!)]).toEqual([undefined, acme.slice(5, 10).map((r) => r.id)]);
    for (const [index, edge] of first.body.data!.exceptions!.edges.entries()) {
      const from = await stack.gql<Page>(PAGE, { first: 2, after: edge.cursor }, { token: RENEWED });
      expect(idsOf(from.body.data!)).toEqual(acme.slice(index + 1, index + 3).map((r) => r.id));
    }
  });

  it("refuses another account's cursor with CURSOR_OTHER_CALLER after the one call that shows its rows, and never serves the first account's rows", async () => {
    const acmePage = await stack.gql<Page>(PAGE, { first: 5 });
    for (const edge of acmePage.body.data!.exceptions!.edges) {
      expect(await refused(edge.cursor, stack.globex)).toEqual({ body: refusal('CURSOR_OTHER_CALLER', "after cursor belongs to another account's list; restart paging without it"), calls: 1 });
    }
    // And the other way round.
    const globexPage = await stack.gql<Page>(PAGE, { first: 3 }, { token: stack.globex });
    expect(await refused(globexPage.body.data!.exceptions!.pageInfo.endCursor, RENEWED)).toEqual({
      body: refusal('CURSOR_OTHER_CALLER', "after cursor belongs to another account's list; restart paging without it"),
      calls: 1,
    });
  });

  it('refuses, before any platform call, a cursor that is malformed, changed, sealed under other keys or of another filter, each with its reason', async () => {
    const after = (await stack.gql<Page>(PAGE, { first: 5 })).body.data!.exceptions!.pageInfo.endCursor;
    const cases: [string, string, string, Record<string, unknown>?][] = [
      ['not a cursor', 'CURSOR_MALFORMED', 'after is not a cursor of this connection; pass a startCursor, endCursor or edge cursor from a previous page, or restart paging without it'],
      [changed(after, 60), 'CURSOR_TAMPERED', 'after cursor was changed after the gateway issued it; pass cursors back exactly as received, or restart paging without it'],
      [changed(after, SECRET_ID_AT), 'CURSOR_OTHER_KEYS', 'after cursor was sealed under keys this gateway does not hold (a rotated CURSOR_SECRET, another gateway instance, or an earlier cursor format); restart paging without it'],
      [after, 'CURSOR_OTHER_CONNECTION', 'after cursor does not belong to this filter/order; restart paging without it', { status: ['NEW'] }],
    ];
    for (const [cursor, reason, message, variables] of cases) {
      expect([reason, await refused(cursor, stack.acme, variables)]).toEqual([reason, { body: refusal(reason, message), calls: 0 }]);
    }
  });
});
