import { describe, expect, it } from '@jest/globals';
import { testConfig } from '../src/config.ts';
import { createContext } from '../src/context.ts';
import { createLogger } from '../src/logger.ts';
import type { PolicyChain, UpstreamRequest } from '../src/platform/policy-chain.ts';

const config = testConfig();
const logger = createLogger('silent');

/** A platform seam that answers every document GET with the id it was asked for, and records each call. */
function recordingHttp() {
  const calls: string[] = [];
  const http = {
    send: async (request: UpstreamRequest) => {
      calls.push(request.pathAndQuery);
      const id = request.pathAndQuery.split('/').pop()!.split('?')[0];
      return { status: 200, body: JSON.stringify({ id, name: `doc ${id}`, status: 'NEW', documentType: 'passport' }) };
    },
  } as unknown as PolicyChain;
  return { http, calls };
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
