import { availableParallelism } from 'node:os';
import { describe, expect, it } from '@jest/globals';
import { ConfigError, testConfig } from '../../src/settings/config.ts';

describe('scaling settings', () => {
  it('run one gateway process with no pre-stop delay by default (and a 10 s heartbeat timeout for workers)', () => {
    expect(testConfig().scaling).toEqual({ workers: 1, shutdownDelayMs: 0, heartbeatTimeoutMs: 10_000 });
  });

  it('take WORKERS as a whole number or auto (the CPUs this process may use), and SHUTDOWN_DELAY_MS in ms', () => {
    expect(testConfig({ WORKERS: '3', SHUTDOWN_DELAY_MS: '5000' }).scaling).toEqual({ workers: 3, shutdownDelayMs: 5000, heartbeatTimeoutMs: 10_000 });
    expect(testConfig({ WORKERS: 'auto' }).scaling.workers).toBe(availableParallelism());
  });

  it.each(['0', '-1', '1.5', 'all', '1000'])('refuse WORKERS=%s with a message naming it', (value) => {
    expect(() => testConfig({ WORKERS: value })).toThrow(ConfigError);
    expect(() => testConfig({ WORKERS: value })).toThrow('WORKERS: must be auto or a whole number from 1 to 999');
  });

  it('refuse a negative or overlong SHUTDOWN_DELAY_MS', () => {
    expect(() => testConfig({ SHUTDOWN_DELAY_MS: '-1' })).toThrow(/SHUTDOWN_DELAY_MS/);
    expect(() => testConfig({ SHUTDOWN_DELAY_MS: '60001' })).toThrow(/SHUTDOWN_DELAY_MS/);
  });

  it('take WORKER_HEARTBEAT_TIMEOUT_MS from 1 s to 10 min, refusing others with a message naming it', () => {
    expect(testConfig({ WORKER_HEARTBEAT_TIMEOUT_MS: '1500' }).scaling.heartbeatTimeoutMs).toBe(1500);
    for (const value of ['999', '600001', 'soon']) expect(() => testConfig({ WORKER_HEARTBEAT_TIMEOUT_MS: value })).toThrow(/WORKER_HEARTBEAT_TIMEOUT_MS/);
  });
});
