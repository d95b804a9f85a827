import type { ApolloServerPlugin, GraphQLResponse } from '@apollo/server';
import type { Logger } from 'pino';
import { clip, clipEchoes } from '../client-text.ts';
import type { GatewayContext } from '../context.ts';
import type { GatewayMetrics } from './metrics.ts';
import { currentRequestId } from '../request/scope.ts';
import type { RequestSummary } from './request-summary.ts';
import type { Tracing } from './tracing.ts';

export interface RequestObservers {
  logger: Logger;
  metrics?: GatewayMetrics;
  tracing?: Tracing;
  /** Longest client-supplied text (an operation name) written to a log line or a span. */
  echoChars: number;
}

function errorCodesOf(response: GraphQLResponse): string[] {
  const errors = response.body.kind === 'single' ? response.body.singleResult.errors : response.body.initialResult.errors;
  if (!errors) return [];
  const codes = new Set<string>();
  for (const error of errors) codes.add(String(error.extensions?.code ?? 'INTERNAL_SERVER_ERROR'));
  return [...codes];
}

/**
 * Observes each GraphQL request as a whole: timing starts when Apollo takes
 * the request and ends when the response is ready. Deliberately no per-field
 * hooks, so the cost is a few calls per request whatever the query's size, and
 * no hook at all where nothing would be written: a hook costs a call and a
 * promise per request even when it returns at once.
 */
export function requestObserverPlugin({ logger, metrics, tracing, echoChars }: RequestObservers): ApolloServerPlugin<GatewayContext> {
  const cut = (name: string | null | undefined): string | null => (name == null ? null : clip(name, echoChars));
  // The level is the process's (LOG_LEVEL), set before the first request and never changed after.
  const logged = logger.isLevelEnabled('info');
  const observe: ApolloServerPlugin<GatewayContext>['requestDidStart'] = async ({ request }) => {
    const started = performance.now();
    const requestId = currentRequestId();
    const span = tracing?.startRequest(requestId, request.http?.headers);
    return {
      // Only a span needs the operation before the response; without tracing the hook would only cost a promise.
      ...(span && {
        async didResolveOperation({ operationName, operation }) {
          if (operation) span.setOperation(cut(operationName), operation.operation);
        },
      }),
      // The context as it is now: each operation of a batch runs on a view of its own (the budget
      // plugin sets it before the operation runs), whose calls are its own.
      async willSendResponse({ response, operation, operationName, contextValue }) {
        const errorCodes = errorCodesOf(response);
        const resolvedName = operation ? (operationName ?? null) : null;
        const summary: RequestSummary = {
          requestId,
          operationName: cut(resolvedName ?? request.operationName),
          operationLabel: operation ? (resolvedName ?? 'anonymous') : 'unresolved',
          operationType: operation?.operation ?? null,
          durationMs: Math.round((performance.now() - started) * 10) / 10,
          outcome: errorCodes.length === 0 ? 'ok' : 'error',
          errorCodes,
          upstreamCalls: contextValue.platform.calls,
          httpStatus: response.http.status ?? 200,
        };
        if (logged) {
          const { operationLabel: _label, ...fields } = summary;
          logger.info(fields, 'graphql request');
        }
        metrics?.recordRequest(summary);
        span?.end(summary);
      },
    };
  };
  return {
    /**
     * A request Apollo refused before it had a context (CSRF, a batch while
     * batching is off, a body without a query): no request line is written for
     * it otherwise. Logged at info: a client's mistake, not the gateway's.
     */
    async invalidRequestWasReceived({ error }) {
      const code = String((error as { extensions?: { code?: unknown } }).extensions?.code ?? 'BAD_REQUEST');
      logger.info({ requestId: currentRequestId(), code, message: clipEchoes(error.message, echoChars) }, 'graphql request refused');
      metrics?.recordRefusal(code);
    },
    ...((logged || metrics !== undefined || tracing !== undefined) && { requestDidStart: observe }),
  };
}
