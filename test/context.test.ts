import { describe, expect, it } from '@jest/globals';
import { testConfig } from '../src/settings/config.ts';
import { createContext, createSubscribingContext } from '../src/context.ts';
import type { CallLedger } from '../src/request/admission.ts';
import type { SubscriptionSession } from '../src/subscriptions/index.ts';
import { createLogger } from '../src/logger.ts';
import type { PolicyChain, UpstreamRequest } from '../src/platform/policy-chain.ts';

const config = testConfig();
const logger = createLogger('silent');

/** A platform seam that answers every document GET with the id it was asked for, and records each call. */
function recordingHttp() {
  const calls: string[] = [];
  const requests: UpstreamRequest[] = [];
  const http = {
    send: async (request: UpstreamRequest) => {
      calls.push(request.pathAndQuery);
      requests.push(request);
      const id = request.pathAndQuery.split('/').pop()!.split('?')[0];
      return { status: 200, body: JSON.stringify({ id, name: `doc ${id}`, status: 'NEW', documentType: 'passport' }) };
    },
  } as unknown as PolicyChain;
  return { http, calls, requests };
}

describe('request context', () => {
  it('builds the document loader on first use and keeps it for the request', () => {
    const { http } = recordingHttp();
    const context = createContext({ config, http, logger }, { authorization: 'Bearer t' });
    const first = context.loaders.document;
    expect(context.loaders.document).toBe(first);
    const other = createContext({ config, http, logger }, { authorization: 'Bearer t' });
    expect(other.loaders.document).not.toBe(first);
  });

  it('fetches each distinct document once per request through the loader, and again in another request', async () => {
    const { http, calls } = recordingHttp();
    const context = createContext({ config, http, logger }, { authorization: 'Bearer t' });
    await Promise.all([context.loaders.document.load('d-1'), context.loaders.document.load('d-1'), context.loaders.document.load('d-2')]);
    expect(calls.filter((path) => path.includes('d-1'))).toHaveLength(1);
    expect(calls.filter((path) => path.includes('d-2'))).toHaveLength(1);
    const next = createContext({ config, http, logger }, { authorization: 'Bearer t' });
    await next.loaders.document.load('d-1');
    expect(calls.filter((path) => path.includes('d-1'))).toHaveLength(2);
  });
});

describe('a subscription\'s context', () => {
  const session = { identity: { authorization: 'Bearer t', tokenKey: 'key-of-t' } } as SubscriptionSession;
  const ledger = (name: string): CallLedger => ({ draw: () => undefined, forOperation: () => ledger(`${name} (operation)`), name }) as CallLedger;

  it('holds its session and makes no platform client until an event\'s field reads one', () => {
    const { http, calls } = recordingHttp();
    const budgets: string[] = [];
    const context = createSubscribingContext({ config, http, logger }, session, (callerKey) => {
      budgets.push(callerKey);
      return ledger(callerKey);
    });
    expect([context.subscriptions, context.config, calls, budgets]).toEqual([session, config, [], []]);
  });

  it('gives each event a context of its own, drawing every call from the token\'s budget with a deadline from the event', async () => {
    const { http, requests } = recordingHttp();
    let made = 0;
    const context = createSubscribingContext({ config, http, logger }, session, (callerKey) => ledger(`${callerKey} #${++made}`));
    const first = context.forEvent();
    const second = context.forEvent();
    await first.loaders.document.load('d-1');
    await second.loaders.document.load('d-1');
    expect(first.platform).not.toBe(second.platform);
    expect(requests.map((request) => [request.pathAndQuery, request.authorization, (request.caller?.ledger as { name?: string } | undefined)?.name, request.signal?.aborted]))
      .toEqual([['/v1/documents/d-1', 'Bearer t', 'token:key-of-t #1', false], ['/v1/documents/d-1', 'Bearer t', 'token:key-of-t #2', false]]);
  });
});
