import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { cpSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

// An example project of examples/ as a user has it: copied to a temporary folder outside this
// checkout (so nothing resolves from the checkout's node_modules) and installed with npm on the
// machine, from npm's cache where it can.

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const run = promisify(execFile);

/** The machine's PATH with the project's Node 24 first: the recipes run on Node 24, npm as on the machine. */
const examplePath = [join(ROOT, 'node_modules/.bin/node').replace(/\/node$/, ''), ...(process.env.PATH ?? '').split(':').filter((dir) => !dir.includes('node_modules'))].join(':');

/** Copies examples/<name>/ (without anything it installed or generated) to a new temporary folder. */
export function copyExample(name: string): string {
  const folder = mkdtempSync(join(tmpdir(), `example-${name}-`));
  cpSync(join(ROOT, 'examples', name), folder, { recursive: true, filter: (source) => !/\/(node_modules|__generated__)(\/|$)/.test(source) });
  return folder;
}

/**
 * The machine's environment without what this checkout's npm and jest add (npm_* from its .npmrc and
 * package.json, jest's NODE_OPTIONS and NODE_ENV=test, which graphql-codegen takes as its cue to print
 * no errors): the registry's settings (a CA, a proxy) stay.
 */
export const machineEnv = () => Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name) && !['NODE_OPTIONS', 'NODE_ENV', 'INIT_CWD'].includes(name)));

/** `npm <args>` in `folder`, as a user runs it there. */
export function npmIn(folder: string, args: string[], env: Record<string, string> = {}): Promise<{ stdout: string; stderr: string }> {
  return run('npm', args, { cwd: folder, env: { ...machineEnv(), PATH: examplePath, ...env }, maxBuffer: 16 * 1024 * 1024 });
}

/** Installs an example's dependencies, preferring npm's cache to the registry. */
export function installExample(folder: string): Promise<{ stdout: string; stderr: string }> {
  return npmIn(folder, ['install', '--prefer-offline', '--no-audit', '--no-fund']);
}

/** `npm <args>` in `folder` as a long-running process (an app that prints as it goes), in a process group of its own (kill `-pid` ends the app too). */
export function spawnNpmIn(folder: string, args: string[], env: Record<string, string> = {}): ChildProcess {
  return spawn('npm', args, { cwd: folder, env: { ...machineEnv(), PATH: examplePath, ...env }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
}
