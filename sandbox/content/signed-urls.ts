import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** What a content URL grants: the signature covers it, so a URL cannot be reused for another operation. */
export type ContentOperation = 'GET' | 'PUT' | 'THUMBNAIL' | 'LEGAL';

export type SignatureCheck = 'valid' | 'forged' | 'expired';

/**
 * Time-limited content URLs on the content host, signed with an HMAC over
 * (operation, resource, expiry) and a secret that lives only in this process.
 */
export class UrlSigner {
  readonly #secret = randomBytes(32);
  readonly #origin: string;

  constructor(origin: string) {
    this.#origin = origin;
  }

  #signature(operation: ContentOperation, resource: string, expires: number): string {
    return createHmac('sha256', this.#secret).update(`${operation}\n${resource}\n${expires}`).digest('base64url');
  }

  /** `path` is the content-host path of the resource; it is also what gets signed. */
  sign(operation: ContentOperation, path: string, expiresAtSeconds: number): string {
    return `${this.#origin}${path}?expires=${expiresAtSeconds}&signature=${this.#signature(operation, path, expiresAtSeconds)}`;
  }

  check(operation: ContentOperation, path: string, query: URLSearchParams, nowMs: number): SignatureCheck {
    const expiresText = query.get('expires') ?? '';
    const signature = query.get('signature') ?? '';
    if (!/^\d{1,12}$/.test(expiresText)) return 'forged';
    const expires = Number(expiresText);
    const expected = Buffer.from(this.#signature(operation, path, expires));
    const given = Buffer.from(signature);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return 'forged';
    return expires * 1000 < nowMs ? 'expired' : 'valid';
  }
}
