import { afterAll, describe, expect, it, jest } from '@jest/globals';
import { parse } from 'graphql';
import { testConfig } from '../../src/settings/config.ts';
import { createContext } from '../../src/context.ts';
import { CompiledExecution } from '../../src/execution/compiled-executor.ts';
import { createLogger } from '../../src/logger.ts';
import { PolicyChain } from '../../src/platform/policy-chain.ts';
import { buildSchema } from '../../src/schema/schema.ts';

// graphql-jit is not loaded at start-up: a process answers its probes without waiting for about a
// hundred modules, and one that never sees a document twice never loads them.

const config = testConfig();
const schema = buildSchema();
const http = new PolicyChain('http://127.0.0.1:9', config.upstream);
afterAll(() => http.close());

const run = (execution: CompiledExecution, key: string, text: string) =>
  execution.execute({ documentKey: key, document: parse(text), operationName: undefined, variables: undefined, contextValue: createContext({ config, http, logger: createLogger('silent') }, {}) });

describe('loading the compiler', () => {
  it('starts when a document reaches its minUses-th use, while graphql-js answers, and compiles that document on its next use', async () => {
    const onLoaded = jest.fn();
    const execution = new CompiledExecution(schema, { maxEntries: 10, maxBytes: 33_554_432, minUses: 2 }, onLoaded);
    expect(await run(execution, 'a', '{ a: __typename }')).toEqual({ data: { a: 'Query' } });
    expect(await run(execution, 'b', '{ b: __typename }')).toEqual({ data: { b: 'Query' } });
    await new Promise((resolve) => setImmediate(resolve));
    // Two documents seen once each: nothing asked for the compiler.
    expect(onLoaded).not.toHaveBeenCalled();
    expect(await run(execution, 'a', '{ a: __typename }')).toEqual({ data: { a: 'Query' } });
    // The load the second use of `a` started; graphql-js answered it.
    expect(execution.holds('a')).toBe(false);
    await execution.load();
    expect(onLoaded.mock.calls).toEqual([[]]);
    expect(await run(execution, 'a', '{ a: __typename }')).toEqual({ data: { a: 'Query' } });
    expect(execution.holds('a')).toBe(true);
    expect(execution.holds('b')).toBe(false);
  });
});
