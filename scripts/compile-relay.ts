// Compiles the example Relay operations in client/ against the gateway's API
// schema. relay-compiler cannot read subgraph SDL (it panics on `extend schema
// @link`), so the composed API schema is written to the path the Relay config
// names first; the artifact directory is created because the compiler requires it.
import { execFile } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { apiSchemaSdl } from './supergraph.ts';

export const RELAY_CONFIG = fileURLToPath(new URL('../relay.config.json', import.meta.url));

export interface RelayCompilation {
  exitCode: number;
  /** Everything the compiler printed, stdout then stderr, without colours. */
  output: string;
  artifactDirectory: string;
}

/** The platform binary bundled with relay-compiler. */
function relayBinary(): string {
  const binary = createRequire(import.meta.url)('relay-compiler') as string | null;
  if (!binary) throw new Error(`relay-compiler ships no binary for ${process.platform} (${process.arch})`);
  return binary;
}

export async function compileRelay(configPath = RELAY_CONFIG): Promise<RelayCompilation> {
  const config = JSON.parse(await readFile(configPath, 'utf8')) as { schema: string; artifactDirectory: string };
  const base = dirname(configPath);
  const artifactDirectory = resolve(base, config.artifactDirectory);
  await writeFile(resolve(base, config.schema), apiSchemaSdl());
  await mkdir(artifactDirectory, { recursive: true });
  return new Promise((done) => {
    execFile(relayBinary(), ['--noWatchman', '--output', 'quiet-with-errors', configPath], { cwd: base }, (error, stdout, stderr) => {
      // eslint-disable-next-line no-control-regex
      const output = `${stdout}${stderr}`.replace(/\u001b\[[0-9;]*m/g, '');
      const exitCode = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
      done({ exitCode, output, artifactDirectory });
    });
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { exitCode, output, artifactDirectory } = await compileRelay();
  process.stdout.write(output);
  if (exitCode === 0) process.stdout.write(`Relay artifacts written to ${artifactDirectory}\n`);
  process.exitCode = exitCode;
}
