/** The platform API listener ({base_url}): routing, authentication and the endpoints. */
import type { IncomingMessage } from 'node:http';
import type { RouteName } from '../admin/faults.ts';
import { plainError, safeDecode } from '../http.ts';
import type { Reply } from '../http.ts';
import { getDocument, putDocument } from './document-routes.ts';
import type { DocumentEnv } from './document-routes.ts';
import { LIST_ROUTES } from './list-routes.ts';
import { UUID_PATTERN } from '../data/random.ts';
import type { AccountData } from '../data/store.ts';

export interface ApiEnv extends DocumentEnv {
  now(): number;
  linxEnvelope(): boolean;
  /** Largest page size served; larger requests are silently served at this size. */
  maxPageSize: number;
}

type ApiRoute = Exclude<RouteName, 'content'>;

export type ApiMatch =
  | { readonly route: ApiRoute; readonly documentId?: string }
  | { readonly route: 'unknown'; readonly status: 404 | 405; readonly allow?: string };

const LIST_ROUTES_BY_PATH = new Map<string, (typeof LIST_ROUTES)[number]>(LIST_ROUTES.map((list) => [list.path, list]));
const LIST_ROUTES_BY_NAME = new Map<ApiRoute, (typeof LIST_ROUTES)[number]>(LIST_ROUTES.map((list) => [list.route, list]));

const DOCUMENT_ROUTE = /^\/v1\/documents\/([^/]+)$/;

/** Resolves method + path to a route, or to the 404/405 it deserves. */
export function matchApi(method: string, path: string): ApiMatch {
  let route: ApiRoute | undefined;
  let allow = 'GET';
  const list = LIST_ROUTES_BY_PATH.get(path);
  if (list) route = method === 'GET' ? list.route : undefined;
  else {
    const m = DOCUMENT_ROUTE.exec(path);
    if (!m) return { route: 'unknown', status: 404 };
    allow = 'GET, PUT';
    const decoded = safeDecode(m[1] as string);
    if (decoded === undefined) return { route: 'unknown', status: 404 };
    // Ids are UUIDs, which the platform reads case-insensitively.
    const documentId = UUID_PATTERN.test(decoded) ? decoded.toLowerCase() : decoded;
    if (method === 'GET') return { route: 'document.get', documentId };
    if (method === 'PUT') return { route: 'document.put', documentId };
  }
  return route === undefined ? { route: 'unknown', status: 405, allow } : { route };
}

const BEARER = /^Bearer +(\S+)$/i;

function authenticate(env: ApiEnv, req: IncomingMessage): AccountData | undefined {
  const header = req.headers.authorization;
  const token = header === undefined ? undefined : BEARER.exec(header)?.[1];
  return token === undefined ? undefined : env.store.accountForToken(token);
}

/** The answer to one platform request (after faults have had their say). */
export function handleApi(env: ApiEnv, match: ApiMatch, req: IncomingMessage, params: URLSearchParams): Reply | Promise<Reply> {
  const nowMs = env.now();
  if (match.route === 'unknown') {
    req.resume();
    return match.status === 404
      ? plainError(404, `No endpoint ${req.method ?? ''} ${req.url ?? ''}`, nowMs)
      : plainError(405, `Method ${req.method ?? ''} is not allowed here`, nowMs, { allow: match.allow ?? 'GET' });
  }
  const account = authenticate(env, req);
  if (!account) {
    req.resume();
    const message = req.headers.authorization === undefined ? 'Missing Authorization header' : 'Invalid or unknown access token';
    return plainError(401, message, nowMs, { 'www-authenticate': 'Bearer' });
  }
  if (match.route === 'document.get') return getDocument(env, account, match.documentId ?? '', nowMs);
  if (match.route === 'document.put') return putDocument(env, account, match.documentId ?? '', req, nowMs);
  const list = LIST_ROUTES_BY_NAME.get(match.route)!;
  return list.answer({ account, params, nowMs, maxPageSize: env.maxPageSize }, env);
}
