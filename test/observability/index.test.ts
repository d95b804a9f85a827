import { afterEach, describe, expect, it } from '@jest/globals';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-base';
import pino from 'pino';
import { Writable } from 'node:stream';
import { FeatureSwitches } from '../../bench/lib/feature-switches.ts';
import { testConfig } from '../../src/settings/config.ts';
import { setupObservability, type Observability } from '../../src/observability/index.ts';
import { PolicyChain } from '../../src/platform/policy-chain.ts';
import type { Policy } from '../../src/platform/policy.ts';
import { PLATFORM_URL, TOKEN, upstreamSettings } from '../platform/support.ts';

// The wiring of logs, metrics and traces to the platform seam; what each of them records is tested
// in its own file (metrics.test.ts, tracing.test.ts, request-plugin.test.ts).

let observability: Observability | undefined;
let http: PolicyChain | undefined;
afterEach(async () => {
  await observability?.close();
  http?.close();
  observability = undefined;
  http = undefined;
});

/** A seam whose transport answers every call with `status`, and a logger whose lines are kept. */
function parts(status: number) {
  const transport: Policy = { name: 'transport', send: async () => ({ status, body: '', headers: {}, retries: 0 }) };
  http = new PolicyChain(PLATFORM_URL, upstreamSettings({ UPSTREAM_RETRY_LIMIT: '0' }), undefined, undefined, { policies: (defaults) => [...defaults.slice(0, -1), transport] });
  const lines: Record<string, unknown>[] = [];
  const logger = pino(
    { level: 'debug' },
    new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
        done();
      },
    }),
  );
  return { http, logger, lines };
}

const call = (seam: PolicyChain) => seam.send({ route: 'exceptions.list', method: 'GET', pathAndQuery: '/exceptions', authorization: TOKEN }).catch(() => undefined);
const upstreamSamples = (body: string) => body.split('\n').filter((line) => line.startsWith('upstream_requests_total{'));

describe('setupObservability', () => {
  it('serves the metrics of the platform calls on a scrape', async () => {
    const { http, logger } = parts(200);
    observability = await setupObservability({ config: testConfig({ METRICS: 'true' }), http, logger });
    await call(http);
    const answer = await observability.scrape!();
    expect([answer.status, answer.contentType]).toEqual([200, observability.metrics!.registry.contentType]);
    expect(upstreamSamples(answer.body)).toEqual(['upstream_requests_total{route="exceptions.list",method="GET",status="200"} 1']);
    expect(observability.tracing).toBeUndefined();
  });

  it('logs a failed platform call', async () => {
    const { http, logger, lines } = parts(503);
    observability = await setupObservability({ config: testConfig({ METRICS: 'true' }), http, logger });
    await call(http);
    expect(lines.map(({ msg, route, status, errorCode }) => ({ msg, route, status, errorCode }))).toEqual([
      { msg: 'upstream call failed', route: 'exceptions.list', status: 503, errorCode: 'UPSTREAM_ERROR' },
    ]);
  });

  it('has no metrics and nothing to scrape with METRICS=false, and still logs', async () => {
    const { http, logger, lines } = parts(503);
    observability = await setupObservability({ config: testConfig({ METRICS: 'false' }), http, logger });
    expect([observability.metrics, observability.scrape]).toEqual([undefined, undefined]);
    expect(observability.plugin.requestDidStart).toBeDefined();
    await call(http);
    expect(lines).toHaveLength(1);
  });

  it('records nothing of the platform calls while the cost harness turns observability off', async () => {
    const { http, logger, lines } = parts(503);
    const switches = new FeatureSwitches();
    switches.set('observability', false);
    observability = await setupObservability({ config: testConfig({ METRICS: 'true' }), http, logger, parts: switches.parts().observability });
    await call(http);
    expect(lines).toEqual([]);
    expect(upstreamSamples((await observability.scrape!()).body)).toEqual([]);
    switches.set('observability', true);
    await call(http);
    expect(lines).toHaveLength(1);
    expect(upstreamSamples((await observability.scrape!()).body)).toEqual(['upstream_requests_total{route="exceptions.list",method="GET",status="503"} 1']);
  });

  it('traces each platform call when an exporter is given, and says so once', async () => {
    const { http, logger, lines } = parts(200);
    const exported: ReadableSpan[] = [];
    const exporter: SpanExporter = { export: (spans, done) => (exported.push(...spans), done({ code: 0 })), shutdown: async () => undefined };
    observability = await setupObservability({ config: testConfig({ METRICS: 'false' }), http, logger, spanExporter: exporter });
    expect(observability.tracing).toBeDefined();
    expect(lines.map(({ msg }) => msg)).toEqual(['tracing on']);
    await call(http);
    // Closing flushes the spans still batched.
    await observability.close();
    observability = undefined;
    expect(exported.map((span) => span.name)).toEqual(['GET exceptions.list']);
  });
});
