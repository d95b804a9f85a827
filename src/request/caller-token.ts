import { createHash } from 'node:crypto';

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
