import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliCompressSync, deflateSync, gzipSync, zstdCompressSync } from 'node:zlib';
import { createLogger } from '../../src/logger.ts';
import { LogCapture } from '../support/log-capture.ts';
import { startStack, type Stack } from '../support/stack.ts';
import { post, read } from './support/http.ts';
import { until } from '../support/time.ts';

const COUNT = 'query ExceptionCount { exceptions(first: 1) { totalCount } }';
const QUERY = JSON.stringify({ query: '{ exceptions(first: 1) { totalCount } }' });

let production: Stack;
let guarded: Stack;
let log: LogCapture;
let guardedLog: LogCapture;
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'request-edges-'));
  await writeFile(join(dir, 'manifest.json'), JSON.stringify({ 'count-v1': COUNT }));
  [production, guarded] = await Promise.all([
    startStack({ NODE_ENV: 'production' }, {}, createLogger('info', { destination: (log = new LogCapture()) })),
    startStack({ NODE_ENV: 'production', TRUSTED_DOCUMENTS: join(dir, 'manifest.json'), MAX_ECHOED_CHARS: '20' }, {}, createLogger('info', { destination: (guardedLog = new LogCapture()) })),
  ]);
});
afterAll(async () => {
  await Promise.all([production.close(), guarded.close()]);
  await rm(dir, { recursive: true, force: true });
});
beforeEach(() => {
  log.reset();
  guardedLog.reset();
});

/** pino writes asynchronously through its destination: wait until the line is there (bounded for a hang, not for speed). */
async function logLines(capture: LogCapture, msg: string): Promise<Record<string, unknown>[]> {
  return until(`the log line "${msg}"`, () => {
    const lines = capture.lines().filter((line) => line.msg === msg);
    return lines.length > 0 ? lines : undefined;
  }, 120_000);
}

const headers = (stack: Stack, extra: Record<string, string> = {}) => ({ authorization: `Bearer ${stack.acme}`, 'content-type': 'application/json', ...extra });

describe('a body that is not what its Content-Encoding says', () => {
  const gzip = gzipSync(QUERY);
  const cases: Array<[string, string, Uint8Array]> = [
    ['gzip', 'gzip', new TextEncoder().encode(QUERY)],
    ['a truncated gzip', 'gzip', gzip.subarray(0, gzip.length - 12)],
    ['deflate', 'deflate', new TextEncoder().encode(QUERY)],
    ['br', 'br', new TextEncoder().encode('this is not brotli data at all, not at all')],
    ['zstd', 'zstd', new TextEncoder().encode(QUERY)],
  ];

  it.each(cases)('%s: 400 BAD_CONTENT_ENCODING, logged as a refused body and not as an error', async (_name, encoding, body) => {
    const id = `bad-${encoding}-${body.length}`;
    const exact = await read(
      await fetch(`${production.gateway.url}/graphql`, { method: 'POST', headers: headers(production, { 'content-encoding': encoding, 'x-request-id': id }), body: new Uint8Array(body) }),
    );
    expect([exact.status, exact.json]).toEqual([
      400,
      { errors: [{ message: `Request body is not valid ${encoding} data: it could not be decompressed`, extensions: { code: 'BAD_CONTENT_ENCODING', requestId: id } }] },
    ]);
    const refused = await logLines(log, 'request body refused');
    expect(refused.filter((line) => line.requestId === id).map((line) => [line.level, line.status, line.reason])).toContainEqual([30, 400, 'encoding.invalid']);
    expect(log.lines().filter((line) => (line.level as number) >= 50)).toEqual([]);
  });

  it('reads a body that is what it says, in each encoding', async () => {
    const bodies: Array<[string, Uint8Array]> = [
      ['gzip', gzip],
      ['deflate', deflateSync(QUERY)],
      ['br', brotliCompressSync(QUERY)],
      ['zstd', zstdCompressSync(QUERY)],
    ];
    for (const [encoding, body] of bodies) {
      const response = await fetch(`${production.gateway.url}/graphql`, { method: 'POST', headers: headers(production, { 'content-encoding': encoding }), body: new Uint8Array(body) });
      expect([encoding, response.status, await response.json()]).toEqual([encoding, 200, { data: { exceptions: { totalCount: expect.any(Number) } }, extensions: { cost: { requestedQueryCost: 1, actualQueryCost: 1 } } }]);
    }
  });
});

