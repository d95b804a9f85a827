import { describe, expect, it } from '@jest/globals';
import { readdirSync, readFileSync } from 'node:fs';
import { buildSchema, GraphQLError, parse, type ExecutionResult } from 'graphql';
import { compileQuery, isCompiledQuery, type CompiledQuery } from 'graphql-jit';
import { compiledExecutionSynchronousPart, raisedSynchronously } from '../../src/execution/graphql-js-error-order.ts';
import { takeGeneratedCodeLength, WITH_GENERATED_CODE } from '../../src/execution/jit-generated-code.ts';

// The compiled executor leans on two things no library promises (src/execution/jit-generated-code.ts,
// src/execution/graphql-js-error-order.ts). These tests pin both on the versions checked, so that an
// upgrade that changes either fails here, by name, rather than as a cache that silently mis-sizes
// its entries or errors listed in another order.

const root = new URL('../../', import.meta.url);
const versionOf = (name: string) => (JSON.parse(readFileSync(new URL(`node_modules/${name}/package.json`, root), 'utf8')) as { version: string }).version;

const schema = buildSchema(`
  type Query {
    answer: Int
    refusedAtOnce: Int
    refusedDeepAtOnce: Int
    refusedLater: Int
    nested: Nested
  }
  type Nested { value: Int }
`);

/** Throws after `depth` nested calls: an error raised deep inside a resolver's own helpers. */
function throwAtDepth(depth: number): never {
  if (depth === 0) throw new GraphQLError('refused deep');
  return throwAtDepth(depth - 1);
}

const resolvers = {
  answer: () => 42,
  refusedAtOnce: () => {
    throw new GraphQLError('refused at once');
  },
  refusedDeepAtOnce: () => throwAtDepth(20),
  refusedLater: async () => {
    await Promise.resolve();
    throw new GraphQLError('refused later');
  },
  nested: () => ({ value: 1 }),
};
for (const [name, resolve] of Object.entries(resolvers)) schema.getQueryType()!.getFields()[name]!.resolve = resolve;

function compiled(query: string, options = {}): CompiledQuery {
  const outcome = compileQuery(schema, parse(query), undefined, options);
  if (!isCompiledQuery(outcome)) throw new Error(`not compiled: ${JSON.stringify(outcome)}`);
  return outcome;
}

describe('the private surfaces the compiled executor relies on', () => {
  it('are checked against graphql-jit 0.8.9 and graphql 16.15.0 on Node 24: an upgrade re-checks them and updates this line', () => {
    expect({ jit: versionOf('graphql-jit'), graphql: versionOf('graphql'), nodeMajor: Number(process.versions.node.split('.')[0]) }).toEqual({
      jit: '0.8.9',
      graphql: '16.15.0',
      nodeMajor: 24,
    });
  });

  it("starts the gateway's process with V8's compilation cache off on the command line, where V8 reads its flags", () => {
    const start = (JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as { scripts: { start: string } }).scripts.start;
    expect(start.split(' ')).toContain('--no-compilation-cache');
    const command = readFileSync(new URL('Dockerfile', root), 'utf8').split('\n').find((line) => line.startsWith('CMD '));
    expect(command).toBe('CMD ["node", "--max-semi-space-size=16", "--no-compilation-cache", "dist/main.js"]');
    // No module sets it at run time, which V8 documents no behaviour for once code has run.
    const sources = readdirSync(new URL('src/', root), { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.ts'));
    expect(sources.filter((file) => readFileSync(new URL(`src/${file}`, root), 'utf8').includes('setFlagsFromString'))).toEqual([]);
  });

  it('graphql-jit leaves its generated code on a query compiled with `debug`, which is read for its length once and dropped', () => {
    const small = compiled('{ answer }', WITH_GENERATED_CODE);
    const large = compiled('{ a: answer b: answer c: nested { value } d: nested { value } }', WITH_GENERATED_CODE);
    const [smallLength, largeLength] = [takeGeneratedCodeLength(small), takeGeneratedCodeLength(large)];
    expect(typeof smallLength).toBe('number');
    // The generated code is a function body far longer than the document, and grows with it.
    expect(smallLength).toBeGreaterThan('{ answer }'.length * 5);
    expect(largeLength).toBeGreaterThan(2 * smallLength!);
    // Dropped: a second read finds nothing, and the query holds no copy of the code.
    expect(takeGeneratedCodeLength(small)).toBeUndefined();
    expect(Object.keys(small).sort()).toEqual(['query', 'stringify']);
    // Without the option graphql-jit leaves none.
    expect(takeGeneratedCodeLength(compiled('{ answer }'))).toBeUndefined();
  });

  it("tells errors raised before execution first waits by the marker frame in their stacks, however deep in the resolver and whatever the stack limit", async () => {
    const query = compiled('{ answer refusedAtOnce refusedDeepAtOnce refusedLater }');
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 10;
    let result: ExecutionResult;
    try {
      result = await compiledExecutionSynchronousPart(query, {}, {});
    } finally {
      Error.stackTraceLimit = limit;
    }
    expect(result.data).toEqual({ answer: 42, refusedAtOnce: null, refusedDeepAtOnce: null, refusedLater: null });
    const errors = result.errors as readonly GraphQLError[];
    expect(errors.map((error) => [error.message, raisedSynchronously(error)])).toEqual([
      ['refused at once', true],
      ['refused deep', true],
      ['refused later', false],
    ]);
    // The stack limit is the caller's again.
    expect(Error.stackTraceLimit).toBe(limit);
  });
});
