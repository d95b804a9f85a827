import cluster from 'node:cluster';
import type { ApolloServerPlugin } from '@apollo/server';
import type { SpanExporter } from '@opentelemetry/sdk-trace-base';
import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import type { GatewayContext } from '../context.ts';
import type { PlatformHttp, UpstreamCallEvent } from '../platform/http.ts';
import { joinGroupMetrics } from './cluster-metrics.ts';
import { withInlineTrace } from './inline-trace.ts';
import { createMetrics, type GatewayMetrics } from './metrics.ts';
import { requestObserverPlugin, type RequestObservers } from './request-plugin.ts';
import { startTracing, type Tracing } from './tracing.ts';
import { upstreamLogObserver } from './upstream-log.ts';

export interface Observability {
  /** The one Apollo plugin of observation: one log line, one metric sample and one span per GraphQL request, and federation's inline trace for a router that asks. */
  plugin: ApolloServerPlugin<GatewayContext>;
  metrics: GatewayMetrics | undefined;
  tracing: Tracing | undefined;
  /** The answer to a scrape of /metrics (the whole process group's metrics in a cluster worker); undefined when metrics are off. */
  scrape: (() => Promise<MetricsAnswer>) | undefined;
  /** Flushes pending spans; call after the HTTP server has drained. */
  close(): Promise<void>;
}

export interface MetricsAnswer {
  status: 200 | 503;
  contentType: string;
  body: string;
}

export interface ObservabilityDependencies {
  config: Config;
  http: PlatformHttp;
  logger: Logger;
  /** Replaces the configured span exporter (tests). */
  spanExporter?: SpanExporter;
  /** Lets the cost harness turn the request log, metrics and all observing off and on (bench/feature-cost.ts). */
  switches?: ObservabilitySwitches;
}

/** What observability reads of the cost harness's switches (src/feature-switches.ts's FeatureSwitches). */
interface ObservabilitySwitches {
  isOn(feature: 'observability' | 'request log' | 'metrics'): boolean;
}

/** Logs, metrics and traces of one gateway instance, all fed from the same two sources: the request plugin and the platform seam. */
export async function setupObservability({ config, http, logger, spanExporter, switches }: ObservabilityDependencies): Promise<Observability> {
  const metrics = config.metrics ? createMetrics(http, { maxOperations: config.metricsMaxOperations, labelChars: config.echoChars }) : undefined;
  const tracing = await startTracing(config.tracing, { exporter: spanExporter });
  const logUpstream = upstreamLogObserver(logger);
  http.observe((event: UpstreamCallEvent) => {
    // `switches` only in the cost harness (bench/feature-cost.ts).
    if (switches && !switches.isOn('observability')) return;
    logUpstream(event);
    if (!switches || switches.isOn('metrics')) metrics?.recordUpstream(event);
  });
  // In a cluster worker, /metrics answers for the whole process group, whichever worker serves the scrape.
  const group = metrics && cluster.isWorker ? joinGroupMetrics(metrics.registry) : undefined;
  // Each call's span is started before the call, so its traceparent can go with it.
  if (tracing) http.traceWith(tracing);
  if (tracing) logger.info({ exporter: config.tracing.exporter, endpoint: config.tracing.endpoint }, 'tracing on');
  const scrape = metrics
    ? async (): Promise<MetricsAnswer> => {
        try {
          return { status: 200, contentType: metrics.registry.contentType, body: group ? await group.groupMetrics() : await metrics.registry.metrics() };
        } catch (error) {
          logger.warn({ err: error instanceof Error ? error.message : String(error) }, 'metrics of the process group unavailable');
          return { status: 503, contentType: 'text/plain; charset=utf-8', body: 'metrics of the process group unavailable\n' };
        }
      }
    : undefined;
  return {
    plugin: withInlineTrace(switches ? switchedPlugin(switches, { logger, metrics, tracing, echoChars: config.echoChars }) : requestObserverPlugin({ logger, metrics, tracing, echoChars: config.echoChars })),
    metrics,
    tracing,
    scrape,
    async close() {
      await tracing?.shutdown();
      group?.leave();
      metrics?.close();
    },
  };
}

/** The request plugin with its log line and metrics each behind a switch, and the whole of it behind "observability". */
function switchedPlugin(switches: ObservabilitySwitches, observers: RequestObservers): ApolloServerPlugin<GatewayContext> {
  const silent = observers.logger.child({}, { level: 'silent' });
  const variants = [
    requestObserverPlugin(observers),
    requestObserverPlugin({ ...observers, logger: silent }),
    requestObserverPlugin({ ...observers, metrics: undefined }),
    requestObserverPlugin({ ...observers, logger: silent, metrics: undefined }),
  ];
  const current = () => variants[(switches.isOn('request log') ? 0 : 1) + (switches.isOn('metrics') ? 0 : 2)]!;
  return {
    invalidRequestWasReceived: async (request) => (switches.isOn('observability') ? current().invalidRequestWasReceived?.(request) : undefined),
    requestDidStart: async (requestContext) => (switches.isOn('observability') ? current().requestDidStart?.(requestContext) : undefined),
  };
}