describe('trusted-document refusals', () => {
  const scrape = async () => {
    const text = await (await fetch(`${guarded.gateway.url}/metrics`)).text();
    const counts: Record<string, number> = {};
    for (const match of text.matchAll(/^trusted_document_refusals_total\{code="(\w+)"\} (\d+)$/gm)) counts[match[1]!] = Number(match[2]);
    return counts;
  };

  it('are logged with the request id, counted by code, and cut an echoed id like every echo', async () => {
    const before = await scrape();
    const longId = `x${'y'.repeat(200)}`;
    const unknown = await post(`${guarded.gateway.url}/graphql`, { documentId: longId }, headers(guarded, { 'x-request-id': 'td-unknown' }));
    expect([unknown.status, unknown.json]).toEqual([
      400,
      { errors: [{ message: `No trusted document has the id "x${'y'.repeat(19)}…"`, extensions: { code: 'PERSISTED_QUERY_NOT_IN_LIST', requestId: 'td-unknown' } }] },
    ]);
    const text = await post(`${guarded.gateway.url}/graphql`, { query: COUNT }, headers(guarded, { 'x-request-id': 'td-text' }));
    expect(text.json?.errors?.[0]?.extensions).toEqual({ code: 'PERSISTED_QUERY_ID_REQUIRED', requestId: 'td-text' });
    const mismatch = await post(`${guarded.gateway.url}/graphql`, { documentId: 'count-v1', query: '{ __typename }' }, headers(guarded, { 'x-request-id': 'td-mismatch' }));
    expect(mismatch.json?.errors?.[0]?.extensions).toEqual({ code: 'PERSISTED_QUERY_MISMATCH', requestId: 'td-mismatch' });
    const get = await fetch(`${guarded.gateway.url}/graphql?documentId=nope`, { headers: { 'apollo-require-preflight': 'true', 'x-request-id': 'td-get' } });
    expect([get.status, ((await get.json()) as { errors: { extensions: unknown }[] }).errors[0]!.extensions]).toEqual([400, { code: 'PERSISTED_QUERY_NOT_IN_LIST', requestId: 'td-get' }]);

    const lines = (await logLines(guardedLog, 'trusted document refused')).map((line) => [line.level, line.requestId, line.code]);
    expect(lines).toEqual([
      [30, 'td-unknown', 'PERSISTED_QUERY_NOT_IN_LIST'],
      [30, 'td-text', 'PERSISTED_QUERY_ID_REQUIRED'],
      [30, 'td-mismatch', 'PERSISTED_QUERY_MISMATCH'],
      [30, 'td-get', 'PERSISTED_QUERY_NOT_IN_LIST'],
    ]);
    expect(guardedLog.text).not.toContain('y'.repeat(21));
    const after = await scrape();
    expect({
      notInList: (after.PERSISTED_QUERY_NOT_IN_LIST ?? 0) - (before.PERSISTED_QUERY_NOT_IN_LIST ?? 0),
      idRequired: (after.PERSISTED_QUERY_ID_REQUIRED ?? 0) - (before.PERSISTED_QUERY_ID_REQUIRED ?? 0),
      mismatch: (after.PERSISTED_QUERY_MISMATCH ?? 0) - (before.PERSISTED_QUERY_MISMATCH ?? 0),
    }).toEqual({ notInList: 2, idRequired: 1, mismatch: 1 });
  });
});

describe('unknown paths in production', () => {
  it.each([
    ['POST', '//graphql'],
    ['POST', '/graphq'],
    ['GET', '/nope'],
    ['DELETE', '/healthz/x'],
  ])('%s %s: a JSON 404 with a code, not an HTML page', async (method, path) => {
    const response = await read(
      await fetch(`${production.gateway.url}${path}`, { method, headers: { 'content-type': 'application/json', 'x-request-id': 'lost-1' }, body: method === 'POST' ? QUERY : undefined }),
    );
    expect([response.status, response.contentType, response.json]).toEqual([
      404,
      'application/json; charset=utf-8',
      { errors: [{ message: 'Not found: the GraphQL endpoint is POST /graphql', extensions: { code: 'NOT_FOUND', requestId: 'lost-1' } }] },
    ]);
  });
});

describe('a browser opening /graphql in production', () => {
  const browserAccept = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

  it.each([['text/html'], [browserAccept]])('with Accept %s gets a page saying the playground is off', async (accept) => {
    const response = await read(await fetch(`${production.gateway.url}/graphql`, { headers: { accept } }));
    expect([response.status, response.contentType]).toEqual([404, 'text/html; charset=utf-8']);
    expect(response.text).toContain('The playground is off (off by default in production): set <code>PLAYGROUND=true</code> to serve it here.');
  });

  it('leaves API clients’ GETs as they were: the JSON answers of the GraphQL server', async () => {
    for (const accept of ['application/json', '*/*', 'application/graphql-response+json, text/html']) {
      const response = await read(await fetch(`${production.gateway.url}/graphql`, { headers: { accept } }));
      expect([accept, response.status, response.json?.errors?.[0]?.extensions?.code]).toEqual([accept, 400, 'BAD_REQUEST']);
    }
    const query = await fetch(`${production.gateway.url}/graphql?query=${encodeURIComponent('{ __typename }')}`, { headers: { accept: browserAccept, 'apollo-require-preflight': 'true' } });
    expect([query.status, await query.json()]).toEqual([200, { data: { __typename: 'Query' }, extensions: { cost: { requestedQueryCost: 0, actualQueryCost: 0 } } }]);
  });
});
