/**
 * What V8's in-memory compilation cache costs the compiled executor: executes distinct documents
 * (distinct by an alias, so that no two compile to the same code) against the in-process sandbox
 * through the compiled executor, which keeps only the most recent ones, and prints the heap after a
 * full collection every few hundred documents, and the peaks of heap and RSS seen between them (what
 * the process holds when nothing forces a collection). Run it with and without the flag the gateway
 * starts with:
 *
 *   node --expose-gc --disable-warning=ExperimentalWarning [--no-compilation-cache] bench/compilation-cache-heap.ts [--documents N] [--kept N]
 */
import { parse } from 'graphql';
import { getHeapSpaceStatistics } from 'node:v8';
import { startSandbox } from '../sandbox/index.ts';
import { testConfig } from '../src/settings/config.ts';
import { createContext } from '../src/context.ts';
import { CompiledExecution } from '../src/execution/compiled-executor.ts';
import { createLogger } from '../src/logger.ts';
import { PolicyChain } from '../src/platform/policy-chain.ts';
import { buildSchema } from '../src/schema/schema.ts';
import { readCommandLine } from '../src/settings/command-line.ts';

const { values } = readCommandLine(
  { options: { documents: { type: 'string', default: '1500' }, kept: { type: 'string', default: '50' } } },
  {
    command: 'node --expose-gc bench/compilation-cache-heap.ts',
    summary: 'What V8\'s compilation cache costs the compiled executor: executes distinct documents and prints the heap after\na full collection every few hundred, with the peaks between. Run it with and without --no-compilation-cache.',
    options: { documents: { text: 'distinct documents executed', value: 'N' }, kept: { text: 'compiled documents the executor keeps', value: 'N' } },
    examples: ['node --expose-gc --no-compilation-cache bench/compilation-cache-heap.ts --documents 3000'],
  },
);
const documents = Number(values.documents);
const kept = Number(values.kept);
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with --expose-gc');

const sandbox = await startSandbox();
const config = testConfig();
const http = new PolicyChain(sandbox.url, { ...config.upstream, retryLimit: 0 });
const logger = createLogger('silent');
const token = `Bearer ${sandbox.tokens[0]!.token}`;
const execution = new CompiledExecution(buildSchema(), { maxEntries: kept, maxBytes: 2 ** 40, minUses: 1 });
await execution.load();

const heap = () => {
  gc();
  const code = getHeapSpaceStatistics().find((space) => space.space_name === 'code_space')?.space_used_size ?? 0;
  const { heapUsed, rss } = process.memoryUsage();
  return `heap ${(heapUsed / 2 ** 20).toFixed(0)} MiB (code ${(code / 2 ** 20).toFixed(1)} MiB), RSS ${(rss / 2 ** 20).toFixed(0)} MiB`;
};
console.log(`compilation cache ${process.execArgv.includes('--no-compilation-cache') ? 'off' : 'on'}; at start ${heap()}`);
const started = performance.now();
let [peakHeap, peakRss] = [0, 0];
for (let index = 1; index <= documents; index++) {
  const text = `{ a${index}: exceptions(first: 5) { totalCount edges { cursor node { id status assignedTo { id email } notes { id title } } } } }`;
  const contextValue = createContext({ config, http, logger }, { authorization: token, 'x-request-id': `heap-${index}` });
  const result = await execution.execute({ documentKey: text, document: parse(text), operationName: undefined, variables: undefined, contextValue });
  if (result.errors) throw new Error(result.errors[0]!.message);
  const { heapUsed, rss } = process.memoryUsage();
  [peakHeap, peakRss] = [Math.max(peakHeap, heapUsed), Math.max(peakRss, rss)];
  if (index % 500 === 0) console.log(`${index} documents: ${heap()}`);
}
console.log(`${((performance.now() - started) / documents).toFixed(2)} ms per document, ${execution.size} held; peaks without a forced collection: heap ${(peakHeap / 2 ** 20).toFixed(0)} MiB, RSS ${(peakRss / 2 ** 20).toFixed(0)} MiB`);
http.close();
await sandbox.close();
