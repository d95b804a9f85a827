// Jest environment for mutation runs (stryker.config.mjs): once a test has failed, the run's
// remaining tests are skipped, in this file and in the files after it. One failure is all a
// mutant's run needs (it is killed), and jest has no bail within a run that Stryker can use
// (it runs every file in band, in this process). mutation-test-sequencer.js clears the mark when a
// run starts. Stryker wraps this environment with its own coverage tracking.
const { TestEnvironment } = require('jest-environment-node');

const FAILED = Symbol.for('mutation-run-failed');

class MutationTestEnvironment extends TestEnvironment {
  handleTestEvent(event) {
    if (event.name === 'test_done' && event.test.errors.length > 0) globalThis[FAILED] = true;
    if (event.name === 'test_start' && globalThis[FAILED] === true) event.test.mode = 'skip';
  }
}

module.exports = MutationTestEnvironment;
