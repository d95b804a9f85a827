import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import type { ExceptionRecord } from '../../sandbox/data/records.ts';
import { startStack, type Stack } from '../support/stack.ts';
import { accountOf } from '../support/expected.ts';

// docs/security.md, "Cursors": each sentence about whose cursor pages where, through the gateway and the sandbox.

const PAGE = /* GraphQL */ `
  query Exceptions($first: Int, $after: String) {
    exceptions(first: $first, after: $after) {
      edges { cursor node { id } }
      pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
    }
  }
`;

const MALFORMED = 'after is not a cursor of this connection; pass a startCursor, endCursor or edge cursor from a previous page, or restart paging without it';

/** Version, position (one byte below 128), 8 bytes of the binding's hash, 16 of the seal's tag: then the key id's 4 bytes. */
const KEY_ID_AT = 26;

interface Page {
  exceptions: { edges: { cursor: string; node: { id: string } }[]; pageInfo: { hasNextPage: boolean; hasPreviousPage: boolean; startCursor: string; endCursor: string } };
}

/** The cursor with the bytes from `at` on XOR-ed with `mask`. */
function changed(cursor: string, at: number, ...mask: number[]): string {
  const bytes = Buffer.from(cursor, 'base64url');
  mask.forEach((value, index) => {
    bytes[at + index] = (bytes[at + index] as number) ^ value;
  });
  return bytes.toString('base64url');
}

function suite(env: Record<string, string>) {
  const state: { stack: Stack; acme: readonly ExceptionRecord[]; globex: readonly ExceptionRecord[] } = {} as never;
  beforeAll(async () => {
    state.stack = await startStack(env);
    state.acme = state.stack.sandbox.store.exceptions(accountOf(state.stack.sandbox, state.stack.acme));
    state.globex = state.stack.sandbox.store.exceptions(accountOf(state.stack.sandbox, state.stack.globex));
  });
  afterAll(() => state.stack.close());
  beforeEach(() => state.stack.sandbox.resetRequests());
  return state;
}

const idsOf = (page: Page) => page.exceptions.edges.map((edge) => edge.node.id);

describe('cursors bound to their caller (no CURSOR_SECRET)', () => {
  const state = suite({});

  it('pages on for the caller it was issued to, whatever the spelling of its Authorization header', async () => {
    const { stack, acme } = state;
    const first = await stack.gql<Page>(PAGE, { first: 5 });
    expect(idsOf(first.body.data!)).toEqual(acme.slice(0, 5).map((r) => r.id));
    const after = first.body.data!.exceptions.pageInfo.endCursor;
    for (const authorization of [`Bearer ${stack.acme}`, `bearer   ${stack.acme}`, `BEARER ${stack.acme}  `]) {
      const next = await stack.gql<Page>(PAGE, { first: 5, after }, { token: null, headers: { authorization } });
      expect([authorization, next.body.errors, idsOf(next.body.data!)]).toEqual([authorization, undefined, acme.slice(5, 10).map((r) => r.id)]);
    }
  });

  it("refuses another caller's cursor, before any platform call, rather than placing that caller's page by its sort values", async () => {
    const { stack } = state;
    const acmePage = await stack.gql<Page>(PAGE, { first: 5 });
    const after = acmePage.body.data!.exceptions.pageInfo.endCursor;
    stack.sandbox.resetRequests();
    const response = await stack.gql<Page>(PAGE, { first: 5, after }, { token: stack.globex });
    expect(response.body).toEqual({
      data: { exceptions: null },
      errors: [{ message: MALFORMED, path: ['exceptions'], locations: expect.any(Array), extensions: { code: 'BAD_USER_INPUT', argumentName: 'after', requestId: expect.any(String) } }],
    });
    expect(stack.platformCalls()).toHaveLength(0);
    // And the other way round, each edge's cursor.
    const globexPage = await stack.gql<Page>(PAGE, { first: 3 }, { token: stack.globex });
    for (const edge of globexPage.body.data!.exceptions.edges) {
      const refused = await stack.gql<Page>(PAGE, { first: 5, after: edge.cursor });
      expect(refused.body.errors?.map((error) => error.message)).toEqual([MALFORMED]);
    }
  });

  it('reads a cursor of another key (another instance, a run before a restart) by its clear position alone', async () => {
    const { stack, acme } = state;
    const first = await stack.gql<Page>(PAGE, { first: 5 });
    const otherKey = changed(first.body.data!.exceptions.pageInfo.endCursor, KEY_ID_AT, 0x01);
    const next = await stack.gql<Page>(PAGE, { first: 5, after: otherKey });
    expect(next.body.errors).toBeUndefined();
    expect(idsOf(next.body.data!)).toEqual(acme.slice(5, 10).map((r) => r.id));
    // Its position alone: for another caller, at that position of that caller's own list.
    const globex = await stack.gql<Page>(PAGE, { first: 5, after: otherKey }, { token: stack.globex });
    expect(idsOf(globex.body.data!)).toEqual(state.globex.slice(5, 10).map((r) => r.id));
  });
});

describe('cursors bound to their caller, with CURSOR_SECRET', () => {
  const state = suite({ CURSOR_SECRET: 'the replicas of this deployment share it' });

  it('refuses a cursor whose key id was changed, its position rewritten or not', async () => {
    const { stack, acme } = state;
    const first = await stack.gql<Page>(PAGE, { first: 5 });
    const after = first.body.data!.exceptions.pageInfo.endCursor;
    expect(idsOf((await stack.gql<Page>(PAGE, { first: 5, after })).body.data!)).toEqual(acme.slice(5, 10).map((r) => r.id));
    stack.sandbox.resetRequests();
    const forged = [
      ...[0, 1, 2, 3].map((index) => changed(after, KEY_ID_AT + index, 0x80)),
      // Position 4 rewritten to 0.
      changed(changed(after, KEY_ID_AT, 0x01), 1, 4),
    ];
    for (const cursor of forged) {
      const response = await stack.gql<Page>(PAGE, { first: 5, after: cursor });
      expect([cursor, response.body.data, response.body.errors?.map((error) => [error.message, error.extensions?.code])]).toEqual([
        cursor,
        { exceptions: null },
        [[MALFORMED, 'BAD_USER_INPUT']],
      ]);
    }
    expect(stack.platformCalls()).toHaveLength(0);
  });

  it("refuses another caller's cursor", async () => {
    const { stack } = state;
    const first = await stack.gql<Page>(PAGE, { first: 5 });
    const response = await stack.gql<Page>(PAGE, { first: 5, after: first.body.data!.exceptions.pageInfo.endCursor }, { token: stack.globex });
    expect(response.body.errors?.map((error) => error.message)).toEqual([MALFORMED]);
  });
});
