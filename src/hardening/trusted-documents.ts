import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { GraphQLError, Kind, parse } from 'graphql';
import type { Logger } from 'pino';
import { clip } from '../client-text.ts';
import { ErrorCode } from '../errors.ts';
import { refuse as refuseRequest } from '../http/refusal.ts';
import type { Stage } from '../http/stage.ts';
import { currentRequestId } from '../request/scope.ts';

/**
 * Trusted documents (Apollo Router's safelist, Hive's persisted documents):
 * the operations a client app was built with are known ahead of time, as a
 * manifest of id → document text, in either of two formats. Relay's compiler
 * writes an object of id → text (`npm run relay`, `persistConfig` in
 * relay.config.json) with the SHA-256 of each text as the id. Apollo's
 * `generate-persisted-query-manifest` writes `{ format: "apollo-persisted-query-manifest",
 * version: 1, operations: [{ id, name, type, body }] }`: its bodies are printed
 * with `__typename` added, as Apollo Client sends them, so their ids differ from
 * Relay's for the same source text, and only this format gives an Apollo client ids
 * the gateway knows.
 *
 * A request names its document by id: Relay's `doc_id`, the GraphQL-over-HTTP
 * draft's `documentId`, or Apollo's `extensions.persistedQuery.sha256Hash`. The
 * id is swapped for the manifest's text here, before Apollo sees the request,
 * so everything after (parsing, limits, execution) is unchanged. With `only`
 * (the production default), every other request is refused here, before any
 * parsing: the gateway runs nothing but the manifest's operations.
 */

export class TrustedDocumentsError extends Error {
  override name = 'TrustedDocumentsError';
}

export interface TrustedDocuments {
  /** The document text of an id: a manifest key or the SHA-256 of a manifest text. */
  lookup(id: string): string | undefined;
  readonly size: number;
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** The `format` Apollo's generate-persisted-query-manifest writes at the top of its manifest. */
const APOLLO_FORMAT = 'apollo-persisted-query-manifest';

/** The number of operations in a document; throws a message naming the document when it does not parse. */
function operationCount(text: string, id: string, source: string): number {
  try {
    return parse(text).definitions.filter((definition) => definition.kind === Kind.OPERATION_DEFINITION).length;
  } catch (error) {
    throw new TrustedDocumentsError(`${source}: document "${id}" is not valid GraphQL: ${(error as Error).message}`);
  }
}

/** Apollo's manifest as id → text; every entry needs a non-empty id and a body. */
function apolloEntries(manifest: Record<string, unknown>, source: string): [string, string][] {
  if (manifest.version !== 1) throw new TrustedDocumentsError(`${source}: an ${APOLLO_FORMAT} of version ${JSON.stringify(manifest.version)}; this gateway reads version 1`);
  if (!Array.isArray(manifest.operations)) throw new TrustedDocumentsError(`${source}: an ${APOLLO_FORMAT} needs an "operations" array`);
  return manifest.operations.map((operation: unknown, index) => {
    const { id, body } = (operation ?? {}) as { id?: unknown; body?: unknown };
    if (typeof id !== 'string' || id === '' || typeof body !== 'string') {
      throw new TrustedDocumentsError(`${source}: operations[${index}] is not an object with a string "id" and a GraphQL "body"`);
    }
    return [id, body];
  });
}

/**
 * A manifest's entries, id → text, in either format and unchecked: what the start-up banner lists
 * (loadTrustedDocuments checks them and refuses a bad manifest with its own message).
 */
export function manifestEntries(manifest: unknown): [unknown, unknown][] {
  if (typeof manifest !== 'object' || manifest === null || Array.isArray(manifest)) return [];
  const record = manifest as Record<string, unknown>;
  if (record.format !== APOLLO_FORMAT) return Object.entries(record);
  if (!Array.isArray(record.operations)) return [];
  return record.operations.map((operation: unknown) => {
    const { id, body } = (operation ?? {}) as { id?: unknown; body?: unknown };
    return [id, body];
  });
}

/**
 * A manifest object's documents, id → text, as Relay's compiler, Apollo's tool or graphql-codegen's
 * client preset (`persisted-documents.json`, Relay's shape) writes it; every document must parse
 * and hold exactly one operation. The file's manifest and a published one are read by this alone.
 */
export function manifestDocuments(manifest: unknown, source: string): Map<string, string> {
  if (typeof manifest !== 'object' || manifest === null || Array.isArray(manifest)) {
    throw new TrustedDocumentsError(`${source}: a trusted-documents manifest is a JSON object of id → GraphQL document, or an ${APOLLO_FORMAT}`);
  }
  const record = manifest as Record<string, unknown>;
  const entries: [string, unknown][] = record.format === APOLLO_FORMAT ? apolloEntries(record, source) : Object.entries(record);
  const documents = new Map<string, string>();
  for (const [id, text] of entries) {
    if (typeof text !== 'string' || id === '') throw new TrustedDocumentsError(`${source}: entry "${id}" is not an id with a GraphQL document as its value`);
    const operations = operationCount(text, id, source);
    if (operations !== 1) throw new TrustedDocumentsError(`${source}: document "${id}" holds ${operations} operations, not one`);
    documents.set(id, text);
  }
  if (documents.size === 0) throw new TrustedDocumentsError(`${source}: the manifest holds no documents`);
  return documents;
}

/** Each document under its id and under the SHA-256 of its text. */
export function documentsById(documents: Iterable<[string, string]>): Map<string, string> {
  const byId = new Map<string, string>();
  for (const [id, text] of documents) {
    byId.set(id, text);
    // Apollo clients name a document by the SHA-256 of its text, whatever id the manifest gives it.
    byId.set(sha256(text), text);
  }
  return byId;
}

function trustedDocumentsFrom(manifest: unknown, source: string): TrustedDocuments {
  const documents = manifestDocuments(manifest, source);
  const byId = documentsById(documents);
  return { lookup: (id) => byId.get(id), size: documents.size };
}

/** The file's manifest (when set) first, then what is published now: one lookup for the stage and the WebSocket check. */
export function eitherDocuments(file: TrustedDocuments | undefined, published: TrustedDocuments): TrustedDocuments {
  if (file === undefined) return published;
  return {
    lookup: (id) => file.lookup(id) ?? published.lookup(id),
    get size() {
      return file.size + published.size;
    },
  };
}

export async function loadTrustedDocuments(file: string): Promise<TrustedDocuments> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new TrustedDocumentsError(`TRUSTED_DOCUMENTS: cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? 'error'}); build it with npm run relay`);
  }
  let manifest: unknown;
  try {
    manifest = JSON.parse(text);
  } catch {
    throw new TrustedDocumentsError(`TRUSTED_DOCUMENTS: ${file} is not JSON`);
  }
  return trustedDocumentsFrom(manifest, `TRUSTED_DOCUMENTS: ${file}`);
}

