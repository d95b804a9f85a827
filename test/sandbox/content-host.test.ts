import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { request } from 'node:http';
import { accountOf } from '../support/expected.ts';
import { startSandbox } from '../../sandbox/index.ts';
import type { DocumentRecord, DocumentExtension, Sandbox } from '../../sandbox/index.ts';
import { ACME, call, get, put } from './client.ts';
import type { ShapeA } from './client.ts';
import { until } from '../support/time.ts';

// A movable clock, so URL expiry can be tested without waiting.
let clock = Date.parse('2026-11-20T08:00:00.000Z');
let sandbox: Sandbox;
let acme: string;

beforeAll(async () => {
  sandbox = await startSandbox({ now: () => new Date(clock), scanDelayMs: 30, urlTtlSeconds: 60 });
  acme = accountOf(sandbox, ACME);
});
beforeEach(() => {
  sandbox.store.reset();
  sandbox.resetRequests();
});
afterAll(() => sandbox.close());

const PDF = Buffer.from('%PDF-1.7\n1 0 obj << /Type /Catalog >> endobj\n%%EOF\n');
const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);
const JPEG = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 16, 0x4a, 0x46, 0x49, 0x46]);
const EICAR = 'X5O!P%@AP[4\\PZX54(P^)7CC)7}$EICAR-STANDARD-ANTIVIRUS-TEST-FILE!$H+H*';

function documentWith(extension: DocumentExtension, status: DocumentRecord['status'] = 'SCANNED'): DocumentRecord {
  const found = sandbox.store.documents(acme).find((d) => d.documentType === 'other' && d.extension === extension && d.status === status)
    ?? sandbox.store.documents(acme).find((d) => d.extension === extension && d.status === status);
  if (!found) throw new Error(`no seeded ${status} ${extension} document`);
  return found;
}

/** The details of a document unchanged, as a valid update body. */
function detailsOf(d: DocumentRecord): Record<string, unknown> {
  const { documentType, name, description, number, issuingDate, issuingCountryCode, issuingStateCode, expiryDate, metadata } = d;
  return { documentType, name, description, number, issuingDate, issuingCountryCode, issuingStateCode, expiryDate, metadata };
}

async function uploadUrl(document: DocumentRecord): Promise<string> {
  const { status, body } = await put<{ url: { value: string } }>(sandbox, `/v1/documents/${document.id}`, detailsOf(document));
  expect(status).toBe(200);
  return body.url.value;
}

async function downloadUrls(document: DocumentRecord): Promise<{ url: string; thumbnail: string }> {
  const { body } = await get<{ url: { value: string }; thumbnailUrl: { value: string } }>(sandbox, `/v1/documents/${document.id}`);
  return { url: body.url.value, thumbnail: body.thumbnailUrl.value };
}

const upload = (url: string, bytes: Buffer, contentType?: string, headers: Record<string, string> = {}) =>
  call<ShapeA>(url, { method: 'PUT', body: Uint8Array.from(bytes), headers: { ...(contentType ? { 'content-type': contentType } : {}), ...headers } });

/** The document once its scan has finished (bounded for a hang, not for speed). */
function settled(id: string): Promise<DocumentRecord> {
  return until('the scan', () => {
    const document = sandbox.store.document(id)!;
    return document.status === 'UPLOADED' ? undefined : document;
  }, 20_000, 10);
}

