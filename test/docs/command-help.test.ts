import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from '@jest/globals';
import { GROUP_TITLES } from '../../src/settings/gateway-help.ts';
import { editDistance, settingTypos } from '../../src/settings/setting-typos.ts';
import { GROUPS, SETTINGS } from '../../src/settings/settings.ts';
import { SANDBOX_SETTINGS } from '../../src/settings/sandbox-settings.ts';

// Every command that takes arguments answers `--help` with what it does, its options and an example,
// and refuses an unknown option with one line; the gateway's help lists its settings as
// docs/configuration.md groups them. Each command runs as a user types it.

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const NODE = `${ROOT}node_modules/.bin/node`;

interface Outcome {
  code: number;
  stdout: string;
  stderr: string;
}

function run(command: string, args: string[]): Promise<Outcome> {
  return new Promise((resolve) => {
    execFile(command, args, { cwd: ROOT, env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' } }, (error, stdout, stderr) => {
      resolve({ code: error ? Number(error.code) : 0, stdout, stderr });
    });
  });
}

/** The npm scripts that take arguments, with the options their help must list. */
const SCRIPTS: Record<string, string[]> = {
  start: [],
  build: [],
  'build:playground': [],
  sandbox: [],
  supergraph: ['--api', '--url URL', '--out FILE'],
  federation: ['--port PORT', '--max-cost N'],
  replicas: ['--replicas N'],
  'schema:check': ['--accept', '--allow-breaking'],
  'schema:accept': ['--accept', '--allow-breaking'],
  relay: [],
  bench: ['--quick', '--soak-seconds N', '--runs N', '--rate N', '--workers-only', '--rate-limit-only'],
  'bench:hostile': ['--seconds N', '--warmup-seconds N', '--clients N', '--max-old-space-mib N', '--only KIND', '--env NAME=VALUE'],
  'bench:features': ['--pairs N', '--window-ms MS', '--connections N', '--workload LETTER', '--features LIST', '--env NAME=VALUE'],
  'settings:docs': ['--check'],
  'settings:check': ['--check'],
  'static-checks': [],
};

/** What a help text lists as options: the left column of its Options block. */
const optionsOf = (help: string) => /\nOptions:\n([\s\S]*?)\n\n/.exec(help)![1]!.split('\n').map((line) => line.trim().split(/ {2,}/)[0]);
const examplesOf = (help: string) => /\nExample:\n([\s\S]*?)\n(\n|$)/.exec(help)![1]!.split('\n').map((line) => line.trim());

/** Measurement tools run with node, not npm, with the options their help must list. */
const TOOLS: Record<string, string[]> = {
  'bench/rate-limit-check.ts': ['--redis URL', '--checks N'],
  'bench/relay-page-cost.ts': ['--rounds N', '--seconds S', '--rate R', '--profile DIR', '--only VARIANT'],
  'bench/compilation-cache-heap.ts': ['--documents N', '--kept N'],
  'bench/compiled-entry-heap.ts': ['--documents N'],
  'bench/subscriptions.ts': ['--subscribers N', '--streams N', '--seconds S', '--poll-ms MS'],
  'bench/subscriptions-replicas.ts': ['--per-replica N', '--intervals N', '--poll-ms MS', '--hang-intervals N'],
  'bench/hostile-subscriptions.ts': ['--attempts N', '--addresses N', '--rate N', '--concurrency N', '--slow-readers N', '--slow-transport NAME', '--slow-seconds S', '--env NAME=VALUE', '--parts LIST', '--stalled N', '--seconds S', '--baseline CHECKOUT'],
  'bench/probes-under-flood.ts': ['--workload NAME', '--connections N', '--seconds S', '--interval MS', '--baseline CHECKOUT'],
  'bench/floor-gap.ts': ['--workloads LETTERS', '--rounds N', '--seconds S', '--connections N', '--profile DIR', '--verbose', '--baseline CHECKOUT', '--baseline-env NAME=VALUE'],
};

const helps: Record<string, Outcome> = {};
beforeAll(async () => {
  const commands: [string, string, string[]][] = [
    ...Object.keys(SCRIPTS).map((script): [string, string, string[]] => [script, 'npm', ['run', '--silent', script, '--', '--help']]),
    ['gateway', NODE, ['dist/main.js', '--help']],
    ...Object.keys(TOOLS).map((tool): [string, string, string[]] => [tool, NODE, ['--disable-warning=ExperimentalWarning', tool, '--help']]),
  ];
  // Two at a time, one per core: each loads its command's modules, and the machine may be shared.
  const next = async (): Promise<void> => {
    const command = commands.shift();
    if (command === undefined) return;
    helps[command[0]] = await run(command[1], command[2]);
    return next();
  };
  await Promise.all([next(), next()]);
}, 360_000);

describe.each(Object.entries(SCRIPTS))('npm run %s -- --help', (script, options) => {
  it('prints the usage, what it does, its options and an example, and exits 0', () => {
    const { code, stdout, stderr } = helps[script]!;
    const command = script === 'start' ? 'node dist/main.js' : `npm run ${script} --`;
    expect({ code, stderr, usage: stdout.split('\n')[0], options: optionsOf(stdout) }).toEqual({
      code: 0,
      stderr: '',
      usage: `Usage: ${command} [options]${script === 'build' ? ' [OUTDIR]' : ''}`,
      options: [...options, '--help, -h'],
    });
    const example = script === 'start' ? /node dist\/main\.js$/ : new RegExp(`^(\\S+=\\S+ )?npm run ${script.replace(':', '\\:')}( |$)`);
    expect(examplesOf(stdout).filter((line) => example.test(line))).not.toEqual([]);
  });
});

