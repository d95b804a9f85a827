import http from 'node:http';
import https from 'node:https';
import got, { type Got, type Response } from 'got';
import type { Config } from '../config.ts';
import type { PlatformCall } from './policy.ts';
import type { Answer } from './upstream-call.ts';

function answerOf(response: Response<string>): Answer {
  return { status: response.statusCode, body: response.body, headers: response.headers, retries: 0 };
}

/**
 * The transport, the only code that talks HTTP to the platform: one got instance with keep-alive
 * agents and a bounded pool and explicit timeouts, sending one attempt per call. It knows nothing
 * of breakers, sharing, retries (policies/retries.ts) or error codes.
 */
export class PlatformTransport {
  readonly baseUrl: string;
  readonly agents: { http: http.Agent; https: https.Agent };
  /** Reads: no body to send, so no send timer (the request timer bounds a stalled write of the headers). */
  private readonly reads: Got;
  /** Writes (a PUT's JSON body): the reads' settings plus a send timer. */
  private readonly writes: Got;

  constructor(baseUrl: string, settings: Config['upstream']) {
    this.baseUrl = baseUrl.replace(/\/+$/, '');
    // Idle connections are kept up to the pool's size: a burst wider than a smaller idle cap would
    // close its extra connections and open them again.
    const agentOptions = { keepAlive: true, maxSockets: settings.maxSockets, maxFreeSockets: settings.maxSockets, scheduling: 'lifo' as const };
    this.agents = { http: new http.Agent(agentOptions), https: new https.Agent(agentOptions) };
    this.reads = got.extend({
      agent: this.agents,
      // got has no timeouts by default; a platform that hangs must not hang the gateway. Each timer
      // costs a call a timer and listeners, so each is set only where it bounds something.
      timeout: {
        lookup: settings.connectTimeoutMs,
        connect: settings.connectTimeoutMs,
        secureConnect: settings.connectTimeoutMs,
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
    this.writes = this.reads.extend({ timeout: { send: settings.responseTimeoutMs } });
  }

  /**
   * One attempt through got's promise interface, as the design-card floor calls it
   * (docs/benchmark.md): got reads the body as text and writes a PUT's JSON body. Resolves with
   * whatever the platform answered, rejects with got's error. The signal (the request's deadline or
   * cancellation) makes got destroy the request in flight, and rejects the attempt with its reason
   * at once: the policies above release what the attempt holds in the same turn, not after got's.
   */
  call(call: PlatformCall): Promise<Answer> {
    const { signal } = call;
    const headers: Record<string, string> = { ...call.headers, authorization: call.authorization, accept: 'application/json' };
    const request = (call.method === 'GET' ? this.reads : this.writes)(this.baseUrl + call.pathAndQuery, { method: call.method, headers, json: call.body, signal });
    if (signal === undefined) return request.then(answerOf);
    return new Promise((resolve, reject) => {
      const stop = () => reject(signal.reason);
      signal.addEventListener('abort', stop, { once: true });
      request.then(
        (response) => {
          signal.removeEventListener('abort', stop);
          resolve(answerOf(response));
        },
        (error: unknown) => {
          signal.removeEventListener('abort', stop);
          reject(signal.aborted ? signal.reason : error);
        },
      );
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
