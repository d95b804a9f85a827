import { afterEach, describe, expect, it } from '@jest/globals';
import { ApolloServer } from '@apollo/server';
import type { Logger } from 'pino';
import { MemoryBuckets, type BucketPolicy } from '../../src/budgets/bucket.ts';
import type { CallEstimator } from '../../src/budgets/estimate.ts';
import { RequestBudget } from '../../src/budgets/ledger.ts';
import { CALLS_POLICY_NAME, costPlugin, type BudgetContext, type BudgetObserver } from '../../src/budgets/plugin.ts';
import { RequestCalls } from '../../src/platform/request-calls.ts';

const POLICY: BucketPolicy = { name: 'calls', perSecond: 10, burst: 20 };
const NOW = 1_000_000;
const CALLER = 'token:abc';

/** Each `calls(n)` makes n platform calls, drawn from the operation's ledger as the bucket draw does. */
const typeDefs = 'type Query { calls(n: Int!): Int }';
const resolvers = {
  Query: {
    calls: async (_: unknown, { n }: { n: number }, context: BudgetContext) => {
      const calls = context.platform.requestCalls;
      for (let i = 0; i < n; i++) {
        await calls.ledger?.draw();
        calls.sent++;
      }
      return n;
    },
  },
};

let server: ApolloServer<BudgetContext> | undefined;
afterEach(async () => {
  await server?.stop();
  server = undefined;
});

interface Setup {
  estimate: number;
  budget?: boolean;
  admitted?: boolean;
}

/** A server whose estimator answers `estimate`, with a budget over a bucket store at a standing clock. */
async function setup({ estimate, budget = true, admitted = true }: Setup) {
  const store = new MemoryBuckets(100, () => NOW);
  const limited: string[] = [];
  const debug: unknown[] = [];
  const observer: BudgetObserver = { recordRateLimited: (caller) => void limited.push(caller), recordRateLimitStoreFailure: () => undefined };
  const logger = { debug: (fields: unknown) => void debug.push(fields) } as unknown as Logger;
  const estimator = { estimateSent: () => estimate } as unknown as CallEstimator;
  server = new ApolloServer<BudgetContext>({ typeDefs, resolvers, plugins: [costPlugin(estimator, budget ? { policy: POLICY, logger, observer } : undefined)] });
  await server.start();
  const run = async (query: string, operationName?: string) => {
    const contextValue: BudgetContext = {
      admission: admitted ? { callerKey: CALLER, caller: 'token' } : undefined,
      // The request's budget, as the admission makes it when a budget is set.
      platform: { requestCalls: new RequestCalls({ maxCalls: 100, tokens: undefined, token: undefined, tokenKey: undefined, onTokenRefused: undefined, ledger: admitted && budget ? new RequestBudget(store, POLICY, CALLER) : undefined }) },
    };
    const response = await server!.executeOperation({ query, operationName }, { contextValue });
    const body = response.body.kind === 'single' ? response.body.singleResult : undefined;
    return { status: response.http.status, headers: Object.fromEntries(response.http.headers), body };
  };
  return { run, store, limited, debug };
}

const headers = (left: number, fullInS: number) => ({
  'ratelimit-policy': `"${CALLS_POLICY_NAME}";q=20;w=2`,
  ratelimit: `"${CALLS_POLICY_NAME}";r=${left};t=${fullInS}`,
});
const throttle = (left: number) => ({ maximumAvailable: 20, currentlyAvailable: left, restoreRate: 10 });

describe('costPlugin without a budget', () => {
  it('answers the estimate and the calls sent, with no RateLimit headers', async () => {
    const { run } = await setup({ estimate: 4, budget: false });
    const answer = await run('{ calls(n: 3) }');
    expect(answer.body).toEqual({ data: { calls: 3 }, extensions: { cost: { requestedQueryCost: 4, actualQueryCost: 3 } } });
    expect(answer.headers).not.toHaveProperty('ratelimit');
  });

  it('counts an estimate of zero as zero', async () => {
    const { run } = await setup({ estimate: 0, budget: false });
    expect((await run('{ calls(n: 0) }')).body?.extensions).toEqual({ cost: { requestedQueryCost: 0, actualQueryCost: 0 } });
  });
});

