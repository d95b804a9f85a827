import { callerHash } from './cursor-seal.ts';

/**
 * The caller a sealed cursor is issued to, named by its platform token: the Authorization header
 * without its case-insensitive `Bearer` scheme and the whitespace around the token, so that every
 * spelling of one header names one caller. The token stays private to this object (it is not
 * printed with the request context); cursors see only its keyed hash.
 */
export class CursorCaller {
  readonly #token: string;

  constructor(authorization: string | undefined) {
    this.#token = (authorization ?? '').replace(/^\s*bearer\s+/i, '').trim();
  }

  /** The caller's hash under the current cursor keys; empty without a token. */
  hash(): Buffer {
    return callerHash(this.#token);
  }
}

/** No token: the caller of code that pages without a request (tests, scripts). */
export const NO_CALLER = new CursorCaller(undefined);
