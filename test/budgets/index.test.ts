import { afterEach, describe, expect, it } from '@jest/globals';
import { EventEmitter } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { testConfig } from '../../src/settings/config.ts';
import { setupBudgets, type Budgets } from '../../src/budgets/index.ts';
import { createContext } from '../../src/context.ts';
import type { PolicyChain } from '../../src/platform/policy-chain.ts';
import { tokenKey } from '../../src/request/caller-token.ts';
import { admissionOf, runWithRequestId } from '../../src/request/scope.ts';

// The admission stage and the set-up; the budget plugin is tested in plugin.test.ts.

let budgets: Budgets | undefined;
afterEach(async () => {
  await budgets?.close();
  budgets = undefined;
});

/** Budgets over memory with a refused-token limit of `burst` per address (refilled once a minute), and what they log and count. */
async function setup(overrides: Record<string, string> = {}) {
  const warnings: unknown[] = [];
  const limited: string[] = [];
  const logger = { warn: (...args: unknown[]) => void warnings.push(args.at(-1)), debug: () => undefined } as unknown as Logger;
  budgets = await setupBudgets(testConfig({ AUTH_FAILURE_LIMIT_PER_MINUTE: '1', AUTH_FAILURE_LIMIT_BURST: '2', ...overrides }), logger, {
    recordRateLimited: (caller) => void limited.push(caller),
    recordRateLimitStoreFailure: () => undefined,
  });
  return { budgets, warnings, limited };
}

interface Admitted {
  req: IncomingMessage;
  res: ServerResponse & EventEmitter;
  /** Whether the stage passed the request on; else the refusal it wrote. */
  outcome: { passed: true } | { status: number; headers: Record<string, unknown>; body: unknown };
}

/** Runs the admission stage on a request from `address` with an Authorization header, until it passes it on or answers. */
function admitted(stage: Budgets['admission'], authorization?: string, address = '203.0.113.7'): Promise<Admitted> {
  const req = { headers: authorization === undefined ? {} : { authorization }, socket: { remoteAddress: address } } as unknown as IncomingMessage;
  const headers: Record<string, unknown> = {};
  const res = Object.assign(new EventEmitter(), { statusCode: 0, setHeader: (name: string, value: unknown) => void (headers[name] = value) }) as unknown as Admitted['res'];
  return new Promise((resolve) => {
    (res as unknown as { end: (text: string) => void }).end = (text) => resolve({ req, res, outcome: { status: res.statusCode, headers, body: JSON.parse(text) } });
    runWithRequestId('req-adm', () => stage(req, res, () => resolve({ req, res, outcome: { passed: true } })));
  });
}

