// Bundles the gateway (src/main.js and everything it imports, the embedded sandbox included) into
// dist/, which `npm start`, the image, the replica script, the benchmarks and the process tests run.
// A start-up from the sources spends most of its time in Node's module loader, resolving and
// reading about a thousand files; the bundle is a few dozen (docs/benchmark.md has the
// measurement). What the sources load only on demand (the sandbox, the worker group, graphql-jit,
// tracing's exporter, the Redis clients, body-parser) stays in chunks of its own, loaded when first
// imported, as before.
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { builtinModules } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type Metafile, type Plugin } from 'esbuild';
import { readCommandLine } from '../src/settings/command-line.ts';
import { NODE_FLOOR } from '../src/supported-node.js';
import { sourcesHash, STAMP_FILE } from './build-stamp.mjs';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
/** One level below the project's folder, like src/: src/project-root.ts finds schema/ and playground/dist/ from either. */
export const GATEWAY_DIST_DIR = path.join(ROOT, 'dist');

// Left to node_modules: pino starts its pretty-printing transport (development only) as a worker
// thread that loads pino's own files by path, which a bundle does not have.
const EXTERNAL = ['pino', 'pino-pretty'];

const BUILTIN = new RegExp(`^(node:)?(${builtinModules.map((name) => name.replace(/[/]/g, '\\/')).join('|')})$`);

/**
 * Node's built-in modules, when imported as ES modules, are loaded through require() instead. An ES
 * import of a built-in evaluates every one of its exports to build the module namespace, lazy ones
 * included: `import http from 'node:http'` loads undici (Node's fetch) for `http.WebSocket`, about
 * 100 ms of a start-up that never uses it. require() returns the module without touching them.
 */
const builtinsThroughRequire: Plugin = {
  name: 'builtins-through-require',
  setup(build) {
    // Static imports only: a dynamic import() needs the module's named exports (the OTLP exporter
    // reads `(await import('http')).request`), and runs only when it is needed anyway.
    build.onResolve({ filter: BUILTIN }, (args) =>
      args.kind === 'import-statement' ? { path: args.path.startsWith('node:') ? args.path : `node:${args.path}`, namespace: 'builtin-through-require' } : undefined);
    build.onLoad({ filter: /.*/, namespace: 'builtin-through-require' }, (args) => ({
      contents: `module.exports = require(${JSON.stringify(args.path)});`,
      loader: 'js',
    }));
  },
};

/** The project's one graphql (a direct dependency; no package nests a copy of its own). */
const GRAPHQL_DIR = path.join(ROOT, 'node_modules', 'graphql');

/**
 * graphql as its ES modules, for every import and require(). esbuild, for Node, would take
 * graphql's CommonJS build for every importer: one copy either way, but a CommonJS module reaches
 * each importer through esbuild's `__toESM`, which copies its exports as getters for each of the
 * 77 importers at start-up (graphql has about 300) and then runs one of those getters, a keyed load
 * shared by every export, on each use of a graphql export in a request. ES modules bind directly.
 * Measured without this plugin (docs/benchmark.md, *Start-up*): the gateway started in 599 ms against 493.
 */
const graphqlAsModules: Plugin = {
  name: 'graphql-as-modules',
  setup(build) {
    build.onResolve({ filter: /^graphql(\/.*)?$/ }, (args) => {
      const module = args.path === 'graphql' ? 'index' : args.path.slice('graphql/'.length).replace(/\.m?js$/, '');
      for (const candidate of [`${module}.mjs`, `${module}/index.mjs`]) {
        const file = path.join(GRAPHQL_DIR, candidate);
        if (existsSync(file)) return { path: file };
      }
      return { errors: [{ text: `graphql has no ES module for "${args.path}"` }] };
    });
  },
};

/**
 * @graphql-tools packages ship a CommonJS and an ES module build; @apollo/subgraph require()s
 * @graphql-tools/utils where our modules import it, which would bundle (and load) both copies. Its
 * require() gets the ES module build too: one copy, and no copy of its exports per importer.
 */
const graphqlToolsOnce: Plugin = {
  name: 'graphql-tools-once',
  setup(build) {
    build.onResolve({ filter: /^@graphql-tools\// }, async (args) => {
      if (args.kind !== 'require-call') return undefined;
      const resolved = await build.resolve(args.path, { kind: 'import-statement', resolveDir: args.resolveDir, importer: args.importer });
      return resolved.errors.length > 0 ? undefined : { path: resolved.path };
    });
  },
};

/**
 * Apollo Server hashes every request's document with @apollo/utils.createhash, which takes Node's
 * crypto only when `module.require` exists. A bundled CommonJS module's `module` has no `require`,
 * so in the bundle it fell back to sha.js, SHA-256 in JavaScript, for every request. Here the
 * package is Node's own `createHash`, which is what it picks outside a bundle.
 */
const apolloHashFromNode: Plugin = {
  name: 'apollo-hash-from-node',
  setup(build) {
    build.onResolve({ filter: /^@apollo\/utils\.createhash$/ }, (args) => ({ path: args.path, namespace: 'apollo-hash-from-node' }));
    build.onLoad({ filter: /.*/, namespace: 'apollo-hash-from-node' }, () => ({
      contents: "export { createHash } from 'node:crypto';",
      loader: 'js',
      resolveDir: ROOT,
    }));
  },
};

/** Whether esbuild reads `file` as CommonJS: a module without import or export statements. */
async function isCommonJs(file: string): Promise<boolean> {
  return !/^\s*(import|export)\b/m.test(await readFile(file, 'utf8'));
}

