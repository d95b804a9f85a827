import { hash } from 'node:crypto';
import { bearerToken } from '../request/caller-token.ts';

/** Bytes of the caller tag a sealed page holds: 64 bits of the token's SHA-256. */
const CALLER_TAG_BYTES = 8;

/**
 * The caller reading and receiving a request's cursors, named by its bearer token as the request
 * reads it (src/request/caller-token.ts): any other Authorization header names no caller. A sealed
 * page holds only the first 64 bits of the token's SHA-256, enciphered with the rest of the page,
 * and a cursor read back is matched against it. A cursor is bound to the account its
 * rows belong to, not to this token (docs/security.md, "Cursors"): the tag only spares a cursor
 * read by the token it was issued to the checks that tell whose cursor it is.
 */
export class CursorCaller {
  readonly #token: string | undefined;
  #tag: Buffer | undefined;

  constructor(authorization: string | undefined) {
    this.#token = bearerToken(authorization);
  }

  /** The tag naming this caller inside a sealed page; empty without a bearer token. Computed once per request. */
  tag(): Buffer {
    this.#tag ??= this.#token === undefined ? Buffer.alloc(0) : hash('sha256', this.#token, 'buffer').subarray(0, CALLER_TAG_BYTES);
    return this.#tag;
  }

  /**
   * Whether `sealedFor`, the tag inside a page, names this caller. No token names the pages issued
   * to no token: those of code paging without a request, as the gateway sends no request without a
   * token to the platform.
   */
  isNamedBy(sealedFor: Buffer): boolean {
    return sealedFor.equals(this.tag());
  }
}

/** No token: the caller of code that pages without a request (tests, scripts). */
export const NO_CALLER = new CursorCaller(undefined);
