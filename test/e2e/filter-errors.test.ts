import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { startStack, type Stack } from '../support/stack.ts';
import { accountOf } from '../support/expected.ts';

// Bad list arguments, end to end over the sandbox: what the gateway refuses itself
// (before any platform call), and what the platform refuses, addressed to the argument.

let stack: Stack;
let exceptionIds: string[];

beforeAll(async () => {
  stack = await startStack();
  exceptionIds = stack.sandbox.store.exceptions(accountOf(stack.sandbox, stack.acme)).map((e) => e.id);
});
afterAll(() => stack.close());
beforeEach(() => stack.sandbox.resetRequests());

const EXCEPTIONS = 'query($filter: ExceptionFilter) { exceptions(filter: $filter, first: 1) { nodes { id } } }';
const DATE_MESSAGE = (value: string) => `DateTime must be an ISO 8601 date-time such as "2026-03-04T10:15:30.000Z" or "2026-03-04T10:15:30" (got "${value}")`;

describe('an impossible DateTime in a filter', () => {
  it.each(['2026-02-30T00:00:00', '2026-04-31T10:00:00Z'])('%s as a variable is refused with BAD_USER_INPUT, nothing sent', async (value) => {
    const response = await stack.gql(EXCEPTIONS, { filter: { createdFrom: value } });
    expect(response.status).toBe(400);
    expect(response.body.data).toBeUndefined();
    expect(response.body.errors).toHaveLength(1);
    expect(response.body.errors![0]!.message).toBe(`Variable "$filter" got invalid value "${value}" at "filter.createdFrom"; ${DATE_MESSAGE(value)}`);
    expect(response.body.errors![0]!.extensions!.code).toBe('BAD_USER_INPUT');
    expect(stack.platformCalls()).toEqual([]);
  });

  it('as a literal is refused by validation, nothing sent', async () => {
    const response = await stack.gql('{ exceptions(filter: { createdTo: "2026-02-30T00:00:00" }) { nodes { id } } }');
    expect(response.status).toBe(400);
    expect(response.body.errors![0]!.message).toBe(DATE_MESSAGE('2026-02-30T00:00:00'));
    expect(response.body.errors![0]!.extensions!.code).toBe('GRAPHQL_VALIDATION_FAILED');
    expect(stack.platformCalls()).toEqual([]);
  });
});

describe('an id that is no UUID in a filter', () => {
  // The platform refuses these too (a field error per parameter, re-addressed to its argument by
  // rethrowOnArguments: test/platform/argument-errors.test.ts); the gateway now refuses them first.
  const MESSAGE = (path: string, value: string) => `${path} must be a UUID such as 2b2be007-5446-4c55-9a88-9b68e639f075, got "${value}"`;

  it('names the GraphQL argument; the rest of the query answers; nothing is sent for it', async () => {
    const response = await stack.gql(
      'query($filter: ExceptionFilter) { exceptions(filter: $filter, first: 1) { nodes { id } } all: exceptions(first: 1) { nodes { id } } }',
      { filter: { assignedTo: ['not-a-user'] } },
    );
    expect(response.status).toBe(200);
    expect(response.body.data).toEqual({ exceptions: null, all: { nodes: [{ id: exceptionIds[0] }] } });
    expect(response.body.errors).toHaveLength(1);
    const [error] = response.body.errors!;
    expect(error!.path).toEqual(['exceptions']);
    expect(error!.message).toBe(MESSAGE('filter.assignedTo[0]', 'not-a-user'));
    const { stacktrace: _stacktrace, ...extensions } = error!.extensions!;
    expect(extensions).toEqual({ code: 'BAD_USER_INPUT', requestId: expect.any(String), field: ['filter', 'assignedTo', 0] });
    expect(stack.platformCalls().map((call) => call.path)).toEqual(['/exceptions']);
  });

  it('names the first refused id of a LinX search', async () => {
    const response = await stack.gql('{ linxBatches(filter: { templateId: "t-1", templateVersionId: "v-1" }) { nodes { id } } }');
    expect(response.body.data).toEqual({ linxBatches: null });
    expect(response.body.errors![0]!.message).toBe(MESSAGE('filter.templateId', 't-1'));
    expect(response.body.errors![0]!.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: ['filter', 'templateId'] });
    expect(stack.platformCalls()).toEqual([]);
  });

  it('names the account id of an acceptance list', async () => {
    const response = await stack.gql('{ documentAcceptances(financialAccountId: "acct-1") { nodes { id } } }');
    expect(response.body.data).toEqual({ documentAcceptances: null });
    expect(response.body.errors![0]!.message).toBe(MESSAGE('financialAccountId', 'acct-1'));
    expect(response.body.errors![0]!.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: ['financialAccountId'] });
    expect(stack.platformCalls()).toEqual([]);
  });
});
