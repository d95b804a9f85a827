import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { gzipSync } from 'node:zlib';
import type { Stage } from '../../src/http/stage.ts';
import { withoutCost } from '../support/graphql-client.ts';

// A handler registered once in the request path (where a rate limit is added) must run exactly
// once for every way into /graphql, before Apollo, inside the request's scope, and its own answer
// must end the request whatever the request's kind.

const actual = await import('../../src/http/request-path.ts');
const { currentRequestId } = await import('../../src/request/scope.ts');

interface Seen {
  requestId: string | undefined;
  scope: string | undefined;
  method: string | undefined;
  /** Whether the body had been read when the handler ran (it runs before the body reader). */
  bodyRead: boolean;
}
const seen: Seen[] = [];

/** Refuses a request carrying `x-refuse`, as a rate limit would; records every request it sees. */
const probe: Stage = (req, res, next) => {
  seen.push({ requestId: req.headers['x-request-id'] as string | undefined, scope: currentRequestId(), method: req.method, bodyRead: 'body' in req });
  if (req.headers['x-refuse'] === undefined) return next();
  res.statusCode = 429;
  res.setHeader('content-type', 'application/json');
  res.end(JSON.stringify({ errors: [{ message: 'refused by the probe', extensions: { code: 'RATE_LIMITED', requestId: currentRequestId() } }] }));
};

jest.unstable_mockModule('../../src/http/request-path.ts', () => ({
  ...actual,
  requestPath: (stages: Parameters<typeof actual.requestPath>[0]) => {
    const path = actual.requestPath(stages);
    // The one registration: right after the web-client headers, where the path says a rate limit goes.
    path.splice(path.indexOf(stages.webClientHeaders) + 1, 0, probe);
    return path;
  },
}));

const { startStack } = await import('../support/stack.ts');
type Stack = Awaited<ReturnType<typeof startStack>>;

let production: Stack;
let development: Stack;

beforeAll(async () => {
  [production, development] = await Promise.all([
    startStack({ NODE_ENV: 'production', ALLOW_BATCHED_REQUESTS: 'true' }),
    // The playground is served: a GET goes past its router to the endpoint's stages.
    startStack({ NODE_ENV: 'development' }),
  ]);
});
afterAll(async () => {
  await Promise.all([production.close(), development.close()]);
});

const QUERY = '{ exceptions(first: 1) { totalCount } }';

interface Way {
  name: string;
  path: string;
  init: RequestInit;
}

function ways(stack: Stack): Way[] {
  const auth = { authorization: `Bearer ${stack.acme}` };
  const json = { ...auth, 'content-type': 'application/json' };
  const body = JSON.stringify({ query: QUERY });
  return [
    { name: 'a plain JSON POST', path: '/graphql', init: { method: 'POST', headers: json, body } },
    { name: 'a gzip POST', path: '/graphql', init: { method: 'POST', headers: { ...json, 'content-encoding': 'gzip' }, body: new Uint8Array(gzipSync(body)) } },
    { name: 'a chunked POST (no length)', path: '/graphql', init: { method: 'POST', headers: json, body: new Blob([body]).stream(), duplex: 'half' } as RequestInit },
    { name: 'a POST with charset=utf-16le', path: '/graphql', init: { method: 'POST', headers: { ...auth, 'content-type': 'application/json; charset=utf-16le' }, body: new Uint8Array(Buffer.from(body, 'utf16le')) } },
    { name: 'a batch', path: '/graphql', init: { method: 'POST', headers: json, body: JSON.stringify([{ query: QUERY }, { query: QUERY }]) } },
    { name: 'a GET', path: `/graphql?query=${encodeURIComponent(QUERY)}`, init: { headers: { ...auth, 'apollo-require-preflight': 'true' } } },
    { name: 'a POST to /graphql/', path: '/graphql/', init: { method: 'POST', headers: json, body } },
  ];
}

const answer = { data: { exceptions: { totalCount: expect.any(Number) } }, extensions: { cost: { requestedQueryCost: 1, actualQueryCost: 1 } } };

