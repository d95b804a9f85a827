import { createHash } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

/**
 * Who is asking. The platform takes `Authorization: Bearer <token>` with the scheme in any case and
 * any run of spaces before the token (RFC 9110: the scheme is case-insensitive), so `bearer T`,
 * `BEARER T` and `Bearer  T` are one caller: the key is the token's, never the header's spelling.
 * A request without a bearer token is keyed by its client address.
 */
const BEARER = /^bearer[ \t]+([^\s]+)[ \t]*$/i;

/** The token of a bearer Authorization header; undefined for none or any other header. */
export function bearerToken(authorization: string | undefined): string | undefined {
  if (authorization === undefined) return undefined;
  return BEARER.exec(authorization)?.[1];
}

/** A request's caller, read from its headers once: its bearer token and the key of that token. */
export interface CallerToken {
  /** The bearer token, without its scheme; undefined without one (no header, `Basic …`, `Bearer a b`). */
  readonly token: string | undefined;
  /** tokenKey(token), computed on first read. */
  readonly key: string | undefined;
}

class ParsedCaller implements CallerToken {
  readonly token: string | undefined;
  #key: string | undefined;

  constructor(token: string | undefined) {
    this.token = token;
  }

  get key(): string | undefined {
    if (this.#key === undefined && this.token !== undefined) this.#key = tokenKey(this.token);
    return this.#key;
  }
}

/** The caller an Authorization header names, for code that has a header but no request (tests, scripts). */
export function parseCaller(authorization: string | undefined): CallerToken {
  return new ParsedCaller(bearerToken(authorization));
}

/**
 * Where a request's headers keep what they say of the caller: a symbol key of the headers object,
 * so every reader (budgets, platform client, cursors) shares one reading with one property load
 * (no lookup in a table of every request in flight), and nothing that lists or sends the headers
 * (for-in, Object.keys, JSON) sees it.
 */
const CALLER = Symbol('caller token');

type ReadHeaders = IncomingHttpHeaders & { [CALLER]?: CallerToken };

/**
 * The caller of the request whose headers these are, by the one rule of bearerToken: parsed on the
 * first read, the same object after. The Authorization header read is the one at the first read.
 */
export function callerToken(headers: IncomingHttpHeaders): CallerToken {
  return ((headers as ReadHeaders)[CALLER] ??= parseCaller(headers.authorization));
}

/** The one spelling the gateway forwards to the platform. */
export function canonicalAuthorization(token: string): string {
  return `Bearer ${token}`;
}

/** Hex characters of SHA-256 kept in a key: 128 bits, far beyond any collision between callers. */
const KEY_HASH_CHARS = 32;

/** A token's key in buckets and registries: a truncated SHA-256, so no token is kept in memory or sent to Redis. */
export function tokenKey(token: string): string {
  return createHash('sha256').update(token).digest('hex').slice(0, KEY_HASH_CHARS);
}
