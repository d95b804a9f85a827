// npm's `prepare` (after every `npm install` and `npm ci`): builds the playground bundle, which
// needs the dev dependencies (esbuild, React, GraphiQL) and a Node that runs TypeScript (the
// project's Node 24). A production install (`npm ci --omit=dev`) has neither, and npm runs this on
// the machine's Node: the build is skipped with one line. Plain JavaScript, so it runs on Node 20.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const script = fileURLToPath(new URL('build-playground.ts', import.meta.url));
let devTools = process.features.typescript !== undefined;
try {
  import.meta.resolve('esbuild');
} catch {
  devTools = false;
}
if (!devTools) {
  process.stdout.write('prepare: playground not built (no dev dependencies: a production install); the gateway serves it only where PLAYGROUND is on\n');
  process.exit(0);
}
// Said before it starts: npm prints nothing else for most of an install, and the build takes seconds.
process.stdout.write('prepare: building the playground (React + GraphiQL into playground/dist/, about 2–10 s)\n');
const build = spawnSync(process.execPath, ['--disable-warning=ExperimentalWarning', script], { stdio: 'inherit' });
process.exit(build.status ?? 1);
