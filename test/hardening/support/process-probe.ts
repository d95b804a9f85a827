import { runInThisContext } from 'node:vm';

/**
 * Jest hands each test file a copy of `process` whose events never fire; the
 * real one is reached through the host's global context. Unhandled rejections
 * of the gateway (which runs in the test process) are emitted there.
 */
const hostProcess = runInThisContext('process') as NodeJS.Process;

export interface RejectionWatch {
  /** Reasons of every unhandled rejection since the watch started. */
  readonly reasons: unknown[];
  stop(): void;
}

export function watchUnhandledRejections(): RejectionWatch {
  const reasons: unknown[] = [];
  const listener = (reason: unknown) => void reasons.push(reason);
  hostProcess.on('unhandledRejection', listener);
  return { reasons, stop: () => void hostProcess.off('unhandledRejection', listener) };
}
