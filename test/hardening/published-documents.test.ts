import type { AddressInfo } from 'node:net';
import { describe, expect, it } from '@jest/globals';
import pino from 'pino';
import { adminRequestListener, createAdminServer, documentsAnswer, LIVE, type RefusedAdminRequest } from '../../src/process/admin.ts';
import { ConfigError, loadConfig } from '../../src/settings/config.ts';
import { MemoryDocumentStore } from '../../src/hardening/document-stores.ts';
import { parseOptions, limitValidationRules } from '../../src/hardening/limits.ts';
import { documentsAdmin, MAX_APPS, PublishedDocuments, servePublished, type DocumentsRequest } from '../../src/hardening/published-documents.ts';
import { buildSchema } from '../../src/schema/schema.ts';

// The publication's rules in process, over the gateway's schema and the instance's memory store:
// what a manifest may hold, clashes between apps, the bounds; and the admin listener's side of the
// routes (token, methods, body size). test/hardening/published-documents-process.test.ts runs them
// on real replicas over Redis.

const logger = pino({ level: 'silent' });
const schema = buildSchema();
const limits = loadConfig({}).limits;

function setup(file?: Map<string, string>) {
  const store = new MemoryDocumentStore();
  const served = new PublishedDocuments(logger);
  servePublished(store, served);
  const handle = documentsAdmin({
    store,
    file: file && { lookup: (id) => file.get(id), size: file.size },
    schema,
    parseOptions: parseOptions(limits),
    validationRules: limitValidationRules(limits),
    logger,
  });
  return { store, served, handle };
}

const put = (app: string, manifest: unknown): DocumentsRequest => ({ method: 'PUT', app, body: JSON.stringify(manifest) });

describe('publishing an app\'s documents', () => {
  it('serves each document under its id and the SHA-256 of its text, in every format the gateway reads', async () => {
    const { handle, served } = setup();
    const text = 'query A { __typename }';
    expect(await handle(put('relay', { a1: text }))).toEqual({ status: 200, body: { app: 'relay', documents: 1 } });
    const apollo = { format: 'apollo-persisted-query-manifest', version: 1, operations: [{ id: 'b1', name: 'B', type: 'query', body: 'query B { __typename }' }] };
    expect(await handle(put('apollo', apollo))).toEqual({ status: 200, body: { app: 'apollo', documents: 1 } });
    expect([served.lookup('a1'), served.lookup('b1'), served.lookup('3c0d36ef7b2a0a5ad0cd0ac5e8d0b04ba2a3c9b1fcd6a3b7f2b8e1ac3d1d0ba0'), served.size]).toEqual([text, 'query B { __typename }', undefined, 2]);
    const { createHash } = await import('node:crypto');
    expect(served.lookup(createHash('sha256').update(text).digest('hex'))).toBe(text);
  });

  it('refuses a document over the gateway\'s own limits, and one of several operations, naming it', async () => {
    const { handle, served } = setup();
    const deep = `query Deep { ${'exceptions(first: 1) { nodes { documents(first: 1) { nodes { '.repeat(3)}id${' } } } }'.repeat(3)} }`;
    const answer = await handle(put('web', { fine: 'query Fine { __typename }', deep }));
    expect(answer.status).toBe(400);
    expect(answer.body.id).toBe('deep');
    expect(String(answer.body.error)).toMatch(/^document "deep" does not validate: .*depth/i);
    expect(served.size).toBe(0);
  });

  it('replaces an app\'s documents on a second publication and retires them on DELETE', async () => {
    const { handle, served } = setup();
    await handle(put('web', { one: 'query One { __typename }' }));
    await handle(put('web', { two: 'query Two { __typename }' }));
    expect([served.lookup('one'), served.lookup('two')]).toEqual([undefined, 'query Two { __typename }']);
    expect(await handle({ method: 'DELETE', app: 'web' })).toEqual({ status: 200, body: { app: 'web', retired: true } });
    expect(served.lookup('two')).toBeUndefined();
    expect(await handle({ method: 'DELETE', app: 'web' })).toEqual({ status: 404, body: { error: 'no documents are published for app "web"' } });
  });

  it('refuses an id another app or the file gives another text (409), and accepts the same text', async () => {
    const { handle } = setup(new Map([['fileId', 'query File { __typename }']]));
    await handle(put('web', { shared: 'query Shared { __typename }' }));
    expect(await handle(put('mobile', { shared: 'query Other { __typename }' }))).toEqual({ status: 409, body: { id: 'shared', error: 'document "shared" is published by app "web" with another text' } });
    expect(await handle(put('mobile', { fileId: 'query Other { __typename }' }))).toEqual({ status: 409, body: { id: 'fileId', error: 'document "fileId" is published by TRUSTED_DOCUMENTS with another text' } });
    expect((await handle(put('mobile', { shared: 'query Shared { __typename }' }))).status).toBe(200);
  });

  it('bounds the apps and their names', async () => {
    const { handle } = setup();
    expect((await handle(put('no spaces', { q: 'query Q { __typename }' }))).status).toBe(400);
    expect((await handle(put('x'.repeat(65), { q: 'query Q { __typename }' }))).status).toBe(400);
    for (let i = 0; i < MAX_APPS; i++) expect((await handle(put(`app${i}`, { [`q${i}`]: 'query Q { __typename }' }))).status).toBe(200);
    expect(await handle(put('one-too-many', { q: 'query Q { __typename }' }))).toEqual({ status: 409, body: { error: `${MAX_APPS} apps are published already: retire one first` } });
    // Replacing an app already published is not a new one.
    expect((await handle(put('app0', { q0: 'query Q { __typename }' }))).status).toBe(200);
  });
});