describe('the /graphql chain', () => {
  it('runs a handler registered once for every way into /graphql, once per request, in the request’s scope and before the body is read', async () => {
    for (const way of ways(production)) {
      seen.length = 0;
      const id = `chain-${way.name.replace(/\W+/g, '-')}`;
      const response = await fetch(`${production.gateway.url}${way.path}`, { ...way.init, headers: { ...(way.init.headers as Record<string, string>), 'x-request-id': id } });
      const body: unknown = await response.json();
      expect([way.name, response.status]).toEqual([way.name, 200]);
      // The two operations of a batch run at once: the second may join the first's read in flight and
      // cost nothing, so their costs are not compared here (test/budgets/cost-process.test.ts is where they are).
      expect(way.name === 'a batch' ? withoutCost(body) : body).toEqual(way.name === 'a batch' ? [withoutCost(answer), withoutCost(answer)] : answer);
      expect(seen).toEqual([{ requestId: id, scope: id, method: way.init.method ?? 'GET', bodyRead: false }]);
    }
  });

  it('ends every kind of request with the handler’s own answer: nothing reaches the GraphQL server', async () => {
    for (const way of ways(production)) {
      seen.length = 0;
      production.sandbox.resetRequests();
      const response = await fetch(`${production.gateway.url}${way.path}`, { ...way.init, headers: { ...(way.init.headers as Record<string, string>), 'x-refuse': '1', 'x-request-id': 'refused-1' } });
      expect([way.name, response.status, await response.json()]).toEqual([
        way.name,
        429,
        { errors: [{ message: 'refused by the probe', extensions: { code: 'RATE_LIMITED', requestId: 'refused-1' } }] },
      ]);
      expect(seen).toHaveLength(1);
      expect(production.platformCalls()).toEqual([]);
    }
  });

  it('runs it once for a GET where the playground is served, and not for the playground page', async () => {
    seen.length = 0;
    const query = await fetch(`${development.gateway.url}/graphql?query=${encodeURIComponent(QUERY)}`, {
      headers: { authorization: `Bearer ${development.acme}`, 'apollo-require-preflight': 'true', 'x-request-id': 'dev-get' },
    });
    expect([query.status, await query.json()]).toEqual([200, answer]);
    expect(seen).toEqual([{ requestId: 'dev-get', scope: 'dev-get', method: 'GET', bodyRead: false }]);
    seen.length = 0;
    const page = await fetch(`${development.gateway.url}/graphql`, { headers: { accept: 'text/html' } });
    await page.text();
    expect([200, 503]).toContain(page.status);
    expect(seen).toEqual([]);
  });

  it('keeps the id the handler saw in scope for the platform calls', async () => {
    // The id the handler saw in scope is the one the answer's errors and the platform calls carry.
    seen.length = 0;
    production.sandbox.resetRequests();
    const response = await fetch(`${production.gateway.url}/graphql`, {
      method: 'POST',
      headers: { authorization: `Bearer ${production.acme}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query: QUERY }),
    });
    expect(response.status).toBe(200);
    const scoped = seen[0]?.scope;
    expect(scoped).toMatch(/^[0-9a-f-]{36}$/);
    expect(production.platformCalls().map((call) => call.requestId)).toEqual([scoped]);
  });
});

const { playgroundOffStage } = await import('../../src/http/playground.ts');
const { notFoundStage } = await import('../../src/http/routes.ts');

describe('the request path (src/http/request-path.ts)', () => {
  const named = (name: string): Stage => Object.assign(((_req, _res, next) => next()) as Stage, { stageName: name });
  const names = (path: Stage[]) =>
    path.map((stage) => (stage === notFoundStage ? 'not found' : stage === playgroundOffStage ? 'playground off' : (stage as Stage & { stageName: string }).stageName));
  const stages = {
    operatorRoutes: named('operator routes'),
    webClientHeaders: named('web-client headers'),
    admission: named('admission'),
    body: named('body'),
    graphql: named('graphql'),
  };

  it('lists every stage in the order a request meets them', () => {
    const path = actual.requestPath({ ...stages, playground: named('playground'), batchLimit: named('batch limit'), trustedDocuments: named('trusted documents') });
    expect(names(path)).toEqual(['operator routes', 'playground', 'not found', 'web-client headers', 'admission', 'body', 'batch limit', 'trusted documents', 'graphql']);
  });

  it('leaves out the stages the configuration turns off, and tells a browser the playground is off where it is not served', () => {
    const path = actual.requestPath({ ...stages, playground: undefined, batchLimit: undefined, trustedDocuments: undefined });
    expect(names(path)).toEqual(['operator routes', 'not found', 'web-client headers', 'playground off', 'admission', 'body', 'graphql']);
  });
});
