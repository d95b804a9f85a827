// The static checks of `npm test`, in order, each announced by one line as it starts (together they
// take a few minutes, silent while they pass). Stops at the first that fails, with its exit code.
import { spawnSync } from 'node:child_process';
import { readCommandLine } from '../src/command-line.ts';

const STEPS = ['codegen:check', 'openapi:check', 'schema:check', 'settings:check', 'typecheck', 'lint', 'knip'];

readCommandLine(
  { options: {} },
  {
    command: 'npm run static-checks',
    summary: `Runs the static checks of \`npm test\` in order, one line per step as it starts: ${STEPS.join(', ')}.`,
    options: {},
    examples: ['npm run static-checks'],
  },
);
for (const [index, step] of STEPS.entries()) {
  process.stdout.write(`[static check ${index + 1}/${STEPS.length}] npm run ${step}\n`);
  const { status } = spawnSync('npm', ['run', '--silent', step], { stdio: 'inherit' });
  if (status !== 0) {
    process.stderr.write(`npm run ${step} failed: the remaining static checks and the tests did not run\n`);
    process.exit(status ?? 1);
  }
}
