import { parseCaller, type CallerToken } from '../request/caller-token.ts';

/** Bytes of the caller tag a sealed page holds: 64 bits of the token's SHA-256. */
const CALLER_TAG_BYTES = 8;

/**
 * The cursor owner: whom a request's cursors are sealed to and read back by, named by the
 * request's bearer token as the request reads it (src/request/caller-token.ts): any other Authorization header names no caller. A sealed
 * page holds only the first 64 bits of the token's SHA-256, enciphered with the rest of the page,
 * and a cursor read back is matched against it. A cursor is bound to the account its
 * rows belong to, not to this token (docs/security.md, "Cursors"): the tag only spares a cursor
 * read by the token it was issued to the checks that tell whose cursor it is.
 */
export class CursorOwner {
  readonly #caller: CallerToken;
  #tag: Buffer | undefined;

  /** The request's caller (callerToken), or the caller an Authorization header names. */
  constructor(caller: CallerToken | string | undefined) {
    this.#caller = typeof caller === 'object' ? caller : parseCaller(caller);
  }

  /**
   * The tag naming this caller inside a sealed page; empty without a bearer token. Computed once
   * per request, from the token's key the request computes anyway (tokenKey: the token's SHA-256,
   * whose first 64 bits are the tag), so that paging costs no hash of its own.
   */
  tag(): Buffer {
    this.#tag ??= this.#caller.key === undefined ? Buffer.alloc(0) : Buffer.from(this.#caller.key.slice(0, 2 * CALLER_TAG_BYTES), 'hex');
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

/** No token: the cursor owner of code that pages without a request (tests, scripts). */
export const NO_OWNER = new CursorOwner(undefined);
