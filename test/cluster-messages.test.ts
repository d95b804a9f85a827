import { describe, expect, it } from '@jest/globals';
import { heartbeatIntervalMs, WORKER_HEARTBEAT, WORKER_LISTENING } from '../src/process/cluster-messages.ts';

// The messages a worker sends its primary, and how often a listening worker's heartbeat beats.

describe('the message types', () => {
  it('are the names the primary and its workers agree on, distinct from each other', () => {
    expect([WORKER_LISTENING, WORKER_HEARTBEAT]).toEqual(['gateway:worker-listening', 'gateway:worker-heartbeat']);
  });
});

describe('heartbeatIntervalMs', () => {
  it('beats five times per timeout', () => {
    expect([heartbeatIntervalMs(10_000), heartbeatIntervalMs(1_000), heartbeatIntervalMs(600_000)]).toEqual([2_000, 200, 120_000]);
  });

  it('rounds down to whole milliseconds, so five beats always fit inside the timeout', () => {
    expect([heartbeatIntervalMs(1_004), heartbeatIntervalMs(1_001), heartbeatIntervalMs(9_999)]).toEqual([200, 200, 1_999]);
  });
});
