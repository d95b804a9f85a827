import type { HeaderMap } from '@apollo/server';
import type * as OtelApi from '@opentelemetry/api';
import type { Span, TextMapGetter, TextMapPropagator, TextMapSetter, Tracer } from '@opentelemetry/api';
import type { SpanExporter } from '@opentelemetry/sdk-trace-base';
import type { Config } from '../settings/config.ts';
import type { UpstreamCallEvent, UpstreamSpan, UpstreamTracer } from '../platform/policy-chain.ts';
import type { RequestSummary } from './request-summary.ts';

/** The span of one GraphQL request, from Apollo taking it to the response being ready. */
interface RequestSpan {
  setOperation(name: string | null, type: string): void;
  end(summary: RequestSummary): void;
}

export interface Tracing extends UpstreamTracer {
  /** Starts the request's span, continuing the caller's trace when it sent a W3C `traceparent`. */
  startRequest(requestId: string | undefined, headers: HeaderMap | undefined): RequestSpan;
  /**
   * Starts a platform call's span as a child of its request's span (found by request id); its
   * `traceparent` goes to the platform with the call, so the platform's work joins the same trace.
   */
  startUpstream(requestId: string | undefined, route: string, method: 'GET' | 'PUT'): UpstreamSpan;
  /** Records a finished platform call as a child span of its request's span, back-dated to its start. */
  recordUpstream(event: UpstreamCallEvent): void;
  /** Flushes pending spans and stops exporting. */
  shutdown(): Promise<void>;
}

type Api = typeof OtelApi;

const headerGetter: TextMapGetter<HeaderMap | undefined> = {
  keys: (carrier) => (carrier ? [...carrier.keys()] : []),
  get: (carrier, key) => carrier?.get(key.toLowerCase()),
};

/** Collects what the propagator writes; the call carries its `traceparent`. */
const headerSetter: TextMapSetter<Record<string, string>> = {
  set: (carrier, key, value) => {
    carrier[key] = value;
  },
};

/** Milliseconds since the epoch with sub-millisecond precision, as OpenTelemetry accepts them. */
const nowMs = (): number => performance.timeOrigin + performance.now();

/**
 * Spans from the gateway's own events. A platform call's span starts before
 * the call is sent (its traceparent travels with the call) and ends with the
 * call's event, parented to the span of the request that made it (found by
 * request id).
 */
export function createTracing(api: Api, tracer: Tracer, propagator: TextMapPropagator, shutdown: () => Promise<void>): Tracing {
  // Request ids may be chosen by callers and so collide: a span is removed only by its own request.
  const open = new Map<string, Span>();
  const startCall = (requestId: string | undefined, route: string, method: string, startTime?: number): Span => {
    const parent = requestId === undefined ? undefined : open.get(requestId);
    const context = parent ? api.trace.setSpan(api.ROOT_CONTEXT, parent) : api.ROOT_CONTEXT;
    return tracer.startSpan(
      `${method} ${route}`,
      { kind: api.SpanKind.CLIENT, startTime, attributes: { 'http.request.method': method, 'gateway.route': route, 'gateway.request_id': requestId } },
      context,
    );
  };
  const endCall = (span: Span, event: UpstreamCallEvent, endTime?: number): void => {
    span.setAttribute('gateway.retries', event.retries);
    if (event.shared) span.setAttribute('gateway.shared', true);
    if (event.status > 0) span.setAttribute('http.response.status_code', event.status);
    if (event.errorCode !== undefined) {
      span.setAttribute('error.type', event.errorCode);
      span.setStatus({ code: api.SpanStatusCode.ERROR, message: event.errorCode });
    }
    span.end(endTime);
  };
  return {
    startRequest(requestId, headers) {
      const parent = headers ? propagator.extract(api.ROOT_CONTEXT, headers, headerGetter) : api.ROOT_CONTEXT;
      const span = tracer.startSpan('GraphQL Operation', { kind: api.SpanKind.SERVER, attributes: { 'gateway.request_id': requestId } }, parent);
      if (requestId !== undefined) open.set(requestId, span);
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
          if (requestId !== undefined && open.get(requestId) === span) open.delete(requestId);
        },
      };
    },
    startUpstream(requestId, route, method) {
      const span = startCall(requestId, route, method);
      const headers: Record<string, string> = {};
      propagator.inject(api.trace.setSpan(api.ROOT_CONTEXT, span), headers, headerSetter);
      return { traceparent: headers.traceparent, end: (event) => endCall(span, event) };
    },
    recordUpstream(event) {
      const end = nowMs();
      endCall(startCall(event.requestId, event.route, event.method, end - event.durationMs), event, end);
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
