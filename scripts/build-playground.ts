// Bundles the playground page (React 19 + GraphiQL 5) and Monaco's editor
// workers into playground/dist/, which the gateway serves under /playground/.
// Nothing is loaded from a CDN at run time: every script, style, font and worker
// the page needs is in that folder.
import { rm } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { build, type BuildOptions } from 'esbuild';
import { readCommandLine } from '../src/settings/command-line.ts';

const root = fileURLToPath(new URL('../playground/', import.meta.url));

const shared: BuildOptions = {
  bundle: true,
  minify: true,
  sourcemap: false,
  target: ['chrome120', 'firefox120', 'safari17'],
  define: { 'process.env.NODE_ENV': '"production"' },
  logLevel: 'warning',
  legalComments: 'none',
};

/** Builds into `outdir` (by default playground/dist/, where the gateway serves it from) and returns it. */
export async function buildPlayground(outdir = `${root}dist`): Promise<string> {
  await rm(outdir, { recursive: true, force: true });
  await Promise.all([
    build({
      ...shared,
      entryPoints: { playground: `${root}src/main.tsx` },
      outdir,
      format: 'iife',
      jsx: 'automatic',
      // Monaco's codicon font is referenced from its CSS; ship it as a file beside the stylesheet.
      loader: { '.ttf': 'file', '.woff': 'file', '.woff2': 'file' },
      assetNames: 'assets/[name]-[hash]',
    }),
    build({
      ...shared,
      entryPoints: {
        'editor.worker': 'monaco-editor/esm/vs/editor/editor.worker.js',
        'json.worker': 'monaco-editor/esm/vs/language/json/json.worker.js',
        'graphql.worker': 'monaco-graphql/esm/graphql.worker.js',
      },
      outdir: `${outdir}/workers`,
      // Workers are started with `new Worker(url)`, i.e. as classic scripts.
      format: 'iife',
    }),
  ]);
  return outdir;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  readCommandLine(
    { options: {} },
    {
      command: 'npm run build:playground',
      summary: [
        'Bundles the playground page (React 19 + GraphiQL 5) and its editor workers into playground/dist/, which',
        'the gateway serves at /graphql in a browser. `npm install` runs it (the install\'s prepare step): run it',
        'again after changing playground/src/.',
      ].join('\n'),
      options: {},
      examples: ['npm run build:playground'],
    },
  );
  const started = performance.now();
  const dir = await buildPlayground();
  process.stdout.write(`Playground built into ${dir} in ${Math.round(performance.now() - started)} ms\n`);
}
