import { execFile, execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, unlinkSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { watchOutput } from '../support/gateway-process.ts';
import { bearer, postGraphQL } from '../support/graphql-client.ts';
import { sideBySide } from '../support/side-by-side.ts';

// The README's "Production without Docker", run word for word on a fresh clone of this checkout as a
// user of this machine runs it: the machine's PATH (its Node 20 first, its npm 11), each line of the
// section's block in bash, each line's outcome checked. Then, in the install the section leaves
// (dev dependencies pruned), what a user meets next: every clash of a start told in one message, the
// warning of a misspelt setting, and `--help` for every npm script.
//
// The clone starts with this checkout's node_modules, hard-linked (docs/testing.md says why): the
// section's `npm install` then checks and completes it as it would after a build cache restored it,
// instead of fetching 1.6 GB again. Its node_modules/.package-lock.json, the one file npm rewrites in
// place, is a copy of its own, so nothing the clone's npm does reaches this checkout.

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');
const SECTION = README.slice(README.indexOf('\n## Production without Docker\n'));
const BLOCK = /```sh\n([\s\S]*?)```/.exec(SECTION)![1]!;
const LINES = BLOCK.split('\n').filter((line) => line.trim() !== '' && !line.startsWith('#'));
const PACKAGE = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string>; dependencies: Record<string, string> };

/** The machine's own PATH: nothing of a node_modules, so its Node 20 comes first. */
const MACHINE_PATH = (process.env.PATH ?? '').split(':').filter((dir) => !dir.includes('node_modules')).join(':');
/** Free ports for every listener: the machine is shared, its defaults may be anyone's. */
const FREE_PORTS = { PORT: '0', ADMIN_PORT: '0', SANDBOX_PORT: '0', SANDBOX_CONTENT_PORT: '0' };

let clone: string;
let started: ChildProcess | undefined;
const held: Server[] = [];

interface Outcome {
  code: number;
  stdout: string;
  stderr: string;
}

/** One command line in bash, in the clone, with the user's environment (the machine's PATH and HOME) and `env`. */
function shell(line: string, env: Record<string, string> = {}): Promise<Outcome> {
  return new Promise((resolve) => {
    execFile('bash', ['-c', line], { cwd: clone, env: { PATH: MACHINE_PATH, HOME: process.env.HOME ?? '', ...env }, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) =>
      resolve({ code: error ? Number(error.code) : 0, stdout, stderr }));
  });
}

/** A long-running command line (a start), its output watched. */
function launch(line: string, env: Record<string, string>) {
  const child = spawn('bash', ['-c', line], { cwd: clone, env: { PATH: MACHINE_PATH, HOME: process.env.HOME ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  started = child;
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, exited, stdout: watchOutput(child.stdout!, exited), stderr: watchOutput(child.stderr!) };
}

/** What a command printed itself: without the lines npm echoes before a script (`> name@version script`, the command, a blank line). */
const ownLines = (stdout: string) => stdout.split('\n').filter((line) => line !== '' && !line.startsWith('> '));

const gitStatus = () => execFileSync('git', ['status', '--porcelain'], { cwd: clone, encoding: 'utf8' });

async function holdPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  held.push(server);
  return (server.address() as AddressInfo).port;
}

beforeAll(() => {
  clone = mkdtempSync(join(tmpdir(), 'fresh-clone-'));
  // The clone: this checkout's tracked files and its new ones not ignored, committed in a repository of its own.
  const files = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '-z'], { cwd: ROOT, encoding: 'utf8' }).split('\0')
    .filter((file) => file !== '' && file !== 'node_modules' && existsSync(join(ROOT, file)));
  for (const file of files) {
    mkdirSync(dirname(join(clone, file)), { recursive: true });
    cpSync(join(ROOT, file), join(clone, file));
  }
  const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=clone', '-c', 'user.email=clone@example.com', ...args], { cwd: clone, stdio: 'ignore' });
  git('init', '-q');
  git('add', '-A');
  git('commit', '-q', '-m', 'clone');
  execFileSync('cp', ['-al', join(ROOT, 'node_modules'), join(clone, 'node_modules')]);
  unlinkSync(join(clone, 'node_modules/.package-lock.json'));
  copyFileSync(join(ROOT, 'node_modules/.package-lock.json'), join(clone, 'node_modules/.package-lock.json'));
}, 120_000);

afterEach(() => {
  if (started && started.exitCode === null && started.signalCode === null) process.kill(-started.pid!, 'SIGKILL');
  started = undefined;
  for (const server of held.splice(0)) server.close();
});

afterAll(() => {
  if (clone) rmSync(clone, { recursive: true, force: true });
});

