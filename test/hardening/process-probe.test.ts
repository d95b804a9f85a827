import { expect, it } from '@jest/globals';
import { watchUnhandledRejections } from './support/process-probe.ts';

const tick = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

it('sees a rejection nobody handled in time, from the real process', async () => {
  const probe = watchUnhandledRejections();
  const late = Promise.reject(new Error('handled too late'));
  await tick(20);
  // Handled now: Node reports 'rejectionHandled', so Jest does not fail this test for it.
  late.catch(() => undefined);
  await tick(20);
  probe.stop();
  expect(probe.reasons).toEqual([new Error('handled too late')]);
});

it('sees nothing when every rejection is handled', async () => {
  const probe = watchUnhandledRejections();
  await Promise.reject(new Error('handled at once')).catch(() => undefined);
  await tick(20);
  probe.stop();
  expect(probe.reasons).toEqual([]);
});