describe('costPlugin with a budget', () => {
  it('reserves the estimate, and shows the bucket after an operation that spent it exactly', async () => {
    const { run } = await setup({ estimate: 3 });
    const answer = await run('{ calls(n: 3) }');
    expect(answer.body).toEqual({ data: { calls: 3 }, extensions: { cost: { requestedQueryCost: 3, actualQueryCost: 3, throttleStatus: throttle(17) } } });
    expect(answer.headers).toMatchObject(headers(17, 1));
  });

  it.each([
    ['gives back what was reserved and not spent', 5, 2, 5, 18],
    ['charges one call for an operation that made none or was estimated at none', 0, 0, 1, 19],
    ['draws the calls beyond the estimate from the bucket as they go', 2, 4, 2, 16],
  ])('%s', async (_title, estimate, made, requested, left) => {
    const { run, store } = await setup({ estimate });
    expect((await run(`{ calls(n: ${made}) }`)).body?.extensions).toEqual({ cost: { requestedQueryCost: requested, actualQueryCost: made, throttleStatus: throttle(left) } });
    expect(store.takeNow(POLICY, CALLER, 0).available).toBe(left);
  });

  it('refuses an operation estimated past the whole burst with 400, taking nothing and running nothing', async () => {
    const { run, store } = await setup({ estimate: 21 });
    const answer = await run('{ calls(n: 1) }');
    expect(answer.status).toBe(400);
    expect(answer.headers).toMatchObject(headers(20, 0));
    expect(answer.body).toEqual({
      errors: [
        {
          message: "Query needs about 21 platform calls, more than a caller's whole budget of 20: ask for fewer rows or fields",
          extensions: { code: 'COST_EXCEEDS_BURST', limit: 'RATE_LIMIT_BURST', max: 20 },
        },
      ],
      extensions: { cost: { requestedQueryCost: 21, actualQueryCost: null, throttleStatus: throttle(20) } },
    });
    expect(store.takeNow(POLICY, CALLER, 0).available).toBe(20);
  });

  it('refuses an operation the bucket cannot pay now with 429 and Retry-After, and tells the observer', async () => {
    const { run, store, limited, debug } = await setup({ estimate: 5 });
    store.takeNow(POLICY, CALLER, 18);
    const answer = await run('{ calls(n: 5) }');
    expect(answer.status).toBe(429);
    expect(answer.headers).toMatchObject({ 'retry-after': '1', ...headers(2, 2) });
    expect(answer.body).toEqual({
      errors: [{ message: 'Too many platform calls from this caller: this query needs about 5, 2 are left; retry after 1 s', extensions: { code: 'RATE_LIMITED', retryAfter: 1 } }],
      extensions: { cost: { requestedQueryCost: 5, actualQueryCost: null, throttleStatus: throttle(2) } },
    });
    expect(limited).toEqual(['token']);
    expect(debug).toEqual([{ requestId: undefined, caller: 'token', requested: 5, retryAfter: 1 }]);
    // A refused take changes nothing.
    expect(store.takeNow(POLICY, CALLER, 0).available).toBe(2);
  });

  it('does not count a caller that was not admitted (no caller key) against any bucket', async () => {
    const { run, store } = await setup({ estimate: 3, admitted: false });
    const answer = await run('{ calls(n: 3) }');
    expect(answer.body?.extensions).toEqual({ cost: { requestedQueryCost: 3, actualQueryCost: 3 } });
    expect(store.size).toBe(0);
  });

  it('adds no cost to a request whose operation cannot be found', async () => {
    const { run, store } = await setup({ estimate: 3 });
    const answer = await run('query A { calls(n: 1) }', 'B');
    expect(answer.body?.extensions).toBeUndefined();
    expect(answer.body?.errors?.map((error) => error.extensions?.code)).toEqual(['OPERATION_RESOLUTION_FAILURE']);
    expect(store.size).toBe(0);
  });
});
