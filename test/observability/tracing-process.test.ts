import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { bearer, postGraphQL } from '../support/graphql-client.ts';
import { startProductionGateway, type ProductionGateway } from '../support/gateway-process.ts';
import { until } from '../support/time.ts';

// Tracing on the real process (`node dist/main.js`, production mode, its embedded sandbox): the
// OpenTelemetry SDK and the OTLP/HTTP exporter are loaded on demand, and their spans reach a
// collector (here a loopback server that keeps what it is sent).

interface OtlpSpan {
  name: string;
  traceId: string;
  parentSpanId?: string;
}

interface OtlpExport {
  resourceSpans: { resource: { attributes: { key: string; value: { stringValue?: string } }[] }; scopeSpans: { spans: OtlpSpan[] }[] }[];
}

let collector: Server;
const exports: { path: string; body: OtlpExport }[] = [];
let gateway: ProductionGateway;

beforeAll(async () => {
  collector = createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => (body += chunk));
    request.on('end', () => {
      exports.push({ path: request.url ?? '', body: JSON.parse(body) as OtlpExport });
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
  gateway = await startProductionGateway({
    OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${(collector.address() as AddressInfo).port}`,
    OTEL_SERVICE_NAME: 'gateway-under-test',
    // The batch processor's delay (5 s by default), short so the export follows the request.
    OTEL_BSP_SCHEDULE_DELAY: '100',
  });
});

afterAll(async () => {
  await gateway?.process.stop();
  await new Promise((resolve) => collector.close(resolve));
});

describe('tracing in the real process', () => {
  it('exports the request span and its platform call span to the OTLP endpoint, in one trace', async () => {
    const answer = await postGraphQL(`${gateway.origin}/graphql`, { query: 'query Inbox { exceptions(first: 1) { totalCount } }' }, bearer('demo-token-acme'));
    expect(answer.status).toBe(200);
    expect(answer.body.errors).toBeUndefined();

    const spans = await until('the spans at the collector', () => {
      const all = exports.flatMap((sent) => sent.body.resourceSpans.flatMap((resource) => resource.scopeSpans.flatMap((scope) => scope.spans)));
      return all.length >= 2 ? all : undefined;
    }, 10_000);
    expect(exports.map((sent) => sent.path)).toEqual(exports.map(() => '/v1/traces'));
    const service = exports[0]!.body.resourceSpans[0]!.resource.attributes.find((attribute) => attribute.key === 'service.name');
    expect(service?.value.stringValue).toBe('gateway-under-test');
    const names = spans.map((span) => span.name).sort();
    expect(names).toEqual(['GET exceptions.list', 'query Inbox']);
    const [call, request] = [spans.find((span) => span.name === 'GET exceptions.list')!, spans.find((span) => span.name === 'query Inbox')!];
    expect(call.traceId).toBe(request.traceId);
  });
});
