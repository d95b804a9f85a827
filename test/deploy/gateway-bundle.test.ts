import { execFileSync } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { builtinModules } from 'node:module';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Metafile } from 'esbuild';
import { buildGateway } from '../../scripts/build-gateway.ts';

// The bundle `npm start` and the image run (scripts/build-gateway.ts): what its start-up loads,
// read from esbuild's record of the build.

type Output = Metafile['outputs'][string];

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** Node's built-in modules, by either name. */
const BUILTINS = new Set([...builtinModules, ...builtinModules.map((name) => `node:${name}`)]);

const chunkName = (file: string) => file.slice(file.lastIndexOf('/') + 1);

let outdir: string;
let metafile: Metafile;
let outputs: Map<string, Output>;

beforeAll(async () => {
  outdir = await mkdtemp(join(tmpdir(), 'gateway-bundle-'));
  metafile = await buildGateway(outdir);
  outputs = new Map(Object.entries(metafile.outputs).map(([file, output]) => [chunkName(file), output]));
}, 60_000);

afterAll(async () => {
  await rm(outdir, { recursive: true, force: true });
});

/** The source files a chunk and every chunk it statically imports contain. */
function staticClosure(name: string): Set<string> {
  const seen = new Set<string>();
  const inputs = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    const output = outputs.get(file)!;
    for (const input of Object.keys(output.inputs)) inputs.add(input);
    for (const imported of output.imports) if (!imported.external && imported.kind === 'import-statement') visit(chunkName(imported.path));
  };
  visit(name);
  return inputs;
}

/** What a start-up loads: main.js and, through its one dynamic import, src/process/start.ts with all it imports. */
function startUpInputs(): Set<string> {
  const main = outputs.get('main.js')!;
  const start = main.imports.find((imported) => imported.kind === 'dynamic-import')!;
  return new Set([...staticClosure('main.js'), ...staticClosure(chunkName(start.path))]);
}

