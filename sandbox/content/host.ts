/**
 * The content host ({documents_url}): a separate listener that serves and
 * accepts document files through signed, time-limited URLs. It needs no
 * Authorization header; the signature is the credential.
 */
import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { containsEicar, hasMagicOf, MAX_CONTENT_LENGTH, mediaTypeOf, synthesizeFile, THUMBNAIL_PNG } from './file-samples.ts';
import { plainError, mediaType, readBody, safeDecode } from '../http.ts';
import type { Reply, TimerSet } from '../http.ts';
import type { DocumentRecord } from '../data/records.ts';
import type { ContentOperation, UrlSigner } from './signed-urls.ts';
import type { PlatformStore } from '../data/store.ts';
import { formatTimestamp } from '../data/time.ts';

export interface ContentEnv {
  readonly store: PlatformStore;
  readonly signer: UrlSigner;
  readonly scanDelayMs: number;
  /** Scan timers; cancelled when the store is re-seeded or the sandbox closes. */
  readonly scans: TimerSet;
  now(): number;
}

export function documentPath(documentId: string): string {
  return `/documents/${documentId}`;
}

export function thumbnailPath(documentId: string): string {
  return `/documents/${documentId}/thumbnail`;
}

export function legalDocumentPath(documentId: string, documentVersion: string): string {
  return `/legal-documents/${encodeURIComponent(documentId)}/versions/${encodeURIComponent(documentVersion)}`;
}

/** Browsers upload straight to the content host from another origin. */
export const CORS_HEADERS: Readonly<Record<string, string>> = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'GET, PUT',
  'access-control-allow-headers': 'content-type',
  'access-control-max-age': '600',
};

export type ContentTarget =
  | { readonly kind: 'download' | 'upload' | 'thumbnail'; readonly documentId: string }
  | { readonly kind: 'legal'; readonly documentId: string; readonly documentVersion: string }
  | { readonly kind: 'preflight' };

const DOCUMENT_ROUTE = /^\/documents\/([^/]+)(\/thumbnail)?$/;
const LEGAL_ROUTE = /^\/legal-documents\/([^/]+)\/versions\/([^/]+)$/;

/** Matches a content-host path; 'method' when the path exists but not for this method. */
export function matchContent(method: string, path: string): ContentTarget | 'method' | undefined {
  const documentMatch = DOCUMENT_ROUTE.exec(path);
  const legalMatch = documentMatch ? null : LEGAL_ROUTE.exec(path);
  if (!documentMatch && !legalMatch) return undefined;
  if (method === 'OPTIONS') return { kind: 'preflight' };
  if (legalMatch) {
    const documentId = safeDecode(legalMatch[1] as string);
    const documentVersion = safeDecode(legalMatch[2] as string);
    if (documentId === undefined || documentVersion === undefined) return undefined;
    return method === 'GET' ? { kind: 'legal', documentId, documentVersion } : 'method';
  }
  const documentId = (documentMatch as RegExpExecArray)[1] as string;
  if ((documentMatch as RegExpExecArray)[2]) return method === 'GET' ? { kind: 'thumbnail', documentId } : 'method';
  if (method === 'GET') return { kind: 'download', documentId };
  if (method === 'PUT') return { kind: 'upload', documentId };
  return 'method';
}

const OPERATIONS: Readonly<Record<'download' | 'upload' | 'thumbnail' | 'legal', ContentOperation>> = { download: 'GET', upload: 'PUT', thumbnail: 'THUMBNAIL', legal: 'LEGAL' };

function file(body: Buffer, contentType: string): Reply {
  return { status: 200, headers: { 'content-type': contentType, 'cache-control': 'private, max-age=60', ...CORS_HEADERS }, body };
}

function withCors(reply: Reply): Reply {
  return { ...reply, headers: { ...reply.headers, ...CORS_HEADERS } };
}

export function serveContent(env: ContentEnv, target: ContentTarget, path: string, params: URLSearchParams, req: IncomingMessage): Reply | Promise<Reply> {
  const nowMs = env.now();
  if (target.kind === 'preflight') return { status: 204, headers: CORS_HEADERS, body: '' };
  const check = env.signer.check(OPERATIONS[target.kind], path, params, nowMs);
  if (check !== 'valid') {
    req.resume();
    return withCors(plainError(403, check === 'expired' ? 'The content URL has expired' : 'The content URL signature does not match', nowMs));
  }
  if (target.kind === 'legal') {
    return file(synthesizeFile('PDF', 2048 + target.documentId.length), 'application/pdf');
  }
  const document = env.store.document(target.documentId);
  if (!document) {
    req.resume();
    return withCors(plainError(404, `Document ${target.documentId} not found`, nowMs));
  }
  switch (target.kind) {
    case 'thumbnail':
      return file(THUMBNAIL_PNG, 'image/png');
    case 'download':
      if (document.status !== 'SCANNED') return withCors(plainError(409, `Document ${document.id} is ${document.status}; content is served once it is SCANNED`, nowMs));
      return file(env.store.content(document.id) ?? synthesizeFile(document.extension, document.contentLength), mediaTypeOf(document.extension));
    case 'upload':
      return upload(env, document, req).then(withCors);
  }
}

async function upload(env: ContentEnv, document: DocumentRecord, req: IncomingMessage): Promise<Reply> {
  const nowMs = env.now();
  const declared = req.headers['content-length'];
  if (declared !== undefined && Number(declared) > MAX_CONTENT_LENGTH) {
    return plainError(413, `Content-Length ${declared} exceeds the limit of ${MAX_CONTENT_LENGTH} bytes`, nowMs, { connection: 'close' });
  }
  const expected = mediaTypeOf(document.extension);
  const sent = mediaType(req);
  if (sent !== undefined && sent !== expected) {
    req.resume();
    return plainError(415, `Content-Type ${sent} does not match the document's extension ${document.extension} (${expected})`, nowMs);
  }
  const bytes = await readBody(req, MAX_CONTENT_LENGTH);
  if (bytes === undefined) return plainError(413, `Upload exceeds the limit of ${MAX_CONTENT_LENGTH} bytes`, env.now());
  if (!hasMagicOf(document.extension, bytes)) {
    return plainError(415, `The file is not a ${document.extension} file`, env.now());
  }
  // Re-read: another upload may have landed while this one streamed.
  const current = env.store.document(document.id) ?? document;
  const version = String(Number(current.version) + 1);
  const uploadedAt = env.now();
  env.store.saveContent(document.id, bytes);
  env.store.saveDocument({ ...current, version, contentLength: bytes.length, status: 'UPLOADED', updatedAt: formatTimestamp(uploadedAt) });
  const malicious = containsEicar(bytes);
  env.scans.after(env.scanDelayMs, () => {
    const latest = env.store.document(document.id);
    // A newer upload restarts the scan; this result belongs to an older version.
    if (latest?.version !== version || latest.status !== 'UPLOADED') return;
    env.store.saveDocument({ ...latest, status: malicious ? 'MALICIOUS' : 'SCANNED', updatedAt: formatTimestamp(Math.max(env.now(), uploadedAt + 1)) });
  });
  return { status: 200, headers: { etag: `"${createHash('sha256').update(bytes).digest('hex')}"` }, body: '' };
}
