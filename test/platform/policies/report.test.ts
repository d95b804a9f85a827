import { describe, expect, it } from '@jest/globals';
import { RequestError } from 'got';
import { CircuitOpen } from '../../../src/platform/breaker.ts';
import { deadline } from '../../../src/platform/policies/deadline.ts';
import { report, type Reporting } from '../../../src/platform/policies/report.ts';
import { retries } from '../../../src/platform/policies/retries.ts';
import { compose, type Next, type PlatformCall, type Policy } from '../../../src/platform/policy.ts';
import type { Answer, UpstreamCallEvent } from '../../../src/platform/upstream-call.ts';
import { CallerGone } from '../../../src/request/deadline.ts';
import { runWithRequestId } from '../../../src/request/scope.ts';
import { ManualClock } from '../manual-clock.ts';

const TRACEPARENT = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';

function answer(status: number, body = '', headers: Record<string, string> = {}): Answer {
  return { status, body, headers, retries: 0 };
}

function call(overrides: Partial<PlatformCall> = {}): PlatformCall {
  return { route: 'documents.get', method: 'GET', pathAndQuery: '/v1/documents/d1', authorization: 'Bearer report-test-token-0123456789', headers: {}, callers: () => 1, ...overrides };
}

/** Reporting to one observer and a tracer, with what each heard (the durations left out). */
function reporting(traced = true) {
  const events: Omit<UpstreamCallEvent, 'durationMs'>[] = [];
  const spans: string[] = [];
  const durations: number[] = [];
  const reportingTo: Reporting = {
    observers: [({ durationMs, ...event }) => void (durations.push(durationMs), events.push(event))],
    tracer: traced
      ? { startUpstream: (requestId, route, method) => ({ traceparent: TRACEPARENT, end: (event) => void spans.push(`${requestId} ${method} ${route} ${event.status}`) }) }
      : undefined,
  };
  return { reportingTo, events, spans, durations };
}

describe('report', () => {
  it('sends the request id and the span upstream, and reports an answered call once, to the observers and its span', async () => {
    const { reportingTo, events, spans, durations } = reporting();
    const sent: Record<string, string>[] = [];
    const next: Next = async (given) => (sent.push({ ...given.headers }), { ...answer(200, '{}'), retries: 2 });
    await expect(runWithRequestId('req-1', () => report(reportingTo).send(call(), next))).resolves.toEqual({ ...answer(200, '{}'), retries: 2 });
    expect(sent).toEqual([{ 'x-request-id': 'req-1', traceparent: TRACEPARENT }]);
    expect(events).toEqual([{ route: 'documents.get', method: 'GET', status: 200, retries: 2, requestId: 'req-1', errorCode: undefined }]);
    expect(spans).toEqual(['req-1 GET documents.get 200']);
    expect(durations).toEqual([expect.any(Number)]);
    expect(durations[0]).toBeGreaterThanOrEqual(0);
  });

  it('marks a joined shared read, and sends no request id outside a request', async () => {
    const { reportingTo, events } = reporting(false);
    const given = call({ joined: true });
    await report(reportingTo).send(given, async () => answer(204));
    expect(given.headers).toEqual({});
    expect(events).toEqual([{ route: 'documents.get', method: 'GET', status: 204, retries: 0, requestId: undefined, errorCode: undefined, shared: true }]);
  });

  it('turns a non-2xx answer into the mapped PlatformError, reported with its code', async () => {
    const { reportingTo, events, spans } = reporting();
    const body = JSON.stringify({ message: 'no such document', traceId: 'tr-7' });
    const failed = runWithRequestId('req-2', () => report(reportingTo).send(call({ method: 'PUT' }), async () => answer(404, body, { 'content-type': 'application/json' })));
    await expect(failed).rejects.toMatchObject({ extensions: { code: 'NOT_FOUND', upstream: { status: 404, traceId: 'tr-7' } } });
    expect(events).toEqual([{ route: 'documents.get', method: 'PUT', status: 404, retries: 0, requestId: 'req-2', errorCode: 'NOT_FOUND' }]);
    expect(spans).toEqual(['req-2 PUT documents.get 404']);
  });

  it('maps what stopped a call, with no status', async () => {
    const { reportingTo, events } = reporting(false);
    await expect(report(reportingTo).send(call(), () => Promise.reject(new CircuitOpen()))).rejects.toMatchObject({
      message: 'The platform is failing; calls are paused for a short cool-down',
      extensions: { code: 'UPSTREAM_ERROR' },
    });
    expect(events).toEqual([{ route: 'documents.get', method: 'GET', status: 0, retries: 0, requestId: undefined, errorCode: 'UPSTREAM_ERROR' }]);
  });

  it('does not send a call whose request already stopped (the deadline policy after it), and reports it cancelled', async () => {
    const { reportingTo, events } = reporting(false);
    const controller = new AbortController();
    controller.abort(new CallerGone());
    let sent = false;
    const stoppedOrSent = compose([report(reportingTo), deadline, { name: 'rest', send: async () => ((sent = true), answer(200)) }]);
    await expect(stoppedOrSent(call({ signal: controller.signal }))).rejects.toMatchObject({ extensions: { code: 'CANCELLED' } });
    expect(sent).toBe(false);
    expect(events.map((event) => event.errorCode)).toEqual(['CANCELLED']);
  });

  it('reports the retries a failed call took', async () => {
    const { reportingTo, events } = reporting(false);
    const transport: Policy = { name: 'transport', send: () => Promise.reject(new RequestError('reset', { code: 'ECONNRESET' }, {} as never)) };
    const send = compose([report(reportingTo), retries({ limit: 2, baseMs: 1, retryAfterCapMs: 0 }, new ManualClock({ autoAdvance: true })), transport]);
    await expect(send(call())).rejects.toMatchObject({ message: 'The platform could not be reached (ECONNRESET)', extensions: { code: 'UPSTREAM_ERROR' } });
    expect(events).toEqual([{ route: 'documents.get', method: 'GET', status: 0, retries: 2, requestId: undefined, errorCode: 'UPSTREAM_ERROR' }]);
  });
});
