// `npm start`: runs the built gateway (dist/), never the sources. Plain JavaScript without
// dependencies, so it runs where dev dependencies are pruned, and on any Node (an old one only to
// refuse it). Before the gateway loads (in this same process, with the Node flags of `npm start`):
//   0. a Node older than the gateway supports is refused with one line (src/supported-node.js);
//   1. every port the start needs is checked (public, admin, the embedded sandbox's), so the clashes
//      are one line, naming each setting, before anything is built;
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

/** The listeners' defaults, as src/settings/settings.ts and src/settings/sandbox-settings.ts define them (a test keeps them equal). */
const LISTENER_DEFAULTS = { PORT: '4000', HOST: '127.0.0.1', ADMIN_PORT: '9090', ADMIN_HOST: '127.0.0.1', SANDBOX_PORT: '4010', SANDBOX_CONTENT_PORT: '4011', SANDBOX_HOST: '127.0.0.1' };

const setting = (name) => process.env[name] || LISTENER_DEFAULTS[name];

function fail(line) {
  process.stderr.write(`${line}\n`);
  process.exit(1);
}

/**
 * The port a setting names, when it is free or not a plain port (0, `off`, a typo: the gateway's
 * own checks report those); otherwise what the message says of it: `4000 on 127.0.0.1 (PORT)`.
 */
function takenPort(portSetting, hostSetting) {
  const text = setting(portSetting);
  const port = Number(text);
  if (!/^\d+$/.test(text) || port === 0 || port > 65535) return Promise.resolve(undefined);
  const host = setting(hostSetting);
  return new Promise((resolve) => {
    const probe = createServer();
    // Anything but EADDRINUSE (a host that does not resolve, a privileged port) is the gateway's to report.
    probe.once('error', (error) => resolve(error.code === 'EADDRINUSE' ? { port, host, setting: portSetting } : undefined));
    probe.listen({ port, host, exclusive: true }, () => probe.close(() => resolve(undefined)));
  });
}

/**
 * Every port this start needs, checked in one pass so that one message names each taken one: the
 * gateway's, the admin listener's and, with no UPSTREAM_URL, the embedded sandbox's two. A taken
 * sandbox port alone stops nothing (the sandbox then runs on free ports and the banner says so), but
 * it is named beside a taken gateway or admin port, so the next start meets no clash left untold.
 * One after the other, not at once: two settings naming the same port must not find each other's probe.
 */
async function checkPorts() {
  const listeners = [['PORT', 'HOST'], ...(setting('ADMIN_PORT') === 'off' ? [] : [['ADMIN_PORT', 'ADMIN_HOST']])];
  const sandbox = process.env.UPSTREAM_URL ? [] : [['SANDBOX_PORT', 'SANDBOX_HOST'], ['SANDBOX_CONTENT_PORT', 'SANDBOX_HOST']];
  const taken = [];
  for (const [portSetting, hostSetting] of [...listeners, ...sandbox]) {
    const clash = await takenPort(portSetting, hostSetting);
    if (clash !== undefined) taken.push(clash);
  }
  if (!taken.some((clash) => !clash.setting.startsWith('SANDBOX_'))) return;
  if (taken.length === 1) {
    const [{ port, host, setting: name }] = taken;
    fail(`Port ${port} on ${host} is already in use: choose another with ${name} (0 picks a free one)`);
  }
  fail(`Ports already in use: ${taken.map(({ port, host, setting: name }) => `${port} on ${host} (${name})`).join(', ')}: choose others with these settings (0 picks a free one)`);
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
if (cluster.isPrimary && !help) await checkPorts();
if (cluster.isPrimary) ensureBuilt();
await import('../dist/main.js');
