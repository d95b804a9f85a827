import { describe, expect, it } from '@jest/globals';
import { DEFAULT_RECORDED_REQUESTS, RequestLog, type RecordedRequest } from '../../sandbox/admin/request-log.ts';
import { startSandbox } from '../../sandbox/index.ts';

const entry = (n: number, route: RecordedRequest['route'] = 'exceptions'): RecordedRequest => ({ host: 'api', method: 'GET', route, path: `/r/${n}`, query: '', at: n });

describe('sandbox request log', () => {
  it('keeps the most recent entries, oldest first, in a fixed number of slots; the counters stay exact', () => {
    const log = new RequestLog(3);
    for (let n = 1; n <= 7; n++) log.record(entry(n, n % 2 === 0 ? 'acceptances' : 'exceptions'));
    expect(log.requests.map((r) => r.path)).toEqual(['/r/5', '/r/6', '/r/7']);
    expect(log.summary()).toMatchObject({ total: 7, byHost: { api: 7, content: 0 } });
    expect([log.summary().byRoute.exceptions, log.summary().byRoute.acceptances]).toEqual([4, 3]);
    expect(log.capacity).toBe(3);

    log.reset();
    expect(log.requests).toEqual([]);
    log.record(entry(8));
    expect(log.requests.map((r) => r.path)).toEqual(['/r/8']);
    expect(log.summary().total).toBe(1);
  });

  it('keeps 10 000 requests by default, so a long `npm start` session stays flat', async () => {
    expect(DEFAULT_RECORDED_REQUESTS).toBe(10_000);
    expect(new RequestLog().capacity).toBe(10_000);
    const sandbox = await startSandbox({ maxRecordedRequests: 2 });
    try {
      for (const path of ['/a', '/b', '/c']) await (await fetch(`${sandbox.url}${path}`)).arrayBuffer();
      expect(sandbox.requests.map((r) => r.path)).toEqual(['/b', '/c']);
    } finally {
      await sandbox.close();
    }
  });

  it('refuses a capacity that is not a positive integer', () => {
    expect(() => new RequestLog(0)).toThrow('request log capacity must be a positive integer, got 0');
  });
});
