import type { Clock } from './clock.ts';

export type BreakerState = 'closed' | 'open' | 'half-open';

/** Why a call was not sent: its route's breaker is open. Mapped per caller (each with its own request id). */
export class CircuitOpen extends Error {
  override name = 'CircuitOpen';
}

export interface BreakerSettings {
  /** Consecutive failures that open a breaker. */
  threshold: number;
  /** How long an open breaker refuses calls before it lets one probe through. */
  cooldownMs: number;
}

export type BreakerListener = (state: BreakerState, route: string) => void;

/**
 * One platform route's circuit breaker: `threshold` consecutive failures open
 * it; after `cooldownMs` the next call is let through as the only probe
 * (half-open) and decides: success closes it, failure opens it for another
 * cool-down. Calls that end without a verdict on the platform (cancelled by
 * the caller, or by the request deadline before a response timeout's worth of
 * waiting) leave the state as it was; the caller decides what is a verdict.
 * Everything is synchronous: admitting a call is a few field reads.
 */
export class RouteBreaker {
  state: BreakerState = 'closed';
  private failures = 0;
  private openedAt = 0;
  private probing = false;
  private readonly route: string;
  private readonly settings: BreakerSettings;
  private readonly notify: BreakerListener;
  /** Times the cool-down. */
  private readonly clock: Clock;

  constructor(route: string, settings: BreakerSettings, notify: BreakerListener, clock: Clock) {
    this.route = route;
    this.settings = settings;
    this.notify = notify;
    this.clock = clock;
  }

  /** True while open and cooling down: a call would be refused, so it need not wait for a slot first. Changes nothing. */
  refusing(): boolean {
    return this.state === 'open' && this.clock.now() - this.openedAt < this.settings.cooldownMs;
  }

  /** True when a call may go now; a true answer in half-open makes the caller the probe. */
  admit(): boolean {
    if (this.state === 'closed') return true;
    if (this.state === 'open') {
      if (this.clock.now() - this.openedAt < this.settings.cooldownMs) return false;
      this.move('half-open');
    }
    if (this.probing) return false;
    this.probing = true;
    return true;
  }

  succeeded(): void {
    this.failures = 0;
    this.probing = false;
    if (this.state !== 'closed') this.move('closed');
  }

  /** A failed call; `callers` > 1 when requests shared it, each of which would have made (and failed) the call. */
  failed(callers = 1): void {
    this.probing = false;
    // Late verdicts of calls admitted before it opened neither restart the cool-down nor repeat the transition.
    if (this.state === 'open') return;
    this.failures += callers;
    if (this.state === 'half-open' || this.failures >= this.settings.threshold) {
      this.failures = 0;
      this.openedAt = this.clock.now();
      this.move('open');
    }
  }

  /** The call ended without telling anything about the platform: a probe slot it held is free again. */
  released(): void {
    this.probing = false;
  }

  private move(state: BreakerState): void {
    this.state = state;
    this.notify(state, this.route);
  }
}

/** The breaker key of a route name: the part before the first dot (`documents.get` → `documents`). */
export function breakerKey(route: string): string {
  const dot = route.indexOf('.');
  return dot === -1 ? route : route.slice(0, dot);
}

const SEVERITY: Record<BreakerState, number> = { closed: 0, 'half-open': 1, open: 2 };

/**
 * The circuit breakers towards the platform, one per platform route, so a
 * failing endpoint (say `GET /exceptions`) pauses only its own calls.
 * A breaker key is the part of the route name before the first dot
 * (`documents.get` and `documents.update` share `documents`: both use
 * `/v1/documents/{id}`). Route names are fixed in code, so the map is bounded.
 */
export class RouteBreakers {
  private readonly settings: BreakerSettings;
  private readonly byKey = new Map<string, RouteBreaker>();
  /** Route name → its breaker, so a call's lookup is one Map read. */
  private readonly byRoute = new Map<string, RouteBreaker>();
  private readonly listeners: BreakerListener[] = [];
  private readonly clock: Clock;

  constructor(settings: BreakerSettings, clock: Clock) {
    this.settings = settings;
    this.clock = clock;
  }

  /** The breaker guarding `route` (created closed on first use). */
  for(route: string): RouteBreaker {
    return this.byRoute.get(route) ?? this.create(route);
  }

  private create(route: string): RouteBreaker {
    const key = breakerKey(route);
    let breaker = this.byKey.get(key);
    if (breaker === undefined) {
      breaker = new RouteBreaker(key, this.settings, (state, name) => {
        for (const listener of this.listeners) listener(state, name);
      }, this.clock);
      this.byKey.set(key, breaker);
    }
    this.byRoute.set(route, breaker);
    return breaker;
  }

  onStateChange(listener: BreakerListener): void {
    this.listeners.push(listener);
  }

  /** Every breaker that is not closed, by key; empty when all are closed. */
  notClosed(): Record<string, Exclude<BreakerState, 'closed'>> {
    const states: Record<string, Exclude<BreakerState, 'closed'>> = {};
    for (const [key, breaker] of this.byKey) if (breaker.state !== 'closed') states[key] = breaker.state;
    return states;
  }

  /** The most severe state of any route: open, else half-open, else closed. */
  worst(): BreakerState {
    let worst: BreakerState = 'closed';
    for (const breaker of this.byKey.values()) if (SEVERITY[breaker.state] > SEVERITY[worst]) worst = breaker.state;
    return worst;
  }
}
