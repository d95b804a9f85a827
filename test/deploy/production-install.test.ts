import { execFile, execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { SANDBOX_SETTINGS } from '../../src/settings/sandbox-settings.ts';
import { SETTINGS } from '../../src/settings/settings.ts';
import { watchOutput } from '../support/gateway-process.ts';
import { bearer, postGraphQL } from '../support/graphql-client.ts';
import { sideBySide } from '../support/side-by-side.ts';

// The production path of a fresh copy holding dist/, on a copy of the project: `npm start` in
// development builds dist/ once and then starts without building; the copy is then installed with
// `npm ci --omit=dev` from the registry (no dev tool, npm on the machine's Node) and `npm start` with
// NODE_ENV=production runs the build it finds, over the embedded sandbox, or refuses a missing or
// stale one with one line. The production install brings its own Node 24 (the `node` production
// dependency): with the machine's Node first on PATH (20, end of life, on these machines and in CI),
// `npm start` serves on it, while the image's command run on Node 20 refuses with one line. The
// README's own sequence (install, build, prune, start) is test/deploy/fresh-clone.test.ts.


const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** The project's Node 24 for the development steps; the production steps run on the machine's Node. */
const BIN = join(ROOT, 'node_modules/.bin');
const run = promisify(execFile);
/** The embedded sandbox's exceptions of demo-token-acme. */
const ACME_EXCEPTIONS = 300;
const BUILT = /^Gateway built into \S+ in \d+ ms$/m;

let app: string;
let started: ChildProcess | undefined;
let held: Server | undefined;

/** The PATH of a machine with the project's tools first (development), or with the machine's own Node first (machine). */
type Machine = 'development' | 'machine';
const pathFor = (machine: Machine) => [...(machine === 'development' ? [BIN] : []), ...(process.env.PATH ?? '').split(':').filter((dir) => !dir.includes('node_modules'))].join(':');

function npmStart(env: Record<string, string>, machine: Machine) {
  const child = spawn('npm', ['start', '--silent'], {
    cwd: app,
    env: { PATH: pathFor(machine), HOME: process.env.HOME ?? '', PORT: '0', ADMIN_PORT: '0', SANDBOX_PORT: '0', SANDBOX_CONTENT_PORT: '0', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  started = child;
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, exited, stdout: watchOutput(child.stdout!, exited), stderr: watchOutput(child.stderr!) };
}

/** Starts `npm start`, waits for its banner, answers one query and stops it with SIGTERM. */
async function startAndQuery(env: Record<string, string>, machine: Machine) {
  const gateway = npmStart(env, machine);
  const endpoint = (await gateway.stdout.waitFor(/^GraphQL endpoint: (\S+)$/m, 120_000))[1]!;
  const answer = await postGraphQL(endpoint, { query: '{ exceptions(first: 1) { totalCount } }' }, bearer('demo-token-acme'));
  gateway.child.kill('SIGTERM');
  return { answer, code: await gateway.exited, stdout: gateway.stdout.text(), stderr: gateway.stderr.text() };
}

beforeAll(() => {
  app = mkdtempSync(join(tmpdir(), 'production-install-'));
  // The project as a clone has it: tracked files and new ones not ignored (no dist/, no node_modules).
  const files = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '-z'], { cwd: ROOT, encoding: 'utf8' }).split('\0')
    .filter((file) => file !== '' && file !== 'node_modules');
  for (const file of files) {
    try {
      mkdirSync(dirname(join(app, file)), { recursive: true });
      cpSync(join(ROOT, file), join(app, file));
    } catch (error) {
      // A tracked file deleted in the working tree is not part of the project being tested.
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
  // The development steps use this checkout's installed dependencies, as an `npm ci` would give them.
  symlinkSync(join(ROOT, 'node_modules'), join(app, 'node_modules'));
});

afterEach(() => {
  if (started && started.exitCode === null && started.signalCode === null) process.kill(-started.pid!, 'SIGKILL');
  started = undefined;
  held?.close();
  held = undefined;
});

afterAll(() => {
  if (app) rmSync(app, { recursive: true, force: true });
});

describe('scripts/start.mjs', () => {
  it('checks the ports the gateway takes by default', () => {
    const defaults = /const LISTENER_DEFAULTS = (\{[^}]*\});/.exec(readFileSync(join(ROOT, 'scripts/start.mjs'), 'utf8'))![1]!;
    const parsed = JSON.parse(defaults.replace(/(\w+):/g, '"$1":').replace(/'/g, '"')) as Record<string, string>;
    const definitions = { ...SETTINGS, ...SANDBOX_SETTINGS } as Record<string, object>;
    expect(parsed).toEqual(Object.fromEntries(Object.keys(parsed).map((name) => [name, String((definitions[name] as { default?: unknown }).default)])));
    expect(Object.keys(parsed)).toEqual(['PORT', 'HOST', 'ADMIN_PORT', 'ADMIN_HOST', 'SANDBOX_PORT', 'SANDBOX_CONTENT_PORT', 'SANDBOX_HOST']);
  });
});

describe('npm start in development', () => {
  it('builds dist/ when it holds no build, then serves', async () => {
    const { answer, code, stdout } = await startAndQuery({}, 'development');
    expect(stdout).toMatch(BUILT);
    expect(stdout.indexOf('Gateway built into')).toBeLessThan(stdout.indexOf('GraphQL endpoint:'));
    expect(answer).toEqual({ status: 200, body: { data: { exceptions: { totalCount: ACME_EXCEPTIONS } } } });
    expect(code).toBe(0);
  }, 180_000);

  it('starts a second time without building', async () => {
    const { answer, code, stdout } = await startAndQuery({}, 'development');
    expect(stdout).not.toMatch(BUILT);
    expect(stdout).toMatch(/^GraphQL endpoint: /);
    expect([answer.status, code]).toEqual([200, 0]);
  }, 120_000);

  it("the install's prepare step says it is building the playground before it builds", async () => {
    const { stdout, stderr } = await run(join(BIN, 'node'), ['scripts/prepare.mjs'], { cwd: app, env: { PATH: pathFor('development'), HOME: process.env.HOME ?? '' } });
    expect({ stdout: stdout.replace(/ in \d+ ms$/m, ' in (time)'), stderr }).toEqual({
      stdout: `prepare: building the playground (React + GraphiQL into playground/dist/, about 2–10 s)\nPlayground built into ${join(app, 'playground/dist')} in (time)\n`,
      stderr: '',
    });
  }, 120_000);

  it('says a port is taken in one line, before building', async () => {
    held = createServer();
    await new Promise<void>((resolve) => held!.listen(0, '127.0.0.1', resolve));
    const port = (held.address() as AddressInfo).port;
    // The sources changed: a start would build first, were the port not checked before.
    const source = join(app, 'src/process/banner.ts');
    const before = readFileSync(source, 'utf8');
    appendFileSync(source, '\n// changed\n');
    const gateway = npmStart({ ADMIN_PORT: String(port) }, 'development');
    const code = await gateway.exited;
    writeFileSync(source, before);
    expect({ code, stdout: gateway.stdout.text(), stderr: gateway.stderr.text() }).toEqual({
      code: 1,
      stdout: '',
      stderr: `Port ${port} on 127.0.0.1 is already in use: choose another with ADMIN_PORT (0 picks a free one)\n`,
    });
  }, 60_000);
});

describe('the production install (npm ci --omit=dev)', () => {
  let install: { stdout: string; stderr: string };

  beforeAll(async () => {
    unlinkSync(join(app, 'node_modules'));
    // --prefer-offline: the lock names every version and integrity, so the packages are the same; npm
    // reads the registry's metadata from its cache instead of asking again for each of them.
    install = await run('npm', ['ci', '--prefer-offline', '--omit=dev', '--no-audit', '--no-fund'], { cwd: app, env: { PATH: pathFor('machine'), HOME: process.env.HOME ?? '' }, maxBuffer: 16 * 1024 * 1024 });
  }, 600_000);

  it('installs without dev tools but with its Node 24, skipping the playground build with one line', () => {
    expect(install.stdout).toContain('prepare: playground not built (no dev dependencies: a production install); the gateway serves it only where PLAYGROUND is on\n');
    expect(install.stderr).toBe('');
    expect(execFileSync(join(app, 'node_modules/.bin/node'), ['--version'], { encoding: 'utf8' })).toBe(`v${(JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { dependencies: Record<string, string> }).dependencies.node}\n`);
    expect(existsSync(join(app, 'node_modules/esbuild'))).toBe(false);
  });

  it("on the machine's Node 20, the image's command refuses in one line naming the Node needed", async () => {
    const machineNode = execFileSync('sh', ['-c', 'command -v node'], { env: { PATH: pathFor('machine') }, encoding: 'utf8' }).trim();
    const version = execFileSync(machineNode, ['--version'], { encoding: 'utf8' }).trim().slice(1);
    // The machines that run this test (and CI's) have the end-of-life Node 20 as their own.
    expect(version).toMatch(/^20\./);
    const refusal = `This gateway needs Node 22.18.0 or newer (package.json "engines"); ${machineNode} is Node ${version}: put a newer Node first on PATH (24, which it is built and tested on)\n`;
    const image = await run(machineNode, ['dist/main.js'], { cwd: app, env: { PATH: pathFor('machine'), NODE_ENV: 'production' } }).then(
      () => ({ code: 0, stdout: '', stderr: '' }),
      (error: { code: number; stdout: string; stderr: string }) => ({ code: error.code, stdout: error.stdout, stderr: error.stderr }),
    );
    expect(image).toEqual({ code: 1, stdout: '', stderr: refusal });
    const start = await run(machineNode, ['scripts/start.mjs'], { cwd: app, env: { PATH: pathFor('machine'), NODE_ENV: 'production' } }).then(
      () => ({ code: 0, stdout: '', stderr: '' }),
      (error: { code: number; stdout: string; stderr: string }) => ({ code: error.code, stdout: error.stdout, stderr: error.stderr }),
    );
    expect(start).toEqual({ code: 1, stdout: '', stderr: refusal });
  }, 60_000);

  it("with the machine's Node 20 first on PATH, npm start runs the build it finds on the install's Node 24 with NODE_ENV=production and answers a query over the embedded sandbox, warning of a misspelt setting", async () => {
    const { answer, code, stdout, stderr } = await startAndQuery({ NODE_ENV: 'production', RATE_LIMIT_PER_SECONDS: '5' }, 'machine');
    expect(stdout).not.toMatch(BUILT);
    expect(answer).toEqual({ status: 200, body: { data: { exceptions: { totalCount: ACME_EXCEPTIONS } } } });
    expect({ code, stderr }).toEqual({
      code: 0,
      stderr: 'Warning: RATE_LIMIT_PER_SECONDS is not a setting of this gateway and is ignored: did you mean RATE_LIMIT_PER_SECOND? (npm start -- --help lists the settings)\n',
    });
  }, 120_000);

  it('answers --help for every command, or says in one line what the command needs, never with a stack trace', async () => {
    const commands = ['start', 'build', 'build:playground', 'sandbox', 'replicas', 'supergraph', 'federation', 'relay', 'codegen', 'lint', 'test'];
    const helpOf = async (command: string) => {
      const outcome = await run('npm', ['run', '--silent', command, '--', '--help'], { cwd: app, env: { PATH: pathFor('machine'), HOME: process.env.HOME ?? '' } }).then(
        ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
        (error: { code: number; stdout: string; stderr: string }) => ({ code: error.code, stdout: error.stdout, stderr: error.stderr }),
      );
      // A help text by its first line; a refusal whole.
      return outcome.code === 0 ? { code: 0, usage: outcome.stdout.split('\n')[0], stderr: outcome.stderr } : outcome;
    };
    const usage = (command: string) => ({ code: 0, usage: `Usage: ${command} [options]`, stderr: '' });
    const needs = (command: string, dependency: string) => ({
      code: 1,
      stdout: '',
      stderr: `npm run ${command} needs the development install (\`npm ci\` with the dev dependencies): ${dependency}, a dev dependency it uses, is not installed here\n`,
    });
    const needsCommand = (command: string, bin: string) => ({
      code: 1,
      stdout: '',
      stderr: `${command} needs the development install (\`npm ci\` with the dev dependencies): ${bin}, the command of a dev dependency, is not installed here\n`,
    });
    // Two at a time: each is an npm, then a Node, starting.
    const outcomes = Object.fromEntries(await sideBySide(commands, 2, async (command) => [command, await helpOf(command)]));
    expect(outcomes).toEqual({
      start: usage('node dist/main.js'),
      build: needs('build', 'esbuild'),
      'build:playground': needs('build:playground', 'esbuild'),
      sandbox: usage('npm run sandbox --'),
      replicas: needs('replicas', 'esbuild'),
      supergraph: needs('supergraph', '@apollo/composition'),
      federation: needs('federation', '@graphql-hive/gateway'),
      relay: needs('relay', '@apollo/composition'),
      codegen: needsCommand('npm run codegen', 'graphql-codegen'),
      lint: needsCommand('npm run lint', 'eslint'),
      test: needsCommand('npm test', 'jest'),
    });
    // A TypeScript command run with the machine's Node 20 itself, not through npm, says what it needs.
    const machineNode = execFileSync('sh', ['-c', 'command -v node'], { env: { PATH: pathFor('machine') }, encoding: 'utf8' }).trim();
    const version = execFileSync(machineNode, ['--version'], { encoding: 'utf8' }).trim().slice(1);
    const direct = await run(machineNode, ['scripts/typescript.mjs', 'sandbox/main.ts', '--help'], { cwd: app, env: { PATH: pathFor('machine') } }).then(
      () => ({ code: 0, stderr: '' }),
      (error: { code: number; stderr: string }) => ({ code: error.code, stderr: error.stderr }),
    );
    expect(direct).toEqual({
      code: 1,
      stderr: `node sandbox/main.ts runs TypeScript, which ${machineNode} (Node ${version}) cannot: put Node 22.18 or newer first on PATH, or use the development install (\`npm ci\`), whose Node 24 runs it\n`,
    });
  }, 120_000);

  it('refuses a dist/ built from other sources, saying what to run', async () => {
    appendFileSync(join(app, 'src/process/banner.ts'), '\n// changed after the build\n');
    const gateway = npmStart({ NODE_ENV: 'production' }, 'machine');
    expect({ code: await gateway.exited, stdout: gateway.stdout.text(), stderr: gateway.stderr.text() }).toEqual({
      code: 1,
      stdout: '',
      stderr: 'dist/ was built from other sources than these: run `npm run build` before `npm start` (production never builds)\n',
    });
  }, 60_000);

  it('outside production, says it cannot build a stale dist/ without dev dependencies, in one line', async () => {
    const gateway = npmStart({}, 'machine');
    expect({ code: await gateway.exited, stdout: gateway.stdout.text(), stderr: gateway.stderr.text() }).toEqual({
      code: 1,
      stdout: '',
      stderr: 'dist/ was built from other sources than these, and this install cannot build (no dev dependencies): run `npm run build` where they are installed\n',
    });
  }, 60_000);

  it('refuses a missing dist/, saying what to run', async () => {
    rmSync(join(app, 'dist'), { recursive: true });
    const gateway = npmStart({ NODE_ENV: 'production' }, 'machine');
    expect({ code: await gateway.exited, stdout: gateway.stdout.text(), stderr: gateway.stderr.text() }).toEqual({
      code: 1,
      stdout: '',
      stderr: 'dist/ holds no build: run `npm run build` before `npm start` (production never builds)\n',
    });
  }, 60_000);
});
