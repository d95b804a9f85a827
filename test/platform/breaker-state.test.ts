import { beforeEach, describe, expect, it } from '@jest/globals';
import { RouteBreaker, RouteBreakers, breakerKey, type BreakerState } from '../../src/platform/breaker.ts';
import type { Clock } from '../../src/platform/clock.ts';

// The breaker's state machine alone, on a clock the test sets: what each verdict does, to the
// millisecond of the cool-down. The suites over HTTP (breaker.test.ts) show the same through calls.

const COOL_DOWN_MS = 1_000;
const T0 = 1_700_000_000_000;
let now = T0;

/** The breaker reads only now(); nothing in it sleeps. */
const clock: Clock = {
  now: () => now,
  sleep: () => Promise.reject(new Error('the breaker never sleeps')),
};

beforeEach(() => {
  now = T0;
});

function breaker(threshold = 3): { breaker: RouteBreaker; moves: string[] } {
  const moves: string[] = [];
  return { breaker: new RouteBreaker('documents', { threshold, cooldownMs: COOL_DOWN_MS }, (state, route) => moves.push(`${route}:${state}`), clock), moves };
}

describe('RouteBreaker', () => {
  it('opens at the threshold of consecutive failures, not one before', () => {
    const { breaker: b, moves } = breaker(3);
    b.failed();
    b.failed();
    expect([b.state, b.refusing(), b.admit()]).toEqual(['closed', false, true]);
    b.failed();
    expect([b.state, b.refusing(), moves]).toEqual(['open', true, ['documents:open']]);
  });

  it('a success resets the count of consecutive failures', () => {
    const { breaker: b } = breaker(3);
    b.failed();
    b.failed();
    b.succeeded();
    b.failed();
    b.failed();
    expect(b.state).toBe('closed');
    b.failed();
    expect(b.state).toBe('open');
  });

  it('a shared call’s failure counts once per caller', () => {
    const { breaker: b } = breaker(3);
    b.failed(2);
    expect(b.state).toBe('closed');
    b.failed(1);
    expect(b.state).toBe('open');
    const { breaker: c } = breaker(3);
    c.failed(3);
    expect(c.state).toBe('open');
  });

  it('refuses for exactly the cool-down, then admits one probe (half-open) and no second', () => {
    const { breaker: b, moves } = breaker(1);
    b.failed();
    now = T0 + COOL_DOWN_MS - 1;
    expect([b.refusing(), b.admit(), b.state]).toEqual([true, false, 'open']);
    now = T0 + COOL_DOWN_MS;
    expect(b.refusing()).toBe(false);
    // refusing() only looks.
    expect(b.state).toBe('open');
    expect(b.admit()).toBe(true);
    expect(b.state).toBe('half-open');
    expect([b.admit(), b.admit(), b.refusing()]).toEqual([false, false, false]);
    expect(moves).toEqual(['documents:open', 'documents:half-open']);
  });

  it('a successful probe closes it; a closed breaker that succeeds tells nobody', () => {
    const { breaker: b, moves } = breaker(1);
    b.succeeded();
    expect(moves).toEqual([]);
    b.failed();
    now += COOL_DOWN_MS;
    b.admit();
    b.succeeded();
    expect([b.state, moves]).toEqual(['closed', ['documents:open', 'documents:half-open', 'documents:closed']]);
    expect([b.admit(), b.admit()]).toEqual([true, true]);
  });

  it('a failed probe opens it again for a whole new cool-down, however high the threshold', () => {
    const { breaker: b, moves } = breaker(5);
    for (let i = 0; i < 5; i++) b.failed();
    now = T0 + COOL_DOWN_MS;
    b.admit();
    now = T0 + COOL_DOWN_MS + 400;
    b.failed();
    expect([b.state, moves]).toEqual(['open', ['documents:open', 'documents:half-open', 'documents:open']]);
    now = T0 + 2 * COOL_DOWN_MS + 399;
    expect([b.refusing(), b.admit()]).toEqual([true, false]);
    now = T0 + 2 * COOL_DOWN_MS + 400;
    expect(b.admit()).toBe(true);
  });

  it('late failures while open neither restart the cool-down nor move it again', () => {
    const { breaker: b, moves } = breaker(1);
    b.failed();
    now = T0 + COOL_DOWN_MS - 1;
    b.failed(4);
    expect(moves).toEqual(['documents:open']);
    now = T0 + COOL_DOWN_MS;
    expect(b.admit()).toBe(true);
    // Nor do they count towards the next opening: after the probe succeeds it takes the threshold again.
    b.succeeded();
    expect(b.state).toBe('closed');
  });

  it('late failures while open are not remembered as consecutive failures', () => {
    const { breaker: b } = breaker(3);
    for (let i = 0; i < 3; i++) b.failed();
    b.failed();
    b.failed();
    now = T0 + COOL_DOWN_MS;
    b.admit();
    b.succeeded();
    b.failed();
    b.failed();
    expect(b.state).toBe('closed');
  });

  it('a released probe frees the slot: the next call probes', () => {
    const { breaker: b, moves } = breaker(1);
    b.failed();
    now = T0 + COOL_DOWN_MS;
    expect(b.admit()).toBe(true);
    b.released();
    expect([b.state, b.admit(), b.admit()]).toEqual(['half-open', true, false]);
    expect(moves).toEqual(['documents:open', 'documents:half-open']);
  });

  it('a probe that fails after a failure count was reset opens it at once (half-open, not the threshold, decides)', () => {
    const { breaker: b } = breaker(2);
    b.failed();
    b.failed();
    now = T0 + COOL_DOWN_MS;
    b.admit();
    b.failed();
    expect(b.state).toBe('open');
    // The probe slot is free again once the next cool-down ends.
    now = T0 + 2 * COOL_DOWN_MS;
    expect(b.admit()).toBe(true);
  });
});

