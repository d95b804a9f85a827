// The static checks of `npm test`, each announced by one line as it starts (together they take about
// half a minute, silent while they pass). Stops at the first that fails, with its exit code.
import { spawn, type ChildProcess } from 'node:child_process';
import { readCommandLine } from '../src/settings/command-line.ts';

const STEPS = ['codegen:check', 'openapi:check', 'schema:check', 'settings:check', 'typecheck', 'lint', 'knip'];

readCommandLine(
  { options: {} },
  {
    command: 'npm run static-checks',
    summary: `Runs the static checks of \`npm test\`, the type check beside the others, one line per step as it starts: ${STEPS.join(', ')}.`,
    options: {},
    examples: ['npm run static-checks'],
  },
);
// Two lanes, one per core: the type check (the longest step by far, about 17 s of 38 here) runs beside
// the others, which run in order. Each step's output is held until it ends, so two steps never
// interleave their lines; the first that fails stops the other lane.
const LANES = [['typecheck'], STEPS.filter((step) => step !== 'typecheck')];
const running = new Set<ChildProcess>();
const started = performance.now();

function runStep(step: string): Promise<void> {
  process.stdout.write(`[static check ${STEPS.indexOf(step) + 1}/${STEPS.length}] npm run ${step}\n`);
  const child = spawn('npm', ['run', '--silent', step], { stdio: ['ignore', 'pipe', 'pipe'] });
  running.add(child);
  const output: { stream: NodeJS.WriteStream; chunk: Buffer }[] = [];
  child.stdout.on('data', (chunk: Buffer) => output.push({ stream: process.stdout, chunk }));
  child.stderr.on('data', (chunk: Buffer) => output.push({ stream: process.stderr, chunk }));
  return new Promise((resolve) => {
    child.once('close', (status) => {
      running.delete(child);
      for (const { stream, chunk } of output) stream.write(chunk);
      if (status !== 0) {
        process.stderr.write(`npm run ${step} failed: the remaining static checks and the tests did not run\n`);
        for (const other of running) other.kill();
        process.exit(status ?? 1);
      }
      resolve();
    });
  });
}

await Promise.all(LANES.map(async (lane) => {
  for (const step of lane) await runStep(step);
}));
process.stdout.write(`static checks passed in ${Math.round((performance.now() - started) / 1000)} s\n`);