/** What a request body (or the parameters of a GET) becomes. */
type Resolution = { kind: 'pass' } | { kind: 'resolved'; request: Record<string, unknown> } | { kind: 'refused'; code: ErrorCode; message: string };

function persistedQueryHash(extensions: unknown): string | undefined {
  const persisted = (extensions as { persistedQuery?: { sha256Hash?: unknown } } | null | undefined)?.persistedQuery;
  return typeof persisted?.sha256Hash === 'string' ? persisted.sha256Hash : undefined;
}

function withoutPersistedQuery(extensions: unknown): Record<string, unknown> | undefined {
  if (typeof extensions !== 'object' || extensions === null) return undefined;
  const { persistedQuery: _persisted, ...rest } = extensions as Record<string, unknown>;
  return Object.keys(rest).length > 0 ? rest : undefined;
}

/**
 * One GraphQL request (`{ query?, doc_id?, documentId?, extensions?, … }`)
 * against the manifest. An unknown `doc_id` is refused in every mode (nothing
 * else could resolve it); an unknown APQ hash is left to automatic persisted
 * queries unless only trusted documents may run. An id repeated in a message
 * is cut to `echoChars` characters (MAX_ECHOED_CHARS), as every echo is.
 */
function resolveTrustedDocument(documents: TrustedDocuments, only: boolean, request: Record<string, unknown>, echoChars: number): Resolution {
  const { doc_id: docId, documentId, ...rest } = request;
  const named = docId ?? documentId;
  const hash = persistedQueryHash(request.extensions);
  const id = typeof named === 'string' ? named : hash;
  if (named !== undefined && typeof named !== 'string') {
    return { kind: 'refused', code: ErrorCode.BAD_REQUEST, message: 'doc_id must be a string: the id of a trusted document' };
  }
  if (id === undefined) {
    if (!only) return { kind: 'pass' };
    return {
      kind: 'refused',
      code: ErrorCode.PERSISTED_QUERY_ID_REQUIRED,
      message: 'This gateway runs trusted documents only: send the operation’s id (Relay doc_id, or Apollo extensions.persistedQuery.sha256Hash) instead of its text',
    };
  }
  const text = documents.lookup(id);
  if (text === undefined) {
    if (!only && named === undefined) return { kind: 'pass' };
    return { kind: 'refused', code: ErrorCode.PERSISTED_QUERY_NOT_IN_LIST, message: `No trusted document has the id "${clip(id, echoChars)}"` };
  }
  if (typeof rest.query === 'string' && rest.query !== text) {
    return { kind: 'refused', code: ErrorCode.PERSISTED_QUERY_MISMATCH, message: `The query sent is not the trusted document "${clip(id, echoChars)}"` };
  }
  const extensions = withoutPersistedQuery(rest.extensions);
  const resolved: Record<string, unknown> = { ...rest, query: text };
  if (extensions === undefined) delete resolved.extensions;
  else resolved.extensions = extensions;
  return { kind: 'resolved', request: resolved };
}

