import type { HeaderMap } from '@apollo/server';
import type * as OtelApi from '@opentelemetry/api';
import type { Span, TextMapGetter, TextMapPropagator, Tracer } from '@opentelemetry/api';
import type { SpanExporter } from '@opentelemetry/sdk-trace-base';
import type { Config } from '../config.ts';
import type { UpstreamCallEvent } from '../platform/http.ts';
import type { RequestSummary } from './request-summary.ts';

/** The span of one GraphQL request, from Apollo taking it to the response being ready. */
export interface RequestSpan {
  setOperation(name: string | null, type: string): void;
  end(summary: RequestSummary): void;
}

export interface Tracing {
  /** Starts the request's span, continuing the caller's trace when it sent a W3C `traceparent`. */
  startRequest(requestId: string, headers: HeaderMap | undefined): RequestSpan;
  /** Records a finished platform call as a child span of its request's span. */
  recordUpstream(event: UpstreamCallEvent): void;
  /** Flushes pending spans and stops exporting. */
  shutdown(): Promise<void>;
}

type Api = typeof OtelApi;

const headerGetter: TextMapGetter<HeaderMap | undefined> = {
  keys: (carrier) => (carrier ? [...carrier.keys()] : []),
  get: (carrier, key) => carrier?.get(key.toLowerCase()),
};

/** Milliseconds since the epoch with sub-millisecond precision, as OpenTelemetry accepts them. */
const nowMs = (): number => performance.timeOrigin + performance.now();

/**
 * Spans from the gateway's own events. Platform calls are reported when they
 * finish (with their duration), so each becomes a span back-dated to its start,
 * parented to the span of the request that made it (found by request id).
 */
export function createTracing(api: Api, tracer: Tracer, propagator: TextMapPropagator, shutdown: () => Promise<void>): Tracing {
  // Request ids may be chosen by callers and so collide: a span is removed only by its own request.
  const open = new Map<string, Span>();
  return {
    startRequest(requestId, headers) {
      const parent = headers ? propagator.extract(api.ROOT_CONTEXT, headers, headerGetter) : api.ROOT_CONTEXT;
      const span = tracer.startSpan('GraphQL Operation', { kind: api.SpanKind.SERVER, attributes: { 'gateway.request_id': requestId } }, parent);
      open.set(requestId, span);
      return {
        setOperation(name, type) {
          span.updateName(name ? `${type} ${name}` : type);
          span.setAttribute('graphql.operation.type', type);
          if (name) span.setAttribute('graphql.operation.name', name);
        },
        end(summary) {
          span.setAttribute('gateway.upstream_calls', summary.upstreamCalls);
          span.setAttribute('http.response.status_code', summary.httpStatus);
          if (summary.outcome === 'error') {
            span.setAttribute('gateway.error_codes', summary.errorCodes);
            span.setStatus({ code: api.SpanStatusCode.ERROR, message: summary.errorCodes.join(',') });
          }
          span.end();
          if (open.get(requestId) === span) open.delete(requestId);
        },
      };
    },
    recordUpstream(event) {
      const end = nowMs();
      const parent = open.get(event.requestId);
      const context = parent ? api.trace.setSpan(api.ROOT_CONTEXT, parent) : api.ROOT_CONTEXT;
      const span = tracer.startSpan(
        `${event.method} ${event.route}`,
        {
          kind: api.SpanKind.CLIENT,
          startTime: end - event.durationMs,
          attributes: { 'http.request.method': event.method, 'gateway.route': event.route, 'gateway.request_id': event.requestId, 'gateway.retries': event.retries },
        },
        context,
      );
      if (event.status > 0) span.setAttribute('http.response.status_code', event.status);
      if (event.errorCode !== undefined) {
        span.setAttribute('error.type', event.errorCode);
        span.setStatus({ code: api.SpanStatusCode.ERROR, message: event.errorCode });
      }
      span.end(end);
    },
    shutdown,
  };
}

/**
 * Starts tracing as configured, or returns undefined without loading any
 * OpenTelemetry code when tracing is off: the SDK is imported here, on demand,
 * so that start-up without tracing does not pay for it (the imports above are
 * type-only and erased). `exporter` replaces the configured exporter (an
 * in-memory one in tests).
 */
export async function startTracing(settings: Config['tracing'], options: { exporter?: SpanExporter } = {}): Promise<Tracing | undefined> {
  if (settings.exporter === 'none' && options.exporter === undefined) return undefined;
  const [api, sdk, resources, core] = await Promise.all([
    import('@opentelemetry/api'),
    import('@opentelemetry/sdk-trace-base'),
    import('@opentelemetry/resources'),
    import('@opentelemetry/core'),
  ]);
  let exporter = options.exporter;
  if (exporter === undefined && settings.exporter === 'console') exporter = new sdk.ConsoleSpanExporter();
  if (exporter === undefined) {
    const otlp = await import('@opentelemetry/exporter-trace-otlp-http');
    exporter = new otlp.OTLPTraceExporter({ url: settings.endpoint });
  }
  // Console output is for development: print each span at once rather than in batches.
  const processor = settings.exporter === 'console' ? new sdk.SimpleSpanProcessor(exporter) : new sdk.BatchSpanProcessor(exporter);
  // The provider stays local to this gateway (not registered globally): tests run several gateways in one process.
  const provider = new sdk.BasicTracerProvider({
    resource: resources.resourceFromAttributes({ 'service.name': settings.serviceName }),
    spanProcessors: [processor],
  });
  return createTracing(api, provider.getTracer('platform-gateway'), new core.W3CTraceContextPropagator(), () => provider.shutdown());
}
