import { describe, expect, it } from '@jest/globals';
import { TokenVerdicts } from '../../src/platform/token-verdicts.ts';
import { ManualClock } from './manual-clock.ts';

// An unknown token's calls and the patience of its probes, on a clock the test moves: when no probe
// has settled within the patience, exactly one more waiting call goes, and no real time passes.

const PATIENCE = 1_000;

function verdicts(): { tokens: TokenVerdicts; clock: ManualClock } {
  const clock = new ManualClock();
  return { tokens: new TokenVerdicts({ clock, patienceMs: PATIENCE }), clock };
}

/** A call's admission, readable while it is still waiting. */
function admitted(tokens: TokenVerdicts, route: string, signal?: AbortSignal): { outcome: () => string } {
  let outcome = 'waiting';
  tokens.admit('k', signal, route).then(
    (admission) => (outcome = admission),
    (error: Error) => (outcome = `stopped: ${error.message}`),
  );
  return { outcome: () => outcome };
}

/** Lets every promise the last step settled run its callbacks. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

const outcomes = (calls: { outcome: () => string }[]) => calls.map((call) => call.outcome());

describe('the patience of an unknown token\'s probes', () => {
  it('when patience runs out, exactly one more waiting call probes; the others wait on whichever probe settles first', async () => {
    const { tokens, clock } = verdicts();
    expect(await tokens.admit('k', undefined, 'exceptions.list')).toBe('probe');
    const waiting = [1, 2, 3, 4].map(() => admitted(tokens, 'exceptions.list'));
    await settle();
    clock.advance(PATIENCE - 1);
    await settle();
    expect(outcomes(waiting)).toEqual(['waiting', 'waiting', 'waiting', 'waiting']);

    clock.advance(1);
    await settle();
    expect(outcomes(waiting)).toEqual(['probe', 'waiting', 'waiting', 'waiting']);
    expect(tokens.sizes.probes).toBe(2);

    // Patience counts from the newest probe's start: the next one goes a whole patience later.
    clock.advance(PATIENCE - 1);
    await settle();
    expect(outcomes(waiting)).toEqual(['probe', 'waiting', 'waiting', 'waiting']);
    clock.advance(1);
    await settle();
    expect(outcomes(waiting)).toEqual(['probe', 'probe', 'waiting', 'waiting']);

    // The second probe is refused first: the calls still waiting fail without being sent.
    tokens.report('k', 'refused', true, 'exceptions.list');
    await settle();
    expect(outcomes(waiting)).toEqual(['probe', 'probe', 'refused', 'refused']);
    expect(tokens.sizes).toEqual({ accepted: 0, refused: 1, probes: 2 });
    tokens.report('k', 'refused', true, 'exceptions.list');
    tokens.report('k', 'unknown', true, 'exceptions.list');
    expect(tokens.sizes).toEqual({ accepted: 0, refused: 1, probes: 0 });
    expect(clock.pending()).toEqual([]);
  });

  it('sends the further probe to a route no probe is waiting on, and its acceptance releases every waiting call', async () => {
    const { tokens, clock } = verdicts();
    expect(await tokens.admit('k', undefined, 'exceptions.list')).toBe('probe');
    const waiting = [admitted(tokens, 'exceptions.list'), admitted(tokens, 'exceptions.list'), admitted(tokens, 'documents.get'), admitted(tokens, 'linx.get')];
    await settle();
    clock.advance(PATIENCE);
    await settle();
    expect(outcomes(waiting)).toEqual(['waiting', 'waiting', 'probe', 'waiting']);

    tokens.report('k', 'accepted', true, 'documents.get');
    await settle();
    expect(outcomes(waiting)).toEqual(['go', 'go', 'probe', 'go']);
    expect(tokens.verdict('k')).toBe('accepted');
    // The hung probe is still in flight; the token's calls no longer wait on it.
    expect(tokens.sizes.probes).toBe(1);
    expect(await tokens.admit('k', undefined, 'exceptions.list')).toBe('go');
  });

  it('lets the next waiting call probe in place of one that showed nothing, however many are in flight', async () => {
    const { tokens, clock } = verdicts();
    expect(await tokens.admit('k', undefined, 'a')).toBe('probe');
    const waiting = [1, 2, 3].map(() => admitted(tokens, 'a'));
    await settle();
    clock.advance(PATIENCE);
    await settle();
    expect(outcomes(waiting)).toEqual(['probe', 'waiting', 'waiting']);

    // A 5xx or a timeout says nothing of the token: one waiting call takes the probe's place.
    tokens.report('k', 'unknown', true, 'a');
    await settle();
    expect(outcomes(waiting)).toEqual(['probe', 'probe', 'waiting']);
    expect(tokens.sizes.probes).toBe(2);

    tokens.report('k', 'accepted', true, 'a');
    await settle();
    expect(outcomes(waiting)).toEqual(['probe', 'probe', 'go']);
  });

  it('once patience ran out with no call waiting, the next call to come probes at once, and the one after waits', async () => {
    const { tokens, clock } = verdicts();
    expect(await tokens.admit('k', undefined, 'a')).toBe('probe');
    clock.advance(PATIENCE);
    await settle();
    expect(await tokens.admit('k', undefined, 'a')).toBe('probe');
    const later = admitted(tokens, 'a');
    await settle();
    expect(later.outcome()).toBe('waiting');
    tokens.report('k', 'refused', true, 'a');
    await settle();
    expect(later.outcome()).toBe('refused');
  });

  it('a call stopped while it waits leaves the queue: it is never chosen to probe', async () => {
    const { tokens, clock } = verdicts();
    expect(await tokens.admit('k', undefined, 'a')).toBe('probe');
    const stop = new AbortController();
    const waiting = [admitted(tokens, 'b', stop.signal), admitted(tokens, 'c')];
    await settle();
    stop.abort(new Error('the caller closed the connection'));
    await settle();
    clock.advance(PATIENCE);
    await settle();
    expect(outcomes(waiting)).toEqual(['stopped: the caller closed the connection', 'probe']);
    tokens.report('k', 'unknown', true, 'a');
    tokens.report('k', 'unknown', true, 'c');
    expect(tokens.sizes).toEqual({ accepted: 0, refused: 0, probes: 0 });
    expect(clock.pending()).toEqual([]);
  });
});

describe('what the process remembers of tokens', () => {
  const MINUTE = 60_000;
  const remembering = (maxTokens?: number) => {
    const clock = new ManualClock();
    return { tokens: new TokenVerdicts({ clock, maxTokens }), clock };
  };

  it('forgets an accepted token ten minutes after it was accepted, and drops it from memory when read then', () => {
    const { tokens, clock } = remembering();
    tokens.report('a', 'accepted', false);
    clock.advance(10 * MINUTE - 1);
    expect(tokens.verdict('a')).toBe('accepted');
    clock.advance(1);
    expect(tokens.sizes.accepted).toBe(1);
    expect(tokens.verdict('a')).toBe('unknown');
    expect(tokens.sizes.accepted).toBe(0);
  });

  it('forgets a refused token a minute after it was refused', () => {
    const { tokens, clock } = remembering();
    tokens.report('r', 'refused', false);
    clock.advance(MINUTE - 1);
    expect(tokens.verdict('r')).toBe('refused');
    clock.advance(1);
    expect(tokens.verdict('r')).toBe('unknown');
    expect(tokens.sizes).toEqual({ accepted: 0, refused: 0, probes: 0 });
  });

  it('renews an accepted token only once half its ten minutes have passed', () => {
    const { tokens, clock } = remembering();
    tokens.report('a', 'accepted', false);
    // More than half left: not renewed, so it still ends ten minutes after the first acceptance.
    clock.advance(4 * MINUTE);
    tokens.report('a', 'accepted', false);
    clock.advance(6 * MINUTE);
    expect(tokens.verdict('a')).toBe('unknown');

    tokens.report('b', 'accepted', false);
    // Exactly half left: renewed for ten minutes from now.
    clock.advance(5 * MINUTE);
    tokens.report('b', 'accepted', false);
    clock.advance(10 * MINUTE - 1);
    expect(tokens.verdict('b')).toBe('accepted');
    clock.advance(1);
    expect(tokens.verdict('b')).toBe('unknown');
  });

  it('holds at most maxTokens of each kind, forgetting the oldest first; renewing a token forgets no other', () => {
    const { tokens, clock } = remembering(2);
    tokens.report('a', 'accepted', false);
    tokens.report('b', 'accepted', false);
    clock.advance(6 * MINUTE);
    // b is renewed (less than half its lifetime left): it moves to the newest place, and a stays.
    tokens.report('b', 'accepted', false);
    expect([tokens.verdict('a'), tokens.verdict('b')]).toEqual(['accepted', 'accepted']);
    // A third token: the oldest, a, is forgotten.
    tokens.report('c', 'accepted', false);
    expect([tokens.verdict('a'), tokens.verdict('b'), tokens.verdict('c')]).toEqual(['unknown', 'accepted', 'accepted']);
    expect(tokens.sizes.accepted).toBe(2);

    tokens.report('x', 'refused', false);
    tokens.report('y', 'refused', false);
    tokens.report('z', 'refused', false);
    expect([tokens.verdict('x'), tokens.verdict('y'), tokens.verdict('z')]).toEqual(['unknown', 'refused', 'refused']);
  });

  it('a 401 for an accepted token makes it unknown, not refused; a second 401 refuses it; an acceptance clears a refusal', () => {
    const { tokens } = remembering();
    tokens.report('a', 'accepted', false);
    tokens.report('a', 'refused', false);
    expect(tokens.verdict('a')).toBe('unknown');
    tokens.report('a', 'refused', false);
    expect(tokens.verdict('a')).toBe('refused');
    tokens.report('a', 'accepted', false);
    expect(tokens.verdict('a')).toBe('accepted');
    expect(tokens.sizes).toEqual({ accepted: 1, refused: 0, probes: 0 });
  });
});
