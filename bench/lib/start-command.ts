import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';

export interface StartCommand {
  /** The Node flags of `npm start` (heap sizing among them), so the gateway is measured as it is deployed. */
  flags: string[];
  /** The entry file, relative to the checkout: dist/main.js (the built gateway), or src/main.* in revisions before it. */
  entry: string;
}

/** A checkout's `npm start`, `[exec] node [flags] <entry>`: the tokens between `node` and the entry, and the entry. */
export function startCommand(root: string): StartCommand {
  const start = (JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { scripts: { start?: string } }).scripts.start ?? '';
  const tokens = start.split(/\s+/).filter((token) => token !== '' && token !== 'exec');
  const entry = tokens.findIndex((token) => /^(dist|src)\/main\.[jt]s$|^scripts\/start\.mjs$/.test(token));
  if (tokens[0] !== 'node' || entry < 0) throw new Error(`package.json "start" of ${root} is not "[exec] node [flags] dist/main.js" or "… scripts/start.mjs": ${start}`);
  // scripts/start.mjs checks the ports and the build stamp, then runs dist/main.js in its own process:
  // the benchmark builds first and measures the gateway's own start-up.
  return { flags: tokens.slice(1, entry), entry: tokens[entry] === 'scripts/start.mjs' ? 'dist/main.js' : (tokens[entry] as string) };
}

/**
 * The checkout's gateway as `npm start` runs it, built first when its entry is the bundle (its
 * `prestart`, which a benchmark spawning node directly does not run).
 */
export function preparedStartCommand(root: string): StartCommand {
  const command = startCommand(root);
  if (command.entry.startsWith('dist/')) {
    execFileSync(path.join(root, 'node_modules/.bin/node'), ['--disable-warning=ExperimentalWarning', 'scripts/build-gateway.ts'], { cwd: root, stdio: 'ignore' });
  }
  return command;
}
