import js from '@eslint/js';
import { createNodeResolver, importX } from 'eslint-plugin-import-x';
import tseslint from 'typescript-eslint';

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
  {
    // The paging library and the platform seam sit below observability: they read the request's
    // identity from src/request/, and observability watches them through events, never the reverse.
    files: ['src/connections/**/*.ts', 'src/platform/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ group: ['**/observability', '**/observability/**'], message: 'src/connections/ and src/platform/ may not import src/observability/: request identity is in src/request/.' }] }],
    },
  },
  {
    // Request identity (id, token, deadline) is the bottom layer: every other folder reads it, it reads none of them.
    files: ['src/request/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ group: ['../*', '!../request', '!../request/**'], message: 'src/request/ imports nothing from the rest of src/: every layer reads request identity, so it sits below them all.' }] }],
    },
  },
);
