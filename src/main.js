// Entry point of `npm start` and the container. Node's on-disk compile cache is switched on before
// anything else loads: later starts skip compiling the dependencies and stripping the TypeScript
// sources' types (both are cached), and keep less code in memory. This file is JavaScript because
// an entry in TypeScript would itself be stripped before it could switch the cache on, which loads
// Node's type stripper on every start (about 150 ms; docs/benchmark.md).
import module from 'node:module';
import { unsupportedNode } from './supported-node.js';

// Before anything else: on an unsupported Node the gateway's modules would fail with a stack trace.
const refusal = unsupportedNode();
if (refusal !== undefined) {
  process.stderr.write(`${refusal}\n`);
  process.exit(1);
}
module.enableCompileCache?.();
await import('./process/start.ts');
