import { describe, expect, it } from '@jest/globals';
import { GROUP_TITLES, readGatewayCommandLine } from '../src/settings/gateway-help.ts';
import { GROUPS, SETTINGS } from '../src/settings/settings.ts';
import { captureCommandOutput, exitOf } from './support/command-exit.ts';

// The gateway's command line: `--help` prints what it does and every setting, grouped as
// docs/configuration.md groups them, in plain text; anything else but no arguments at all is refused.

const output = captureCommandOutput();

/** The exit code the gateway's command line ended with. */
function exitWith(args: string[]): number | undefined {
  return exitOf(() => readGatewayCommandLine(args));
}

/** The help's lines, read once per test that needs them. */
function helpLines(): string[] {
  expect(exitWith(['--help'])).toBe(0);
  return output.stdout.split('\n');
}

/** Every line of the help with a setting: two spaces, the name padded to the longest name (34), two spaces. */
const settingLine = (name: string, text: string) => `  ${name.padEnd(34)}  ${text}`;

describe('readGatewayCommandLine without arguments', () => {
  it('returns without printing anything or exiting', () => {
    expect(readGatewayCommandLine([])).toBeUndefined();
    expect([output.stdout, output.stderr]).toEqual(['', '']);
  });
});

describe('readGatewayCommandLine --help', () => {
  it('prints the usage, what the gateway does, its one option and an example, then the settings, and exits 0', () => {
    expect(helpLines().slice(0, 15)).toEqual([
      'Usage: node dist/main.js [options]',
      '',
      "The GraphQL gateway (an Apollo Federation 2 subgraph) in front of the platform's REST API. Configured",
      'by environment variables only. Without UPSTREAM_URL it first starts the embedded platform sandbox and',
      'serves over it. `npm start` runs it after checking its ports and its build (dist/).',
      '',
      'Options:',
      '  --help, -h  print this help and exit',
      '',
      'Example:',
      '  UPSTREAM_URL=https://platform.example.com NODE_ENV=production PORT=8080 node dist/main.js',
      '',
      'Settings (environment variables; docs/configuration.md has them with more detail):',
      '',
      'First settings:',
    ]);
    expect(output.stderr).toBe('');
  });

  it('answers -h as it answers --help', () => {
    expect(exitWith(['-h'])).toBe(0);
    const short = output.stdout;
    output.stdout = '';
    expect(exitWith(['--help'])).toBe(0);
    expect(short).toBe(output.stdout);
  });

  it('heads the settings with every group title in the docs’ order, as plain text, and ends with a newline', () => {
    const lines = helpLines();
    const headings = lines.slice(13).filter((line) => line !== '' && !line.startsWith(' '));
    expect(headings).toEqual([
      'First settings:',
      'Platform calls: timeouts, retries, circuit breakers:',
      'Paging:',
      'Request limits:',
      'Schema exposure and error detail:',
      'Browser clients, trusted documents and persisted queries:',
      'Execution:',
      'Client connections:',
      'Operations: shutdown, metrics, readiness, tracing:',
      'Embedded sandbox (npm start without UPSTREAM_URL):',
      'Scaling:',
      'Per-caller rate limit:',
      'Platform protection:',
    ]);
    expect(headings).toHaveLength(GROUPS.length);
    expect(lines.at(-1)).toBe('');
    expect(lines.at(-2)).not.toBe('');
  });

  it('lists every setting once, under its own group, in the order of the definitions', () => {
    const listed: Record<string, string[]> = {};
    let group = '';
    for (const line of helpLines().slice(14)) {
      if (line === '') continue;
      if (!line.startsWith(' ')) group = line;
      else (listed[group] ??= []).push(line.trim().split(' ')[0]!);
    }
    const definitions = SETTINGS as Record<string, { group: string }>;
    const expected = Object.fromEntries(
      GROUPS.map((g) => [`${GROUP_TITLES[g].replace(/`/g, '')}:`, Object.keys(definitions).filter((name) => definitions[name]!.group === g)]),
    );
    expect(listed).toEqual(expected);
    expect(listed['First settings:']).toEqual([
      'UPSTREAM_URL', 'PORT', 'HOST', 'NODE_ENV', 'LOG_LEVEL', 'CORS_ORIGINS', 'TRUSTED_DOCUMENTS', 'REDIS_URL', 'REQUEST_DEADLINE_MS', 'METRICS', 'OTEL_TRACES_EXPORTER',
      'OTEL_EXPORTER_OTLP_ENDPOINT', 'PLAYGROUND',
    ]);
  });

  it('shows each setting’s text and default as plain text: no backticks, links as their text', () => {
    const lines = helpLines();
    expect([
      settingLine('UPSTREAM_URL', 'platform base URL; without it npm start serves over the embedded sandbox (sandbox.md) [default: (none: embedded sandbox)]'),
      settingLine('PORT', 'gateway port (0: any free port) [default: 4000]'),
      settingLine('LOG_LEVEL', 'pino level (silent … trace) [default: info]'),
      settingLine('METRICS', 'serve GET /metrics (operations.md) [default: true]'),
      settingLine('PLAYGROUND', 'serve the offline GraphiQL playground on GET /graphql (playground.md) [default: on unless production]'),
      settingLine('UPSTREAM_RETRY_AFTER_CAP_MS', 'a longer Retry-After is not waited for: the error is returned [default: 2000]'),
      settingLine(
        'WORKERS',
        'gateway worker processes sharing the port; auto: one per CPU the process may use (os.availableParallelism(), which honours cgroup CPU limits); 1 runs the gateway in the started process alone, as before (scaling.md) [default: 1]',
      ),
      settingLine('SANDBOX_CONTENT_PORT', 'content-URL port of that sandbox [default: 4011]'),
    ].filter((line) => !lines.includes(line))).toEqual([]);
    expect(lines.filter((line) => line.startsWith('  ') && /`|\]\(/.test(line))).toEqual([]);
  });
});

describe('readGatewayCommandLine refusals', () => {
  it.each([
    [['--port', '4000'], 'unknown option --port'],
    [['-p'], 'unknown option -p'],
    [['serve'], 'unexpected argument serve'],
    [['--help=yes'], 'bad option -h, --help'],
  ])('refuses %j in one line on output.stderr and exits 2', (args, problem) => {
    expect(exitWith(args)).toBe(2);
    expect([output.stdout, output.stderr]).toEqual(['', `node dist/main.js: ${problem} (node dist/main.js --help lists the options)\n`]);
  });
});
