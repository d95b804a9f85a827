// Runs one of the project's commands written in TypeScript (`npm run federation`, `npm run sandbox`
// …): `node scripts/typescript.mjs FILE.ts [arguments]` runs FILE.ts in this same process, with the
// arguments and process.argv it would have had as `node FILE.ts [arguments]`. Plain JavaScript, so
// it runs on any Node: where a command cannot run (a Node without type stripping, such as the
// machine's Node 20 after a production install leaves out the project's Node 24, or a production
// install without the dev dependency the command imports) it says so in one line, exit code 1,
// instead of Node's stack trace.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const [script] = process.argv.splice(2, 1);
const file = path.resolve(ROOT, script);
process.argv[1] = file;
const event = process.env.npm_lifecycle_event;
const command = event ? `npm run ${event}` : `node ${script}`;

function refuse(line) {
  process.stderr.write(`${line}\n`);
  process.exit(1);
}

if (!process.features.typescript) {
  refuse(`${command} runs TypeScript, which ${process.execPath} (Node ${process.versions.node}) cannot: put Node 22.18 or newer first on PATH, or use the development install (\`npm ci\`), whose Node 24 runs it`);
}
try {
  await import(pathToFileURL(file).href);
} catch (error) {
  const missing = error?.code === 'ERR_MODULE_NOT_FOUND' ? /^Cannot find package '([^']+)'/.exec(error.message)?.[1] : undefined;
  const { devDependencies } = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
  if (missing === undefined || !(missing in devDependencies)) throw error;
  refuse(`${command} needs the development install (\`npm ci\` with the dev dependencies): ${missing}, a dev dependency it uses, is not installed here`);
}