describe.each(Object.entries(TOOLS))('node %s --help', (tool, options) => {
  it('prints the usage, its options and an example, and exits 0', () => {
    const { code, stdout, stderr } = helps[tool]!;
    expect({ code, stderr, usage: stdout.split('\n')[0], options: optionsOf(stdout) }).toEqual({
      code: 0,
      stderr: '',
      usage: `Usage: node ${tool.endsWith('-heap.ts') ? '--expose-gc ' : ''}${tool} [options]`,
      options: [...options, '--help, -h'],
    });
    expect(examplesOf(stdout).filter((line) => line.includes(` ${tool} `))).not.toEqual([]);
  });
});

describe('npm run sandbox -- --help', () => {
  it('lists every sandbox setting with its default', () => {
    const { stdout } = helps.sandbox!;
    const listed = stdout.slice(stdout.indexOf('\nSettings (environment variables')).split('\n').slice(2).filter(Boolean).map((line) => line.trim());
    expect(listed).toEqual(Object.entries(SANDBOX_SETTINGS).map(([name, definition]) => ('default' in definition ? `${name} (default: ${String(definition.default)})` : name)));
  });
});

describe('node dist/main.js --help', () => {
  it('lists every setting once, grouped and ordered as docs/configuration.md shows them', () => {
    const { code, stdout, stderr } = helps.gateway!;
    expect([code, stderr]).toEqual([0, '']);
    expect(stdout).toBe(helps.start!.stdout);
    const settings = stdout.slice(stdout.indexOf('\n', stdout.indexOf('\nSettings (environment variables') + 1));
    const headings = [...settings.matchAll(/^(\S.*):$/gm)].map((match) => match[1]);
    expect(headings).toEqual(GROUPS.map((group) => GROUP_TITLES[group].replace(/`/g, '')));
    expect([...settings.matchAll(/^ {2}([A-Z_]+) /gm)].map((match) => match[1])).toEqual(GROUPS.flatMap((group) => Object.entries(SETTINGS).filter(([, d]) => d.group === group).map(([name]) => name)));
    expect(settings).toContain('\n  RATE_LIMIT_PER_SECOND               platform calls per second one caller (one bearer token, however the header spells it; one client address without one) may average: its bucket refills at this rate; fractions allowed (0.5); recommended 20 [default: (none: no limit)]\n');
  });

  it('names each group as docs/configuration.md titles its table', () => {
    const doc = readFileSync(new URL('../../docs/configuration.md', import.meta.url), 'utf8');
    const titles = [...doc.matchAll(/^### (.+)\n[\s\S]*?^<!-- settings: ([a-z-]+) -->$/gm)].map((match) => [match[2], match[1]]);
    expect(titles).toEqual(GROUPS.map((group) => [group, GROUP_TITLES[group]]));
  });
});

describe('an unknown option', () => {
  it('is one line on stderr and exit code 2, for a script and for the gateway', async () => {
    expect(await run('npm', ['run', '--silent', 'supergraph', '--', '--bogus'])).toEqual({
      code: 2,
      stdout: '',
      stderr: 'npm run supergraph: unknown option --bogus (npm run supergraph -- --help lists the options)\n',
    });
    expect(await run(NODE, ['dist/main.js', '--port=4000'])).toEqual({
      code: 2,
      stdout: '',
      stderr: 'node dist/main.js: unknown option --port (node dist/main.js --help lists the options)\n',
    });
  }, 60_000);
});

describe('a variable that looks like a setting but is not one', () => {
  const warning = (name: string, setting: string) => `Warning: ${name} is not a setting of this gateway and is ignored: did you mean ${setting}? (npm start -- --help lists the settings)`;

  it('is named with the setting it most resembles: a slip of a letter or two, or one of our prefixes', () => {
    const env = {
      RATE_LIMIT_PER_SECONDS: '5', UPSTREAM_TIMEOUT_MS: '100', CURSOR_SECRETS: 'x', port: '4001', ADMN_PORT: '1', SANDBOX_LATENCY: '10',
      // Other software's variables, some a few letters from a setting (HOME and HOST, PATH and PORT).
      PATH: '/bin', HOME: '/root', HOSTNAME: 'box', NODE_OPTIONS: '', NODE: '/usr/bin/node', TERM: 'xterm', npm_lifecycle_event: 'start', OTEL_RESOURCE_ATTRIBUTES: 'a=b', MAX_OLD_SPACE: '1',
      // Ours, spelt right.
      RATE_LIMIT_PER_SECOND: '5', SANDBOX_LIVE_SEED: 'x',
    };
    expect(settingTypos(env)).toEqual([
      warning('ADMN_PORT', 'ADMIN_PORT'),
      warning('CURSOR_SECRETS', 'CURSOR_SECRET'),
      warning('RATE_LIMIT_PER_SECONDS', 'RATE_LIMIT_PER_SECOND'),
      warning('SANDBOX_LATENCY', 'SANDBOX_LATENCY_MS'),
      warning('UPSTREAM_TIMEOUT_MS', 'UPSTREAM_CONNECT_TIMEOUT_MS'),
      warning('port', 'PORT'),
    ]);
  });

  it('is measured in edits, a swap of neighbours counting one', () => {
    expect([editDistance('PORT', 'PORT'), editDistance('PROT', 'PORT'), editDistance('HOME', 'HOST'), editDistance('PATH', 'PORT'), editDistance('', 'ABC'), editDistance('KITTEN', 'SITTING')]).toEqual([0, 1, 2, 3, 3, 3]);
  });
});
