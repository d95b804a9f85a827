import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { HeaderMap } from '@apollo/server';
import * as api from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { describe, expect, it } from '@jest/globals';
import { testConfig } from '../../src/settings/config.ts';
import { createTracing, startTracing } from '../../src/observability/tracing.ts';
import type { RequestSummary } from '../../src/observability/request-summary.ts';
import { startStack } from '../support/stack.ts';

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const CALLER_SPAN_ID = '00f067aa0ba902b7';
const TRACEPARENT = `00-${TRACE_ID}-${CALLER_SPAN_ID}-01`;

/** The parent span id across SDK versions (1.x: parentSpanId, 2.x: parentSpanContext). */
const parentOf = (span: object): string | undefined => {
  const s = span as { parentSpanId?: string; parentSpanContext?: { spanId: string } };
  return s.parentSpanContext?.spanId ?? s.parentSpanId;
};

const summary = (overrides: Partial<RequestSummary>): RequestSummary => ({
  requestId: 'r-1',
  operationName: 'Inbox',
  operationLabel: 'Inbox',
  operationType: 'query',
  durationMs: 12,
  outcome: 'ok',
  errorCodes: [],
  upstreamCalls: 1,
  httpStatus: 200,
  ...overrides,
});

describe('spans', () => {
  function recorder() {
    const exporter = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
    const tracing = createTracing(api, provider.getTracer('test'), new W3CTraceContextPropagator(), () => provider.shutdown());
    return { exporter, tracing };
  }

  it('continues the caller’s trace and parents each platform call to its request, back-dated to the call’s start', () => {
    const { exporter, tracing } = recorder();
    const headers = new HeaderMap([['traceparent', TRACEPARENT]]);
    const request = tracing.startRequest('r-1', headers);
    request.setOperation('Inbox', 'query');
    tracing.recordUpstream({ route: 'exceptions.list', method: 'GET', status: 200, durationMs: 40, retries: 1, requestId: 'r-1' });
    request.end(summary({}));

    const spans = exporter.getFinishedSpans();
    expect(spans.map((s) => s.name)).toEqual(['GET exceptions.list', 'query Inbox']);
    const [upstream, graphql] = spans;
    expect(graphql!.spanContext().traceId).toBe(TRACE_ID);
    expect(parentOf(graphql!)).toBe(CALLER_SPAN_ID);
    expect(graphql!.kind).toBe(api.SpanKind.SERVER);
    expect(graphql!.attributes).toEqual({
      'gateway.request_id': 'r-1',
      'graphql.operation.type': 'query',
      'graphql.operation.name': 'Inbox',
      'gateway.upstream_calls': 1,
      'http.response.status_code': 200,
    });
    expect(graphql!.status.code).toBe(api.SpanStatusCode.UNSET);

    expect(upstream!.spanContext().traceId).toBe(TRACE_ID);
    expect(parentOf(upstream!)).toBe(graphql!.spanContext().spanId);
    expect(upstream!.kind).toBe(api.SpanKind.CLIENT);
    expect(upstream!.attributes).toEqual({
      'http.request.method': 'GET',
      'gateway.route': 'exceptions.list',
      'gateway.request_id': 'r-1',
      'gateway.retries': 1,
      'http.response.status_code': 200,
    });
    const [seconds, nanos] = upstream!.duration;
    expect(seconds * 1000 + nanos / 1e6).toBeCloseTo(40, 0);
  });

  it('marks failed requests and calls as errors with their codes', () => {
    const { exporter, tracing } = recorder();
    const request = tracing.startRequest('r-2', new HeaderMap());
    request.setOperation(null, 'query');
    tracing.recordUpstream({ route: 'documents.get', method: 'GET', status: 0, durationMs: 5, retries: 0, requestId: 'r-2', errorCode: 'UPSTREAM_TIMEOUT' });
    request.end(summary({ requestId: 'r-2', operationName: null, outcome: 'error', errorCodes: ['UPSTREAM_TIMEOUT'], httpStatus: 200 }));

    const [upstream, graphql] = exporter.getFinishedSpans();
    expect(graphql!.name).toBe('query');
    expect(parentOf(graphql!)).toBeUndefined();
    expect(graphql!.status).toEqual({ code: api.SpanStatusCode.ERROR, message: 'UPSTREAM_TIMEOUT' });
    expect(graphql!.attributes['gateway.error_codes']).toEqual(['UPSTREAM_TIMEOUT']);
    expect(upstream!.status).toEqual({ code: api.SpanStatusCode.ERROR, message: 'UPSTREAM_TIMEOUT' });
    expect(upstream!.attributes['error.type']).toBe('UPSTREAM_TIMEOUT');
    expect(upstream!.attributes['http.response.status_code']).toBeUndefined();
  });

  it('keeps concurrent requests that reuse a request id from ending each other’s parent', () => {
    const { exporter, tracing } = recorder();
    const first = tracing.startRequest('same', undefined);
    const second = tracing.startRequest('same', undefined);
    first.end(summary({ requestId: 'same' }));
    tracing.recordUpstream({ route: 'linx.batches', method: 'GET', status: 200, durationMs: 1, retries: 0, requestId: 'same' });
    second.end(summary({ requestId: 'same' }));
    const [, upstream, secondSpan] = exporter.getFinishedSpans();
    expect(parentOf(upstream!)).toBe(secondSpan!.spanContext().spanId);
  });
});