describe('upload through the signed PUT URL', () => {
  it('stores a new version, marks it UPLOADED, then SCANNED, and serves the bytes back', async () => {
    const document = documentWith('PDF');
    const url = await uploadUrl(document);
    expect(url.startsWith(`${sandbox.documentsUrl}/documents/${document.id}?`)).toBe(true);
    const answer = await upload(url, PDF, 'application/pdf');
    expect(answer.status).toBe(200);
    expect(answer.headers.get('etag')).toMatch(/^"[0-9a-f]{64}"$/);
    const next = String(Number(document.version) + 1);
    expect(sandbox.store.document(document.id)).toMatchObject({ version: next, contentLength: PDF.length, status: 'UPLOADED', updatedAt: '2026-11-20T08:00:00.000+0000' });

    expect(await settled(document.id)).toMatchObject({ version: next, status: 'SCANNED' });
    const { url: download, thumbnail } = await downloadUrls(document);
    const file = await fetch(download);
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toBe('application/pdf');
    expect(Buffer.from(await file.arrayBuffer())).toEqual(PDF);
    const image = await fetch(thumbnail);
    expect(image.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await image.arrayBuffer()).subarray(0, 8)).toEqual(PNG.subarray(0, 8));

    expect((await upload(url, PDF, 'application/pdf')).status).toBe(200);
    expect(sandbox.store.document(document.id)?.version).toBe(String(Number(document.version) + 2));
  });

  it('hands out no content URL and serves no content while the scan of a new version runs', async () => {
    const slowScan = await startSandbox({ scanDelayMs: 60_000 });
    try {
      const document = slowScan.store.documents(acme).find((d) => d.status === 'SCANNED' && d.extension === 'PDF')!;
      const before = await get<{ url: { value: string } }>(slowScan, `/v1/documents/${document.id}`);
      const { body } = await put<{ url: { value: string } }>(slowScan, `/v1/documents/${document.id}`, detailsOf(document));
      expect((await upload(body.url.value, PDF, 'application/pdf')).status).toBe(200);
      const answer = await get<Record<string, unknown>>(slowScan, `/v1/documents/${document.id}`);
      expect(answer.body.status).toBe('UPLOADED');
      expect(answer.body).not.toHaveProperty('url');
      expect(answer.body).not.toHaveProperty('thumbnailUrl');
      const download = await call<ShapeA>(before.body.url.value);
      expect(download.status).toBe(409);
      expect(download.body.message).toBe(`Document ${document.id} is UPLOADED; content is served once it is SCANNED`);
    } finally {
      await slowScan.close();
    }
  });

  it('flags a file carrying the EICAR test signature as MALICIOUS and hands out no download URL', async () => {
    const document = documentWith('PDF');
    const url = await uploadUrl(document);
    expect((await upload(url, Buffer.concat([PDF, Buffer.from(EICAR)]), 'application/pdf')).status).toBe(200);
    expect((await settled(document.id)).status).toBe('MALICIOUS');
    const answer = await get<Record<string, unknown>>(sandbox, `/v1/documents/${document.id}`);
    expect(answer.body.status).toBe('MALICIOUS');
    expect(answer.body).not.toHaveProperty('url');
    expect(answer.body).not.toHaveProperty('thumbnailUrl');
  });

  it('accepts JPEG bytes for a JPG or JPEG document and PNG bytes for a PNG one, with or without Content-Type', async () => {
    expect((await upload(await uploadUrl(documentWith('JPG')), JPEG, 'image/jpeg')).status).toBe(200);
    expect((await upload(await uploadUrl(documentWith('JPEG')), JPEG)).status).toBe(200);
    expect((await upload(await uploadUrl(documentWith('PNG')), PNG, 'image/png; charset=binary')).status).toBe(200);
  });

  it('answers 415 when the bytes or the Content-Type do not match the extension', async () => {
    const document = documentWith('PDF');
    const url = await uploadUrl(document);
    const before = sandbox.store.document(document.id);
    const wrongBytes = await upload(url, PNG, 'application/pdf');
    expect(wrongBytes.status).toBe(415);
    expect(wrongBytes.body).toMatchObject({ error: 'Unsupported Media Type', message: 'The file is not a PDF file' });
    expect((await upload(url, PDF, 'image/png')).status).toBe(415);
    expect((await upload(url, Buffer.alloc(0), 'application/pdf')).status).toBe(415);
    expect(sandbox.store.document(document.id)).toEqual(before);
  });

  it('answers 413 above 5242880 bytes, announced or streamed, and accepts exactly 5242880', async () => {
    const document = documentWith('PDF');
    const url = await uploadUrl(document);
    const before = sandbox.store.document(document.id);
    const limit = Buffer.alloc(5_242_880, 0x20);
    PDF.copy(limit);
    const over = Buffer.concat([limit, Buffer.from(' ')]);
    const announced = await upload(url, over, 'application/pdf');
    expect(announced.status).toBe(413);
    expect(announced.body.error).toBe('Payload Too Large');
    const chunks = [limit.subarray(0, 3_000_000), limit.subarray(3_000_000), Buffer.from('!')];
    const stream = new ReadableStream<Uint8Array>({ pull(controller) { const next = chunks.shift(); if (next) controller.enqueue(next); else controller.close(); } });
    const streamed = await call<ShapeA>(url, { method: 'PUT', body: stream, headers: { 'content-type': 'application/pdf' }, duplex: 'half' } as RequestInit);
    expect(streamed.status).toBe(413);
    expect(sandbox.store.document(document.id)).toEqual(before);
    expect((await upload(url, limit, 'application/pdf')).status).toBe(200);
    expect(sandbox.store.document(document.id)?.contentLength).toBe(5_242_880);
  });
});

