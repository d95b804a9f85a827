// `npm start`: runs the built gateway (dist/), never the sources. Plain JavaScript without
// dependencies, so it runs where dev dependencies are pruned, and on any Node (an old one only to
// refuse it). Before the gateway loads (in this same process, with the Node flags of `npm start`):
//   0. a Node older than the gateway supports is refused with one line (src/supported-node.js);
//   1. the public and admin ports are checked, so a conflict is one line before anything is built;
//   2. dist/'s build stamp is compared with the sources: in production (NODE_ENV=production) a
//      missing or stale dist/ is refused with what to run; elsewhere it is rebuilt, and only then.
// Its arguments are the gateway's (`npm start -- --help`). A worker of the gateway's worker group
// runs this file again (cluster forks the entry): it goes straight to the gateway.
import { spawnSync } from 'node:child_process';
import cluster from 'node:cluster';
import { createServer } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { unsupportedNode } from '../src/supported-node.js';
import { readStamp, sourcesHash } from './build-stamp.mjs';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const DIST = path.join(ROOT, 'dist');

/** The listeners' defaults, as src/settings.ts defines them (a test keeps the two equal). */
const LISTENER_DEFAULTS = { PORT: '4000', HOST: '127.0.0.1', ADMIN_PORT: '9090', ADMIN_HOST: '127.0.0.1' };

const setting = (name) => process.env[name] || LISTENER_DEFAULTS[name];

function fail(line) {
  process.stderr.write(`${line}\n`);
  process.exit(1);
}

/** Resolves when the port can be listened on; a port that is not a plain number is left to the gateway's own check. */
function checkPort(portSetting, hostSetting) {
  const text = setting(portSetting);
  const port = Number(text);
  if (!/^\d+$/.test(text) || port === 0 || port > 65535) return Promise.resolve();
  const host = setting(hostSetting);
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', (error) => {
      if (error.code === 'EADDRINUSE') fail(`Port ${port} on ${host} is already in use: choose another with ${portSetting} (0 picks a free one)`);
      // Anything else (a host that does not resolve, a privileged port) is the gateway's to report.
      resolve();
    });
    probe.listen({ port, host, exclusive: true }, () => probe.close(() => resolve()));
  });
}

/** Whether the build can run here: esbuild installed and a Node that runs TypeScript (the project's Node 24). */
function canBuild() {
  if (process.features.typescript === undefined) return false;
  try {
    import.meta.resolve('esbuild');
    return true;
  } catch {
    return false;
  }
}

function ensureBuilt() {
  const built = readStamp(DIST);
  const current = sourcesHash(ROOT);
  // Without the sources (a folder holding only the build) there is nothing to compare with: dist/ runs as built.
  if (built !== undefined && (current === undefined || built === current)) return;
  const problem = built === undefined ? 'dist/ holds no build' : 'dist/ was built from other sources than these';
  if (process.env.NODE_ENV === 'production') fail(`${problem}: run \`npm run build\` before \`npm start\` (production never builds)`);
  if (!canBuild()) fail(`${problem}, and this install cannot build (no dev dependencies): run \`npm run build\` where they are installed`);
  const build = spawnSync(process.execPath, ['--disable-warning=ExperimentalWarning', path.join(ROOT, 'scripts/build-gateway.ts')], { cwd: ROOT, stdio: 'inherit' });
  if (build.status !== 0) process.exit(build.status ?? 1);
}

// First: an unsupported Node is refused before the port checks and before any build.
const refusal = unsupportedNode();
if (refusal !== undefined) fail(refusal);

const help = process.argv.slice(2).some((argument) => argument === '--help' || argument === '-h');
if (cluster.isPrimary && !help) {
  if (setting('ADMIN_PORT') !== 'off') await checkPort('ADMIN_PORT', 'ADMIN_HOST');
  await checkPort('PORT', 'HOST');
}
if (cluster.isPrimary) ensureBuilt();
await import('../dist/main.js');
