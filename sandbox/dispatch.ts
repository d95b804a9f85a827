import type { IncomingMessage, ServerResponse } from 'node:http';
import { faultReply } from './admin/faults.ts';
import type { FaultRegistry, RouteName } from './admin/faults.ts';
import { plainError, send } from './http.ts';
import type { Reply, TimerSet } from './http.ts';
import type { RequestLog } from './admin/request-log.ts';

/** An answer as it leaves the sandbox, for an observer (the contract test checks each against the OpenAPI document). */
export interface SandboxAnswer {
  readonly host: 'api' | 'content';
  readonly route: RouteName | 'unknown';
  readonly method: string;
  /** The path as requested, still percent-encoded. */
  readonly path: string;
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string | Buffer;
  /** Why the answer departs from the platform contract on purpose; absent when the contract describes it. */
  readonly offContract?: string;
}

/** What both listeners share: the clock, the fault switchboard, the request log and the timers. */
export interface DispatchEnv {
  now(): number;
  readonly faults: FaultRegistry;
  readonly log: RequestLog;
  readonly timers: TimerSet;
  /** Added to every request before it is answered. */
  readonly latencyMs: number;
  /** Sees every answer just before it is sent. */
  readonly onAnswer?: (answer: SandboxAnswer) => void;
}

export type Handler = () => Reply | Promise<Reply>;

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}

/**
 * Records the request, then answers it through whatever fault applies to its
 * route: a delay, a hang, a reset connection, a substitute answer, or the
 * normal answer (possibly trickled).
 */
export function dispatch(env: DispatchEnv, host: 'api' | 'content', route: RouteName | 'unknown', req: IncomingMessage, res: ServerResponse, path: string, query: string, handler: Handler): void {
  const authorization = header(req, 'authorization');
  const requestId = header(req, 'x-request-id');
  env.log.record({
    host, method: req.method ?? '', route, path, query, at: Date.now(),
    ...(authorization === undefined ? {} : { authorization }),
    ...(requestId === undefined ? {} : { requestId }),
  });
  const fault = env.faults.take(route);
  const extraHeaders: Record<string, string> = {};
  if (requestId !== undefined) extraHeaders['x-request-id'] = requestId;
  if (fault?.retryAfter !== undefined) extraHeaders['retry-after'] = String(fault.retryAfter);

  const observe = (reply: Reply): Reply => {
    env.onAnswer?.({ host, route, method: req.method ?? '', path, status: reply.status, headers: reply.headers, body: reply.body, offContract: reply.offContract });
    return reply;
  };
  const answer = (): void => {
    if (res.destroyed) return;
    if (fault?.hang) return;
    if (fault?.reset) {
      req.socket.resetAndDestroy();
      return;
    }
    const substitute = fault && faultReply(fault, env.now());
    if (substitute) {
      send(res, observe({ ...substitute, offContract: 'a fault replaced the answer' }), extraHeaders, env.timers);
      return;
    }
    Promise.resolve()
      .then(handler)
      .catch((error: unknown) => {
        // A handler bug: surface it loudly rather than as a silent platform 500.
        console.error('sandbox: handler failed', error);
        return plainError(500, 'Unexpected sandbox error', env.now());
      })
      .then((reply) => send(res, observe(reply), extraHeaders, env.timers, fault?.trickleMs ?? 0), () => undefined);
  };

  const delay = env.latencyMs + (fault?.latencyMs ?? 0);
  if (delay > 0) env.timers.after(delay, answer);
  else answer();
}