describe('configuration', () => {
  it('is off unless an OTLP endpoint or the console exporter is configured', async () => {
    expect(testConfig().tracing).toEqual({ exporter: 'none', endpoint: undefined, serviceName: 'platform-gateway' });
    expect(await startTracing(testConfig().tracing)).toBeUndefined();
    expect(testConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' }).tracing).toEqual({
      exporter: 'otlp',
      endpoint: 'http://collector:4318/v1/traces',
      serviceName: 'platform-gateway',
    });
    expect(testConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://traces.example.com/in' }).tracing.endpoint).toBe(
      'https://traces.example.com/in',
    );
    expect(testConfig({ OTEL_TRACES_EXPORTER: 'console', OTEL_SERVICE_NAME: 'bff' }).tracing).toEqual({ exporter: 'console', endpoint: undefined, serviceName: 'bff' });
    expect(testConfig({ OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }).tracing.exporter).toBe('none');
    expect(testConfig({ OTEL_TRACES_EXPORTER: 'otlp' }).tracing.endpoint).toBe('http://localhost:4318/v1/traces');
    expect(() => testConfig({ OTEL_TRACES_EXPORTER: 'zipkin' })).toThrow(/OTEL_TRACES_EXPORTER/);
    expect(() => testConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' })).toThrow(/OTEL_EXPORTER_OTLP_ENDPOINT/);
  });
});

// Runs once the OpenTelemetry SDK 2.x packages are installed (resources 2.x has resourceFromAttributes).
const sdkInstalled = await Promise.all([import('@opentelemetry/exporter-trace-otlp-http' as string), import('@opentelemetry/resources')]).then(
  ([, resources]) => typeof (resources as Record<string, unknown>).resourceFromAttributes === 'function',
  () => false,
);
const withSdk = sdkInstalled ? it : it.skip;

describe('OTLP export', () => {
  withSdk(`sends the request and platform-call spans to OTEL_EXPORTER_OTLP_ENDPOINT${sdkInstalled ? '' : ' (skipped: OpenTelemetry SDK not installed)'}`, async () => {
    const received: { path: string; contentType: string | undefined; body: string }[] = [];
    const collector = createServer((req, res) => {
      let body = '';
      req.setEncoding('utf8');
      req.on('data', (chunk: string) => (body += chunk));
      req.on('end', () => {
        received.push({ path: req.url ?? '', contentType: req.headers['content-type'], body });
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
    try {
      const endpoint = `http://127.0.0.1:${(collector.address() as AddressInfo).port}`;
      const stack = await startStack({ OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_SERVICE_NAME: 'gateway-under-test' });
      const response = await stack.gql('query Inbox { exceptions(first: 1) { nodes { id } } }', {}, { headers: { traceparent: TRACEPARENT } });
      expect(response.body.errors).toBeUndefined();
      // Closing flushes the batch.
      await stack.close();

      expect(received.length).toBeGreaterThan(0);
      for (const post of received) expect([post.path, post.contentType]).toEqual(['/v1/traces', 'application/json']);
      type Payload = {
        resourceSpans: { resource: { attributes: { key: string; value: { stringValue?: string } }[] }; scopeSpans: { spans: { name: string; traceId: string; spanId: string; parentSpanId?: string }[] }[] }[];
      };
      const resourceSpans = received.flatMap((post) => (JSON.parse(post.body) as Payload).resourceSpans);
      for (const r of resourceSpans) expect(r.resource.attributes).toContainEqual({ key: 'service.name', value: { stringValue: 'gateway-under-test' } });
      const spans = resourceSpans.flatMap((r) => r.scopeSpans.flatMap((scope) => scope.spans));
      const graphql = spans.find((s) => s.name === 'query Inbox')!;
      const upstream = spans.find((s) => s.name === 'GET exceptions.list')!;
      expect(spans).toHaveLength(2);
      expect([graphql.traceId, graphql.parentSpanId]).toEqual([TRACE_ID, CALLER_SPAN_ID]);
      expect([upstream.traceId, upstream.parentSpanId]).toEqual([TRACE_ID, graphql.spanId]);
    } finally {
      await new Promise<void>((resolve) => collector.close(() => resolve()));
    }
  });
});
