import { describe, expect, it } from '@jest/globals';
import { ErrorCode } from '../../../src/errors.ts';
import { PlatformError } from '../../../src/platform/platform-error.ts';
import { tokenGate } from '../../../src/platform/policies/token-gate.ts';
import type { Next, PlatformCall } from '../../../src/platform/policy.ts';
import { RequestCalls } from '../../../src/platform/request-calls.ts';
import type { SharedReads } from '../../../src/platform/shared-reads.ts';
import type { TokenVerdict, TokenVerdicts } from '../../../src/platform/token-verdicts.ts';
import type { Answer } from '../../../src/platform/upstream-call.ts';
import { CallerGone, RequestDeadlineExceeded } from '../../../src/request/deadline.ts';

const OK: Answer = { status: 200, body: '', headers: {}, retries: 0 };
const ROUTE = 'documents.get';

/** Token verdicts that admit as told and record what they hear; the token is `known` before any call (unknown by default). */
function verdicts(admission: () => Promise<'go' | 'probe' | 'refused'>, known: TokenVerdict = 'unknown') {
  const log: string[] = [];
  const tokens = {
    verdict: () => known,
    admit: (key: string, _signal: AbortSignal | undefined, route: string) => (log.push(`admit ${key} ${route}`), admission()),
    report: (key: string, outcome: TokenVerdict, probe: boolean, route: string) => void log.push(`report ${key} ${outcome}${probe ? ' probe' : ''} ${route}`),
  };
  return { tokens: tokens as unknown as TokenVerdicts, log };
}

function gate(joins = false) {
  return tokenGate({ joinsCall: () => joins } as unknown as SharedReads);
}

function call(tokens: TokenVerdicts | undefined, onTokenRefused?: () => void): PlatformCall {
  const caller = new RequestCalls({ maxCalls: 10, tokens, token: 'secret', tokenKey: 'k1', onTokenRefused });
  return { route: ROUTE, method: 'GET', pathAndQuery: '/v1/documents/d1', authorization: 'Bearer secret', headers: {}, callers: () => 1, caller };
}

const failing = (error: unknown): Next => () => Promise.reject(error);
const upstream = (status: number) => new PlatformError(ErrorCode.BAD_USER_INPUT, `HTTP ${status}`, { upstream: { status } });

describe('tokenGate', () => {
  it('sends a call of an accepted token without waiting for an admission, and reports it accepted', async () => {
    const { tokens, log } = verdicts(() => Promise.reject(new Error('an accepted token is not admitted')), 'accepted');
    await expect(gate().send(call(tokens), async () => OK)).resolves.toBe(OK);
    expect(log).toEqual([`report k1 accepted ${ROUTE}`]);
  });

  it('learns a refusal of an accepted token from a 401, and tells the request', async () => {
    const { tokens, log } = verdicts(() => Promise.reject(new Error('an accepted token is not admitted')), 'accepted');
    let told = 0;
    const refusal = upstream(401);
    await expect(gate().send(call(tokens, () => told++), failing(refusal))).rejects.toBe(refusal);
    expect(log).toEqual([`report k1 refused ${ROUTE}`]);
    expect(told).toBe(1);
  });

  it('sends a call of a token it was admitted for and reports the token accepted', async () => {
    const { tokens, log } = verdicts(async () => 'go');
    await expect(gate().send(call(tokens), async () => OK)).resolves.toBe(OK);
    expect(log).toEqual([`admit k1 ${ROUTE}`, `report k1 accepted ${ROUTE}`]);
    expect(gate().name).toBe('token gate');
  });

  it('reports the probe as a probe', async () => {
    const { tokens, log } = verdicts(async () => 'probe');
    await gate().send(call(tokens), async () => OK);
    expect(log).toEqual([`admit k1 ${ROUTE}`, `report k1 accepted probe ${ROUTE}`]);
  });

  it('does not send a call of a token the platform refused, and reports nothing', async () => {
    const { tokens, log } = verdicts(async () => 'refused');
    let sent = false;
    await expect(gate().send(call(tokens), async () => ((sent = true), OK))).rejects.toMatchObject({
      message: 'The platform rejected the access token (not sent: the platform refused this token moments ago)',
      extensions: { code: 'UNAUTHENTICATED' },
    });
    expect(sent).toBe(false);
    expect(log).toEqual([`admit k1 ${ROUTE}`]);
  });

  it('learns a refusal from a 401, and tells the request', async () => {
    const { tokens, log } = verdicts(async () => 'probe');
    let told = 0;
    const refusal = upstream(401);
    await expect(gate().send(call(tokens, () => told++), failing(refusal))).rejects.toBe(refusal);
    expect(log).toEqual([`admit k1 ${ROUTE}`, `report k1 refused probe ${ROUTE}`]);
    expect(told).toBe(1);
  });

  it.each([
    ['a 403', 'accepted', upstream(403)],
    ['a 404', 'accepted', upstream(404)],
    ['a 502', 'unknown', upstream(502)],
    ['a failure without an answer', 'unknown', new PlatformError(ErrorCode.UPSTREAM_TIMEOUT, 'timeout')],
    ['an error that is not the platform’s', 'unknown', new Error('bug')],
  ])('reads %s as the token %s', async (_label, verdict, error) => {
    const { tokens, log } = verdicts(async () => 'go');
    await expect(gate().send(call(tokens), failing(error))).rejects.toBe(error);
    expect(log).toEqual([`admit k1 ${ROUTE}`, `report k1 ${verdict} ${ROUTE}`]);
  });

  it('answers a call stopped while waiting for the probe as a call stopped in flight', async () => {
    const deadline = verdicts(() => Promise.reject(new RequestDeadlineExceeded(250)));
    await expect(gate().send(call(deadline.tokens), async () => OK)).rejects.toMatchObject({
      message: 'The platform did not answer in time (request deadline of 250 ms)',
      extensions: { code: 'UPSTREAM_TIMEOUT' },
    });
    const gone = verdicts(() => Promise.reject(new CallerGone()));
    await expect(gate().send(call(gone.tokens), async () => OK)).rejects.toMatchObject({
      message: 'The platform call was stopped (the caller closed the connection)',
      extensions: { code: 'CANCELLED' },
    });
    expect([...deadline.log, ...gone.log]).toEqual([`admit k1 ${ROUTE}`, `admit k1 ${ROUTE}`]);
  });

  it('lets a call through ungated when it joins a shared read, or without token verdicts or a caller', async () => {
    const { tokens, log } = verdicts(async () => 'refused');
    await expect(gate(true).send(call(tokens), async () => OK)).resolves.toBe(OK);
    await expect(gate().send(call(undefined), async () => OK)).resolves.toBe(OK);
    await expect(gate().send({ ...call(tokens), caller: undefined }, async () => OK)).resolves.toBe(OK);
    expect(log).toEqual([]);
  });
});
