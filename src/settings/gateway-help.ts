import { readCommandLine } from './command-line.ts';
import { GROUPS, SETTINGS, shownDefault, type Definition, type Group } from './settings.ts';

// `node dist/main.js --help` (and `npm start -- --help`): what the gateway does and every setting,
// grouped and ordered as docs/configuration.md shows them, from the same definitions (src/settings/settings.ts).

/** The headings of docs/configuration.md's tables (a test keeps them equal). */
export const GROUP_TITLES: Record<Group, string> = {
  'first': 'First settings',
  'platform-calls': 'Platform calls: timeouts, retries, circuit breakers',
  'paging': 'Paging',
  'request-limits': 'Request limits',
  'schema-exposure': 'Schema exposure and error detail',
  'browser-clients': 'Browser clients, trusted documents and persisted queries',
  'execution': 'Execution',
  'client-connections': 'Client connections',
  'operations': 'Operations: shutdown, metrics, readiness, tracing',
  'embedded-sandbox': 'Embedded sandbox (`npm start` without `UPSTREAM_URL`)',
  'scaling': 'Scaling',
  'rate-limit': 'Per-caller rate limit',
  'platform-protection': 'Platform protection',
};

/** A docs cell as plain text: no backticks, links as their text. */
export const plain = (markdown: string) => markdown.replace(/\[([^\]]+)\]\([^)]+\)/g, '$1').replace(/`/g, '').replace(/\*\*/g, '');

function settingsText(): string {
  const definitions = SETTINGS as Record<string, Definition>;
  const names = Object.keys(definitions);
  const width = Math.max(...names.map((name) => name.length));
  const lines = ['Settings (environment variables; docs/configuration.md has them with more detail):'];
  for (const group of GROUPS) {
    lines.push('', `${plain(GROUP_TITLES[group])}:`);
    for (const name of names.filter((candidate) => definitions[candidate]!.group === group)) {
      const definition = definitions[name]!;
      lines.push(`  ${name.padEnd(width)}  ${plain(definition.doc)} [default: ${plain(shownDefault(definition))}]`);
    }
  }
  return lines.join('\n');
}

/** Reads the gateway's command line: prints the help and exits on `--help`, exits 2 on anything else. */
export function readGatewayCommandLine(args = process.argv.slice(2)): void {
  readCommandLine(
    { options: {} },
    {
      command: 'node dist/main.js',
      summary: [
        'The GraphQL gateway (an Apollo Federation 2 subgraph) in front of the platform\'s REST API. Configured',
        'by environment variables only. Without UPSTREAM_URL it first starts the embedded platform sandbox and',
        'serves over it. `npm start` runs it after checking its ports and its build (dist/).',
      ].join('\n'),
      options: {},
      examples: ['UPSTREAM_URL=https://platform.example.com NODE_ENV=production PORT=8080 node dist/main.js'],
      more: settingsText(),
    },
    args,
  );
}