describe('Expect: 100-continue', () => {
  /** PUTs with Expect: 100-continue, sending the body only if the server asks for it. */
  const expectContinue = (url: string, body: Buffer, declaredLength = body.length) => new Promise<{ status: number; continued: boolean }>((resolve, reject) => {
    let continued = false;
    const req = request(url, { method: 'PUT', headers: { 'content-type': 'application/pdf', 'content-length': declaredLength, expect: '100-continue' } });
    req.on('continue', () => {
      continued = true;
      req.end(body);
    });
    req.on('response', (res) => {
      res.resume();
      res.on('end', () => {
        req.destroy();
        resolve({ status: res.statusCode ?? 0, continued });
      });
    });
    req.on('error', reject);
    req.flushHeaders();
  });

  it('refuses an announced oversize upload before the body is sent, and asks for the body otherwise', async () => {
    const url = await uploadUrl(documentWith('PDF'));
    expect(await expectContinue(url, Buffer.alloc(0), 5_242_881)).toEqual({ status: 413, continued: false });
    expect(await expectContinue(url, PDF)).toEqual({ status: 200, continued: true });
  });
});

describe('signed URLs', () => {
  it('answers 403 once the URL has expired', async () => {
    const document = documentWith('PDF');
    const url = await uploadUrl(document);
    const { url: download } = await downloadUrls(documentWith('PNG'));
    const start = clock;
    try {
      clock = start + 61_000;
      const late = await upload(url, PDF, 'application/pdf');
      expect(late.status).toBe(403);
      expect(late.body.message).toBe('The content URL has expired');
      expect((await call(download)).status).toBe(403);
      clock = start + 60_000;
      expect((await call(download)).status).toBe(200);
    } finally {
      clock = start;
    }
  });

  it('answers 403 for a forged signature, another document, or another operation', async () => {
    const document = documentWith('PDF');
    const url = await uploadUrl(document);
    const before = sandbox.store.document(document.id);
    const forged = url.replace(/signature=(.)/, (_m, c: string) => `signature=${c === 'A' ? 'B' : 'A'}`);
    const answer = await upload(forged, PDF, 'application/pdf');
    expect(answer.status).toBe(403);
    expect(answer.body).toMatchObject({ error: 'Forbidden', message: 'The content URL signature does not match' });
    const other = documentWith('PNG');
    expect((await upload(url.replace(document.id, other.id), PNG, 'image/png')).status).toBe(403);
    // A PUT URL does not grant GET, and a later expiry cannot be written in.
    expect((await call(url)).status).toBe(403);
    expect((await upload(url.replace(/expires=\d+/, (m) => `${m}0`), PDF, 'application/pdf')).status).toBe(403);
    expect((await upload(url.split('?')[0]!, PDF, 'application/pdf')).status).toBe(403);
    expect(sandbox.store.document(document.id)).toEqual(before);
  });

  it("serves the seeded file of a document that was never uploaded, at its recorded length", async () => {
    const document = documentWith('PNG');
    const file = await fetch((await downloadUrls(document)).url);
    const bytes = Buffer.from(await file.arrayBuffer());
    expect(file.headers.get('content-type')).toBe('image/png');
    expect(bytes.length).toBe(document.contentLength);
    expect(bytes.subarray(0, 8)).toEqual(PNG.subarray(0, 8));
  });

  it("serves an acceptance's legal document at its downloadUrl", async () => {
    const acceptance = sandbox.store.acceptances(acme)[0]!;
    expect(acceptance.downloadUrl.startsWith(`${sandbox.documentsUrl}/legal-documents/${acceptance.documentId}/versions/${acceptance.documentVersion}?expires=`)).toBe(true);
    const file = await fetch(acceptance.downloadUrl);
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toBe('application/pdf');
    expect(Buffer.from(await file.arrayBuffer()).subarray(0, 4).toString()).toBe('%PDF');
  });
});

describe('content host requests', () => {
  it('needs no Authorization header and records whether one arrived', async () => {
    const document = documentWith('PDF');
    const url = await uploadUrl(document);
    sandbox.resetRequests();
    await upload(url, PDF, 'application/pdf');
    await upload(url, PDF, 'application/pdf', { authorization: 'Bearer leaked' });
    const path = `/documents/${document.id}`;
    const query = url.split('?')[1];
    expect(sandbox.requests).toEqual([
      { host: 'content', method: 'PUT', route: 'content', path, query, at: expect.any(Number) },
      { host: 'content', method: 'PUT', route: 'content', path, query, authorization: 'Bearer leaked', at: expect.any(Number) },
    ]);
  });

  it('answers CORS preflights, 404 for unknown paths and 405 for other methods', async () => {
    const document = documentWith('PDF');
    const preflight = await fetch(`${sandbox.documentsUrl}/documents/${document.id}`, { method: 'OPTIONS', headers: { origin: 'http://localhost:4000', 'access-control-request-method': 'PUT' } });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('*');
    expect(preflight.headers.get('access-control-allow-methods')).toBe('GET, PUT');
    expect((await call(`${sandbox.documentsUrl}/v1/documents/${document.id}`)).status).toBe(404);
    expect((await call(`${sandbox.documentsUrl}/documents/${document.id}`, { method: 'DELETE' })).status).toBe(405);
    expect(sandbox.requests.map((r) => r.route)).toEqual(['content', 'unknown', 'content']);
  });
});