/**
 * A dynamic import() of a CommonJS package gets the named exports Node gives it. Node finds a
 * CommonJS module's names in its source, so `const { createClient } = await import('@redis/client')`
 * works in the sources; esbuild gives such an import only `default`. Each one goes through a module
 * that exports the names Node itself finds when the build imports the package (Node's own view,
 * not a second reading of the source).
 */
const commonJsNamedExports: Plugin = {
  name: 'commonjs-named-exports',
  setup(build) {
    build.onResolve({ filter: /^[^./]/ }, async (args) => {
      if (args.kind !== 'dynamic-import' || BUILTIN.test(args.path)) return undefined;
      const resolved = await build.resolve(args.path, { kind: 'import-statement', resolveDir: args.resolveDir, importer: args.importer });
      if (resolved.errors.length > 0 || resolved.external || !(await isCommonJs(resolved.path))) return undefined;
      return { path: args.path, namespace: 'commonjs-named-exports', pluginData: { resolveDir: args.resolveDir } };
    });
    build.onLoad({ filter: /.*/, namespace: 'commonjs-named-exports' }, async (args) => {
      const { resolveDir } = args.pluginData as { resolveDir: string };
      // Every package is in the project's node_modules, which this script resolves from too.
      const names = Object.keys((await import(args.path)) as object).filter((name) => name !== 'default' && name !== 'module.exports');
      // require(): the module's exports object itself, which is what Node makes the default export.
      const lines = [`const exported = require(${JSON.stringify(args.path)});`, 'export default exported;'];
      names.forEach((name, index) => lines.push(`const name${index} = exported[${JSON.stringify(name)}];`, `export { name${index} as ${JSON.stringify(name)} };`));
      return { contents: lines.join('\n'), resolveDir, loader: 'js' };
    });
  },
};

/**
 * Builds the gateway into `outdir`. A file whose content is unchanged is not rewritten, so a gateway
 * already running from the folder keeps loading the chunks it expects; files of an earlier build
 * that this one does not produce are removed. The build stamp (./build-stamp.mjs) is written last:
 * a build that fails half-way leaves no stamp that `npm start` could take for a finished one.
 */
export async function buildGateway(outdir = GATEWAY_DIST_DIR): Promise<Metafile> {
  const result = await build({
    absWorkingDir: ROOT,
    // The admin listener's thread (src/process/admin.ts) starts from a file of its own.
    entryPoints: { main: 'src/main.js', 'admin-thread': 'src/process/admin-thread.ts' },
    outdir,
    write: false,
    metafile: true,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    // The oldest Node the gateway runs on: syntax newer than it is lowered (or refused) here.
    target: `node${NODE_FLOOR}`,
    external: EXTERNAL,
    plugins: [builtinsThroughRequire, graphqlAsModules, graphqlToolsOnce, apolloHashFromNode, commonJsNamedExports],
    // No keepNames: it defines `name` on every function as it is created, closures of the request
    // path included, which cost more per request than the sources (docs/benchmark.md). Without it
    // a name stays as written unless it collides with another module's in the same chunk, which
    // then shows a suffix in stack frames (`formatError3`) and, for a class, in the `type` pino
    // gives an error it logs. Our classes keep theirs (a test checks); a library's may not (got's
    // internal TimeoutError is TimeoutError2 in the bundle; its `name` still says TimeoutError).
    // Maps beside the chunks, for `node --enable-source-maps` when a stack trace should name the sources.
    sourcemap: 'linked',
    // The CommonJS modules among the bundled ones call require() for Node's built-ins.
    banner: { js: "import { createRequire as __gatewayCreateRequire } from 'node:module'; const require = __gatewayCreateRequire(import.meta.url);" },
    logLevel: 'warning',
    legalComments: 'none',
  });
  await mkdir(outdir, { recursive: true });
  // Hashed before the build reads the sources: an edit made while it runs leaves the stamp stale, not wrong.
  const stamp = JSON.stringify({ sources: sourcesHash(ROOT) });
  await rm(path.join(outdir, STAMP_FILE), { force: true });
  const written = new Set<string>([STAMP_FILE]);
  for (const file of result.outputFiles) {
    written.add(path.basename(file.path));
    const current = await readFile(file.path).catch(() => undefined);
    if (!current?.equals(file.contents)) await writeFile(file.path, file.contents);
  }
  for (const name of await readdir(outdir)) if (!written.has(name)) await rm(path.join(outdir, name), { recursive: true, force: true });
  await writeFile(path.join(outdir, STAMP_FILE), `${stamp}\n`);
  return result.metafile;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { positionals } = readCommandLine(
    { options: {}, allowPositionals: true },
    {
      command: 'npm run build',
      positionals: '[OUTDIR]',
      summary: [
        'Bundles the gateway (src/main.js and everything it imports, the embedded sandbox included) into dist/',
        '(or OUTDIR), with a build stamp: the hash of the sources and the lock file it was built from.',
        '`npm start` runs that bundle; in production it refuses one whose stamp does not match the sources.',
      ].join('\n'),
      options: {},
      examples: ['npm run build && NODE_ENV=production npm start'],
    },
  );
  // Relative to the folder the command was typed in (npm runs scripts in the project's root; INIT_CWD is where it was started).
  const outdir = positionals[0] === undefined ? undefined : path.resolve(process.env.INIT_CWD ?? process.cwd(), positionals[0]);
  const started = performance.now();
  await buildGateway(outdir);
  process.stdout.write(`Gateway built into ${outdir ?? GATEWAY_DIST_DIR} in ${Math.round(performance.now() - started)} ms\n`);
}
