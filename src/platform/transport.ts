import http from 'node:http';
import https from 'node:https';
import got, { type Got, type PlainResponse } from 'got';
import type { Config } from '../settings/config.ts';
import type { PlatformCall } from './policy.ts';
import type { Answer } from './upstream-call.ts';

function answerOf(response: PlainResponse, body: string): Answer {
  return { status: response.statusCode, body, headers: response.headers, retries: 0 };
}

/** The body as text; a UTF-8 byte-order mark dropped, as got's text decoding does. */
function textOf(chunks: Buffer[]): string {
  const text = chunks.length === 1 ? (chunks[0] as Buffer).toString('utf8') : Buffer.concat(chunks).toString('utf8');
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/**
 * The transport, the only code that talks HTTP to the platform: one got instance with keep-alive
 * agents and a bounded pool and explicit timeouts, sending one attempt per call. It knows nothing
 * of breakers, sharing, retries (policies/retries.ts) or error codes.
 */
export class PlatformTransport {
  readonly baseUrl: string;
  readonly agents: { http: http.Agent; https: https.Agent };
  private readonly got: Got;

  constructor(baseUrl: string, settings: Config['upstream']) {
    this.baseUrl = baseUrl.replace(/\/+$/, '');
    // Idle connections are kept up to the pool's size: a burst wider than a smaller idle cap would
    // close its extra connections and open them again.
    // Node applies HTTP_PROXY / HTTPS_PROXY / NO_PROXY (with NODE_USE_ENV_PROXY=1) to its global
    // agents only: pools of our own are handed the variables, under the same switch.
    const proxy = process.env.NODE_USE_ENV_PROXY === '1' ? { proxyEnv: process.env } : {};
    const agentOptions = { keepAlive: true, maxSockets: settings.maxSockets, maxFreeSockets: settings.maxSockets, scheduling: 'lifo' as const, ...proxy };
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
      // Every attempt is a call of the policies' list (drawn from the budget, seen by the breaker): got makes one.
      retry: { limit: 0 },
      // Any status is an answer; the failure mapping reads it.
      throwHttpErrors: false,
      // A redirect could carry the caller's token to another host.
      followRedirect: false,
      decompress: true,
      responseType: 'text',
    });
  }

  /**
   * One attempt through got's stream interface, which skips the promise interface's per-call layer
   * (docs/benchmark.md). Resolves with whatever the platform answered, rejects with got's error or
   * the signal's reason. A PUT's JSON body is written by got. The signal destroys the stream in flight.
   */
  call(call: PlatformCall): Promise<Answer> {
    const { signal } = call;
    // A request that ended while this attempt waited (on a slot, a backoff, the budget's store) sends
    // nothing: a listener added to a signal that has already fired is never called.
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise((resolve, reject) => {
      const stop = () => {
        stream.destroy();
        reject(signal?.reason);
      };
      const settle = <T>(outcome: (value: T) => void, value: T) => {
        signal?.removeEventListener('abort', stop);
        outcome(value);
      };
      const headers: Record<string, string> = { ...call.headers, authorization: call.authorization, accept: 'application/json' };
      const stream = this.got.stream(this.baseUrl + call.pathAndQuery, { method: call.method, headers, json: call.body });
      const chunks: Buffer[] = [];
      let response: PlainResponse | undefined;
      stream.once('response', (received: PlainResponse) => (response = received));
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.once('end', () => settle(resolve, answerOf(response as PlainResponse, textOf(chunks))));
      stream.once('error', (error: Error) => settle(reject, error));
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
