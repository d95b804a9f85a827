import { connect } from 'node:net';
import type { PolicyChain } from '../platform/policy-chain.ts';

type NotReadyReason = 'shutting down' | 'upstream unreachable';

/** Platform routes whose circuit breaker is not closed; absent when every breaker is closed. */
type RouteBreakerStates = Record<string, 'open' | 'half-open'>;

export type ReadinessReport =
  | { status: 'ready'; breaker: string; upstream: 'reachable'; routes?: RouteBreakerStates }
  | { status: 'unavailable'; reason: NotReadyReason; breaker: string; detail?: string; routes?: RouteBreakerStates };

export interface ReadinessOptions {
  upstreamUrl: string;
  http: PolicyChain;
  /** Longest wait for the TCP handshake with the platform. */
  probeTimeoutMs: number;
  /** A probe result is reused this long, so frequent /readyz polls cost one connection per period. */
  cacheMs: number;
}

interface ProbeResult {
  ok: boolean;
  detail?: string;
  at: number;
}

/** Opens (and at once closes) a TCP connection to the platform's host and port. */
function probeTcp(url: URL, timeoutMs: number): Promise<{ ok: boolean; detail?: string }> {
  const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  return new Promise((resolve) => {
    const socket = connect({ host, port, timeout: timeoutMs });
    const finish = (result: { ok: boolean; detail?: string }) => {
      socket.destroy();
      resolve(result);
    };
    socket.once('connect', () => finish({ ok: true }));
    socket.once('timeout', () => finish({ ok: false, detail: `no connection within ${timeoutMs} ms` }));
    socket.once('error', (error: NodeJS.ErrnoException) => finish({ ok: false, detail: error.code ?? error.message }));
  });
}

let processStopping = false;

/**
 * The process has begun to stop (a SIGTERM): every gateway in it answers /readyz with 503 from now
 * on, while it still serves requests during the pre-stop delay (SHUTDOWN_DELAY_MS) that lets a load
 * balancer see it go unready before its listener closes. A stopping process never becomes ready again.
 */
export function markProcessStopping(): void {
  processStopping = true;
}

/**
 * Readiness of this instance to serve GraphQL traffic. Ready means both of:
 * 1. the gateway is not shutting down (it stops being ready the moment SIGTERM arrives, before
 *    the pre-stop delay, and on its own close());
 * 2. a TCP connection to UPSTREAM_URL's host and port succeeded within the probe
 *    timeout, on the most recent probe (probes are cached for `cacheMs`).
 * Circuit breakers are reported, never a reason to be unready: each guards one
 * platform route, and while one is open every other route (and every other
 * instance, which shares the platform) serves as before. `breaker` is the most
 * severe state of any route; `routes` names the routes that are not closed.
 * A TCP probe sends nothing to the platform's API, so it adds no load there and
 * never appears in its request logs. Liveness (/healthz) depends on none of this.
 */
export class Readiness {
  private readonly url: URL;
  private readonly options: ReadinessOptions;
  private stopping = false;
  private last: ProbeResult | undefined;
  private pending: Promise<ProbeResult> | undefined;

  constructor(options: ReadinessOptions) {
    this.options = options;
    this.url = new URL(options.upstreamUrl);
  }

  markStopping(): void {
    this.stopping = true;
  }

  async check(): Promise<ReadinessReport> {
    if (this.stopping || processStopping) return { status: 'unavailable', reason: 'shutting down', ...this.breakers() };
    const probe = await this.probe();
    // Read after the probe, so the report shows the breakers as they are when it is sent.
    const breakers = this.breakers();
    if (!probe.ok) return { status: 'unavailable', reason: 'upstream unreachable', ...breakers, detail: probe.detail };
    return { status: 'ready', ...breakers, upstream: 'reachable' };
  }

  private breakers(): { breaker: string; routes?: RouteBreakerStates } {
    const routes = this.options.http.breakerStates();
    const breaker = this.options.http.breakerState;
    return breaker === 'closed' ? { breaker } : { breaker, routes };
  }

  private probe(): Promise<ProbeResult> {
    const now = Date.now();
    if (this.last && now - this.last.at < this.options.cacheMs) return Promise.resolve(this.last);
    // Concurrent polls share one probe instead of each opening a connection.
    this.pending ??= probeTcp(this.url, this.options.probeTimeoutMs).then((result) => {
      this.last = { ...result, at: Date.now() };
      this.pending = undefined;
      return this.last;
    });
    return this.pending;
  }
}
