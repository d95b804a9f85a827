// Jest test sequencer for mutation runs (stryker.config.mjs): a mutant's run loads only the test
// files holding a test it asks for, the fastest first.
//
// Stryker runs a mutant's covering tests by name (jest's testNamePattern), but jest still loads
// every matched test file to learn the names inside it, which costs more than the tests
// themselves. The names are known after the first full run (Stryker's dry run, which has no
// pattern): `cacheResults` records each file's test names and run time, in this process and in a
// file beside the sandbox's jest config for the other test runner processes. A later run with a
// pattern keeps only the files where a recorded name matches it, the same match jest makes
// (`new RegExp(pattern, 'i')` against the full name). A file with no recorded names is kept, and so
// is every file when none matches, so a run is never emptier than jest's own.
//
// Each run starts with the failure mark of mutation-test-environment.cjs cleared: the first failing
// test ends the run, so the files most likely to fail it soonest (the fastest) go first.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const FAILED = Symbol.for('mutation-run-failed');
const knownFiles = new Map();

function knownFilesPath(globalConfig) {
  return path.join(globalConfig.rootDir, '.mutation-test-files.json');
}

export default class MutationTestSequencer {
  constructor({ globalConfig }) {
    this.globalConfig = globalConfig;
  }

  sort(tests) {
    globalThis[FAILED] = false;
    const pattern = this.globalConfig.testNamePattern;
    if (!pattern) return tests;
    if (knownFiles.size === 0 && existsSync(knownFilesPath(this.globalConfig))) {
      for (const [file, known] of Object.entries(JSON.parse(readFileSync(knownFilesPath(this.globalConfig), 'utf8')))) {
        knownFiles.set(file, known);
      }
    }
    const wanted = new RegExp(pattern, 'i');
    const kept = tests.filter((test) => {
      const known = knownFiles.get(test.path);
      return known === undefined || known.names.some((name) => wanted.test(name));
    });
    const runtime = (test) => knownFiles.get(test.path)?.runtime ?? Number.MAX_SAFE_INTEGER;
    return (kept.length > 0 ? kept : tests).sort((a, b) => runtime(a) - runtime(b));
  }

  cacheResults(_tests, results) {
    let learned = false;
    for (const file of results.testResults) {
      if (knownFiles.has(file.testFilePath) || file.testResults.length === 0) continue;
      knownFiles.set(file.testFilePath, {
        names: file.testResults.map((test) => test.fullName),
        runtime: file.perfStats.runtime,
      });
      learned = true;
    }
    if (learned) writeFileSync(knownFilesPath(this.globalConfig), JSON.stringify(Object.fromEntries(knownFiles)));
  }

  allFailedTests(tests) {
    return tests;
  }
}