describe('breakerKey', () => {
  it('is the route name before its first dot', () => {
    expect(breakerKey('documents.get')).toBe('documents');
    expect(breakerKey('documents.content.get')).toBe('documents');
    expect(breakerKey('exceptions')).toBe('exceptions');
    expect(breakerKey('.odd')).toBe('');
  });
});

describe('RouteBreakers', () => {
  function breakers(threshold = 1) {
    const all = new RouteBreakers({ threshold, cooldownMs: COOL_DOWN_MS }, clock);
    const seen: [BreakerState, string][] = [];
    const alsoSeen: string[] = [];
    all.onStateChange((state, route) => seen.push([state, route]));
    all.onStateChange((state) => alsoSeen.push(state));
    return { all, seen, alsoSeen };
  }

  it('routes of one key share a breaker, other keys have their own', () => {
    const { all } = breakers();
    const get = all.for('documents.get');
    expect(all.for('documents.update')).toBe(get);
    expect(all.for('documents.get')).toBe(get);
    expect(all.for('exceptions.list')).not.toBe(get);
  });

  it('tells every listener of each move, by breaker key; lists and ranks the breakers that are not closed', () => {
    const { all, seen, alsoSeen } = breakers(1);
    expect([all.notClosed(), all.worst()]).toEqual([{}, 'closed']);

    all.for('documents.get').failed();
    all.for('exceptions.list');
    expect(seen).toEqual([['open', 'documents']]);
    expect(alsoSeen).toEqual(['open']);
    expect([all.notClosed(), all.worst()]).toEqual([{ documents: 'open' }, 'open']);

    now = T0 + COOL_DOWN_MS;
    all.for('documents.update').admit();
    expect([all.notClosed(), all.worst()]).toEqual([{ documents: 'half-open' }, 'half-open']);

    all.for('exceptions.list').failed();
    expect([all.notClosed(), all.worst()]).toEqual([{ documents: 'half-open', exceptions: 'open' }, 'open']);

    all.for('documents.get').succeeded();
    expect([all.notClosed(), all.worst()]).toEqual([{ exceptions: 'open' }, 'open']);
    expect(seen).toEqual([
      ['open', 'documents'],
      ['half-open', 'documents'],
      ['open', 'exceptions'],
      ['closed', 'documents'],
    ]);
  });

  it('an open breaker outranks a half-open one whichever was made first', () => {
    const { all } = breakers(1);
    all.for('exceptions.list').failed();
    all.for('documents.get').failed();
    now = T0 + COOL_DOWN_MS;
    all.for('documents.get').admit();
    expect(all.worst()).toBe('open');
    all.for('exceptions.list').admit();
    expect(all.worst()).toBe('half-open');
  });
});
