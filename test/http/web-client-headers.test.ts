import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ConfigError, loadConfig, testConfig } from '../../src/settings/config.ts';
import { originAllowed, webClientHeaders } from '../../src/http/web-client-headers.ts';
import { startStack, type Stack } from '../support/stack.ts';

const APP = 'http://localhost:5173';

/** Every `access-control-*` header of an answer, by name. */
function accessControl(response: Response): Record<string, string> {
  const headers: [string, string][] = [];
  response.headers.forEach((value, name) => headers.push([name, value]));
  return Object.fromEntries(headers.filter(([name]) => name.startsWith('access-control-')));
}

const preflight = (url: string, origin: string) =>
  fetch(url, { method: 'OPTIONS', headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization,content-type' } });

describe('CORS settings', () => {
  it('allow loopback development servers outside production, and only the listed origins in production', () => {
    const development = loadConfig({}).cors;
    expect(development).toEqual({ origins: [], allowLoopbackOrigins: true, credentials: false, maxAgeSeconds: 600 });
    for (const origin of [APP, 'http://127.0.0.1:3000', 'http://localhost']) expect(originAllowed(development, origin)).toBe(true);
    for (const origin of ['https://localhost:5173', 'http://localhost.evil.example', 'http://10.0.0.5:5173', 'null', 'http://localhost:5173/']) {
      expect(originAllowed(development, origin)).toBe(false);
    }
    const production = loadConfig({ NODE_ENV: 'production' }).cors;
    expect(originAllowed(production, APP)).toBe(false);
    const listed = loadConfig({ NODE_ENV: 'production', CORS_ORIGINS: 'https://app.example.com, https://Admin.Example.com:8443', CORS_CREDENTIALS: 'true', CORS_MAX_AGE_SECONDS: '60' }).cors;
    expect(listed).toEqual({ origins: ['https://app.example.com', 'https://admin.example.com:8443'], allowLoopbackOrigins: false, credentials: true, maxAgeSeconds: 60 });
    expect(originAllowed(listed, 'https://app.example.com')).toBe(true);
    expect(originAllowed(listed, 'https://admin.example.com:8443')).toBe(true);
    expect(originAllowed(listed, 'https://app.example.com.evil.example')).toBe(false);
    expect(originAllowed(listed, APP)).toBe(false);
  });

  it('stop start-up on an origin with a path, naming the variable', () => {
    expect(() => loadConfig({ CORS_ORIGINS: 'https://app.example.com/, app.example.com' })).toThrow(ConfigError);
    expect(() => loadConfig({ CORS_ORIGINS: 'https://app.example.com/, app.example.com' })).toThrow(
      'CORS_ORIGINS: not an origin (scheme://host[:port], no path): https://app.example.com/, app.example.com',
    );
  });
});

describe('on a plain node:http server (no Express)', () => {
  let server: Server;
  let url: string;
  beforeAll(async () => {
    const handler = webClientHeaders(testConfig({ CORS_ORIGINS: 'https://app.example.com' }).cors);
    server = createServer((req, res) => handler(req, res, () => res.end('answered')));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/graphql`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('answers an allowed preflight itself, and passes requests on with no-store', async () => {
    const answer = await preflight(url, 'https://app.example.com');
    expect(answer.status).toBe(204);
    expect(accessControl(answer)).toEqual({
      'access-control-allow-origin': 'https://app.example.com',
      'access-control-allow-methods': 'GET,POST,OPTIONS',
      // Accept: a multipart subscription's (with its quote) is not on the browser's safelist.
      'access-control-allow-headers': 'Authorization,Content-Type,X-Request-Id,Apollo-Require-Preflight,X-Apollo-Operation-Name,Accept',
      'access-control-max-age': '600',
      'access-control-expose-headers': 'RateLimit,RateLimit-Policy,Retry-After',
    });
    const request = await fetch(url, { method: 'POST', headers: { origin: 'https://app.example.com' } });
    expect(await request.text()).toBe('answered');
    expect(request.headers.get('cache-control')).toBe('no-store');
    expect(request.headers.get('vary')).toBe('Origin');
    // A browser app may read its budget and when to retry.
    expect(accessControl(request)).toEqual({ 'access-control-allow-origin': 'https://app.example.com', 'access-control-expose-headers': 'RateLimit,RateLimit-Policy,Retry-After' });
  });

  it('gives a foreign origin no allow header, on a preflight or a request', async () => {
    const answer = await preflight(url, 'https://evil.example');
    expect(answer.status).toBe(204);
    expect(accessControl(answer)).toEqual({});
    const request = await fetch(url, { method: 'POST', headers: { origin: 'https://evil.example' } });
    expect(accessControl(request)).toEqual({});
    expect(request.headers.get('cache-control')).toBe('no-store');
  });
});

describe('the gateway', () => {
  let development: Stack;
  let production: Stack;
  beforeAll(async () => {
    [development, production] = await Promise.all([
      startStack({ NODE_ENV: 'development' }),
      startStack({ NODE_ENV: 'production', CORS_ORIGINS: 'https://app.example.com', CORS_CREDENTIALS: 'true' }),
    ]);
  });
  afterAll(() => Promise.all([development, production].map((stack) => stack.close())));

  it('lets a development server on localhost call /graphql; the answer is no-store without an ETag', async () => {
    const answer = await preflight(`${development.gateway.url}/graphql`, APP);
    expect(answer.status).toBe(204);
    expect(answer.headers.get('access-control-allow-origin')).toBe(APP);
    expect(answer.headers.get('access-control-allow-credentials')).toBeNull();
    const response = await fetch(`${development.gateway.url}/graphql`, {
      method: 'POST',
      headers: { origin: APP, 'content-type': 'application/json', authorization: `Bearer ${development.acme}` },
      body: JSON.stringify({ query: '{ exceptions(first: 1) { totalCount } }' }),
    });
    expect(response.status).toBe(200);
    expect(accessControl(response)).toEqual({ 'access-control-allow-origin': APP, 'access-control-expose-headers': 'RateLimit,RateLimit-Policy,Retry-After' });
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.headers.get('etag')).toBeNull();
    expect(((await response.json()) as { data: { exceptions: { totalCount: number } } }).data.exceptions.totalCount).toBe(
      development.sandbox.store.exceptions(development.sandbox.tokens[0]!.businessAccountId).length,
    );
  });

  it('marks refusals and errors no-store too', async () => {
    for (const body of ['{"query": ', JSON.stringify({ query: '{ nope }' })]) {
      const response = await fetch(`${development.gateway.url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      expect(response.status).toBe(400);
      expect(response.headers.get('cache-control')).toBe('no-store');
      expect(response.headers.get('etag')).toBeNull();
    }
  });

  it('in production, allows only the listed origins (with credentials when configured); localhost gets nothing', async () => {
    const listed = await preflight(`${production.gateway.url}/graphql`, 'https://app.example.com');
    expect(accessControl(listed)).toMatchObject({ 'access-control-allow-origin': 'https://app.example.com', 'access-control-allow-credentials': 'true' });
    const local = await preflight(`${production.gateway.url}/graphql`, APP);
    expect(local.status).toBe(204);
    expect(accessControl(local)).toEqual({});
  });

  it('keeps CSRF prevention: a simple cross-origin POST from an allowed origin is still refused before execution', async () => {
    development.sandbox.resetRequests();
    const response = await fetch(`${development.gateway.url}/graphql`, {
      method: 'POST',
      headers: { origin: APP, 'content-type': 'text/plain', authorization: `Bearer ${development.acme}` },
      body: JSON.stringify({ query: '{ exceptions(first: 1) { totalCount } }' }),
    });
    expect(response.status).toBe(400);
    expect(await response.text()).toMatch(/CSRF/);
    expect(development.platformCalls()).toEqual([]);
  });
});
