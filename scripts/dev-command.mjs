// The guard in front of the npm scripts that run a dev dependency's command (`npm run codegen`,
// `npm run lint`, `npm test` …): `node scripts/dev-command.mjs BIN… && BIN …`. In a production
// install (`npm prune --omit=dev`, `npm ci --omit=dev`) those commands are absent, and the shell
// would answer `sh: 1: graphql-codegen: not found` between npm's own lines; this says in one line
// what the command needs, exit code 1. Where they are installed it does nothing and the script's
// command runs with its arguments (`npm run codegen -- --help` reaches graphql-codegen). Plain
// JavaScript with no dependency, so it runs on any Node.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const BIN = fileURLToPath(new URL('../node_modules/.bin/', import.meta.url));
const missing = process.argv.slice(2).filter((command) => !existsSync(path.join(BIN, command)));
if (missing.length > 0) {
  const event = process.env.npm_lifecycle_event;
  const command = event === undefined ? 'This command' : event === 'test' ? 'npm test' : `npm run ${event}`;
  process.stderr.write(`${command} needs the development install (\`npm ci\` with the dev dependencies): ${missing.join(', ')}, the command of a dev dependency, is not installed here\n`);
  process.exit(1);
}