describe('the admission stage', () => {
  it('keys a request without a bearer token by its address, and passes it on', async () => {
    const { budgets } = await setup();
    for (const authorization of [undefined, 'Basic dXNlcjpwYXNz', 'Bearer two words']) {
      const { req, outcome } = await admitted(budgets.admission, authorization);
      expect(outcome).toEqual({ passed: true });
      expect(admissionOf(req)).toEqual({ callerKey: 'address:203.0.113.7', caller: 'address', tokenKey: undefined, refusedByPlatform: false });
    }
  });

  it("makes the request's budget once, with a budget set: its platform client and each operation's hold one from the start", async () => {
    const { budgets } = await setup({ RATE_LIMIT_PER_SECOND: '5', RATE_LIMIT_BURST: '10' });
    const { req, res } = await admitted(budgets.admission, 'Bearer tok-1');
    const budget = admissionOf(req)!.budget!;
    (res as unknown as { req: IncomingMessage }).req = req;
    const context = createContext({ config: testConfig(), http: {} as PolicyChain, logger: {} as Logger }, req.headers, res);
    expect(context.platform.requestCalls.ledger).toBe(budget);
    const operation = context.forOperation().platform.requestCalls.ledger;
    expect([operation === undefined, operation === budget, operation?.constructor]).toEqual([false, false, budget.constructor]);
    // Reserved, drawn from and refunded on that one object: 10 in the bucket, 3 reserved, 1 drawn, 2 given back.
    const held = budget as unknown as { reserve(units: number): Promise<{ available: number }>; close(): Promise<{ available: number }> | undefined };
    expect((await held.reserve(3)).available).toBe(7);
    expect(budget.draw()).toBeUndefined();
    expect((await held.close())?.available).toBe(9);
    // Without a budget the admission makes none.
    const { budgets: free } = await setup();
    expect(admissionOf((await admitted(free.admission, 'Bearer tok-1')).req)!.budget).toBeUndefined();
  });

  it('keys a bearer token by its key, however the header spells it, and rewrites the header in the one spelling', async () => {
    const { budgets } = await setup();
    const { req, outcome } = await admitted(budgets.admission, 'bEaReR   tok-1 ');
    expect(outcome).toEqual({ passed: true });
    expect(req.headers.authorization).toBe('Bearer tok-1');
    expect(admissionOf(req)).toMatchObject({ callerKey: `token:${tokenKey('tok-1')}`, caller: 'token', tokenKey: tokenKey('tok-1') });
  });

  it('refuses past the limit a token the platform has not accepted, with 429 and no call, while an accepted token goes on', async () => {
    const { budgets, limited } = await setup();
    budgets.tokens.report(tokenKey('good'), 'accepted', false);
    for (const token of ['made-up-1', 'made-up-2']) expect((await admitted(budgets.admission, `Bearer ${token}`)).outcome).toEqual({ passed: true });
    const refused = await admitted(budgets.admission, 'Bearer made-up-3');
    expect(refused.outcome).toEqual({
      status: 429,
      headers: expect.objectContaining({ 'Retry-After': '60' }),
      body: {
        errors: [
          {
            message: 'Too many requests with tokens the platform has not accepted from this address: retry after 60 s',
            extensions: { code: 'RATE_LIMITED', limit: 'AUTH_FAILURE_LIMIT_PER_MINUTE', requestId: 'req-adm' },
          },
        ],
      },
    });
    expect(limited).toEqual(['auth-failures']);
    expect((await admitted(budgets.admission, 'Bearer good')).outcome).toEqual({ passed: true });
    // Another address has its own limit.
    expect((await admitted(budgets.admission, 'Bearer made-up-4', '198.51.100.1')).outcome).toEqual({ passed: true });
  });

  it('charges one unit for the requests an unknown token has in flight together', async () => {
    const { budgets } = await setup({ AUTH_FAILURE_LIMIT_BURST: '1' });
    const first = await admitted(budgets.admission, 'Bearer same');
    expect((await admitted(budgets.admission, 'Bearer same')).outcome).toEqual({ passed: true });
    // The first made a call and the platform has not answered on the token: its unit stays spent.
    admissionOf(first.req)!.callsSent = () => 1;
    first.res.emit('close');
    expect((await admitted(budgets.admission, 'Bearer other')).outcome).toMatchObject({ status: 429 });
  });

  it('gives the unit back when the request made no platform call, or the platform accepted the token', async () => {
    const { budgets } = await setup({ AUTH_FAILURE_LIMIT_BURST: '1' });
    const noCall = await admitted(budgets.admission, 'Bearer t1');
    noCall.res.emit('close');
    const accepted = await admitted(budgets.admission, 'Bearer t2');
    admissionOf(accepted.req)!.callsSent = () => 1;
    budgets.tokens.report(tokenKey('t2'), 'accepted', false);
    accepted.res.emit('close');
    await new Promise((resolve) => setImmediate(resolve));
    expect((await admitted(budgets.admission, 'Bearer t3')).outcome).toEqual({ passed: true });
  });

  it('keeps the unit spent when the platform refused the token, or the caller hung up before its verdict', async () => {
    for (const ending of ['refused', 'hung up'] as const) {
      const { budgets } = await setup({ AUTH_FAILURE_LIMIT_BURST: '1' });
      const spent = await admitted(budgets.admission, 'Bearer t1');
      const admission = admissionOf(spent.req)!;
      admission.callsSent = () => 1;
      if (ending === 'refused') admission.refusedByPlatform = true;
      spent.res.emit('close');
      await new Promise((resolve) => setImmediate(resolve));
      expect([ending, (await admitted(budgets.admission, 'Bearer t2')).outcome]).toMatchObject([ending, { status: 429 }]);
      await budgets.close();
    }
  });
});

describe('setupBudgets', () => {
  it('warns that budgets are per instance when REDIS_URL is set without RATE_LIMIT_REDIS_URL', async () => {
    const { warnings } = await setup({ RATE_LIMIT_PER_SECOND: '5', REDIS_URL: 'redis://127.0.0.1:1' });
    expect(warnings).toEqual([
      'budgets are counted per instance: REDIS_URL is set but RATE_LIMIT_REDIS_URL is not; set RATE_LIMIT_REDIS_URL (a Redis of its own, noeviction) to share them between instances',
    ]);
  });

  it('says nothing without a calls budget', async () => {
    expect((await setup({ REDIS_URL: 'redis://127.0.0.1:1' })).warnings).toEqual([]);
  });
});

describe('an unknown token whose first verdict is pending', () => {
  it('holds the same token\'s later requests until the verdict, and refuses them with it', async () => {
    const { budgets, limited } = await setup({ AUTH_FAILURE_LIMIT_BURST: '1' });
    expect((await admitted(budgets.admission, 'Bearer spent')).outcome).toEqual({ passed: true });
    // Both arrive before the first one's take is answered: the address's unit is spent.
    const [first, second] = await Promise.all([admitted(budgets.admission, 'Bearer same'), admitted(budgets.admission, 'Bearer same')]);
    expect([first.outcome, second.outcome]).toMatchObject([{ status: 429 }, { status: 429 }]);
    expect(limited).toEqual(['auth-failures', 'auth-failures']);
  });

  it('passes the later requests on with the first when its take is allowed, spending one unit for them all', async () => {
    const { budgets } = await setup({ AUTH_FAILURE_LIMIT_BURST: '1' });
    const [first, second] = await Promise.all([admitted(budgets.admission, 'Bearer same'), admitted(budgets.admission, 'Bearer same')]);
    expect([first.outcome, second.outcome]).toEqual([{ passed: true }, { passed: true }]);
    expect((await admitted(budgets.admission, 'Bearer other')).outcome).toMatchObject({ status: 429 });
  });
});
