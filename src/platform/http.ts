import { hash, randomBytes } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import got, { HTTPError, RequestError, TimeoutError, type Got, type Request as GotRequest, type PlainResponse } from 'got';
import { routeLimits, type Config } from '../config.ts';
import { RouteBreakers, breakerKey, type BreakerState, type RouteBreaker } from './breaker.ts';
import { Bulkhead, RouteBusy } from './bulkhead.ts';
import { RequestDeadlineExceeded } from './cancellation.ts';
import { currentRequestId } from '../request/scope.ts';
import { errorFromResponse, transportError } from './error-mapping.ts';
import { PlatformError } from './platform-error.ts';

/** What every upstream call reports, for logs, metrics and traces. */
export interface UpstreamCallEvent {
  route: string;
  method: 'GET' | 'PUT';
  /** HTTP status, or 0 when no answer arrived. */
  status: number;
  durationMs: number;
  retries: number;
  /** The request that made the call (request-scope.ts); none for a call made outside a request. */
  requestId: string | undefined;
  /** Public error code when the call failed. */
  errorCode?: string;
  /** True when the answer came from an identical call another request already had in flight (no call of its own). */
  shared?: boolean;
}

export type UpstreamObserver = (event: UpstreamCallEvent) => void;

/** A platform call's span, started before the call is sent so the platform can continue its trace. */
export interface UpstreamSpan {
  /** W3C `traceparent` naming this span, sent with the call. */
  readonly traceparent: string | undefined;
  end(event: UpstreamCallEvent): void;
}

export interface UpstreamTracer {
  startUpstream(requestId: string | undefined, route: string, method: 'GET' | 'PUT'): UpstreamSpan;
}

export interface UpstreamRequest {
  route: string;
  method: 'GET' | 'PUT';
  /** Path plus query, already encoded, starting with `/`. */
  pathAndQuery: string;
  authorization: string;
  body?: unknown;
  /** The GraphQL request's deadline and cancellation (see cancellation.ts); stops the call, its retries and their waits. */
  signal?: AbortSignal;
  /** credentialKey(authorization), when the caller keeps it (PlatformClient computes it once per request). */
  credential?: string;
}

export interface UpstreamResponse {
  status: number;
  body: string;
}

/** What the platform protection settings are; see Config['platformProtection']. */
export interface ProtectionSettings {
  route: { maxInFlight: number; queue: number };
  shareReads: boolean;
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

const ONE = (): number => 1;

/** Why a call was not sent: its route's breaker is open. Mapped per caller (each with its own request id). */
class CircuitOpen extends Error {
  override name = 'CircuitOpen';
}

/** A route's breaker and its bound on calls in flight; one per breaker key. */
interface RouteGuard {
  breaker: RouteBreaker;
  bulkhead: Bulkhead;
}

/** A GET in flight that identical GETs of other requests join instead of calling again. */
interface SharedRead {
  readonly key: string;
  readonly answer: Promise<Answer>;
  /** Stops the call once every caller waiting on it has gone. */
  readonly controller: AbortController;
  /** Callers still waiting for the answer. */
  callers: number;
}

/**
 * The single place that talks HTTP to the platform: one got instance with
 * keep-alive agents and a bounded pool, explicit timeouts, retries for reads
 * only, per platform route a circuit breaker and a bound on calls in flight
 * (so a hung route can neither hold every socket nor keep its breaker closed),
 * identical reads of concurrent requests shared while in flight, and the
 * mapping of every failure to a public code. Created once per process;
 * per-request state lives in PlatformClient.
 */
export class PlatformHttp {
  readonly baseUrl: string;
  readonly agents: { http: http.Agent; https: https.Agent };
  private readonly got: Got;
  private readonly settings: Config['upstream'];
  private readonly protection: ProtectionSettings;
  private readonly breakers: RouteBreakers;
  /** Route name → its guard, so a call's lookup is one Map read. */
  private readonly guards = new Map<string, RouteGuard>();
  /** Breaker key → its bulkhead. Route names are fixed in code, so both maps are bounded. */
  private readonly bulkheads = new Map<string, Bulkhead>();
  /** Identical GETs in flight, by credentialKey + path and query; an entry leaves when its call settles or is stopped. */
  private readonly reads = new Map<string, SharedRead>();
  /** Salts the credential part of `reads`' keys, so they never hold a token nor a plain hash of one. */
  private readonly credentialSecret = randomBytes(32).toString('base64url');
  private readonly observers: UpstreamObserver[] = [];
  /** Each attempt's stream → what its call does when that attempt times out (see judged()). */
  private readonly timedOut = new WeakMap<GotRequest, () => boolean>();
  private tracer: UpstreamTracer | undefined;

