import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ROUTE_NAMES, validateFault } from '../../sandbox/admin/faults.ts';
import { startStack, type Stack } from '../support/stack.ts';

// docs/sandbox.md's fault section, checked against the sandbox and a gateway over it: the route
// names are the sandbox's, and the example does to a client what the text says.

const DOC = readFileSync(new URL('../../docs/sandbox.md', import.meta.url), 'utf8');
const FAULTS = DOC.slice(DOC.indexOf('### Faults'));
const QUERY = '{ exceptions(first: 1) { totalCount } healthy: __typename }';

/** The body of the section's `curl … /__sandbox/faults -d '…'` example. */
const example = JSON.parse(/\/__sandbox\/faults .*-d '(\{.*\})'/.exec(FAULTS)![1]!) as { route: string; fault: { status: number; times?: number } };

let stack: Stack;
beforeAll(async () => {
  // Short retry waits: the test counts attempts, it does not time them.
  stack = await startStack({ UPSTREAM_RETRY_BASE_MS: '1' });
});
afterAll(() => stack?.close());

const setFault = (body: unknown) =>
  fetch(`${stack.sandbox.url}/__sandbox/faults`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

describe('docs/sandbox.md: faults', () => {
  it('lists exactly the sandbox’s route names', () => {
    const listed = [...FAULTS.matchAll(/^- `([^`]+)`:/gm)].map((m) => m[1]!);
    expect(listed).toEqual(['*', ...ROUTE_NAMES]);
  });

  it('documents only fault fields the sandbox knows', () => {
    const fields = [...FAULTS.matchAll(/^\| `([a-zA-Z]+)` \|/gm)].map((m) => m[1]!);
    expect(fields).toEqual(['status', 'body', 'retryAfter', 'hang', 'reset', 'latencyMs', 'trickleMs', 'errorRate', 'times']);
    for (const field of fields) expect(() => validateFault({ [field]: undefined })).not.toThrow();
  });

  it('its example: one query gets UPSTREAM_ERROR after three attempts, the next gets data', async () => {
    expect(example).toEqual({ route: 'exceptions', fault: { status: 503, times: 3 } });
    const total = stack.sandbox.store.exceptions(stack.sandbox.tokens[0]!.businessAccountId).length;
    stack.sandbox.resetRequests();
    expect((await setFault(example)).status).toBe(200);
    const failed = await stack.gql(QUERY);
    expect(failed.status).toBe(200);
    expect(failed.body.data).toEqual({ exceptions: null, healthy: 'Query' });
    expect(failed.body.errors!.map((e) => [e.path, e.extensions!.code])).toEqual([[['exceptions'], 'UPSTREAM_ERROR']]);
    expect(stack.platformCalls()).toHaveLength(3);
    expect((await stack.gql(QUERY)).body).toEqual({ data: { exceptions: { totalCount: total }, healthy: 'Query' } });
  });

  it('with "times": 2 the retries absorb the fault', async () => {
    const total = stack.sandbox.store.exceptions(stack.sandbox.tokens[0]!.businessAccountId).length;
    expect((await setFault({ ...example, fault: { ...example.fault, times: 2 } })).status).toBe(200);
    expect((await stack.gql(QUERY)).body).toEqual({ data: { exceptions: { totalCount: total }, healthy: 'Query' } });
  });

  it('without "times": the route’s breaker opens after 5 failed queries and stays open once the fault is cleared', async () => {
    expect((await setFault({ route: 'exceptions', fault: { status: 503 } })).status).toBe(200);
    for (let query = 0; query < 5; query++) expect((await stack.gql(QUERY)).body.errors![0]!.extensions!.code).toBe('UPSTREAM_ERROR');
    expect((await fetch(`${stack.sandbox.url}/__sandbox/faults`, { method: 'DELETE' })).status).toBe(200);
    stack.sandbox.resetRequests();
    const paused = await stack.gql(QUERY);
    expect(paused.body.errors!.map((e) => [e.message, e.extensions!.code])).toEqual([['The platform is failing; calls are paused for a short cool-down', 'UPSTREAM_ERROR']]);
    expect(FAULTS.replace(/\s+/g, ' ')).toContain('("The platform is failing; calls are paused for a short cool-down")');
    expect(stack.platformCalls()).toEqual([]);
  });
});
