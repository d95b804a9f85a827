import { afterAll, afterEach, beforeAll, expect } from '@jest/globals';
import nock from 'nock';

// Kept apart from support.ts: importing nock patches node:http for the whole
// worker, which the loopback-server suites must not inherit.

/**
 * Puts nock in charge of all HTTP for a suite: no real connection is possible,
 * every request nobody expected fails the test that made it, and every expected
 * request that was not made fails it too.
 */
export function useNock(): void {
  const unexpected: string[] = [];
  const onNoMatch = (request: Request) => void unexpected.push(`${request.method} ${request.url}`);
  beforeAll(() => {
    if (!nock.isActive()) nock.activate();
    nock.disableNetConnect();
    nock.emitter.on('no match', onNoMatch);
  });
  afterEach(() => {
    const pending = nock.pendingMocks();
    nock.cleanAll();
    expect(unexpected.splice(0)).toEqual([]);
    expect(pending).toEqual([]);
  });
  afterAll(() => {
    nock.emitter.off('no match', onNoMatch);
    nock.enableNetConnect();
    // Later suites in the same worker talk to real loopback servers.
    nock.restore();
  });
}
