import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from '@jest/globals';
import { testConfig } from '../../src/settings/config.ts';
import { createLogger } from '../../src/logger.ts';
import { startGateway, type Gateway } from '../../src/server.ts';
import { graphqlClient } from '../support/graphql-client.ts';
import { TOKEN, json, startServer, type TestServer } from './support.ts';

// With tracing on, every platform call carries the W3C traceparent of the gateway's span for that
// call, so the platform's own spans join the caller's trace. Without tracing nothing is added.

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const CALLER_SPAN_ID = '00f067aa0ba902b7';
const TRACEPARENT = `00-${TRACE_ID}-${CALLER_SPAN_ID}-01`;

interface ExportedSpan {
  name: string;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
}

let platform: TestServer | undefined;
let gateway: Gateway | undefined;
let collector: Server | undefined;

afterEach(async () => {
  await gateway?.close();
  await platform?.close();
  await new Promise<void>((resolve) => (collector ? collector.close(() => resolve()) : resolve()));
  gateway = undefined;
  platform = undefined;
  collector = undefined;
});

/** An OTLP/HTTP collector on loopback: the spans it was sent. */
async function startCollector(): Promise<{ endpoint: string; spans: () => ExportedSpan[] }> {
  const bodies: string[] = [];
  collector = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      bodies.push(body);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => collector!.listen(0, '127.0.0.1', resolve));
  type Payload = { resourceSpans: { scopeSpans: { spans: ExportedSpan[] }[] }[] };
  return {
    endpoint: `http://127.0.0.1:${(collector.address() as AddressInfo).port}`,
    spans: () => bodies.flatMap((body) => (JSON.parse(body) as Payload).resourceSpans.flatMap((r) => r.scopeSpans.flatMap((scope) => scope.spans))),
  };
}

async function setup(env: Record<string, string>) {
  platform = await startServer((request, response) => {
    const body = request.url?.startsWith('/v1/documents/') ? { id: 'd0c00000-0000-4000-8000-000000000001', name: 'Passport', documentType: 'passport' } : { totalElements: 7, content: [] };
    response.writeHead(200, { 'content-type': 'application/json' }).end(json(body));
  });
  gateway = await startGateway(testConfig(env), platform.url, { logger: createLogger('silent') });
  return { platform, gateway, gql: graphqlClient(`${gateway.url}/graphql`, { authorization: TOKEN }) };
}


const QUERY = 'query Both { document(id: "d0c00000-0000-4000-8000-000000000001") { name } exceptions(first: 1) { totalCount } }';

describe('trace context towards the platform', () => {
  it('with tracing on, each platform call carries the traceparent of its own span, in the caller’s trace', async () => {
    const otlp = await startCollector();
    const wire = await setup({ OTEL_EXPORTER_OTLP_ENDPOINT: otlp.endpoint });

    expect((await wire.gql(QUERY, undefined, { traceparent: TRACEPARENT })).body).toEqual({ data: { document: { name: 'Passport' }, exceptions: { totalCount: 7 } } });
    // Closing flushes the spans to the collector.
    await wire.gateway.close();
    gateway = undefined;

    const sent = Object.fromEntries(wire.platform.requests.map((r) => [r.url.split('?')[0], r.headers.traceparent]));
    const spans = otlp.spans();
    const graphql = spans.find((s) => s.name === 'query Both')!;
    expect([graphql.traceId, graphql.parentSpanId]).toEqual([TRACE_ID, CALLER_SPAN_ID]);
    const callSpans = Object.fromEntries(spans.filter((s) => s.name.startsWith('GET ')).map((s) => [s.name, s]));
    expect(Object.keys(callSpans).sort()).toEqual(['GET documents.get', 'GET exceptions.list']);
    for (const [path, name] of [['/v1/documents/d0c00000-0000-4000-8000-000000000001', 'GET documents.get'], ['/exceptions', 'GET exceptions.list']] as const) {
      const span = callSpans[name]!;
      expect([span.traceId, span.parentSpanId]).toEqual([TRACE_ID, graphql.spanId]);
      expect(sent[path]).toBe(`00-${TRACE_ID}-${span.spanId}-01`);
    }
  });

  it('without tracing, nothing is added to the platform call, whatever the caller sent', async () => {
    const wire = await setup({});

    expect((await wire.gql(QUERY, undefined, { traceparent: TRACEPARENT })).body).toEqual({ data: { document: { name: 'Passport' }, exceptions: { totalCount: 7 } } });

    expect(wire.platform.requests.map((r) => Object.keys(r.headers).filter((name) => name.startsWith('trace')))).toEqual([[], []]);
  });
});
