import { bearerToken } from '../request/caller-token.ts';
import { callerTag } from './cursor-seal.ts';

/**
 * The caller reading and receiving a request's cursors, named by its bearer token as the request
 * reads it (src/request/caller-token.ts): any other Authorization header names no caller. The token
 * stays private to this object (it is not printed with the request context); a sealed page holds
 * only its keyed tag, and a cursor read back is matched against it. A cursor is bound to the
 * account its rows belong to, not to this token (docs/security.md, "Cursors"): the tag only spares
 * a cursor read by the token it was issued to the checks that tell whose cursor it is.
 */
export class CursorCaller {
  readonly #token: string | undefined;

  constructor(authorization: string | undefined) {
    this.#token = bearerToken(authorization);
  }

  /** The token's tag under the current cursor keys (cursor-seal.ts); empty without a bearer token. */
  tag(): Buffer {
    return callerTag(this.#token);
  }

  /**
   * Whether `sealedFor`, a tag inside a page opened with `tagUnder` (its secret's tagging), names
   * this caller. No token names the pages issued to no token: those of code paging without a
   * request, as the gateway sends no request without a token to the platform.
   */
  isNamedBy(sealedFor: Buffer, tagUnder: (token: string | undefined) => Buffer): boolean {
    return sealedFor.equals(tagUnder(this.#token));
  }
}

/** No token: the caller of code that pages without a request (tests, scripts). */
export const NO_CALLER = new CursorCaller(undefined);
