// Preloaded into a gateway process by tests (NODE_OPTIONS=--import=…, BUSY_LOOP_DIR=…; the workers
// of a group inherit it): on SIGUSR2 the process's main event loop is held, as a flood of heavy
// queries holds it, until the test writes `release` in BUSY_LOOP_DIR. It writes `busy-<pid>` once
// held and `released-<pid>` once let go, so a test waits on those files, never on time.
import { existsSync, writeFileSync } from 'node:fs';
import { isMainThread } from 'node:worker_threads';

const dir = process.env.BUSY_LOOP_DIR;
if (isMainThread && dir) {
  process.on('SIGUSR2', () => {
    writeFileSync(`${dir}/busy-${process.pid}`, '');
    const pause = new Int32Array(new SharedArrayBuffer(4));
    // Held synchronously: nothing else runs on this loop until the file appears.
    while (!existsSync(`${dir}/release`)) Atomics.wait(pause, 0, 0, 5);
    writeFileSync(`${dir}/released-${process.pid}`, '');
  });
}
