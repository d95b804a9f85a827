/** GET and PUT /v1/documents/{documentId}, and the content URLs they hand out. */
import type { IncomingMessage } from 'node:http';
import { IMMUTABLE_ERROR_CODES, validateDocumentUpdate } from './document-validation.ts';
import { documentPath, thumbnailPath } from '../content/host.ts';
import { plainError, json, mediaType, readBody, validationError } from '../http.ts';
import type { Reply } from '../http.ts';
import type { ContentUrl, DocumentRecord, ThumbnailUrl } from '../data/records.ts';
import type { UrlSigner } from '../content/signed-urls.ts';
import type { AccountData, PlatformStore } from '../data/store.ts';
import { formatDate, formatTimestamp } from '../data/time.ts';

export interface DocumentEnv {
  readonly store: PlatformStore;
  readonly signer: UrlSigner;
  readonly urlTtlSeconds: number;
}

const MAX_JSON_BODY = 1_048_576;

function contentUrl(env: DocumentEnv, document: DocumentRecord, allowed: 'GET' | 'PUT', nowMs: number): ContentUrl {
  const expires = Math.floor(nowMs / 1000) + env.urlTtlSeconds;
  return { value: env.signer.sign(allowed, documentPath(document.id), expires), allowed, expiresIn: env.urlTtlSeconds };
}

function thumbnailUrl(env: DocumentEnv, document: DocumentRecord, nowMs: number): ThumbnailUrl {
  const expires = Math.floor(nowMs / 1000) + env.urlTtlSeconds;
  return { value: env.signer.sign('THUMBNAIL', thumbnailPath(document.id), expires), allow: 'GET', expiresIn: env.urlTtlSeconds };
}

/** A document of another Business Account is answered exactly like a missing one. */
function ownDocument(env: DocumentEnv, account: AccountData, documentId: string): DocumentRecord | undefined {
  const document = env.store.document(documentId);
  return document?.businessAccountId === account.profile.businessAccountId ? document : undefined;
}

function notFound(documentId: string, nowMs: number): Reply {
  return plainError(404, `Document ${documentId} not found`, nowMs);
}

export function getDocument(env: DocumentEnv, account: AccountData, documentId: string, nowMs: number): Reply {
  const document = ownDocument(env, account, documentId);
  if (!document) return notFound(documentId, nowMs);
  // Content URLs exist only once the file passed the malware scan.
  const body = document.status === 'SCANNED'
    ? { ...document, url: contentUrl(env, document, 'GET', nowMs), thumbnailUrl: thumbnailUrl(env, document, nowMs) }
    : document;
  return json(200, JSON.stringify(body));
}

function isJson(req: IncomingMessage): boolean {
  const type = mediaType(req) ?? '';
  return type === 'application/json' || /^application\/[\w.-]+\+json$/.test(type);
}

export async function putDocument(env: DocumentEnv, account: AccountData, documentId: string, req: IncomingMessage, nowMs: number): Promise<Reply> {
  if (!isJson(req)) {
    req.resume();
    return plainError(415, `Content-Type ${req.headers['content-type'] ?? '(none)'} is not supported; send application/json`, nowMs);
  }
  const raw = await readBody(req, MAX_JSON_BODY);
  if (raw === undefined) return plainError(413, `Request body exceeds ${MAX_JSON_BODY} bytes`, nowMs);
  const malformed = (message: string): Reply =>
    validationError([{ path: 'body', message, errorCode: 'MALFORMED_JSON' }], nowMs, 400, 'MALFORMED_JSON', 'Malformed JSON request body');
  let body: unknown;
  try {
    body = JSON.parse(raw.toString('utf8'));
  } catch {
    return malformed('is not valid JSON');
  }
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return malformed('must be a JSON object');
  const stored = ownDocument(env, account, documentId);
  if (!stored) return notFound(documentId, nowMs);

  const { errors, details } = validateDocumentUpdate(body as Record<string, unknown>, stored, formatDate(nowMs));
  if (details === undefined) {
    if (errors.every((error) => IMMUTABLE_ERROR_CODES.has(error.errorCode))) {
      return validationError(errors, nowMs, 422, 'IMMUTABLE_FIELD_CHANGED', 'documentType, extension and contentLength cannot change');
    }
    return validationError(errors, nowMs);
  }

  const { name: _n, description: _d, number: _no, issuingDate: _i, issuingCountryCode: _c, issuingStateCode: _s, expiryDate: _e, metadata: _m, ...kept } = stored;
  const updated: DocumentRecord = { ...kept, ...details, updatedBy: account.seeded.apiClient, updatedAt: formatTimestamp(nowMs) };
  env.store.saveDocument(updated);
  // The update answer carries the upload URL; provider fields may be left out.
  const { provider: _p, providerExternalId: _x, ...answer } = updated;
  return json(200, JSON.stringify({ ...answer, url: contentUrl(env, updated, 'PUT', nowMs) }));
}
