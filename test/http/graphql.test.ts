import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ApolloServer } from '@apollo/server';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { graphqlStage } from '../../src/http/graphql.ts';

interface Context {
  caller: string;
}

let apollo: ApolloServer<Context>;
/** The `x-multi` header of the last request, as Apollo received it. */
let multi: string | undefined;
beforeAll(async () => {
  apollo = new ApolloServer<Context>({
    typeDefs: 'type Query { hello(name: String): String caller: String }',
    resolvers: { Query: { hello: (_: unknown, { name }: { name: string }) => `hello ${name}`, caller: (_: unknown, __: unknown, context: Context) => context.caller } },
    plugins: [{ requestDidStart: async ({ request }) => void (multi = request.http?.headers.get('x-multi')) }],
  });
  await apollo.start();
});
afterAll(() => apollo.stop());

/** A plain Node request as the stages before left it. */
function request(method: string, url: string, headers: Record<string, string | string[]>, body?: unknown): IncomingMessage {
  return { method, url, headers, body } as unknown as IncomingMessage;
}

/** Runs the stage to its end: the response written, or the error handed to `next`. */
function run(req: IncomingMessage, context: (req: IncomingMessage, res: ServerResponse) => Promise<Context> = async () => ({ caller: 'c1' })) {
  return new Promise<{ status: number; headers: Record<string, unknown>; text: string } | { failed: unknown }>((resolve) => {
    const headers: Record<string, unknown> = {};
    let text = '';
    const res = {
      statusCode: 0,
      setHeader: (name: string, value: unknown) => void (headers[name.toLowerCase()] = value),
      write: (chunk: string) => void (text += chunk),
      end: (chunk?: string) => resolve({ status: res.statusCode, headers, text: text + (chunk ?? '') }),
    } as unknown as ServerResponse;
    graphqlStage({ apollo, context })(req, res, (error) => resolve({ failed: error }));
  });
}

const JSON_HEADERS = { 'content-type': 'application/json' };

describe('graphqlStage', () => {
  it("hands a POST's body to Apollo and writes its answer with its length", async () => {
    const answer = await run(request('POST', '/graphql', JSON_HEADERS, { query: '{ hello(name: "ada") caller }' }));
    const text = JSON.stringify({ data: { hello: 'hello ada', caller: 'c1' } }) + '\n';
    expect(answer).toEqual({ status: 200, headers: expect.objectContaining({ 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) }), text });
  });

  it('hands a GET its query string', async () => {
    const answer = await run(request('GET', `/graphql?query=${encodeURIComponent('{ hello(name: "bob") }')}`, { 'apollo-require-preflight': 'true' }));
    expect(answer).toMatchObject({ status: 200, text: '{"data":{"hello":"hello bob"}}\n' });
  });

  it("writes Apollo's refusals with their status", async () => {
    const answer = await run(request('POST', '/graphql', JSON_HEADERS, { query: '{ nope }' }));
    expect(answer).toMatchObject({ status: 400 });
    expect(JSON.parse((answer as { text: string }).text).errors[0].extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
  });

  it('hands Apollo every header, a repeated one joined with commas', async () => {
    await run(request('POST', '/graphql', { ...JSON_HEADERS, 'x-multi': ['a', 'b'] }, { query: '{ caller }' }));
    expect(multi).toBe('a, b');
    await run(request('POST', '/graphql', { ...JSON_HEADERS, 'x-multi': 'one' }, { query: '{ caller }' }));
    expect(multi).toBe('one');
  });

  it('builds the context from the request and the response', async () => {
    const seen: unknown[] = [];
    const req = request('POST', '/graphql', JSON_HEADERS, { query: '{ caller }' });
    const answer = await run(req, async (given, res) => (seen.push(given, typeof res.setHeader), { caller: 'from context' }));
    expect(seen).toEqual([req, 'function']);
    expect(answer).toMatchObject({ text: '{"data":{"caller":"from context"}}\n' });
  });

  it('hands a failure of the context to the front door, a rejection without a reason as an error', async () => {
    const failure = new Error('context failed');
    expect(await run(request('POST', '/graphql', JSON_HEADERS, { query: '{ caller }' }), () => Promise.reject(failure))).toMatchObject({ status: 500 });
    const failing = { executeHTTPGraphQLRequest: () => Promise.reject(undefined) } as unknown as ApolloServer<Context>;
    const outcome = await new Promise<unknown>((resolve) => graphqlStage({ apollo: failing, context: async () => ({ caller: '' }) })(request('POST', '/graphql', {}), {} as ServerResponse, resolve));
    expect(outcome).toEqual(new Error('GraphQL request failed without a reason'));
  });
});
