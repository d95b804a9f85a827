import { LIST_ROUTES } from '../api/list-routes.ts';
import { createRandom } from '../data/random.ts';
import type { Random } from '../data/random.ts';
import { plainErrorBody, validationErrorBody, json, reasonPhrase } from '../http.ts';
import type { Reply } from '../http.ts';

/** Every route of both hosts: the list endpoints', the document endpoints' and the content host's. */
export type RouteName = (typeof LIST_ROUTES)[number]['route'] | 'document.get' | 'document.put' | 'content';
export const ROUTE_NAMES: readonly RouteName[] = [...LIST_ROUTES.map((list) => list.route), 'document.get', 'document.put', 'content'];

export interface Fault {
  /** Answer this status (with a body per `body`). */
  status?: number;
  /** Default 'json': the platform's error body shape. */
  body?: 'json' | 'html' | 'text' | 'malformed' | 'empty';
  /** Adds a Retry-After header (seconds). */
  retryAfter?: number;
  /** Accept the request and never answer (until the sandbox closes). */
  hang?: boolean;
  /** Destroy the socket without answering (the client sees ECONNRESET). */
  reset?: boolean;
  /** Delay before answering, normally or with the fault. */
  latencyMs?: number;
  /** Send the normal body slowly, in small chunks spread over this time. */
  trickleMs?: number;
  /** 0..1: only this fraction of matching requests (seeded, deterministic) get the fault. */
  errorRate?: number;
  /** Apply to the next N matching requests only, then clear itself. */
  times?: number;
}

/** What a fault can be set on: one route, or '*' for every request of both hosts. */
export function isFaultTarget(value: unknown): value is RouteName | '*' {
  return value === '*' || (ROUTE_NAMES as readonly unknown[]).includes(value);
}

const BODY_KINDS = ['json', 'html', 'text', 'malformed', 'empty'] as const;

function isNonNegativeNumber(value: unknown): boolean {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0;
}

/** Checks a fault from an untrusted source (the admin route); throws a TypeError naming the bad field. */
export function validateFault(input: unknown): Fault {
  if (input === null || typeof input !== 'object' || Array.isArray(input)) throw new TypeError('fault must be an object');
  const fault = input as Record<string, unknown>;
  const checks: Record<keyof Fault, (value: unknown) => boolean> = {
    status: (v) => Number.isInteger(v) && (v as number) >= 200 && (v as number) <= 599,
    body: (v) => (BODY_KINDS as readonly unknown[]).includes(v),
    retryAfter: (v) => Number.isInteger(v) && (v as number) >= 0,
    hang: (v) => typeof v === 'boolean',
    reset: (v) => typeof v === 'boolean',
    latencyMs: isNonNegativeNumber,
    trickleMs: isNonNegativeNumber,
    errorRate: (v) => isNonNegativeNumber(v) && (v as number) <= 1,
    times: (v) => Number.isInteger(v) && (v as number) >= 1,
  };
  for (const [key, value] of Object.entries(fault)) {
    const check = checks[key as keyof Fault] as ((value: unknown) => boolean) | undefined;
    if (check === undefined) throw new TypeError(`unknown fault field "${key}"`);
    if (value !== undefined && !check(value)) throw new TypeError(`invalid fault field "${key}": ${JSON.stringify(value)}`);
  }
  return { ...fault } as Fault;
}

interface ActiveFault { readonly fault: Fault; remaining: number | undefined; readonly random: Random }

// Each fault samples errorRate from its own stream, restarted on every set(),
// so a given fault hits the same requests of a sequence on every run.
const FAULT_SEED = 'sandbox-faults';

export class FaultRegistry {
  readonly #faults = new Map<RouteName | '*', ActiveFault>();

  set(route: RouteName | '*', fault: Fault): void {
    if (!isFaultTarget(route)) throw new TypeError(`route must be one of *, ${ROUTE_NAMES.join(', ')}`);
    const checked = validateFault(fault);
    this.#faults.set(route, { fault: checked, remaining: checked.times, random: createRandom(FAULT_SEED) });
  }

  clear(route?: RouteName | '*'): void {
    if (route === undefined) this.#faults.clear();
    else this.#faults.delete(route);
  }

  /** The fault to apply to this request, if any; a route's own fault takes precedence over '*'. */
  take(route: RouteName | 'unknown'): Fault | undefined {
    if (this.#faults.size === 0) return undefined;
    const key = route !== 'unknown' && this.#faults.has(route) ? route : '*';
    const active = this.#faults.get(key);
    if (active === undefined) return undefined;
    if (active.fault.errorRate !== undefined && active.random.next() >= active.fault.errorRate) return undefined;
    if (active.remaining !== undefined) {
      active.remaining -= 1;
      if (active.remaining <= 0) this.#faults.delete(key);
    }
    return active.fault;
  }
}

/**
 * The answer a fault substitutes for the normal one, or undefined when the
 * fault only delays or slows the normal answer. A body kind without a status
 * means a 200 carrying that body (a proxy's HTML page, a truncated JSON).
 * Retry-After is added by the dispatcher, to whatever answer goes out.
 */
export function faultReply(fault: Fault, nowMs: number): Reply | undefined {
  const kind = fault.body ?? 'json';
  if (fault.status === undefined && kind === 'json') return undefined;
  const status = fault.status ?? 200;
  const reason = reasonPhrase(status);
  switch (kind) {
    case 'json': {
      const body = status === 400 || status === 422
        ? validationErrorBody(reason, 'VALIDATION_ERROR', [], nowMs)
        : plainErrorBody(status, `Simulated ${status} ${reason}`, nowMs);
      return json(status, body);
    }
    case 'html':
      return { status, headers: { 'content-type': 'text/html; charset=utf-8' }, body: `<!DOCTYPE html><html><head><title>${status} ${reason}</title></head><body><h1>${status} ${reason}</h1><hr><p>nginx</p></body></html>` };
    case 'text':
      return { status, headers: { 'content-type': 'text/plain; charset=utf-8' }, body: `${status} ${reason}` };
    case 'malformed': {
      const full = plainErrorBody(status, `Simulated ${status} ${reason}`, nowMs);
      return json(status, full.slice(0, Math.floor(full.length / 2)));
    }
    case 'empty':
      return json(status, '');
  }
}