describe('the admin listener\'s /trusted-documents routes', () => {
  const TOKEN = 'a'.repeat(40);

  async function listener(token: string | undefined) {
    const requests: DocumentsRequest[] = [];
    const refused: RefusedAdminRequest[] = [];
    const server = createAdminServer(adminRequestListener({
      metrics: false,
      health: () => LIVE,
      ask: async () => LIVE,
      documents: {
        token,
        handle: async (request) => {
          requests.push(request);
          return documentsAnswer({ status: 200, body: { ok: true } });
        },
        refused: (request) => refused.push(request),
      },
    }));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return { url, requests, refused, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
  }

  it('hands an authorised request to the gateway\'s loop with its app and body, and nothing else', async () => {
    const admin = await listener(TOKEN);
    try {
      const headers = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };
      const statuses = [
        (await fetch(`${admin.url}/trusted-documents/web`, { method: 'PUT', headers, body: '{"q":"query Q { __typename }"}' })).status,
        (await fetch(`${admin.url}/trusted-documents/web`, { method: 'DELETE', headers })).status,
        (await fetch(`${admin.url}/trusted-documents`, { headers })).status,
        (await fetch(`${admin.url}/trusted-documents/web`, { method: 'POST', headers })).status,
        (await fetch(`${admin.url}/trusted-documents`, { method: 'PUT', headers, body: '{}' })).status,
        (await fetch(`${admin.url}/trusted-documents/web`, { method: 'PUT', headers: { authorization: headers.authorization, 'content-type': 'text/plain' }, body: '{}' })).status,
        (await fetch(`${admin.url}/trusted-documents/web`, { method: 'PUT', headers: { authorization: `bearer  ${TOKEN}`, 'content-type': 'application/json' }, body: '{}' })).status,
      ];
      expect(statuses).toEqual([200, 200, 200, 405, 405, 415, 200]);
      expect(admin.requests).toEqual([
        { method: 'PUT', app: 'web', body: '{"q":"query Q { __typename }"}' },
        { method: 'DELETE', app: 'web' },
        { method: 'GET', app: undefined },
        { method: 'PUT', app: 'web', body: '{}' },
      ]);
    } finally {
      await admin.close();
    }
  });

  it('answers a manifest over MAX_MANIFEST_BYTES 413 without handing it on', async () => {
    const admin = await listener(TOKEN);
    try {
      const body = JSON.stringify({ q: 'x'.repeat(8 * 1024 * 1024) });
      const response = await fetch(`${admin.url}/trusted-documents/web`, { method: 'PUT', headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' }, body });
      expect([response.status, await response.json()]).toEqual([413, { error: `the manifest is larger than ${8 * 1024 * 1024} bytes` }]);
      expect(admin.requests).toEqual([]);
    } finally {
      await admin.close();
    }
  });

  it('refuses a missing or wrong token with 401 and reports the refusal without the token; without a token setting, 403', async () => {
    const admin = await listener(TOKEN);
    const off = await listener(undefined);
    try {
      const wrong = await fetch(`${admin.url}/trusted-documents/web`, { method: 'DELETE', headers: { authorization: `Bearer ${TOKEN}b` } });
      const none = await fetch(`${admin.url}/trusted-documents`);
      const basic = await fetch(`${admin.url}/trusted-documents`, { headers: { authorization: `Basic ${TOKEN}` } });
      expect([wrong.status, none.status, basic.status, wrong.headers.get('www-authenticate')]).toEqual([401, 401, 401, 'Bearer realm="gateway admin"']);
      expect(admin.refused).toEqual([
        { method: 'DELETE', path: '/trusted-documents/web', reason: 'wrong token', address: '127.0.0.1' },
        { method: 'GET', path: '/trusted-documents', reason: 'no token', address: '127.0.0.1' },
        { method: 'GET', path: '/trusted-documents', reason: 'no token', address: '127.0.0.1' },
      ]);
      const refusedOff = await fetch(`${off.url}/trusted-documents/web`, { method: 'PUT', headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' }, body: '{}' });
      expect(refusedOff.status).toBe(403);
      expect([admin.requests, off.requests]).toEqual([[], []]);
    } finally {
      await Promise.all([admin.close(), off.close()]);
    }
  });
});

describe('ADMIN_TOKEN', () => {
  it('lets TRUSTED_DOCUMENTS_ONLY run on published documents alone, and is at least 32 characters', () => {
    const config = loadConfig({ NODE_ENV: 'production', ADMIN_TOKEN: 'b'.repeat(32), TRUSTED_DOCUMENTS_ONLY: 'true' });
    expect([config.publishedDocuments, config.trustedDocuments, config.admin.token]).toEqual([{ only: true }, undefined, 'b'.repeat(32)]);
    expect(loadConfig({}).publishedDocuments).toBeUndefined();
    expect(() => loadConfig({ ADMIN_TOKEN: 'short' })).toThrow(new ConfigError('Invalid configuration:\n  ADMIN_TOKEN: must be at least 32 characters'));
  });
});
