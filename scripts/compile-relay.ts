// Compiles the example Relay operations in client/ against the gateway's API
// schema. relay-compiler cannot read subgraph SDL (it panics on `extend schema
// @link`), so the composed API schema is written to the path the Relay config
// names first; the artifact directory is created because the compiler requires it.
// The compiler also writes the trusted-documents manifest (Relay's local
// persisted queries: SHA-256 of each operation's text → the text), which
// `TRUSTED_DOCUMENTS` points the gateway at. The compiler only adds to that file,
// and only for artifacts it rewrites, so both are emptied first: the manifest
// then holds exactly the current operations.
import { execFile } from 'node:child_process';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readCommandLine } from '../src/settings/command-line.ts';
import { apiSchemaSdl } from './supergraph.ts';

export const RELAY_CONFIG = fileURLToPath(new URL('../relay.config.json', import.meta.url));

export interface RelayCompilation {
  exitCode: number;
  /** Everything the compiler printed, stdout then stderr, without colours. */
  output: string;
  artifactDirectory: string;
  /** The trusted-documents manifest: id → operation text. */
  manifestFile: string;
}

/** The platform binary bundled with relay-compiler. */
function relayBinary(): string {
  const binary = createRequire(import.meta.url)('relay-compiler') as string | null;
  if (!binary) throw new Error(`relay-compiler ships no binary for ${process.platform} (${process.arch})`);
  return binary;
}

export async function compileRelay(configPath = RELAY_CONFIG): Promise<RelayCompilation> {
  const config = JSON.parse(await readFile(configPath, 'utf8')) as { schema: string; artifactDirectory: string; persistConfig?: { file: string } };
  const base = dirname(configPath);
  const artifactDirectory = resolve(base, config.artifactDirectory);
  await writeFile(resolve(base, config.schema), apiSchemaSdl());
  await rm(artifactDirectory, { recursive: true, force: true });
  await mkdir(artifactDirectory, { recursive: true });
  const manifestFile = config.persistConfig ? resolve(base, config.persistConfig.file) : '';
  if (manifestFile) {
    await mkdir(dirname(manifestFile), { recursive: true });
    await writeFile(manifestFile, '{}\n');
  }
  return new Promise((done) => {
    execFile(relayBinary(), ['--noWatchman', '--output', 'quiet-with-errors', configPath], { cwd: base }, (error, stdout, stderr) => {
      // eslint-disable-next-line no-control-regex
      const output = `${stdout}${stderr}`.replace(/\u001b\[[0-9;]*m/g, '');
      const exitCode = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
      done({ exitCode, output, artifactDirectory, manifestFile });
    });
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  readCommandLine(
    { options: {} },
    {
      command: 'npm run relay',
      summary: [
        'Compiles the example Relay operations of client/ with relay-compiler (relay.config.json) against the',
        'gateway\'s API schema: artifacts into test/relay/__generated__/, and the trusted-documents manifest',
        '(id → operation text) that TRUSTED_DOCUMENTS points the gateway at.',
      ].join('\n'),
      options: {},
      examples: ['npm run relay && TRUSTED_DOCUMENTS=client/__generated__/trusted-documents.json npm start'],
    },
  );
  const { exitCode, output, artifactDirectory, manifestFile } = await compileRelay();
  process.stdout.write(output);
  if (exitCode === 0) {
    process.stdout.write(`Relay artifacts written to ${artifactDirectory}\n`);
    if (manifestFile) {
      const count = Object.keys(JSON.parse(await readFile(manifestFile, 'utf8')) as object).length;
      const shown = relative(process.cwd(), manifestFile);
      process.stdout.write(`Trusted documents (${count}) written to ${shown}: serve only them with TRUSTED_DOCUMENTS=${shown}\n`);
    }
  }
  process.exitCode = exitCode;
}
