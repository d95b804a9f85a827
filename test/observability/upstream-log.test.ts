import { describe, expect, it } from '@jest/globals';
import type { Logger } from 'pino';
import { upstreamLogObserver } from '../../src/observability/upstream-log.ts';
import type { UpstreamCallEvent } from '../../src/platform/upstream-call.ts';

/** An observer over a logger that keeps each line as its level, message and fields. */
function observed() {
  const lines: [string, string, Record<string, unknown>][] = [];
  const at = (level: string) => (fields: Record<string, unknown>, message: string) => void lines.push([level, message, fields]);
  const logger = { warn: at('warn'), debug: at('debug'), info: at('info'), error: at('error') } as unknown as Logger;
  return { observe: upstreamLogObserver(logger), lines };
}

const event = (overrides: Partial<UpstreamCallEvent>): UpstreamCallEvent => ({ route: 'documents.get', method: 'GET', status: 503, durationMs: 12.345, retries: 2, requestId: 'req-1', ...overrides });

describe('upstreamLogObserver', () => {
  it('logs nothing of a call that succeeded', () => {
    const { observe, lines } = observed();
    observe(event({ status: 200 }));
    observe(event({ status: 200, shared: true }));
    expect(lines).toEqual([]);
  });

  it.each(['UPSTREAM_ERROR', 'UPSTREAM_TIMEOUT', 'RATE_LIMITED', 'UPSTREAM_BUSY'])('warns of a call that failed with %s, with what identifies it and its duration to 0.1 ms', (errorCode) => {
    const { observe, lines } = observed();
    observe(event({ errorCode }));
    expect(lines).toEqual([['warn', 'upstream call failed', { requestId: 'req-1', route: 'documents.get', method: 'GET', status: 503, errorCode, retries: 2, durationMs: 12.3 }]]);
  });

  it.each(['UNAUTHENTICATED', 'FORBIDDEN', 'NOT_FOUND', 'BAD_USER_INPUT', 'CONFLICT', 'CANCELLED'])('logs a call refused with %s at debug only', (errorCode) => {
    const { observe, lines } = observed();
    observe(event({ status: 404, durationMs: 0.06, retries: 0, requestId: undefined, method: 'PUT', errorCode }));
    expect(lines).toEqual([['debug', 'upstream call refused', { requestId: undefined, route: 'documents.get', method: 'PUT', status: 404, errorCode, retries: 0, durationMs: 0.1 }]]);
  });
});
