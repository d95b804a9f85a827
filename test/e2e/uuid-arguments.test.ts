import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { createClient } from 'graphql-sse';
import { startStack, type Stack } from '../support/stack.ts';
import { accountOf } from '../support/expected.ts';

// Every id the contract makes a UUID is checked before any platform call, in queries, the mutation,
// subscriptions and entity lookups: BAD_USER_INPUT naming the argument, and the platform sees nothing.

let stack: Stack;
let account: string;
let financialAccount: string;
let template: { templateId: string; versions: readonly { templateVersionId: string }[] };

beforeAll(async () => {
  stack = await startStack();
  account = accountOf(stack.sandbox, stack.acme);
  financialAccount = stack.sandbox.store.financialAccounts(account)[0]!;
  template = stack.sandbox.store.linxTemplates(account)[0]!;
});
afterAll(() => stack.close());
beforeEach(() => stack.sandbox.resetRequests());

const message = (path: string, value: string) => `${path} must be a UUID such as 2b2be007-5446-4c55-9a88-9b68e639f075, got ${JSON.stringify(value)}`;
const refusal = (path: string, value: string, field: (string | number)[]) => ({ message: message(path, value), extensions: { code: 'BAD_USER_INPUT', field } });

/** The errors of an answer, without what varies (request id, locations, stack traces). */
function errorsOf(body: { errors?: { message: string; path?: unknown; extensions?: Record<string, unknown> }[] }) {
  return body.errors?.map(({ message: text, path, extensions }) => {
    const { requestId: _id, stacktrace: _stack, ...rest } = extensions ?? {};
    return { message: text, ...(path === undefined ? {} : { path }), extensions: rest };
  });
}

describe('a malformed id in a query or the mutation', () => {
  it.each([
    ['document(id)', 'query($v: ID!) { document(id: $v) { id } }', 'x', 'document', refusal('id', 'x', ['id'])],
    ['documentAcceptances(financialAccountId)', 'query($v: ID!) { documentAcceptances(financialAccountId: $v) { nodes { id } } }', '12345', 'documentAcceptances', refusal('financialAccountId', '12345', ['financialAccountId'])],
    ['a UUID a digit short', 'query($v: ID!) { document(id: $v) { id } }', '0C199A01-565A-4AEA-AF07-69C1838F287', 'document', refusal('id', '0C199A01-565A-4AEA-AF07-69C1838F287', ['id'])],
  ])('%s is refused, naming the argument, with no platform call', async (_, query, value, field, error) => {
    const response = await stack.gql(query, { v: value });
    expect(response.status).toBe(200);
    expect(response.body.data).toEqual({ [field]: null });
    expect(errorsOf(response.body)).toEqual([{ ...error, path: [field] }]);
    expect(stack.platformCalls()).toEqual([]);
  });

  it('refuses a LinX filter naming each id in turn, and the rest of the query answers', async () => {
    const version = template.versions[0]!.templateVersionId;
    const query = 'query($a: LinxBatchFilter!, $b: LinxBatchFilter!) { a: linxBatches(filter: $a, first: 1) { nodes { id } } b: linxBatches(filter: $b, first: 1) { nodes { id } } }';
    const response = await stack.gql(query, { a: { templateId: 'not-a-uuid', templateVersionId: version }, b: { templateId: template.templateId, templateVersionId: `${version}0` } });
    expect(response.body.data).toEqual({ a: null, b: null });
    expect(errorsOf(response.body)).toEqual([
      { ...refusal('filter.templateId', 'not-a-uuid', ['filter', 'templateId']), path: ['a'] },
      { ...refusal('filter.templateVersionId', `${version}0`, ['filter', 'templateVersionId']), path: ['b'] },
    ]);
    expect(stack.platformCalls()).toEqual([]);
  });

  it('refuses an assignee that is no id, by its place in the list', async () => {
    const assignee = stack.sandbox.store.assignees(account)[0]!.id;
    const response = await stack.gql('query($f: ExceptionFilter) { exceptions(filter: $f) { nodes { id } } }', { f: { assignedTo: [assignee, 'UNASSIGNED'] } });
    expect(errorsOf(response.body)).toEqual([{ ...refusal('filter.assignedTo[1]', 'UNASSIGNED', ['filter', 'assignedTo', 1]), path: ['exceptions'] }]);
    expect(stack.platformCalls()).toEqual([]);
  });

  it('refuses updateDocument for an id that is none, before its rules and any platform call', async () => {
    const response = await stack.gql('mutation($i: UpdateDocumentInput!) { updateDocument(input: $i) { document { id } userErrors { field } } }', { i: { id: 'doc-1', documentType: 'PASSPORT', name: '' } });
    expect(response.body.data).toEqual({ updateDocument: null });
    expect(errorsOf(response.body)).toEqual([{ ...refusal('input.id', 'doc-1', ['input', 'id']), path: ['updateDocument'] }]);
    expect(stack.platformCalls()).toEqual([]);
  });

  it('refuses an entity representation whose id is none, naming its place', async () => {
    const document = stack.sandbox.store.documents(account)[0]!.id;
    const response = await stack.gql('query($r: [_Any!]!) { _entities(representations: $r) { ... on Document { id } } }', {
      r: [{ __typename: 'Document', id: document }, { __typename: 'FinancialAccount', id: 42 }],
    });
    expect(response.body.data).toBeNull();
    expect(errorsOf(response.body)).toEqual([{ ...refusal('representations[1].id', '42', ['representations', 1, 'id']), path: ['_entities'] }]);
    expect(stack.platformCalls()).toEqual([]);
  });

  it('passes every well-formed id on, in either case', async () => {
    const document = stack.sandbox.store.documents(account)[0]!.id;
    const response = await stack.gql('query($d: ID!, $f: ID!) { document(id: $d) { id } documentAcceptances(financialAccountId: $f, first: 1) { nodes { id } } }', { d: document.toUpperCase(), f: financialAccount });
    expect(response.body.errors).toBeUndefined();
    expect((response.body.data as { document: { id: string } }).document.id).toBe(document);
  });
});

