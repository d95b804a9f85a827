import js from '@eslint/js';
import { createNodeResolver, importX } from 'eslint-plugin-import-x';
import tseslint from 'typescript-eslint';

/** The layers of src/, bottom to top, as docs/architecture.md lists them (paths relative to src/). */
const LAYERS = [
  { name: 'request identity (src/request/)', files: ['request/**'] },
  {
    name: 'the kernel (configuration, errors, logs, client text, dates, areas, execution)',
    files: ['errors.ts', 'logger.ts', 'client-text.ts', 'send.ts', 'date-time.ts', 'schema/scalars.ts', 'project-root.ts', 'schema/areas.ts', 'settings/**', 'shared-state/**', 'process/cluster-messages.ts', 'generated/**', 'types/**', 'execution/**'],
  },
  { name: 'the platform seam (src/platform/)', files: ['platform/**'] },
  { name: 'paging (src/connections/)', files: ['connections/**'] },
  { name: 'live updates (src/subscriptions/)', files: ['subscriptions/**'] },
  {
    name: 'the areas (their folders, the schema, the context, the playground)',
    files: ['documents/**', 'acceptances/**', 'exceptions/**', 'linx/**', 'federation/**', 'schema/base-resolvers.ts', 'schema/area-modules.ts', 'schema/schema.ts', 'context.ts', 'playground/**'],
  },
  { name: 'observation (src/observability/, health)', files: ['observability/**'] },
  { name: 'the front door (src/http/)', files: ['http/**'] },
  { name: 'request limits (src/hardening/)', files: ['hardening/**'] },
  { name: 'budgets (src/budgets/)', files: ['budgets/**'] },
  { name: 'the composition (server, admin listener, workers, start-up)', files: ['server.ts', 'process/admin.ts', 'process/admin-thread.ts', 'process/cluster.ts', 'process/banner.ts', 'format-error.ts', 'process/start.ts', 'main.js', 'supported-node.js'] },
];

export default tseslint.config(
  { ignores: ['node_modules/', '.stryker-tmp/', 'reports/', 'src/generated/', 'playground/dist/', 'dist/', 'bench/peer/', 'test/artifacts/', 'test/relay/__generated__/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', Buffer: 'readonly', fetch: 'readonly', setInterval: 'readonly', clearInterval: 'readonly', AbortController: 'readonly', TextEncoder: 'readonly', TextDecoder: 'readonly', performance: 'readonly', structuredClone: 'readonly', setImmediate: 'readonly' } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  {
    // CommonJS where a tool loads a file with require() (the mutation runs' jest environment).
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: { require: 'readonly', module: 'readonly' } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    // Import cycles in the gateway: a module that needs its importer half-initialised breaks at start-up.
    files: ['src/**/*.ts'],
    plugins: { 'import-x': importX },
    settings: {
      'import-x/extensions': ['.ts', '.js'],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts'] },
      // Sources import with `.ts` (and may with `.js`) extensions; both resolve to the TypeScript file.
      'import-x/resolver-next': [createNodeResolver({ extensions: ['.ts', '.js', '.json'], extensionAlias: { '.js': ['.ts', '.js'] } })],
    },
    rules: {
      // The rule follows value imports only: an `import type` is erased before run time, so it cannot
      // make a module read a half-initialised importer.
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
    },
  },
  // The layers of src/, bottom to top (docs/architecture.md): a module imports from its own layer and
  // the layers below it, never from a layer above. Type imports count too: a lower layer that needs a
  // higher one's type declares the interface it is called with instead.
  ...LAYERS.map((layer, index) => ({
    files: layer.files.map((file) => `src/${file}`),
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            ...LAYERS.slice(index + 1).map((higher) => ({
              group: higher.files.map((file) => `**/${file}`),
              message: `src/ is layered (docs/architecture.md): ${layer.name} may not import ${higher.name}, a layer above it.`,
            })),
            // The embedded sandbox is started by the composition alone; the layers below it import nothing from sandbox/.
            ...(index < LAYERS.length - 1 ? [{ group: ['**/sandbox/**'], message: `src/ is layered (docs/architecture.md): ${layer.name} may not import the embedded sandbox (sandbox/); only the composition starts it.` }] : []),
          ],
        },
      ],
    },
  })),
);
