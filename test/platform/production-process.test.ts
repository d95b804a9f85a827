import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { postJson } from '../support/graphql-client.ts';
import { TOKEN, eventually, json, startServer, type Handler, type TestServer } from './support.ts';

// The real process in production mode (`NODE_ENV=production node dist/main.js`) over a
// hand-driven platform: the request bounds hold as shipped, not only in-process.

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const NODE = `${ROOT}node_modules/.bin/node`;

let platform: TestServer;
let child: ChildProcess | undefined;
let url: string;
let output = '';
/** The socket of the latest exceptions call, which the platform never answers. */
let exceptionsSocket: { destroyed: boolean } | undefined;

/** Documents answer at once; the exceptions list never answers; acceptances trickle forever. */
const handler: Handler = (request, response) => {
  if (request.url?.startsWith('/v1/documents/')) {
    response.writeHead(200, { 'content-type': 'application/json' }).end(json({ id: 'd0c00000-0000-4000-8000-000000000001', name: 'Passport', documentType: 'passport' }));
  } else if (request.url?.startsWith('/exceptions')) {
    exceptionsSocket = request.socket;
  } else if (request.url?.startsWith('/v1/acceptances')) {
    response.writeHead(200, { 'content-type': 'application/json' });
    const timer = setInterval(() => response.write(' '), 20);
    response.on('close', () => clearInterval(timer));
  }
};

beforeAll(async () => {
  platform = await startServer(handler);
  const { NODE_OPTIONS: _jestOptions, ...env } = process.env;
  child = spawn(NODE, ['--disable-warning=ExperimentalWarning', 'dist/main.js'], {
    cwd: ROOT,
    env: {
      ...env,
      NODE_ENV: 'production',
      UPSTREAM_URL: platform.url,
      HOST: '127.0.0.1',
      PORT: '0',
      ADMIN_PORT: '0',
      // Debug shows calls stopped by the caller (errorCode CANCELLED), which are routine.
      LOG_LEVEL: 'debug',
      REQUEST_DEADLINE_MS: '3000',
      UPSTREAM_RESPONSE_TIMEOUT_MS: '60000',
      UPSTREAM_REQUEST_TIMEOUT_MS: '60000',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.setEncoding('utf8');
  child.stdout!.on('data', (chunk: string) => (output += chunk));
  child.stderr!.resume();
  await eventually(() => /GraphQL endpoint: (http:\/\/127\.0\.0\.1:\d+)\/graphql/.test(output), 20_000);
  url = /GraphQL endpoint: (http:\/\/127\.0\.0\.1:\d+)\/graphql/.exec(output)![1]!;
}, 30_000);

afterAll(async () => {
  if (child && child.exitCode === null && child.signalCode === null) {
    const exited = new Promise((resolve) => child!.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  }
  await platform.close();
});

const caller = { authorization: TOKEN };

describe('production process', () => {
  it('refuses 1000 FinancialAccount representations before any platform call', async () => {
    platform.requests.length = 0;
    const representations = Array.from({ length: 1000 }, (_, i) => ({ __typename: 'FinancialAccount', id: `fa-${i}` }));
    const response = await postJson(`${url}/graphql`, {
      query: 'query($r: [_Any!]!) { _entities(representations: $r) { ... on FinancialAccount { documentAcceptances(first: 100) { nodes { id } } } } }',
      variables: { r: representations },
    }, caller);
    const body = (await response.json()) as { errors: { message: string; extensions: Record<string, unknown> }[] };
    expect(response.status).toBe(400);
    expect(body.errors.map((e) => [e.message, e.extensions.code, e.extensions.limit, e.extensions.max])).toEqual([
      ['Query asks _entities for 1000 representations; at most 25 are allowed per request', 'GRAPHQL_VALIDATION_FAILED', 'MAX_ENTITY_REPRESENTATIONS', 25],
    ]);
    expect(platform.requests).toEqual([]);
  });

  it('answers a trickled list at the deadline with UPSTREAM_TIMEOUT and keeps the healthy field', async () => {
    platform.requests.length = 0;
    const response = await postJson(`${url}/graphql`, { query: '{ document(id: "d0c00000-0000-4000-8000-000000000001") { id name } documentAcceptances(financialAccountId: "fa000000-0000-4000-8000-000000000001", first: 1) { nodes { id } } }' }, caller);
    const body = (await response.json()) as { data: unknown; errors: { message: string; path: unknown[]; extensions: Record<string, unknown> }[] };
    expect(body.data).toEqual({ document: { id: 'd0c00000-0000-4000-8000-000000000001', name: 'Passport' }, documentAcceptances: null });
    expect(body.errors.map((e) => [e.message, e.path, e.extensions.code])).toEqual([
      ['The platform did not answer in time (request deadline of 3000 ms)', ['documentAcceptances'], 'UPSTREAM_TIMEOUT'],
    ]);
    expect(platform.requests.map((r) => r.url).sort()).toEqual(['/v1/acceptances?financialAccountId=fa000000-0000-4000-8000-000000000001&page=0&size=1', '/v1/documents/d0c00000-0000-4000-8000-000000000001']);
  });

  it('closes the platform call in flight when the caller hangs up', async () => {
    platform.requests.length = 0;
    const controller = new AbortController();
    const request = postJson(`${url}/graphql`, { query: '{ exceptions(first: 1) { nodes { id } } }' }, caller, controller.signal).catch((error: Error) => error.name);
    await eventually(() => platform.requests.length === 1);
    controller.abort();
    expect(await request).toBe('AbortError');
    // The call ends as cancelled by the caller, not cut by the deadline, and its socket is closed.
    await eventually(() => /"route":"exceptions\.list".*"errorCode":"CANCELLED"|"errorCode":"CANCELLED".*"route":"exceptions\.list"/.test(output));
    expect(output).not.toMatch(/"errorCode":"UPSTREAM_TIMEOUT"[^\n]*exceptions\.list|exceptions\.list[^\n]*"errorCode":"UPSTREAM_TIMEOUT"/);
    await eventually(() => exceptionsSocket?.destroyed === true);
    expect(platform.requests.map((r) => r.url)).toEqual(['/exceptions?page=0&size=1']);
  });
});
