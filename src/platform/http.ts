import http from 'node:http';
import https from 'node:https';
import { BrokenCircuitError, CircuitState, ConsecutiveBreaker, circuitBreaker, handleWhen } from 'cockatiel';
import got, { RequestError, TimeoutError, type Got, type Response } from 'got';
import type { Config } from '../config.ts';
import { errorFromResponse, transportError } from './errors.ts';

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
}

export interface UpstreamResponse {
  status: number;
  body: string;
}

/**
 * The single place that talks HTTP to the platform: one got instance with
 * keep-alive agents and a bounded pool, explicit timeouts, retries for reads
 * only, a circuit breaker, and the mapping of every failure to a public code.
 * Created once per process; per-request state lives in PlatformClient.
 */
export class PlatformHttp {
  readonly baseUrl: string;
  readonly agents: { http: http.Agent; https: https.Agent };
  private readonly got: Got;
  private readonly breaker;
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
    this.breaker = circuitBreaker(
      handleWhen((error) => error instanceof RequestError).orWhenResult((response) => (response as Response).statusCode >= 500),
      { halfOpenAfter: settings.breakerCooldownMs, breaker: new ConsecutiveBreaker(settings.breakerThreshold) },
    );
  }

  /** 'closed', 'open' or 'half-open', for readiness and metrics. */
  get breakerState(): 'closed' | 'open' | 'half-open' | 'isolated' {
    switch (this.breaker.state) {
      case CircuitState.Closed:
        return 'closed';
      case CircuitState.Open:
        return 'open';
      case CircuitState.HalfOpen:
        return 'half-open';
      default:
        return 'isolated';
    }
  }

  onBreakerStateChange(listener: (state: string) => void): void {
    this.breaker.onStateChange(() => listener(this.breakerState));
  }

  observe(observer: UpstreamObserver): void {
    this.observers.push(observer);
  }

  /** Sends one request; resolves with a 2xx answer or rejects with a PlatformError. */
  async send(request: UpstreamRequest): Promise<UpstreamResponse> {
    const started = performance.now();
    let retries = 0;
    let status = 0;
    try {
      const response = await this.breaker.execute(() =>
        this.got(this.baseUrl + request.pathAndQuery, {
          method: request.method,
          headers: { authorization: request.authorization, 'x-request-id': request.requestId, accept: 'application/json' },
          json: request.body,
        }),
      );
      status = response.statusCode;
      retries = response.retryCount;
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
      const mapped = this.mapFailure(error, request.requestId, status);
      this.emit(request, status, started, retries, String(mapped.extensions.code));
      throw mapped;
    }
  }

  private mapFailure(error: unknown, requestId: string, status: number) {
    if (error instanceof BrokenCircuitError) return transportError('breaker', requestId, 'circuit open');
    if (error instanceof TimeoutError) return transportError('timeout', requestId, `${error.event} timeout`);
    if (error instanceof RequestError) return transportError('network', requestId, error.code ?? 'connection failed');
    if (error && typeof error === 'object' && 'extensions' in error) return error as ReturnType<typeof transportError>;
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
