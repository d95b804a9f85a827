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

describe('a filter the platform refuses', () => {
  it('names the GraphQL argument of each platform field error; the rest of the query answers', async () => {
    const response = await stack.gql(
      'query($filter: ExceptionFilter) { exceptions(filter: $filter, first: 1) { nodes { id } } all: exceptions(first: 1) { nodes { id } } }',
      { filter: { assignedTo: ['not-a-user'] } },
    );
    expect(response.status).toBe(200);
    expect(response.body.data).toEqual({ exceptions: null, all: { nodes: [{ id: exceptionIds[0] }] } });
    expect(response.body.errors).toHaveLength(1);
    const [error] = response.body.errors!;
    expect(error!.path).toEqual(['exceptions']);
    expect(error!.message).toBe('The platform rejected the request (HTTP 400): Request validation failed');
    // Outside production mode errors carry a stack trace; the rest is exact.
    const { stacktrace: _stacktrace, ...extensions } = error!.extensions!;
    expect(extensions).toEqual({
      code: 'BAD_USER_INPUT',
      requestId: expect.any(String),
      upstream: { status: 400, traceId: expect.any(String), errorCode: 'VALIDATION_ERROR' },
      field: ['filter', 'assignedTo'],
      fieldErrors: [{ field: ['filter', 'assignedTo'], message: '"not-a-user" must be a user id (UUID) or UNASSIGNED', code: 'INVALID_FORMAT' }],
    });
  });

  it('lists every refused argument of a LinX search', async () => {
    const response = await stack.gql('{ linxBatches(filter: { templateId: "t-1", templateVersionId: "v-1" }) { nodes { id } } }');
    expect(response.body.data).toEqual({ linxBatches: null });
    expect(response.body.errors![0]!.extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      field: ['filter', 'templateId'],
      fieldErrors: [
        { field: ['filter', 'templateId'], message: 'must be a UUID', code: 'INVALID_FORMAT' },
        { field: ['filter', 'templateVersionId'], message: 'must be a UUID', code: 'INVALID_FORMAT' },
      ],
    });
  });

  it('names the account id of an acceptance list', async () => {
    const response = await stack.gql('{ documentAcceptances(financialAccountId: "acct-1") { nodes { id } } }');
    expect(response.body.data).toEqual({ documentAcceptances: null });
    expect(response.body.errors![0]!.extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      field: ['financialAccountId'],
      fieldErrors: [{ field: ['financialAccountId'], message: 'must be a UUID', code: 'INVALID_FORMAT' }],
    });
  });
});
