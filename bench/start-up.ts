/**
 * Start-up of one or more built gateways, in alternating starts within one run: spawn → `/healthz`
 * 200 of `node <npm start's flags> ENTRY` in production mode, `UPSTREAM_URL` set (nothing listens
 * there: start-up does not call the platform), pinned to CPU 1 where taskset exists. Prints each
 * entry's median and every start. Two builds of the same sources into two folders beside src/
 * (`npm run build -- dist-other`) compare a build setting; two checkouts' `dist/main.js` compare
 * revisions. Nothing is built here.
 *
 *   node --disable-warning=ExperimentalWarning bench/start-up.ts [--starts N] ENTRY...
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { readCommandLine } from '../src/settings/command-line.ts';
import { canPin, spawnLogged, waitForReady } from './lib/processes.ts';
import { startCommand } from './lib/start-command.ts';
import { median } from './lib/stats.ts';

const { values, positionals } = readCommandLine(
  { options: { starts: { type: 'string', default: '9' } }, allowPositionals: true },
  {
    command: 'node bench/start-up.ts',
    positionals: 'ENTRY...',
    summary: "Start-up (spawn → /healthz 200) of each built gateway entry, in alternating starts, with npm start's Node flags.",
    options: { starts: { text: 'starts of each entry', value: 'N' } },
    examples: ['node bench/start-up.ts dist/main.js dist-other/main.js'],
  },
);
if (positionals.length === 0) throw new Error('name at least one entry, such as dist/main.js');
const ROOT = path.resolve(import.meta.dirname, '..');
const NODE = path.join(ROOT, 'node_modules/.bin/node');
const { flags } = startCommand(ROOT);
const pinned = canPin();
const logDir = mkdtempSync(path.join(tmpdir(), 'start-up-'));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const startsOf = new Map<string, number[]>(positionals.map((entry) => [entry, []]));
let port = 47_100;
for (let round = 0; round < Number(values.starts); round++) {
  for (const [index, entry] of positionals.entries()) {
    port += 1;
    const started = performance.now();
    const child = spawnLogged({
      name: `entry-${index}`, command: NODE, args: [...flags, path.resolve(entry)], cwd: ROOT, logDir, cpu: pinned ? 1 : undefined,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, NODE_ENV: 'production', UPSTREAM_URL: 'http://127.0.0.1:9', HOST: '127.0.0.1', PORT: String(port), ADMIN_PORT: 'off' },
    });
    startsOf.get(entry)!.push(await waitForReady(`http://127.0.0.1:${port}/healthz`, child, started, 30_000, 3));
    await child.stop();
    await sleep(200);
  }
}
for (const [entry, starts] of startsOf) {
  console.log(`${entry}: median ${median(starts).toFixed(0)} ms (${starts.map((ms) => ms.toFixed(0)).join(', ')})`);
}
console.log(`logs of the starts in ${logDir}`);
