import { expect, it } from '@jest/globals';
import { sleep } from '../support/time.ts';
import { watchUnhandledRejections } from './support/process-probe.ts';

it('sees a rejection nobody handled in time, from the real process', async () => {
  const probe = watchUnhandledRejections();
  const late = Promise.reject(new Error('handled too late'));
  await sleep(20);
  // Handled now: Node reports 'rejectionHandled', so Jest does not fail this test for it.
  late.catch(() => undefined);
  await sleep(20);
  probe.stop();
  expect(probe.reasons).toEqual([new Error('handled too late')]);
});

it('sees nothing when every rejection is handled', async () => {
  const probe = watchUnhandledRejections();
  await Promise.reject(new Error('handled at once')).catch(() => undefined);
  await sleep(20);
  probe.stop();
  expect(probe.reasons).toEqual([]);
});