describe("the README's production section, word for word", () => {
  it('is four commands: install, build, prune, start in production', () => {
    expect(LINES.map((line) => line.replace(/\s+#.*$/, ''))).toEqual(['npm install', 'npm run build', 'npm prune --omit=dev', 'NODE_ENV=production npm start']);
    // The machine as it is: its own Node 20 comes first on PATH.
    expect(execFileSync('node', ['--version'], { env: { PATH: MACHINE_PATH }, encoding: 'utf8' })).toMatch(/^v20\./);
  });

  it('1. npm install: installs, builds the playground, and leaves the clone as committed (the lock included)', async () => {
    const { code, stdout, stderr } = await shell(LINES[0]!);
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    expect(stdout).toMatch(/^prepare: building the playground \(React \+ GraphiQL into playground\/dist\/, about 2–10 s\)\nPlayground built into \S+ in \d+ ms$/m);
    expect(gitStatus()).toBe('');
  }, 300_000);

  it('2. npm run build: bundles dist/ and says so in one line', async () => {
    const { code, stdout, stderr } = await shell(LINES[1]!);
    expect({ code, stderr, lines: ownLines(stdout) }).toEqual({ code: 0, stderr: '', lines: [expect.stringMatching(/^Gateway built into \S+\/dist in \d+ ms$/)] });
  }, 120_000);

  it('3. npm prune --omit=dev: the dev tools go, the Node 24 stays, the clone is still as committed', async () => {
    const { code, stderr } = await shell(LINES[2]!);
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    expect(existsSync(join(clone, 'node_modules/esbuild'))).toBe(false);
    expect(execFileSync(join(clone, 'node_modules/.bin/node'), ['--version'], { encoding: 'utf8' }).trim()).toBe(`v${PACKAGE.dependencies.node}`);
    expect(gitStatus()).toBe('');
  }, 300_000);

  it('4. NODE_ENV=production npm start: serves on the Node 24 the install brought, over the embedded sandbox, from the build it finds', async () => {
    const gateway = launch(LINES[3]!, FREE_PORTS);
    const endpoint = (await gateway.stdout.waitFor(/^GraphQL endpoint: (\S+)$/m, 60_000))[1]!;
    const admin = (await gateway.stdout.waitFor(/^Admin \([^)]*\): (\S+)$/m, 5_000))[1]!;
    const answer = await postGraphQL(endpoint, { query: '{ exceptions(first: 1) { totalCount } }' }, bearer('demo-token-acme'));
    const metrics = await (await fetch(`${admin}/metrics`)).text();
    gateway.child.kill('SIGTERM');
    expect(await gateway.exited).toBe(0);
    expect(answer).toEqual({ status: 200, body: { data: { exceptions: { totalCount: 300 } } } });
    expect(/^nodejs_version_info\{version="([^"]+)"/m.exec(metrics)![1]).toBe(`v${PACKAGE.dependencies.node}`);
    expect(gateway.stdout.text()).not.toMatch(/Gateway built into/);
    expect(gateway.stderr.text()).toBe('');
  }, 120_000);
});

describe('the production install, next', () => {
  it('names every taken port of a start in one message, with its setting', async () => {
    const [port, admin, sandbox] = [await holdPort(), await holdPort(), await holdPort()];
    const gateway = launch(LINES[3]!, { ...FREE_PORTS, PORT: String(port), ADMIN_PORT: String(admin), SANDBOX_PORT: String(sandbox) });
    expect({ code: await gateway.exited, stdout: ownLines(gateway.stdout.text()), stderr: gateway.stderr.text() }).toEqual({
      code: 1,
      stdout: [],
      stderr: `Ports already in use: ${port} on 127.0.0.1 (PORT), ${admin} on 127.0.0.1 (ADMIN_PORT), ${sandbox} on 127.0.0.1 (SANDBOX_PORT): choose others with these settings (0 picks a free one)\n`,
    });
  }, 60_000);

  it('warns of a misspelt setting, naming the help that lists the settings; that help answers', async () => {
    const gateway = launch(LINES[3]!, { ...FREE_PORTS, RATE_LIMIT_PER_SECONDS: '5' });
    await gateway.stdout.waitFor(/^GraphQL endpoint: /m, 60_000);
    gateway.child.kill('SIGTERM');
    expect(await gateway.exited).toBe(0);
    const warning = 'Warning: RATE_LIMIT_PER_SECONDS is not a setting of this gateway and is ignored: did you mean RATE_LIMIT_PER_SECOND? (npm start -- --help lists the settings)\n';
    expect(gateway.stderr.text()).toBe(warning);
    const help = await shell(/\((npm start -- --help) lists/.exec(warning)![1]!);
    expect({ code: help.code, stderr: help.stderr }).toEqual({ code: 0, stderr: '' });
    expect(help.stdout).toMatch(/^ {2}RATE_LIMIT_PER_SECOND /m);
  }, 60_000);

  it('answers --help for every npm script with its help or one line, never a shell error or a stack trace', async () => {
    // Two at a time: each is a bash, an npm, then a Node, starting.
    const outcomes = Object.fromEntries(await sideBySide(Object.keys(PACKAGE.scripts), 2, async (script) => {
      const { code, stdout, stderr } = await shell(`npm run --silent ${script} -- --help`);
      const lines = (stdout + stderr).split('\n').filter(Boolean);
      // A help (exit 0, a usage line first) or one line (a refusal, or the playground step skipped).
      return [script, (code === 0 && stderr === '' && /^Usage: /.test(stdout)) || lines.length === 1 ? 'help or one line' : { code, stdout, stderr }];
    }));
    expect(outcomes).toEqual(Object.fromEntries(Object.keys(PACKAGE.scripts).map((script) => [script, 'help or one line'])));
    // The refusals say what is missing, e.g. a dev dependency's command.
    expect(await shell('npm run --silent codegen -- --help')).toEqual({
      code: 1,
      stdout: '',
      stderr: 'npm run codegen needs the development install (`npm ci` with the dev dependencies): graphql-codegen, the command of a dev dependency, is not installed here\n',
    });
  }, 180_000);
});
