import http from 'node:http';
import https from 'node:https';
import got, { HTTPError, RequestError, TimeoutError, type Got, type Request as GotRequest, type PlainResponse } from 'got';
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

/** One platform answer as got delivered it, whatever its status, after got's retries. */
interface Answer {
  status: number;
  body: string;
  headers: PlainResponse['headers'];
  retries: number;
}

function answerOf(response: PlainResponse, body: string, retries: number): Answer {
  return { status: response.statusCode, body, headers: response.headers, retries };
}

/** The body as text; a UTF-8 byte-order mark dropped, as got's text decoding does. */
function textOf(chunks: Buffer[]): string {
  const text = chunks.length === 1 ? (chunks[0] as Buffer).toString('utf8') : Buffer.concat(chunks).toString('utf8');
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
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
    // Idle connections are kept up to the pool's size: with fewer, every burst of calls wider than the
    // idle cap closed the extra connections and opened them again (a TCP connect and close per call).
    const agentOptions = { keepAlive: true, maxSockets: settings.maxSockets, maxFreeSockets: settings.maxSockets, scheduling: 'lifo' as const };
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
      // Calls go through got's stream interface (see call()), which applies the retry rules to errors
      // only: a non-2xx answer has to be one (an HTTPError, carrying the answer's status, headers and
      // body) for 429/502/503/504 to be retried.
      throwHttpErrors: true,
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
      let response: Answer;
      try {
        response = await this.call(request);
      } catch (error) {
        // A stopped call says nothing about the platform's health.
        if (request.signal?.aborted) breaker.released();
        else breaker.failed();
        throw error;
      }
      status = response.status;
      retries = response.retries;
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

  /**
   * One call through got's stream interface, which skips the promise interface's per-call layer
   * (about 40 µs of CPU per call, a fifth of a call's cost, in a loopback micro-benchmark of these
   * settings; docs/benchmark.md). Retries (GETs only), their delays and timeouts are still got's:
   * each retry hands over a new stream, which is read instead. A PUT's JSON body is written by got.
   * The request's signal destroys the stream in flight (or the one waiting to retry).
   */
  private call(request: UpstreamRequest): Promise<Answer> {
    const { signal } = request;
    return new Promise((resolve, reject) => {
      let current: GotRequest;
      const stop = () => {
        current.destroy();
        reject(signal?.reason);
      };
      const settle = <T>(outcome: (value: T) => void, value: T) => {
        signal?.removeEventListener('abort', stop);
        outcome(value);
      };
      const attempt = (stream: GotRequest) => {
        current = stream;
        const chunks: Buffer[] = [];
        let response: PlainResponse | undefined;
        stream.once('response', (received: PlainResponse) => (response = received));
        stream.on('data', (chunk: Buffer) => chunks.push(chunk));
        stream.once('end', () => settle(resolve, answerOf(response as PlainResponse, textOf(chunks), stream.retryCount)));
        stream.once('error', (error: Error) => {
          // After got's retries, a non-2xx answer arrives as an HTTPError holding it: it is still an answer.
          if (error instanceof HTTPError) settle(resolve, answerOf(error.response, String(error.response.body ?? ''), stream.retryCount));
          else settle(reject, error);
        });
        stream.once('retry', (_count: number, _error: Error, next: () => GotRequest) => attempt(next()));
      };
      const headers = { authorization: request.authorization, 'x-request-id': request.requestId, accept: 'application/json' };
      attempt(this.got.stream(this.baseUrl + request.pathAndQuery, { method: request.method, headers, json: request.body }));
      signal?.addEventListener('abort', stop, { once: true });
    });
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
