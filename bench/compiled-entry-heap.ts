/**
 * What one compiled document holds in heap: compiles N distinct documents of each shape (distinct by
 * an alias, so that no two compile to the same code) as the compiled executor does (compile-plan.ts),
 * runs each once against the in-process sandbox (V8 compiles a function's bytecode on its first run),
 * keeps only the compiled plans (the parsed document stays alive through them, as it does once
 * Apollo's document cache has let it go), and prints the heap used after a full collection before and
 * after, per entry and per character of the document's text. The compiled cache's byte bound is priced
 * from these figures (src/execution/compile-plan.ts). A heap measure: it holds on a busy machine.
 *
 *   node --expose-gc --disable-warning=ExperimentalWarning bench/compiled-entry-heap.ts [--documents N]
 */
import { parse } from 'graphql';
import { compileQuery, isCompiledQuery } from 'graphql-jit';
import { readCommandLine } from '../src/settings/command-line.ts';
import { testConfig } from '../src/settings/config.ts';
import { createContext } from '../src/context.ts';
import { compilePlan, type Plan } from '../src/execution/compile-plan.ts';
import { createLogger } from '../src/logger.ts';
import { PolicyChain } from '../src/platform/policy-chain.ts';
import { exampleTabs } from '../src/playground/examples.ts';
import { sandboxExampleValues } from '../src/playground/sandbox-examples.ts';
import { buildSchema } from '../src/schema/schema.ts';
import { startSandbox } from '../sandbox/index.ts';

const { values } = readCommandLine(
  { options: { documents: { type: 'string', default: '200' } } },
  {
    command: 'node --expose-gc bench/compiled-entry-heap.ts',
    summary: 'What one compiled document holds in heap: compiles distinct documents of several shapes, keeps their plans,\nand prints the heap per entry and per character of document text.',
    options: { documents: { text: 'distinct documents compiled per shape', value: 'N' } },
    examples: ['node --expose-gc --disable-warning=ExperimentalWarning bench/compiled-entry-heap.ts --documents 300'],
  },
);
const count = Number(values.documents);
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with --expose-gc');

const schema = buildSchema();
const jit = { compileQuery, isCompiledQuery };
const sandbox = await startSandbox();
const config = testConfig();
const http = new PolicyChain(sandbox.url, { ...config.upstream, retryLimit: 0 });
const logger = createLogger('silent');
const account = sandbox.tokens.find((entry) => entry.businessAccountName.toLowerCase().includes('acme')) ?? sandbox.tokens[0]!;
const authorization = `Bearer ${account.token}`;
const tabs = exampleTabs(sandboxExampleValues(sandbox.examples(account.businessAccountId)), '{}');
const page = 'totalCount pageInfo { hasNextPage endCursor } edges { cursor node { id category type status description assignedTo { id firstName lastName email } createdBy { id type } createdAt } }';
/** Each shape makes its i-th document distinct by an alias on its first field. */
const shapes: Array<[string, (i: number) => string, Record<string, unknown>]> = [
  ['__typename', (i) => `{ t${i}: __typename }`, {}],
  ['small page', (i) => `{ e${i}: exceptions(first: 5) { totalCount nodes { id status } } }`, {}],
  ['full page', (i) => `{ e${i}: exceptions(first: 1) { ${page} } }`, {}],
  ...tabs.map((tab): [string, (i: number) => string, Record<string, unknown>] => [
    `example ${/(?:query|mutation) (\w+)/.exec(tab.query)?.[1] ?? ''}`,
    (i) => tab.query.replace(/\{/, `{ a${i}: __typename `),
    JSON.parse(tab.variables) as Record<string, unknown>,
  ]),
  ['two full pages, aliased', (i) => `{ x${i}: exceptions(first: 1) { ${page} } y: exceptions(first: 2) { ${page} } }`, {}],
];

const heapUsed = () => {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
};

// Warm up graphql-jit and the schema's own caches so that the first shape does not pay for them.
for (let i = 0; i < 20; i += 1) compilePlan(jit, schema, parse(`{ w${i}: __typename }`), undefined, `w${i}`);

console.log('shape | text chars | heap per entry | per text char');
for (const [name, text, variables] of shapes) {
  const kept: Plan[] = [];
  const before = heapUsed();
  for (let i = 0; i < count; i += 1) {
    const source = text(i);
    const { plan } = compilePlan(jit, schema, parse(source), undefined, `${name}\n${i}`);
    if (!plan) throw new Error(`${name} did not compile`);
    const contextValue = createContext({ config, http, logger }, { authorization, 'x-request-id': `entry-${i}` });
    const result = await plan.query.query(undefined, contextValue, variables);
    if (result.errors) throw new Error(`${name}: ${result.errors[0]!.message}`);
    kept.push(plan);
  }
  const perEntry = (heapUsed() - before) / count;
  const chars = text(count - 1).length;
  console.log(`${name} | ${chars} | ${(perEntry / 1024).toFixed(1)} KiB | ${(perEntry / chars).toFixed(0)} B`);
  kept.length = 0;
}
http.close();
await sandbox.close();
