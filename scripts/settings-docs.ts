// Writes the settings tables of the docs from their definitions (src/settings/settings.ts), or checks them.
//   npm run settings:docs     rewrites every table between `<!-- settings: … -->` and `<!-- /settings -->`
//   npm run settings:check    fails when a table differs from what the definitions give
// A marker names a group of docs/configuration.md (`<!-- settings: paging -->`), whose table lists
// the group's variables, or variables by name (`<!-- settings: MAX_BODY_BYTES MAX_QUERY_TOKENS -->`).
// docs/configuration.md holds every group exactly once, so every variable is documented there once.
// It writes `.env.example` from the same definitions (./env-example.ts).
import { readFileSync, writeFileSync } from 'node:fs';
import { readCommandLine } from '../src/settings/command-line.ts';
import { envExample } from './env-example.ts';
import { GROUPS, SETTINGS, shownDefault, type Definition, type Group } from '../src/settings/settings.ts';

const ROOT = new URL('../', import.meta.url);
/** Docs with settings tables; the first must hold every group. */
const FILES = ['docs/configuration.md', 'docs/security.md', 'docs/operations.md'];

const MARKER = /^<!-- settings: ([A-Za-z0-9_ -]+?) -->\n[\s\S]*?^<!-- \/settings -->$/gm;

const definitions = SETTINGS as Record<string, Definition>;

function row(name: string): string {
  const definition = definitions[name];
  if (definition === undefined) throw new Error(`${name} is not a setting of src/settings/settings.ts`);
  const cells = [`\`${name}\``, shownDefault(definition), definition.doc];
  for (const cell of cells) if (cell.includes('|') || cell.includes('\n')) throw new Error(`${name}: a cell may hold neither | nor a line break: ${cell}`);
  return `| ${cells.join(' | ')} |`;
}

/** The variables a marker names: a group's, in definition order, or the ones listed. */
function namesOf(spec: string): string[] {
  const words = spec.trim().split(/\s+/);
  if (words.length === 1 && (GROUPS as readonly string[]).includes(words[0]!)) {
    return Object.keys(definitions).filter((name) => definitions[name]!.group === (words[0] as Group));
  }
  return words;
}

function table(spec: string): string {
  // Blank lines around the table: Markdown renderers then never read a marker as part of it.
  return [`<!-- settings: ${spec} -->`, '', '| variable | default | meaning |', '|---|---|---|', ...namesOf(spec).map(row), '', '<!-- /settings -->'].join('\n');
}

/** The file with its tables as the definitions give them; throws when configuration.md lacks a group or repeats one. */
function generated(file: string, text: string): string {
  const specs: string[] = [];
  const result = text.replace(MARKER, (_whole, spec: string) => {
    specs.push(spec.trim());
    return table(spec.trim());
  });
  if (file === FILES[0]) {
    const groups = specs.filter((spec) => (GROUPS as readonly string[]).includes(spec));
    const missing = GROUPS.filter((group) => !groups.includes(group));
    const repeated = groups.filter((group, index) => groups.indexOf(group) !== index);
    if (missing.length > 0 || repeated.length > 0 || groups.length !== specs.length) {
      throw new Error(`${file} must have one table per group of src/settings/settings.ts (GROUPS), and only those: missing ${missing.join(', ') || 'none'}, repeated ${repeated.join(', ') || 'none'}`);
    }
  }
  return result;
}

const { values } = readCommandLine(
  { options: { check: { type: 'boolean', default: false } } },
  {
    command: process.env.npm_lifecycle_event === 'settings:check' ? 'npm run settings:check' : 'npm run settings:docs',
    summary: [
      'Writes the settings tables of docs/configuration.md, docs/security.md and docs/operations.md (between',
      '`<!-- settings: … -->` and `<!-- /settings -->`) and .env.example from their definitions in src/settings/settings.ts.',
    ].join('\n'),
    options: { check: { text: 'change nothing; fail when a table differs from what the definitions give (settings:check)' } },
    examples: ['npm run settings:docs', 'npm run settings:check'],
  },
);
const stale: string[] = [];
/** Where the example environment file goes. */
const ENV_EXAMPLE = '.env.example';
for (const file of [...FILES, ENV_EXAMPLE]) {
  const url = new URL(file, ROOT);
  const text = readFileSync(url, { encoding: 'utf8', flag: 'a+' });
  const after = file === ENV_EXAMPLE ? envExample() : generated(file, text);
  if (after === text) continue;
  if (values.check) stale.push(file);
  else {
    writeFileSync(url, after);
    process.stdout.write(`${file} updated\n`);
  }
}
if (stale.length > 0) {
  process.stderr.write(`Settings tables or .env.example out of date with src/settings/settings.ts: ${stale.join(', ')}\nRun \`npm run settings:docs\` and commit the result.\n`);
  process.exitCode = 1;
}
