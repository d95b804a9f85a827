import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startStack, type Stack } from '../support/stack.ts';

// A federation router asks a subgraph for its execution trace with the
// `apollo-federation-include-trace: ftv1` header; the trace comes back base64-encoded
// in `extensions.ftv1`. Requests that do not ask get none (and pay nothing for it).

let stack: Stack;

beforeAll(async () => {
  stack = await startStack();
});

afterAll(async () => {
  await stack.close();
});

const QUERY = '{ exceptions(first: 1) { totalCount } }';

describe('federation inline trace', () => {
  it('answers a router that asks with a trace in extensions.ftv1', async () => {
    const { status, body } = await stack.gql(QUERY, {}, { headers: { 'apollo-federation-include-trace': 'ftv1' } });
    expect(status).toBe(200);
    expect(body.data).toEqual({ exceptions: { totalCount: 300 } });
    const { extensions } = body as { extensions?: { ftv1?: unknown } };
    expect(typeof extensions?.ftv1).toBe('string');
    const trace = Buffer.from(extensions!.ftv1 as string, 'base64');
    // A protobuf Trace: not empty, and the base64 round-trips exactly.
    expect(trace.length).toBeGreaterThan(10);
    expect(trace.toString('base64')).toBe(extensions!.ftv1);
  });

  it('adds no trace to a request that does not ask, nor to one that asks for another format', async () => {
    const requests: Record<string, string>[] = [{}, { 'apollo-federation-include-trace': 'ftv2' }];
    for (const headers of requests) {
      const { status, body } = await stack.gql(QUERY, {}, { headers });
      expect(status).toBe(200);
      expect(body).toEqual({ data: { exceptions: { totalCount: 300 } } });
    }
  });
});
