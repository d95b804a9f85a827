import cluster from 'node:cluster';
import type { ApolloServerPlugin } from '@apollo/server';
import type { SpanExporter } from '@opentelemetry/sdk-trace-base';
import type { Logger } from 'pino';
import type { Config } from '../settings/config.ts';
import type { GatewayContext } from '../context.ts';
import type { PolicyChain, UpstreamCallEvent } from '../platform/policy-chain.ts';
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
  http: PolicyChain;
  logger: Logger;
  /** Replaces the configured span exporter (tests). */
  spanExporter?: SpanExporter;
  /** Wraps what observes (GatewayParts in src/server.ts); none from `npm start`. */
  parts?: ObservabilityParts;
}

type UpstreamObserver = (event: UpstreamCallEvent) => void;

/**
 * Wrappers of what observes, for a caller measuring what each costs (the cost harness,
 * bench/feature-cost.ts): each gets the part as built and returns what is used instead.
 */
export interface ObservabilityParts {
  /** The observer of every platform call, given its two parts: the log line, the metrics sample (absent with METRICS=false). */
  upstream?(log: UpstreamObserver, metrics: UpstreamObserver | undefined): UpstreamObserver;
  /** The request plugin, given its observers and how it is built from them. */
  plugin?(observers: RequestObservers, build: (observers: RequestObservers) => ApolloServerPlugin<GatewayContext>): ApolloServerPlugin<GatewayContext>;
}

/** Logs, metrics and traces of one gateway instance, all fed from the same two sources: the request plugin and the platform seam. */
export async function setupObservability({ config, http, logger, spanExporter, parts }: ObservabilityDependencies): Promise<Observability> {
  const metrics = config.metrics ? createMetrics(http, { maxOperations: config.metricsMaxOperations, labelChars: config.echoChars }) : undefined;
  const tracing = await startTracing(config.tracing, { exporter: spanExporter });
  const logUpstream = upstreamLogObserver(logger);
  http.observe(
    parts?.upstream?.(logUpstream, metrics && ((event) => metrics.recordUpstream(event))) ??
      ((event: UpstreamCallEvent) => {
        logUpstream(event);
        metrics?.recordUpstream(event);
      }),
  );
  // In a cluster worker, /metrics answers for the whole process group, whichever worker serves the scrape.
  const group = metrics && cluster.isWorker ? joinGroupMetrics(metrics.registry) : undefined;
  // Each call's span is started before the call, so its traceparent can go with it.
  if (tracing) http.traceWith(tracing);
  if (tracing) logger.info({ exporter: config.tracing.exporter, endpoint: config.tracing.endpoint }, 'tracing on');
  const observers: RequestObservers = { logger, metrics, tracing, echoChars: config.echoChars };
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
    plugin: withInlineTrace(parts?.plugin?.(observers, requestObserverPlugin) ?? requestObserverPlugin(observers)),
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