describe('the built gateway', () => {
  it('is main.js beside chunks and their source maps, and the build stamp', async () => {
    const files = await readdir(outdir);
    expect(files).toContain('main.js');
    expect(files.filter((file) => !/\.js(\.map)?$/.test(file))).toEqual(['build-stamp.json']);
    // main.js holds the entry and the Node check that runs before anything loads, nothing more.
    expect(Object.keys(outputs.get('main.js')!.inputs).sort()).toEqual(['builtin-through-require:node:module', 'src/main.js', 'src/supported-node.js']);
  });

  it('imports no Node built-in with an import statement (an ES import of node:http loads undici for http.WebSocket)', () => {
    const esImports = [...outputs.values()].flatMap((output) =>
      output.imports.filter((imported) => imported.external && BUILTINS.has(imported.path) && imported.kind === 'import-statement'));
    expect(esImports).toEqual([]);
    // Reached through require(), by the module the build puts in their place.
    expect(Object.keys(metafile.inputs)).toEqual(expect.arrayContaining(['builtin-through-require:node:http']));
  });

  it('holds one build of each @graphql-tools package and one of graphql', () => {
    const inputs = Object.keys(metafile.inputs);
    expect(inputs.filter((input) => /node_modules\/@graphql-tools\/[^/]+\/cjs\//.test(input))).toEqual([]);
    expect(inputs).toContain('node_modules/@graphql-tools/utils/esm/index.js');
    // graphql's ES modules for every importer, graphql-jit's require() included: one copy, no CommonJS build.
    expect(inputs).toContain('node_modules/graphql/index.mjs');
    expect(inputs.filter((input) => /^node_modules\/graphql\/.*\.js$/.test(input))).toEqual([]);
  });

  it("hashes Apollo Server's documents with Node's crypto, not with SHA-256 in JavaScript", () => {
    const inputs = Object.keys(metafile.inputs);
    expect(inputs.filter((input) => /node_modules\/(sha\.js|@apollo\/utils\.createhash)\//.test(input))).toEqual([]);
    expect(inputs).toContain('apollo-hash-from-node:@apollo/utils.createhash');
  });

  it('gives a dynamic import() of a CommonJS package the names Node gives it', () => {
    const built = new Map(
      Object.values(metafile.outputs)
        .filter((output) => output.entryPoint?.startsWith('commonjs-named-exports:'))
        .map((output) => [output.entryPoint!.slice('commonjs-named-exports:'.length), [...output.exports].sort()]),
    );
    // Among them the ones the gateway imports on demand by name: the Redis clients' and tracing's.
    expect([...built.keys()]).toEqual(expect.arrayContaining(['@redis/client', '@apollo/utils.keyvadapter', 'body-parser', '@opentelemetry/exporter-trace-otlp-http']));
    const script = `const names = {}; for (const p of ${JSON.stringify([...built.keys()])}) names[p] = Object.keys(await import(p)).filter((n) => n !== 'module.exports').sort(); console.log(JSON.stringify(names));`;
    const node = JSON.parse(execFileSync(`${ROOT}node_modules/.bin/node`, ['--input-type=module', '-e', script], { cwd: ROOT, encoding: 'utf8' })) as Record<string, string[]>;
    expect(Object.fromEntries(built)).toEqual(node);
    expect(node['@apollo/utils.keyvadapter']).toEqual(['KeyvAdapter', '__esModule', 'default']);
  });

  it('leaves pino to node_modules (its development transport loads its own files by path), and no other package', () => {
    const external = new Set([...outputs.values()].flatMap((output) => output.imports.filter((imported) => imported.external && !BUILTINS.has(imported.path)).map((imported) => imported.path)));
    // @node-rs/xxhash: an optional dependency of the Redis client, which falls back when it is not installed;
    // bufferutil and utf-8-validate: ws's optional native add-ons (the WebSocket transport), likewise.
    expect([...external].sort()).toEqual(['@node-rs/xxhash', 'bufferutil', 'pino', 'utf-8-validate']);
  });

  it('loads at start-up none of what the sources load only on demand', () => {
    const loaded = [...startUpInputs()];
    expect(loaded).toEqual(expect.arrayContaining(['src/process/start.ts', 'src/server.ts', 'src/schema/schema.ts']));
    for (const onDemand of [
      /^sandbox\/(?!settings\.ts$)/,
      /^src\/cluster\.ts$/,
      /^src\/playground\/sandbox-examples\.ts$/,
      /^node_modules\/graphql-jit\//,
      /^node_modules\/@redis\/client\//,
      /^node_modules\/@keyv\/redis\//,
      /^node_modules\/@opentelemetry\/exporter-trace-otlp-http\//,
      /^node_modules\/body-parser\//,
    ]) {
      expect(loaded.filter((input) => onDemand.test(input))).toEqual([]);
    }
  });

  it('keeps the names of our classes as written (no suffix from a collision in a chunk): logs name an error by its class', async () => {
    const renamed: string[] = [];
    for (const file of (await readdir(outdir)).filter((name) => name.endsWith('.js'))) {
      let ours = false;
      for (const line of (await readFile(join(outdir, file), 'utf8')).split('\n')) {
        if (line.startsWith('// ')) ours = /^\/\/ (src|sandbox)\//.test(line) ? true : line.startsWith('// node_modules/') ? false : ours;
        const declared = ours ? /^\s*(?:export )?(?:class ([A-Za-z_$][\w$]*?\d+)\b|(?:var|let|const) ([A-Za-z_$][\w$]*?\d+) = class\b)/.exec(line) : null;
        if (declared) renamed.push(`${file}: ${declared[1] ?? declared[2]}`);
      }
    }
    expect(renamed).toEqual([]);
  });

  it('leaves an unchanged file as it is and removes what an earlier build left behind', async () => {
    const stale = join(outdir, 'chunk-STALE.js');
    await writeFile(stale, '');
    const before = new Map<string, { text: string; mtimeMs: number }>();
    for (const name of await readdir(outdir)) before.set(name, { text: await readFile(join(outdir, name), 'utf8'), mtimeMs: (await stat(join(outdir, name))).mtimeMs });
    const rebuilt = await buildGateway(outdir);
    const after = await readdir(outdir);
    // What remains is exactly what this build made (its outputs and the stamp): the stale chunk is gone.
    expect(after.sort()).toEqual([...Object.keys(rebuilt.outputs).map((output) => basename(output)), 'build-stamp.json'].sort());
    // A file the build would write with the content it already has is not written again (a running gateway keeps finding it).
    const unchanged = [];
    for (const name of after) {
      const earlier = before.get(name);
      // The stamp is written last by every build, on purpose (a build that fails half-way leaves none).
      if (name === 'build-stamp.json' || earlier === undefined || earlier.text !== (await readFile(join(outdir, name), 'utf8'))) continue;
      unchanged.push(name);
      expect([name, (await stat(join(outdir, name))).mtimeMs]).toEqual([name, earlier.mtimeMs]);
    }
    // Chunk names are content hashes, so nearly every file is the same as before (inside a test worker an
    // import of a CommonJS package can, now and then, rename a chunk and those that import it).
    expect(unchanged.length).toBeGreaterThan(after.length / 2);
  }, 60_000);
});
