import { describe, expect, it } from '@jest/globals';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Readiness, ReadinessReport } from '../../src/observability/health.ts';
import type { MetricsAnswer } from '../../src/observability/index.ts';
import { notFoundStage, operatorRoutesStage } from '../../src/http/routes.ts';
import { runWithRequestId } from '../../src/request/scope.ts';

type Outcome = { passed: unknown } | { status: number; headers: Record<string, unknown>; body: string };

/** Runs a stage on a plain request until it answers or passes the request on (`passed`: what next got). */
function run(stage: ReturnType<typeof operatorRoutesStage>, method: string, url: string): Promise<Outcome> {
  return new Promise((resolve) => {
    const headers: Record<string, unknown> = {};
    const res = {
      statusCode: 0,
      setHeader: (name: string, value: unknown) => void (headers[name] = value),
      end: (body: string) => resolve({ status: res.statusCode, headers, body }),
    } as unknown as ServerResponse;
    runWithRequestId('req-routes', () => stage({ method, url, headers: {} } as unknown as IncomingMessage, res, (error) => resolve({ passed: error })));
  });
}

const readiness = (check: () => Promise<ReadinessReport>) => ({ check }) as unknown as Readiness;
const READY: ReadinessReport = { status: 'ready', breaker: 'closed', upstream: 'reachable' };
const JSON_TYPE = 'application/json; charset=utf-8';

function stage(report: () => Promise<ReadinessReport> = async () => READY, scrape?: () => Promise<MetricsAnswer>) {
  return operatorRoutesStage({ readiness: readiness(report), scrape });
}

describe('operatorRoutesStage', () => {
  it('answers /healthz with ok, in any case and with one trailing slash, to GET and HEAD', async () => {
    const ok = { status: 200, headers: { 'Content-Type': JSON_TYPE, 'Content-Length': 15 }, body: '{"status":"ok"}' };
    for (const [method, url] of [['GET', '/healthz'], ['HEAD', '/HealthZ/'], ['GET', '/healthz?probe=1']]) expect(await run(stage(), method!, url!)).toEqual(ok);
  });

  it('answers /readyz with the report, 200 when ready and 503 otherwise, never cached', async () => {
    const body = JSON.stringify(READY);
    expect(await run(stage(), 'GET', '/readyz')).toEqual({ status: 200, headers: { 'Cache-Control': 'no-store', 'Content-Type': JSON_TYPE, 'Content-Length': body.length }, body });
    const down: ReadinessReport = { status: 'unavailable', reason: 'upstream unreachable', breaker: 'open', routes: { documents: 'open' } };
    expect(await run(stage(async () => down), 'GET', '/readyz')).toMatchObject({ status: 503, body: JSON.stringify(down) });
  });

  it('serves /metrics as the scrape answers it, and passes it on where metrics are not served here', async () => {
    const scrape = async (): Promise<MetricsAnswer> => ({ status: 503, contentType: 'text/plain; charset=utf-8', body: 'unavailable\n' });
    expect(await run(stage(undefined, scrape), 'GET', '/metrics/')).toEqual({ status: 503, headers: { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': 12 }, body: 'unavailable\n' });
    expect(await run(stage(), 'GET', '/metrics')).toEqual({ passed: undefined });
  });

  it('hands a failed readiness check or scrape to the front door as an error', async () => {
    const failure = new Error('probe failed');
    expect(await run(stage(() => Promise.reject(failure)), 'GET', '/readyz')).toEqual({ passed: failure });
    expect(await run(stage(undefined, () => Promise.reject(failure)), 'GET', '/metrics')).toEqual({ passed: failure });
  });

  it('passes on other methods and other paths', async () => {
    for (const [method, url] of [['POST', '/healthz'], ['GET', '/healthz//'], ['GET', '/graphql'], ['GET', '/']]) expect(await run(stage(), method!, url!)).toEqual({ passed: undefined });
  });
});

describe('notFoundStage', () => {
  it('passes on the GraphQL endpoint and the paths below it, in any case', async () => {
    for (const url of ['/graphql', '/GraphQL?query=x', '/graphql/batch']) expect(await run(notFoundStage, 'GET', url)).toEqual({ passed: undefined });
  });

  it('answers anything else with a JSON 404 carrying the request id', async () => {
    const body = JSON.stringify({ errors: [{ message: 'Not found: the GraphQL endpoint is POST /graphql', extensions: { code: 'NOT_FOUND', requestId: 'req-routes' } }] });
    for (const url of ['/', '/graphqlx', '/api/graphql']) {
      expect(await run(notFoundStage, 'POST', url)).toEqual({ status: 404, headers: { 'Content-Type': JSON_TYPE, 'Content-Length': body.length }, body });
    }
  });
});