export interface TrustedDocumentsPolicy {
  /** Refuse every request that does not name a manifest document (TRUSTED_DOCUMENTS_ONLY). */
  only: boolean;
  /** Longest client text repeated in a message (MAX_ECHOED_CHARS). */
  echoChars: number;
  /** Where each refusal is logged. */
  logger: Logger;
  /** Counts a refusal (the `trusted_document_refusals_total` metric). */
  onRefusal?: (code: ErrorCode) => void;
}

/** The parameters of a GraphQL GET as a request object (`extensions` and `variables` stay JSON text). */
function getParameters(url: URL): Record<string, unknown> {
  const request: Record<string, unknown> = Object.fromEntries(url.searchParams);
  if (typeof request.extensions === 'string') {
    try {
      request.extensions = JSON.parse(request.extensions);
    } catch {
      // Left as text: Apollo answers a malformed `extensions` parameter itself.
    }
  }
  return request;
}

/**
 * The manifest applied to the GraphQL route, after the body is parsed and
 * before the GraphQL server: a resolved POST body replaces `req.body`, a
 * resolved GET has its URL rewritten. Works on plain Node requests (with
 * `body` set by a JSON parser) as well as on Express's.
 */
export function trustedDocumentsHandler(documents: TrustedDocuments, { only, echoChars, logger, onRefusal }: TrustedDocumentsPolicy): Stage {
  /**
   * Logged at info like every client mistake, with the request id of the answer; the metric is what an
   * operator watches (a burst of NOT_IN_LIST after a client release means the manifest was not deployed).
   */
  const refuse = (req: IncomingMessage, res: ServerResponse, code: ErrorCode, message: string): void => {
    logger.info({ requestId: currentRequestId(), code, message }, 'trusted document refused');
    onRefusal?.(code);
    refuseRequest(res, 400, message, { code });
  };
  return (req, res, next) => {
    const withBody = req as IncomingMessage & { body?: unknown };
    if (req.method === 'GET') {
      const url = new URL(req.url ?? '/', 'http://gateway');
      const request = getParameters(url);
      // A browser's GET of the playground page carries no operation at all.
      if (!('query' in request) && !('doc_id' in request) && !('documentId' in request) && !('extensions' in request)) {
        next();
        return;
      }
      const outcome = resolveTrustedDocument(documents, only, request, echoChars);
      if (outcome.kind === 'refused') return refuse(req, res, outcome.code, outcome.message);
      if (outcome.kind === 'resolved') {
        const search = new URLSearchParams();
        for (const [key, value] of Object.entries(outcome.request)) search.set(key, typeof value === 'string' ? value : JSON.stringify(value));
        req.url = `${url.pathname}?${search}`;
      }
      next();
      return;
    }
    const body = withBody.body;
    const requests = Array.isArray(body) ? body : [body];
    const resolved: unknown[] = [];
    for (const request of requests) {
      if (typeof request !== 'object' || request === null) {
        // Not a GraphQL request at all: Apollo refuses it with its own message, unless only trusted documents may run.
        if (only) return refuse(req, res, ErrorCode.PERSISTED_QUERY_ID_REQUIRED, 'This gateway runs trusted documents only: send a JSON object with the operation’s id');
        resolved.push(request);
        continue;
      }
      const outcome = resolveTrustedDocument(documents, only, request as Record<string, unknown>, echoChars);
      if (outcome.kind === 'refused') return refuse(req, res, outcome.code, outcome.message);
      resolved.push(outcome.kind === 'resolved' ? outcome.request : request);
    }
    withBody.body = Array.isArray(body) ? resolved : resolved[0];
    next();
  };
}

/**
 * The same manifest applied to a request that does not come through the front door's stages (a
 * graphql-ws `subscribe` message): the request with its document's text, or the refusal, logged
 * and counted as the stage's are.
 */
export function trustedDocumentsCheck(documents: TrustedDocuments, { only, echoChars, logger, onRefusal }: TrustedDocumentsPolicy): (request: Record<string, unknown>) => Record<string, unknown> | GraphQLError {
  return (request) => {
    const outcome = resolveTrustedDocument(documents, only, request, echoChars);
    if (outcome.kind === 'refused') {
      logger.info({ code: outcome.code, message: outcome.message }, 'trusted document refused');
      onRefusal?.(outcome.code);
      return new GraphQLError(outcome.message, { extensions: { code: outcome.code } });
    }
    return outcome.kind === 'resolved' ? outcome.request : request;
  };
}
