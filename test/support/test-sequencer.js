// Jest test sequencer of `npm test` (jest.config.js): the slowest files first, by the durations
// committed in test/support/test-durations.json, so that no long file starts last while the other
// worker has nothing left to run.
//
// Jest's own sequencer orders by the durations it kept from the last run on this machine; a fresh
// clone (CI, every run) has none, and jest then orders by file size, which put the 104 s fresh-clone
// test behind 140 s of small files and the 68 s router example at 380 s into a 490 s run. The
// committed durations come from a whole run (docs/testing.md): relative, not exact, so they need
// renewing only when a file's place among the slow ones changes.
//
// A file the list does not know yet (a new one) goes first, the largest first as jest does: a new
// file is as likely to be slow as not, and a short one run early costs nothing at the end.
//
// RECORD_TEST_DURATIONS=1 rewrites the list from the run's own durations: the files run replace
// their entries, files that no longer exist leave it.
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const LIST = 'test/support/test-durations.json';

export default class DurationsTestSequencer {
  constructor({ globalConfig }) {
    this.rootDir = globalConfig.rootDir;
    this.listPath = path.join(this.rootDir, LIST);
    /** Seconds by path relative to the root, as committed. */
    this.seconds = existsSync(this.listPath) ? JSON.parse(readFileSync(this.listPath, 'utf8')) : {};
  }

  relative(file) {
    return path.relative(this.rootDir, file).split(path.sep).join('/');
  }

  sort(tests) {
    const known = (test) => this.seconds[this.relative(test.path)];
    const size = (test) => statSync(test.path).size;
    return [...tests].sort((a, b) => {
      const [timeA, timeB] = [known(a), known(b)];
      if ((timeA === undefined) !== (timeB === undefined)) return timeA === undefined ? -1 : 1;
      if (timeA === undefined) return size(b) - size(a);
      return timeB - timeA || (a.path < b.path ? -1 : 1);
    });
  }

  allFailedTests(tests) {
    return tests;
  }

  cacheResults(_tests, results) {
    if (!process.env.RECORD_TEST_DURATIONS) return;
    const seconds = { ...this.seconds };
    for (const file of results.testResults) {
      if (file.testExecError || file.skipped) continue;
      seconds[this.relative(file.testFilePath)] = Math.round((file.perfStats.end - file.perfStats.start) / 100) / 10;
    }
    const kept = Object.entries(seconds).filter(([file]) => existsSync(path.join(this.rootDir, file)));
    kept.sort(([fileA, a], [fileB, b]) => b - a || (fileA < fileB ? -1 : 1));
    writeFileSync(this.listPath, `${JSON.stringify(Object.fromEntries(kept), null, 2)}\n`);
  }
}
