import { readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import { loadConfig } from '../../src/settings/config.ts';
import { schema, SETTINGS } from '../../src/settings/settings.ts';
import { SANDBOX_SETTINGS } from '../../src/settings/sandbox-settings.ts';

// The settings tables of the docs, checked against what the code reads: the gateway's settings
// (src/settings/settings.ts, whose tables `npm run settings:docs` writes; `npm run settings:check` keeps them
// current) and the sandbox's settings (src/settings/sandbox-settings.ts).

interface Row {
  file: string;
  variable: string;
  defaultCell: string;
}

const read = (name: string) => readFileSync(new URL(`../../docs/${name}`, import.meta.url), 'utf8');

/** Rows of every `| variable | default | … |` table of a doc whose first cell is one variable. */
function settingRows(file: string): Row[] {
  const rows: Row[] = [];
  let inTable = false;
  for (const line of read(file).split('\n')) {
    if (/^\| variable \| default \|/.test(line)) inTable = true;
    else if (!line.startsWith('|')) inTable = false;
    else if (inTable && !line.startsWith('|---')) {
      const [variable, defaultCell] = line.split(' | ').map((cell) => cell.replace(/^\| /, ''));
      const name = /^`([A-Z][A-Z0-9_]*)`$/.exec(variable!)?.[1];
      if (name !== undefined) rows.push({ file, variable: name, defaultCell: defaultCell! });
    }
  }
  return rows;
}

/** The value a default cell shows: `value`, optionally followed by a note in parentheses; undefined for a description. */
function literal(cell: string): string | undefined {
  return /^`([^`]*)`(?: \([^)]*\))?$/.exec(cell)?.[1];
}

const schemaKeys = Object.keys(SETTINGS);
/** Each variable's value when unset, as the schema reads it (undefined: no default of its own, or one computed from the environment). */
const schemaDefaults: Record<string, unknown> = schema.parse({});

describe('docs/configuration.md', () => {
  const rows = settingRows('configuration.md');

  it('documents every variable of src/settings/settings.ts exactly once, and no other', () => {
    const documented = rows.map((row) => row.variable);
    expect(documented.filter((name, index) => documented.indexOf(name) !== index)).toEqual([]);
    expect([...documented].sort()).toEqual([...schemaKeys].sort());
    expect(schemaKeys).toEqual(Object.keys(schema.shape));
  });

  it('starts with the settings a user sets first', () => {
    expect(rows.slice(0, 13).map((row) => row.variable)).toEqual([
      'UPSTREAM_URL', 'PORT', 'HOST', 'NODE_ENV', 'LOG_LEVEL', 'CORS_ORIGINS', 'TRUSTED_DOCUMENTS', 'REDIS_URL',
      'REQUEST_DEADLINE_MS', 'METRICS', 'OTEL_TRACES_EXPORTER', 'OTEL_EXPORTER_OTLP_ENDPOINT', 'PLAYGROUND',
    ]);
  });
});

describe.each(['configuration.md', 'security.md', 'operations.md'])('the defaults docs/%s shows', (file) => {
  const rows = settingRows(file).filter((row) => schemaKeys.includes(row.variable));

  it('are the schema’s own where it has one, and a description where it has none', () => {
    const wrong = rows.filter(({ variable, defaultCell }) => {
      const shown = literal(defaultCell);
      const actual = schemaDefaults[variable];
      return actual === undefined ? shown !== undefined : shown !== String(actual);
    });
    expect(wrong).toEqual([]);
  });

  it('change nothing when set explicitly', () => {
    const unset = loadConfig({});
    const differing = rows.filter(({ variable, defaultCell }) => {
      const shown = literal(defaultCell);
      if (shown === undefined) return false;
      try {
        expect(loadConfig({ [variable]: shown })).toEqual(unset);
        return false;
      } catch {
        return true;
      }
    });
    expect(differing).toEqual([]);
  });
});

describe('docs/sandbox.md', () => {
  const rows = settingRows('sandbox.md');

  it('documents every variable of src/settings/sandbox-settings.ts exactly once, and no other', () => {
    expect(rows.map((row) => row.variable)).toEqual(Object.keys(SANDBOX_SETTINGS));
  });

  it('shows each default the sandbox applies, and a description where it has none', () => {
    const shown = rows.map(({ variable, defaultCell }) => [variable, literal(defaultCell)]);
    const actual = Object.entries(SANDBOX_SETTINGS).map(([variable, definition]) => [variable, 'default' in definition ? String(definition.default) : undefined]);
    expect(shown).toEqual(actual);
  });
});
