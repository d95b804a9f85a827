import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ApolloServer } from '@apollo/server';
import { loneSurrogatePath, wellFormedVariablesPlugin } from '../../src/hardening/unicode.ts';

describe('loneSurrogatePath', () => {
  it('is undefined when every string and key is well formed, pairs and astral characters included', () => {
    expect(loneSurrogatePath({ a: ['😀', 1, null, true, { 'ключ': 'é' }] }, '$')).toBeUndefined();
    expect(loneSurrogatePath('\ud83d\ude00', '$')).toBeUndefined();
    expect(loneSurrogatePath(undefined, '$')).toBeUndefined();
  });

  it('names the root for a lone surrogate at the top, high or low', () => {
    expect(loneSurrogatePath('\ud800', '$')).toBe('$');
    expect(loneSurrogatePath('a\udfffb', 'x')).toBe('x');
  });

  it('names the path through objects and arrays, and a key that holds one', () => {
    expect(loneSurrogatePath({ input: { metadata: { note: 'ok', bad: 'x\ud800' } } }, '$')).toBe('$.input.metadata.bad');
    expect(loneSurrogatePath({ ids: ['a', 'b', '\udc00'] }, '$')).toBe('$.ids[2]');
    expect(loneSurrogatePath({ meta: { 'k\ud800': 'v' } }, '$')).toBe('$.meta.k\ud800');
  });

  it('is not thrown off by nesting thousands of levels deep', () => {
    let value: unknown = '\ud800';
    for (let i = 0; i < 10_000; i++) value = [value];
    expect(loneSurrogatePath(value, '$')).toBe(`$${'[0]'.repeat(16)}…`);
  });
});

describe('wellFormedVariablesPlugin', () => {
  let server: ApolloServer;
  beforeAll(async () => {
    server = new ApolloServer({ typeDefs: 'type Query { echo(text: String): String }', resolvers: { Query: { echo: (_: unknown, { text }: { text: string }) => text } }, plugins: [wellFormedVariablesPlugin()] });
    await server.start();
  });
  afterAll(() => server.stop());

  const run = async (variables: Record<string, unknown>) => {
    const response = await server.executeOperation({ query: 'query($text: String, $input: String) { echo(text: $text) again: echo(text: $input) }', variables });
    return { status: response.http.status, body: response.body.kind === 'single' ? response.body.singleResult : undefined };
  };

  it('refuses a variable holding a lone surrogate with 400 BAD_USER_INPUT, naming the variable', async () => {
    expect(await run({ text: 'ok', input: 'x\udbff' })).toEqual({
      status: 400,
      body: { errors: [{ message: 'Variable "$input" holds a lone UTF-16 surrogate, which is not valid Unicode text', extensions: { code: 'BAD_USER_INPUT' } }] },
    });
  });

  it('lets well-formed text through', async () => {
    expect(await run({ text: 'ünïcödé 😀' })).toEqual({ status: undefined, body: { data: { echo: 'ünïcödé 😀', again: null } } });
  });
});
