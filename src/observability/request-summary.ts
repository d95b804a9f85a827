// Its own module: the request plugin produces it and metrics and tracing consume
// it, so defining it in any of them would make those modules import each other.

/** What is known about one GraphQL request once its response is ready: one log line, one metric sample, one span. */
export interface RequestSummary {
  /** The request scope's id (src/request/scope.ts). */
  requestId: string | undefined;
  /** The operation's name as the document declares it (or as the client sent it when the document did not resolve), cut to MAX_ECHOED_CHARS. */
  operationName: string | null;
  /** Metric label: the operation's name, `anonymous` for an unnamed operation, `unresolved` when no operation was found. */
  operationLabel: string;
  operationType: 'query' | 'mutation' | 'subscription' | null;
  durationMs: number;
  outcome: 'ok' | 'error';
  /** Distinct `extensions.code` values of the response's errors, in order of first appearance. */
  errorCodes: string[];
  /** Calls this request made to the platform. */
  upstreamCalls: number;
  httpStatus: number;
}
