// ESM project: jest runs under --experimental-vm-modules (see package.json) and
// swc strips types; type errors are caught by `tsc --noEmit`, not here.
export default {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  transform: {
    '^.+\\.ts$': ['@swc/jest', { jsc: { parser: { syntax: 'typescript' }, target: 'es2023' }, module: { type: 'es6' } }],
  },
  testMatch: ['<rootDir>/test/**/*.test.ts'],
  // A bound for a test that hangs, not for a slow one: tests wait on events, and a busy machine is slow.
  testTimeout: 120000,
  // Three test files at a time on two cores: most of a file's time is spent waiting on the processes,
  // sockets, installs and browsers it starts, so two workers leave the cores idle for much of a run
  // (jest's default is one worker fewer than the cores). Measured on a busy 2-core machine
  // (docs/testing.md): jest took 401 s with two, 305 s with three.
  maxWorkers: 3,
  // The slowest files first, by the durations committed beside it (a fresh clone has no jest cache).
  testSequencer: '<rootDir>/test/support/test-sequencer.js',
  // The tests of the real process run the built gateway (dist/), as `npm start` and the image do.
  globalSetup: '<rootDir>/test/support/global-setup.ts',
};
