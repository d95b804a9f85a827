import http from 'node:http';
import https from 'node:https';
import got, { RequestError, TimeoutError, type Got } from 'got';
import type { Config } from '../config.ts';
import { RouteBreakers, type BreakerState } from './breaker.ts';
import { RequestDeadlineExceeded } from './cancellation.ts';
import { PlatformError, errorFromResponse, transportError } from './errors.ts';

/** What every upstream call reports, for logs, metrics and traces. */
export interface UpstreamCallEvent {
  route: string;
  method: 'GET' | 'PUT';
  /** HTTP status, or 0 when no answer arrived. */
  status: number;
  durationMs: number;
  retries: number;
  requestId: string;
  /** Public error code when the call failed. */
  errorCode?: string;
}

export type UpstreamObserver = (event: UpstreamCallEvent) => void;

export interface UpstreamRequest {
  route: string;
  method: 'GET' | 'PUT';
  /** Path plus query, already encoded, starting with `/`. */
  pathAndQuery: string;
  authorization: string;
  requestId: string;
  body?: unknown;
  /** The GraphQL request's deadline and cancellation (see cancellation.ts); stops the call, its retries and their waits. */
  signal?: AbortSignal;
}

export interface UpstreamResponse {
  status: number;
  body: string;
}

/**
 * The single place that talks HTTP to the platform: one got instance with
 * keep-alive agents and a bounded pool, explicit timeouts, retries for reads
 * only, a circuit breaker per platform route, and the mapping of every failure
 * to a public code. Created once per process; per-request state lives in
 * PlatformClient.
 */
export class PlatformHttp {
  readonly baseUrl: string;
  readonly agents: { http: http.Agent; https: https.Agent };
  private readonly got: Got;
  private readonly breakers: RouteBreakers;
  private readonly observers: UpstreamObserver[] = [];

  constructor(baseUrl: string, settings: Config['upstream']) {
    this.baseUrl = baseUrl.replace(/\/+$/, '');
    const agentOptions = { keepAlive: true, maxSockets: settings.maxSockets, maxFreeSockets: Math.min(settings.maxSockets, 32), scheduling: 'lifo' as const };
    this.agents = { http: new http.Agent(agentOptions), https: new https.Agent(agentOptions) };
    this.got = got.extend({
      agent: this.agents,
      // got has no timeouts by default; a platform that hangs must not hang the gateway.
      timeout: {
        lookup: settings.connectTimeoutMs,
        connect: settings.connectTimeoutMs,
        secureConnect: settings.connectTimeoutMs,
        send: settings.responseTimeoutMs,
        response: settings.responseTimeoutMs,
        request: settings.requestTimeoutMs,
      },
      retry: {
        limit: settings.retryLimit,
        // got retries PUT by default; a mutation must reach the platform exactly once.
        methods: ['GET'],
        statusCodes: [429, 502, 503, 504],
        errorCodes: ['ETIMEDOUT', 'ECONNRESET', 'EADDRINUSE', 'ECONNREFUSED', 'EPIPE', 'ENOTFOUND', 'ENETUNREACH', 'EAI_AGAIN'],
        maxRetryAfter: settings.retryAfterCapMs,
        calculateDelay: ({ attemptCount, computedValue, retryAfter }) => {
          // computedValue is 0 when got's rules (method, status, limit, Retry-After over the cap) forbid a retry.
          if (computedValue === 0) return 0;
          if (retryAfter !== undefined) return computedValue;
          const ceiling = settings.retryBaseMs * 2 ** (attemptCount - 1);
          return Math.round(ceiling / 2 + (Math.random() * ceiling) / 2);
        },
      },
      throwHttpErrors: false,
      // A redirect could carry the caller's token to another host.
      followRedirect: false,
      decompress: true,
      responseType: 'text',
    });
    this.breakers = new RouteBreakers({ threshold: settings.breakerThreshold, cooldownMs: settings.breakerCooldownMs });
  }