describe('a malformed id in a subscription', () => {
  it.each([
    ['documentChanged(id)', 'subscription($v: ID!) { documentChanged(id: $v) { id } }', { v: '..' }, 'documentChanged', refusal('id', '..', ['id'])],
    ['documentAcceptancesAdded(financialAccountId)', 'subscription($v: ID!) { documentAcceptancesAdded(financialAccountId: $v) { cursor } }', { v: '12345' }, 'documentAcceptancesAdded', refusal('financialAccountId', '12345', ['financialAccountId'])],
    ['linxBatchesChanged(filter.templateId)', 'subscription($v: LinxBatchFilter!) { linxBatchesChanged(filter: $v) { cursor } }', { v: { templateId: 'not-a-uuid', templateVersionId: '2b2be007-5446-4c55-9a88-9b68e639f075' } }, 'linxBatchesChanged', refusal('filter.templateId', 'not-a-uuid', ['filter', 'templateId'])],
    ['exceptionsChanged(filter.assignedTo)', 'subscription($v: ExceptionFilter) { exceptionsChanged(filter: $v) { cursor } }', { v: { assignedTo: ['u1'] } }, 'exceptionsChanged', refusal('filter.assignedTo[0]', 'u1', ['filter', 'assignedTo', 0])],
  ])('%s ends at once with the refusal, and nothing is polled', async (_, query, variables, field, error) => {
    const client = createClient({ url: `${stack.gateway.url}/graphql`, headers: { authorization: `Bearer ${stack.acme}` } });
    const results: { errors?: { message: string; path?: unknown; extensions?: Record<string, unknown> }[] }[] = [];
    for await (const result of client.iterate({ query, variables })) results.push(result as (typeof results)[number]);
    client.dispose();
    expect(results.map(errorsOf)).toEqual([[{ ...error, path: [field] }]]);
    expect(stack.platformCalls()).toEqual([]);
  });
});
