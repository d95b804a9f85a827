// Compares the schema with its committed snapshots (schema-snapshots/), or accepts a change.
//   npm run schema:check                          fails on any difference, listing what changed
//   npm run schema:accept                         rewrites the snapshots; refuses a breaking change
//   npm run schema:accept -- --allow-breaking     rewrites them even when a change breaks clients
import { writeFileSync } from 'node:fs';
import { readCommandLine } from '../src/settings/command-line.ts';
import { breaking, committed, compare, describeChanges, ROOT, SNAPSHOTS } from './schema-changes.ts';

const accepting = process.env.npm_lifecycle_event === 'schema:accept';
const { values } = readCommandLine(
  {
    options: {
      accept: { type: 'boolean', default: false },
      'allow-breaking': { type: 'boolean', default: false },
    },
  },
  {
    command: accepting ? 'npm run schema:accept' : 'npm run schema:check',
    summary: [
      'Compares the API schema and the subgraph SDL with their committed snapshots (schema-snapshots/):',
      'schema:check fails on any difference and lists what changed (breaking, dangerous, safe);',
      'schema:accept rewrites the snapshots, refusing a change that breaks existing clients unless told.',
    ].join('\n'),
    options: {
      accept: { text: 'rewrite the snapshots (what schema:accept passes)' },
      'allow-breaking': { text: 'with --accept: rewrite them even when a change breaks existing clients' },
    },
    examples: ['npm run schema:check', 'npm run schema:accept -- --allow-breaking'],
  },
);

let failed = false;
for (const snapshot of SNAPSHOTS) {
  const after = snapshot.current();
  const { current, changes } = await compare(snapshot, committed(snapshot), after);
  if (current) continue;
  const lines = describeChanges(changes);
  const breakingCount = breaking(changes).length;
  const summary = lines.length > 0 ? lines.map((line) => `  ${line}`).join('\n') : '  (no change a client can see: formatting or order only)';
  if (!values.accept) {
    failed = true;
    process.stderr.write(
      `${snapshot.file} is not the current ${snapshot.name}:\n${summary}\n` +
        `${breakingCount > 0 ? `${breakingCount} change(s) break existing clients. ` : ''}` +
        `To accept the change, run \`npm run schema:accept${breakingCount > 0 ? ' -- --allow-breaking' : ''}\` and commit the snapshot with it.\n`,
    );
  } else if (breakingCount > 0 && !values['allow-breaking']) {
    failed = true;
    process.stderr.write(`${snapshot.file} not updated: the change breaks existing clients:\n${summary}\nRe-run with \`-- --allow-breaking\` if that is intended.\n`);
  } else {
    writeFileSync(new URL(snapshot.file, ROOT), after);
    process.stdout.write(`${snapshot.file} updated:\n${summary}\n`);
  }
}
if (failed) process.exitCode = 1;