  constructor(baseUrl: string, settings: Config['upstream'], protection?: ProtectionSettings) {
    this.baseUrl = baseUrl.replace(/\/+$/, '');
    this.settings = settings;
    this.protection = protection ?? { route: routeLimits(settings.maxSockets), shareReads: true };
    // Idle connections are kept up to the pool's size: a burst wider than a smaller idle cap would
    // close its extra connections and open them again.
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
        calculateDelay: ({ attemptCount, computedValue, retryAfter, error }) => {
          // computedValue is 0 when got's rules (method, status, limit, Retry-After over the cap) forbid a retry.
          if (computedValue === 0) return 0;
          // A timed-out attempt tells its route's breaker now, before any backoff, and is not retried once it opened.
          if (error instanceof TimeoutError && this.timedOut.get(error.request as GotRequest)?.() === false) return 0;
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

  /** Starts a span for every call and sends its `traceparent` upstream (only when tracing is on). */
  traceWith(tracer: UpstreamTracer): void {
    this.tracer = tracer;
  }

  /** Calls in flight and waiting for a slot, per breaker key (routes not used yet are absent), for metrics. */
  routeLoad(): { route: string; inFlight: number; queued: number }[] {
    return [...this.bulkheads].map(([route, bulkhead]) => ({ route, inFlight: bulkhead.inFlight, queued: bulkhead.queued }));
  }

  /** Shared reads in flight and the callers waiting on them, for tests and diagnostics. */
  sharedReads(): { calls: number; callers: number } {
    let callers = 0;
    for (const read of this.reads.values()) callers += read.callers;
    return { calls: this.reads.size, callers };
  }

  /** Whether a GET with these credentials and path would join a call in flight (and so cost the platform nothing). */
  joinsRead(credential: string, pathAndQuery: string): boolean {
    return this.protection.shareReads && this.reads.has(`${credential} ${pathAndQuery}`);
  }

  /** Whether identical GETs of concurrent requests share a call (UPSTREAM_SHARE_READS). */
  get sharesReads(): boolean {
    return this.protection.shareReads;
  }

  /** What identifies a caller's credentials in the shared-read keys: a keyed hash, never the token. */
  credentialKey(authorization: string): string {
    // A one-shot SHA-256 of a per-process random secret and the header rather than an HMAC: as
    // unguessable for this use (an in-memory map key, compared for equality only), for less work.
    return hash('sha256', `${this.credentialSecret}\n${authorization}`, 'base64url');
  }

  /**
   * Sends one request for the request being handled (request-scope.ts), whose id its event, span and
   * `x-request-id` carry; resolves with a 2xx answer or rejects with a PlatformError. Failures are
   * mapped here, in the caller's own scope, so each caller of a shared read gets its own id.
   */
  async send(request: UpstreamRequest): Promise<UpstreamResponse> {
    const started = performance.now();
    const requestId = currentRequestId();
    const span = this.tracer?.startUpstream(requestId, request.route, request.method);
    let retries = 0;
    let status = 0;
    let shared = false;
    try {
      // A call queued behind others (a loader's concurrency limit) may start after its request was stopped.
      if (request.signal?.aborted) throw request.signal.reason;
      let answer: Answer;
      if (request.method === 'GET' && this.protection.shareReads) {
        const key = `${request.credential ?? this.credentialKey(request.authorization)} ${request.pathAndQuery}`;
        const read = this.reads.get(key);
        shared = read !== undefined;
        answer = await this.wait(read ?? this.startRead(key, request, span?.traceparent), request.signal);
      } else {
        answer = await this.exchange(request, request.signal, span?.traceparent);
      }
      status = answer.status;
      retries = answer.retries;
      if (status < 200 || status >= 300) {
        throw errorFromResponse(
          { status, body: answer.body, contentType: answer.headers['content-type'], retryAfter: answer.headers['retry-after'] },
          request.authorization,
        );
      }
      this.emit(request, requestId, started, status, retries, shared, span);
      return { status, body: answer.body };
    } catch (error) {
      if (error instanceof RequestError) retries = error.request?.retryCount ?? retries;
      const mapped = this.mapFailure(error, request, status);
      this.emit(request, requestId, started, status, retries, shared, span, String(mapped.extensions.code));
      throw mapped;
    }
  }

  /**
   * A GET that identical GETs of other requests may join until it settles. Its own signal stops it
   * once every caller waiting on it has gone (see wait()), with the reason of the last one to go.
   */
  private startRead(key: string, request: UpstreamRequest, traceparent: string | undefined): SharedRead {
    const controller = new AbortController();
    const read: SharedRead = {
      key,
      controller,
      callers: 0,
      answer: this.exchange(request, controller.signal, traceparent, () => Math.max(1, read.callers)).finally(() => {
        if (this.reads.get(key) === read) this.reads.delete(key);
      }),
    };
    // Every caller may have gone before it settles: its failure then has no one left to tell.
    read.answer.catch(() => {});
    this.reads.set(key, read);
    return read;
  }

  /** The shared answer for one caller: it stops waiting at its own deadline or hang-up, without stopping the call for the others. */
  private wait(read: SharedRead, signal: AbortSignal | undefined): Promise<Answer> {
    read.callers++;
    if (signal === undefined) return read.answer;
    return new Promise<Answer>((resolve, reject) => {
      const leave = () => {
        reject(signal.reason);
        if (--read.callers > 0) return;
        // Nobody waits any more: a later identical GET starts afresh rather than joining a stopped call.
        if (this.reads.get(read.key) === read) this.reads.delete(read.key);
        read.controller.abort(signal.reason);
      };
      signal.addEventListener('abort', leave, { once: true });
      read.answer.then(
        (answer) => {
          signal.removeEventListener('abort', leave);
          resolve(answer);
        },
        (error: unknown) => {
          signal.removeEventListener('abort', leave);
          reject(error);
        },
      );
    });
  }

  private guard(route: string): RouteGuard {
    let guard = this.guards.get(route);
    if (guard === undefined) {
      const key = breakerKey(route);
      let bulkhead = this.bulkheads.get(key);
      if (bulkhead === undefined) {
        bulkhead = new Bulkhead(this.protection.route.maxInFlight, this.protection.route.queue);
        this.bulkheads.set(key, bulkhead);
      }
      guard = { breaker: this.breakers.for(route), bulkhead };
      this.guards.set(route, guard);
    }
    return guard;
  }

  /**
   * One platform call through its route's breaker and bulkhead. Resolves with whatever the platform
   * answered; rejects with CircuitOpen, RouteBusy, the signal's reason or got's error, which the
   * caller maps (each caller of a shared call with its own request id).
   */
  private async exchange(request: UpstreamRequest, signal: AbortSignal | undefined, traceparent: string | undefined, callers: () => number = ONE): Promise<Answer> {
    const { breaker, bulkhead } = this.guard(request.route);
    // An open breaker refuses before the queue: waiting for a slot only to be refused would waste the wait.
    if (breaker.refusing()) throw new CircuitOpen();
    const queued = bulkhead.acquire(signal);
    if (queued !== undefined) await queued;
    try {
      if (signal?.aborted) throw signal.reason;
      if (!breaker.admit()) throw new CircuitOpen();
      return await this.judged(request, signal, traceparent, breaker, callers);
    } finally {
      bulkhead.release();
    }
  }

  /**
   * The call, with the breaker told what it shows of the platform's health. Evidence of failure: a 5xx
   * answer, a network error, an attempt that timed out (told at once, before any retry, and once per
   * call), and a call the request deadline stopped after it had waited a response timeout's worth.
   * A caller hanging up, or a deadline shorter than that, says nothing about the platform. A shared
   * call's failure counts once for each caller still waiting on it, so sharing never slows the
   * breaker down: those requests would each have made, and failed, the same call.
   */
  private async judged(request: UpstreamRequest, signal: AbortSignal | undefined, traceparent: string | undefined, breaker: RouteBreaker, callers: () => number): Promise<Answer> {
    const sent = performance.now();
    let told = false;
    const attemptTimedOut = (): boolean => {
      if (!told) {
        told = true;
        breaker.failed(callers());
      }
      // No retry once the breaker has opened (or this call was its probe): it would only wait again.
      return breaker.state === 'closed';
    };
    let answer: Answer;
    try {
      answer = await this.call(request, signal, traceparent, attemptTimedOut);
    } catch (error) {
      if (told) throw error;
      if (!signal?.aborted) breaker.failed(callers());
      else if (signal.reason instanceof RequestDeadlineExceeded && performance.now() - sent >= this.settings.responseTimeoutMs) breaker.failed();
      else breaker.released();
      throw error;
    }
    if (answer.status >= 500) {
      if (!told) breaker.failed(callers());
    } else {
      breaker.succeeded();
    }
    return answer;
  }

  /**
   * One call through got's stream interface, which skips the promise interface's per-call layer
   * (docs/benchmark.md). Retries (GETs only), their delays and timeouts are still got's: each retry
   * hands over a new stream, which is read instead; a timed-out attempt is retried only when
   * `attemptTimedOut` allows (got's calculateDelay asks it). A PUT's JSON body is written by got.
   * The signal destroys the stream in flight (or the one waiting to retry).
   */
  private call(request: UpstreamRequest, signal: AbortSignal | undefined, traceparent: string | undefined, attemptTimedOut: () => boolean): Promise<Answer> {
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
        this.timedOut.set(stream, attemptTimedOut);
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
      const headers: Record<string, string> = { authorization: request.authorization, accept: 'application/json' };
      // The request making the call: a shared read runs in the scope of the request that started it.
      const requestId = currentRequestId();
      if (requestId !== undefined) headers['x-request-id'] = requestId;
      if (traceparent !== undefined) headers.traceparent = traceparent;
      attempt(this.got.stream(this.baseUrl + request.pathAndQuery, { method: request.method, headers, json: request.body }));
      signal?.addEventListener('abort', stop, { once: true });
    });
  }

  private mapFailure(error: unknown, request: UpstreamRequest, status: number): PlatformError {
    if (error instanceof PlatformError) return error;
    if (request.signal?.aborted) {
      const reason: unknown = request.signal.reason;
      return reason instanceof RequestDeadlineExceeded ? transportError('timeout', reason.message) : transportError('cancelled', 'the caller closed the connection');
    }
    if (error instanceof CircuitOpen) return transportError('breaker', 'circuit open');
    if (error instanceof RouteBusy) return transportError('busy', error.message);
    if (error instanceof TimeoutError) return transportError('timeout', `${error.event} timeout`);
    if (error instanceof RequestError) return transportError('network', error.code ?? 'connection failed');
    return transportError('network', 'unexpected failure', status || undefined);
  }

  private emit(request: UpstreamRequest, requestId: string | undefined, started: number, status: number, retries: number, shared: boolean, span: UpstreamSpan | undefined, errorCode?: string) {
    if (this.observers.length === 0 && span === undefined) return;
    const event: UpstreamCallEvent = {
      route: request.route,
      method: request.method,
      status,
      durationMs: performance.now() - started,
      retries,
      requestId,
      errorCode,
    };
    if (shared) event.shared = true;
    span?.end(event);
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
