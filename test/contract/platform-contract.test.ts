import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startSandbox, type Sandbox, type SandboxAnswer } from '../../sandbox/index.ts';
import { get, put } from '../sandbox/client.ts';
import { AnswerRecorder, PlatformContract } from '../support/platform-contract.ts';
import { startStack } from '../support/stack.ts';

const DOCUMENT = readFileSync(new URL('../../openapi/platform.yaml', import.meta.url), 'utf8');
const contract = new PlatformContract(DOCUMENT);

/** The document with one deliberate edit, which must exist exactly once. */
function documentWith(from: string, to: string): PlatformContract {
  expect(DOCUMENT.split(from)).toHaveLength(2);
  return new PlatformContract(DOCUMENT.replace(from, to));
}

const json = (status: number, method: string, path: string, body: unknown): SandboxAnswer => ({
  host: 'api', route: 'unknown', method, path, status, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body),
});

const actor = { id: '6f1c2a8e-3b6d-4c1e-9a7f-2d5b8c9e0f11', type: 'employee' };
const exception = {
  id: '0b6f8f9a-8c1d-4e2b-9f3a-5d7c6b4a3e21',
  category: 'CUSTOMER',
  type: 'ACH_RETURN',
  status: 'NEW',
  createdBy: actor,
  createdAt: '2026-03-04T10:15:30.123+0000',
};
const page = (content: unknown[]) => ({ totalElements: content.length, totalPages: 1, number: 0, numberOfElements: content.length, hasNext: false, content });

describe('an answer the document allows', () => {
  it('passes: a page of exceptions, an error body under a documented status', () => {
    expect(contract.check(json(200, 'GET', '/exceptions', page([exception])))).toBeUndefined();
    expect(contract.check(json(401, 'GET', '/exceptions', { timestamp: '2026-03-04T10:15:30.123+0000', traceId: 'abc', error: 'Unauthorized', message: 'Missing Authorization header' }))).toBeUndefined();
  });
});

describe('an answer the document does not allow', () => {
  it.each([
    ['an enum value it does not list', json(200, 'GET', '/exceptions', page([{ ...exception, status: 'CLOSED' }])), 'GET /exceptions → 200', ['/content/0/status must be equal to one of the allowed values']],
    ['a page without its total', json(200, 'GET', '/exceptions', { ...page([exception]), totalElements: undefined }), 'GET /exceptions → 200', ["(body) must have required property 'totalElements'"]],
    ['a timestamp in another form', json(200, 'GET', '/exceptions', page([{ ...exception, createdAt: '2026-03-04' }])), 'GET /exceptions → 200', ['/content/0/createdAt must match pattern "^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d{1,9})?(Z|[+-]\\d{2}:?\\d{2})$"']],
    ['a number sent as a string', json(200, 'GET', '/v1/documents/3f1e', { id: '3f1e2d4c-5b6a-4789-8abc-def012345678', contentLength: '1024' }), 'GET /v1/documents/{documentId} → 200', ['/contentLength must be integer']],
    ['an id that is not a UUID', json(200, 'GET', '/v1/documents/x', { id: 'x' }), 'GET /v1/documents/{documentId} → 200', ['/id must match format "uuid"']],
    ['an object where the search answers an array', json(200, 'GET', '/v2/linx/workflow-batches', page([])), 'GET /v2/linx/workflow-batches → 200', ['(body) must be array']],
    ['a status the operation does not document', json(409, 'GET', '/v1/acceptances', {}), 'GET /v1/acceptances → 409', ['status 409 is not a documented response']],
    ['an operation the document does not have', json(200, 'DELETE', '/v1/documents/x', {}), 'DELETE /v1/documents/x → 200', ['the document has no such operation']],
  ])('fails on %s', (_, answer, label, problems) => {
    expect(contract.check(answer)).toEqual({ answer: label, problems });
  });

  it('fails on a body that is not JSON, or not JSON at all', () => {
    expect(contract.check({ ...json(200, 'GET', '/exceptions', {}), body: '{"content": [' })).toEqual({ answer: 'GET /exceptions → 200', problems: ['the body is not JSON'] });
    expect(contract.check({ ...json(200, 'GET', '/exceptions', {}), headers: { 'content-type': 'text/html' } })).toEqual({
      answer: 'GET /exceptions → 200',
      problems: ['media type text/html is not one of application/json'],
    });
  });
});

