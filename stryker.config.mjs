// Mutation testing of the paging library and the platform seam: `npm run mutate` (docs/testing.md).
// Jest runs as ESM under --experimental-vm-modules, so the test runner's processes get the same flag.
//
// MUTATE_TESTS=unit limits each mutant's run to the in-process unit tests of test/connections (no
// gateway, no sandbox): every test file is loaded for every mutant, and the files that start a
// gateway cost seconds each, which a whole-library run on a shared 2-core machine cannot afford.

const everyRelevantTest = [
  '<rootDir>/test/connections/**/*.test.ts',
  '<rootDir>/test/platform/**/*.test.ts',
  // The end-to-end tests that page through connections.
  '<rootDir>/test/e2e/exceptions.test.ts',
  '<rootDir>/test/e2e/linx.test.ts',
  '<rootDir>/test/e2e/acceptances.test.ts',
  '<rootDir>/test/e2e/live-lists.test.ts',
];

const unitOnly = process.env.MUTATE_TESTS === 'unit';
// MUTATE_TESTS=cursor: only the cursor tests, for a run that mutates the cursor files alone.
const cursorOnly = process.env.MUTATE_TESTS === 'cursor';
const cursorTests = ['<rootDir>/test/connections/cursor.test.ts', '<rootDir>/test/connections/anchored-cursor.test.ts'];
// MUTATE_TESTS=platform: mutates src/platform/ alone and runs only test/platform/, less the two files
// that spawn the production process (each would cost seconds per mutant and asserts deadlines that
// the load of a mutation run makes flaky). Its reports and incremental file are its own.
const platformOnly = process.env.MUTATE_TESTS === 'platform';
const spawningPlatformTests = ['<rootDir>/test/platform/production-process.test.ts', '<rootDir>/test/platform/hung-route.test.ts'];
const reportName = platformOnly ? 'platform' : 'mutation';

export default {
  $schema: './node_modules/@stryker-mutator/core/schema/stryker-schema.json',
  packageManager: 'npm',
  testRunner: 'jest',
  testRunnerNodeArgs: ['--experimental-vm-modules', '--disable-warning=ExperimentalWarning'],
  coverageAnalysis: 'perTest',
  // The machine is shared: one test runner process.
  concurrency: 1,
  mutate: platformOnly ? ['src/platform/**/*.ts'] : ['src/connections/**/*.ts', 'src/platform/**/*.ts'],
  // Module-level constants would run every test for each of their mutants.
  ignoreStatic: true,
  // Every test that kills a mutant is recorded (jest runs them all either way), so a report tells
  // which test files a mutant's detection depends on.
  disableBail: platformOnly,
  jest: {
    projectType: 'custom',
    configFile: 'jest.config.js',
    config: {
      testMatch: platformOnly
        ? ['<rootDir>/test/platform/**/*.test.ts']
        : cursorOnly
          ? cursorTests
          : unitOnly
            ? ['<rootDir>/test/connections/**/*.test.ts']
            : everyRelevantTest,
      testPathIgnorePatterns: [
        '/node_modules/',
        // Spawns the production process and asserts deadlines: not about paging, and flaky under the load of a mutation run.
        '<rootDir>/test/platform/production-process.test.ts',
        ...(unitOnly ? ['<rootDir>/test/connections/page-cap-learning.test.ts'] : []),
        ...(platformOnly ? spawningPlatformTests : []),
      ],
    },
  },
  ignorePatterns: ['bench/results', 'schema-snapshots', 'client', 'reports', '.stryker-tmp'],
  reporters: ['clear-text', 'progress-append-only', 'html', 'json'],
  htmlReporter: { fileName: `reports/mutation/${reportName}.html` },
  jsonReporter: { fileName: `reports/mutation/${reportName}.json` },
  incrementalFile: platformOnly ? 'reports/mutation/platform-incremental.json' : 'reports/mutation/stryker-incremental.json',
  // On top of each mutant's own test time: a mutant that loops forever costs this much (and a
  // fresh test runner); the platform tests' waits are all well under it.
  timeoutMS: platformOnly ? 5000 : 20000,
  tempDirName: '.stryker-tmp',
};
