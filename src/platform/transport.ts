import http from 'node:http';
import https from 'node:https';
import got, { HTTPError, TimeoutError, type Got, type Request as GotRequest, type PlainResponse } from 'got';
import type { Config } from '../config.ts';
import type { Clock } from './clock.ts';
import { currentRequestId } from '../request/scope.ts';
import type { Answer, UpstreamRequest } from './upstream-call.ts';

function answerOf(response: PlainResponse, body: string, retries: number): Answer {
  return { status: response.statusCode, body, headers: response.headers, retries };
}

/** The body as text; a UTF-8 byte-order mark dropped, as got's text decoding does. */
function textOf(chunks: Buffer[]): string {
  const text = chunks.length === 1 ? (chunks[0] as Buffer).toString('utf8') : Buffer.concat(chunks).toString('utf8');
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/** What an attempt's retry needs to know of its call: whether a timeout may be retried, and what stops the back-off. */
interface CallOfAttempt {
  attemptTimedOut: () => boolean;
  signal: AbortSignal | undefined;
}

/**
 * The transport stage, the only code that talks HTTP to the platform: one got instance with
 * keep-alive agents and a bounded pool, explicit timeouts, and retries for reads only, whose
 * back-off waits on the injected clock. It knows nothing of breakers, sharing or error codes.
 */
export class PlatformTransport {
  readonly baseUrl: string;
  readonly agents: { http: http.Agent; https: https.Agent };
  private readonly got: Got;
  private readonly clock: Clock;
  /** Each attempt's stream → its call (see calculateDelay). */
  private readonly calls = new WeakMap<GotRequest, CallOfAttempt>();

  constructor(baseUrl: string, settings: Config['upstream'], clock: Clock) {
    this.baseUrl = baseUrl.replace(/\/+$/, '');
    this.clock = clock;
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
        calculateDelay: async ({ attemptCount, computedValue, retryAfter, error }) => {
          // computedValue is 0 when got's rules (method, status, limit, Retry-After over the cap) forbid a retry.
          if (computedValue === 0) return 0;
          const call = this.calls.get(error.request as GotRequest);
          // A timed-out attempt tells its route's breaker now, before any backoff, and is not retried once it opened.
          if (error instanceof TimeoutError && call?.attemptTimedOut() === false) return 0;
          let delay = computedValue;
          if (retryAfter === undefined) {
            const ceiling = settings.retryBaseMs * 2 ** (attemptCount - 1);
            delay = Math.round(ceiling / 2 + (Math.random() * ceiling) / 2);
          }
          // The back-off is waited here, on the clock, and got told to wait 1 ms more: got's own
          // timer cannot be driven by a test. A stopped call's wait ends at once; got then finds
          // its stream destroyed and does not retry.
          await this.clock.sleep(delay, call?.signal);
          return 1;
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
  }

  /**
   * One call through got's stream interface, which skips the promise interface's per-call layer
   * (docs/benchmark.md). Resolves with whatever the platform answered, rejects with got's error or
   * the signal's reason. Retries (GETs only), their delays and timeouts are got's: each retry hands
   * over a new stream, which is read instead; a timed-out attempt is retried only when
   * `attemptTimedOut` allows. A PUT's JSON body is written by got. The signal destroys the stream
   * in flight and ends a back-off wait.
   */
  call(request: UpstreamRequest, signal: AbortSignal | undefined, traceparent: string | undefined, attemptTimedOut: () => boolean): Promise<Answer> {
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
      const ofCall: CallOfAttempt = { attemptTimedOut, signal };
      const attempt = (stream: GotRequest) => {
        current = stream;
        this.calls.set(stream, ofCall);
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
