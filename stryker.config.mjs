// Mutation testing of the paging library and the platform seam: `npm run mutate` (docs/testing.md).
// Jest runs as ESM under --experimental-vm-modules, so the test runner's processes get the same flag.
//
// Each mutant runs only the tests that cover it (`perTest`), and two helpers of test/support keep
// that cheap: the sequencer loads only the test files holding those tests, and the environment
// stops a file at its first failing test (the mutant is killed by then).

// The production process's own tests are left out: each would cost seconds for every mutant it
// covers, and they assert deadlines that the load of a mutation run makes flaky.
const spawningTests = ['<rootDir>/test/platform/production-process.test.ts', '<rootDir>/test/platform/hung-route.test.ts'];

export default {
  $schema: './node_modules/@stryker-mutator/core/schema/stryker-schema.json',
  packageManager: 'npm',
  testRunner: 'jest',
  testRunnerNodeArgs: ['--experimental-vm-modules', '--disable-warning=ExperimentalWarning'],
  coverageAnalysis: 'perTest',
  // One test runner process unless MUTATE_CONCURRENCY says more: the machine may be shared.
  concurrency: Number(process.env.MUTATE_CONCURRENCY ?? 1),
  // src/request/ holds the deadline signal and the token's forms the platform seam uses.
  mutate: ['src/connections/**/*.ts', 'src/platform/**/*.ts', 'src/request/**/*.ts'],
  // Module-level constants would run every test for each of their mutants.
  ignoreStatic: true,
  jest: {
    projectType: 'custom',
    configFile: 'jest.config.js',
    config: {
      testMatch: [
        '<rootDir>/test/connections/**/*.test.ts',
        '<rootDir>/test/platform/**/*.test.ts',
        '<rootDir>/test/request/**/*.test.ts',
        // The end-to-end tests that page through connections.
        '<rootDir>/test/e2e/exceptions.test.ts',
        '<rootDir>/test/e2e/linx.test.ts',
        '<rootDir>/test/e2e/acceptances.test.ts',
        '<rootDir>/test/e2e/live-lists.test.ts',
      ],
      testPathIgnorePatterns: ['/node_modules/', ...spawningTests],
      // No test of this run starts the built gateway: the bundle is not built for each mutant.
      // null, not undefined: an undefined key does not override jest.config.js's globalSetup.
      globalSetup: null,
      testSequencer: '<rootDir>/test/support/mutation-test-sequencer.js',
      // Resolved by Stryker from the project's folder, which wraps it with its coverage tracking.
      testEnvironment: './test/support/mutation-test-environment.cjs',
    },
  },
  ignorePatterns: ['bench/results', 'schema-snapshots', 'client', 'reports', '.stryker-tmp'],
  reporters: ['clear-text', 'progress-append-only', 'html', 'json'],
  htmlReporter: { fileName: 'reports/mutation/mutation.html' },
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  incrementalFile: 'reports/mutation/stryker-incremental.json',
  // On top of each mutant's own test time (Stryker's default): a mutant that loops forever costs
  // this much and a fresh test runner.
  timeoutMS: 5000,
  tempDirName: '.stryker-tmp',
};