describe('the sandbox against the document', () => {
  let sandbox: Sandbox;
  const answers: SandboxAnswer[] = [];
  beforeAll(async () => {
    sandbox = await startSandbox({ onAnswer: (answer) => answers.push(answer) });
    const [document] = sandbox.store.documents(sandbox.tokens[0]!.businessAccountId);
    await get(sandbox, '/exceptions?size=50');
    await get(sandbox, `/v1/documents/${document!.id}`);
    await put(sandbox, `/v1/documents/${document!.id}`, { documentType: document!.documentType, name: '' });
    await get(sandbox, '/exceptions', null);
  });
  afterAll(() => sandbox.close());

  const recorded = (against: PlatformContract) => {
    const recorder = new AnswerRecorder(against);
    answers.forEach(recorder.record);
    return recorder;
  };

  it('answers what the document allows: a page, a document, a validation error, a missing token', () => {
    expect(answers.map((a) => `${a.method} ${a.path.replace(/[0-9a-f-]{36}/, '{id}')} ${a.status}`)).toEqual([
      'GET /exceptions 200',
      'GET /v1/documents/{id} 200',
      'PUT /v1/documents/{id} 400',
      'GET /exceptions 401',
    ]);
    const recorder = recorded(contract);
    expect([recorder.checked, recorder.violations]).toEqual([4, []]);
    expect(() => recorder.assertAllAllowed()).not.toThrow();
  });

  it('fails the suite when the document and the sandbox disagree', () => {
    const recorder = recorded(documentWith('          description: Total number of matching records.', '          description: Total number of matching records.\n          maximum: 10'));
    expect(recorder.violations).toEqual([{ answer: 'GET /exceptions → 200', problems: ['/totalElements must be <= 10'] }]);
    expect(() => recorder.assertAllAllowed()).toThrow(
      new Error('1 of 4 sandbox answers are not what openapi/platform.yaml allows:\n  GET /exceptions → 200: /totalElements must be <= 10'),
    );
  });

  it('counts, without checking, an answer the sandbox marks as off the contract', async () => {
    sandbox.setLinxEnvelope(true);
    sandbox.faults.set('exceptions', { status: 200, body: 'html', times: 1 });
    const template = sandbox.store.linxTemplates(sandbox.tokens[0]!.businessAccountId)[0]!;
    const before = answers.length;
    await get(sandbox, `/v2/linx/workflow-batches?templateId=${template.templateId}&templateVersionId=${template.versions[0]!.templateVersionId}`);
    await get(sandbox, '/exceptions');
    sandbox.setLinxEnvelope(false);
    const recorder = new AnswerRecorder(contract);
    answers.slice(before).forEach(recorder.record);
    expect([recorder.checked, recorder.offContract, recorder.violations]).toEqual([0, 2, []]);
  });
});

describe('the end-to-end stack', () => {
  it('checks each sandbox answer, and fails on close when one broke the document', async () => {
    const stack = await startStack();
    const response = await stack.gql('{ exceptions(first: 1) { nodes { id } } }');
    expect(response.body.errors).toBeUndefined();
    expect([stack.answers.checked, stack.answers.violations]).toEqual([1, []]);

    stack.answers.record(json(200, 'GET', '/exceptions', page([{ ...exception, status: 'CLOSED' }])));
    await expect(stack.close()).rejects.toThrow(
      new Error('1 of 2 sandbox answers are not what openapi/platform.yaml allows:\n  GET /exceptions → 200: /content/0/status must be equal to one of the allowed values'),
    );
  });
});