  /** The most severe state of any route's breaker ('open' when at least one is open), for metrics. */
  get breakerState(): BreakerState {
    return this.breakers.worst();
  }

  /** Routes whose breaker is not closed (open or half-open), for readiness. */
  breakerStates(): Record<string, Exclude<BreakerState, 'closed'>> {
    return this.breakers.notClosed();
  }

  /** Called on every transition of any route's breaker. */
  onBreakerStateChange(listener: (state: BreakerState, route: string) => void): void {
    this.breakers.onStateChange(listener);
  }

  observe(observer: UpstreamObserver): void {
    this.observers.push(observer);
  }

  /** Sends one request; resolves with a 2xx answer or rejects with a PlatformError. */
  async send(request: UpstreamRequest): Promise<UpstreamResponse> {
    const started = performance.now();
    let retries = 0;
    let status = 0;
    const breaker = this.breakers.for(request.route);
    try {
      // A call queued behind others (a loader's concurrency limit) may start after its request was stopped.
      if (request.signal?.aborted) throw request.signal.reason;
      if (!breaker.admit()) throw transportError('breaker', request.requestId, 'circuit open');
      let response;
      try {
        response = await this.got(this.baseUrl + request.pathAndQuery, {
          method: request.method,
          headers: { authorization: request.authorization, 'x-request-id': request.requestId, accept: 'application/json' },
          json: request.body,
          signal: request.signal,
        });
      } catch (error) {
        // A stopped call says nothing about the platform's health.
        if (request.signal?.aborted) breaker.released();
        else breaker.failed();
        throw error;
      }
      status = response.statusCode;
      retries = response.retryCount;
      if (status >= 500) breaker.failed();
      else breaker.succeeded();
      if (status < 200 || status >= 300) {
        throw errorFromResponse(
          { status, body: response.body, contentType: response.headers['content-type'], retryAfter: response.headers['retry-after'] },
          request.requestId,
          request.authorization,
        );
      }
      this.emit(request, status, started, retries);
      return { status, body: response.body };
    } catch (error) {
      if (error instanceof RequestError) retries = error.request?.retryCount ?? retries;
      const mapped = this.mapFailure(error, request, status);
      this.emit(request, status, started, retries, String(mapped.extensions.code));
      throw mapped;
    }
  }

  private mapFailure(error: unknown, request: UpstreamRequest, status: number): PlatformError {
    const { requestId } = request;
    if (error instanceof PlatformError) return error;
    if (request.signal?.aborted) {
      const reason: unknown = request.signal.reason;
      return reason instanceof RequestDeadlineExceeded ? transportError('timeout', requestId, reason.message) : transportError('cancelled', requestId, 'the caller closed the connection');
    }
    if (error instanceof TimeoutError) return transportError('timeout', requestId, `${error.event} timeout`);
    if (error instanceof RequestError) return transportError('network', requestId, error.code ?? 'connection failed');
    return transportError('network', requestId, 'unexpected failure', status || undefined);
  }

  private emit(request: UpstreamRequest, status: number, started: number, retries: number, errorCode?: string) {
    if (this.observers.length === 0) return;
    const event: UpstreamCallEvent = {
      route: request.route,
      method: request.method,
      status,
      durationMs: performance.now() - started,
      retries,
      requestId: request.requestId,
      errorCode,
    };
    for (const observer of this.observers) observer(event);
  }

  /** Open sockets to the platform (active + idle), for leak checks and metrics. */
  socketCounts(): { active: number; idle: number } {
    const count = (sockets: NodeJS.ReadOnlyDict<unknown[]>) => Object.values(sockets).reduce((n, list) => n + (list?.length ?? 0), 0);
    return {
      active: count(this.agents.http.sockets) + count(this.agents.https.sockets),
      idle: count(this.agents.http.freeSockets) + count(this.agents.https.freeSockets),
    };
  }

  close(): void {
    this.agents.http.destroy();
    this.agents.https.destroy();
  }
}
