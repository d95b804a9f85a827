import { afterEach, beforeEach, jest } from '@jest/globals';

/** process.exit, made to throw so a command line stops where it would have exited. */
class Exited extends Error {
  readonly code: number | undefined;

  constructor(code: number | undefined) {
    super(`exit ${code}`);
    this.code = code;
  }
}

/** What a command line wrote while the test ran. */
export interface CommandOutput {
  stdout: string;
  stderr: string;
}

/**
 * Captures stdout and stderr and makes process.exit throw, around each test of the file that calls
 * it (at its top level). Returns the output of the running test.
 */
export function captureCommandOutput(): CommandOutput {
  const output: CommandOutput = { stdout: '', stderr: '' };
  beforeEach(() => {
    output.stdout = '';
    output.stderr = '';
    jest.spyOn(process.stdout, 'write').mockImplementation((text) => ((output.stdout += String(text)), true));
    jest.spyOn(process.stderr, 'write').mockImplementation((text) => ((output.stderr += String(text)), true));
    jest.spyOn(process, 'exit').mockImplementation((code) => {
      throw new Exited(code === undefined ? undefined : Number(code));
    });
  });
  afterEach(() => {
    jest.restoreAllMocks();
  });
  return output;
}

/** The exit code `run` ended the command line with; fails when it did not exit. */
export function exitOf(run: () => unknown): number | undefined {
  try {
    run();
  } catch (error) {
    if (error instanceof Exited) return error.code;
    throw error;
  }
  throw new Error('the command line did not exit');
}
