import { createHash } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import { CursorOwner, NO_OWNER } from '../../src/connections/owner-tag.ts';
import { callerToken } from '../../src/request/caller-token.ts';

/** The first 64 bits of the token's SHA-256: the tag a sealed page holds for its caller. */
const tagOf = (token: string) => createHash('sha256').update(token).digest().subarray(0, 8);

describe('CursorOwner', () => {
  it("tags a bearer token's caller with the first 64 bits of the token's SHA-256, whatever the scheme's spelling", () => {
    for (const header of ['Bearer demo-token-acme', 'bearer demo-token-acme', 'BEARER   demo-token-acme']) {
      expect(new CursorOwner(header).tag()).toEqual(tagOf('demo-token-acme'));
    }
    expect(new CursorOwner('Bearer demo-token-globex').tag()).toEqual(tagOf('demo-token-globex'));
  });

  it("takes the request's caller as its headers read it", () => {
    const headers = { authorization: 'Bearer demo-token-acme' };
    expect(new CursorOwner(callerToken(headers)).tag()).toEqual(tagOf('demo-token-acme'));
  });

  it('tags no caller with no bytes: no header, another scheme, a header that is no bearer token', () => {
    for (const header of [undefined, 'Basic dXNlcjpwYXNz', 'Bearer two words', '']) {
      expect(new CursorOwner(header).tag()).toEqual(Buffer.alloc(0));
    }
    expect(NO_OWNER.tag()).toEqual(Buffer.alloc(0));
  });

  it('computes its tag once', () => {
    const caller = new CursorOwner('Bearer demo-token-acme');
    expect(caller.tag()).toBe(caller.tag());
  });

  it('is named by its own tag only', () => {
    const acme = new CursorOwner('Bearer demo-token-acme');
    expect(acme.isNamedBy(tagOf('demo-token-acme'))).toBe(true);
    expect(acme.isNamedBy(tagOf('demo-token-acme-renewed'))).toBe(false);
    expect(acme.isNamedBy(tagOf('demo-token-acme').subarray(0, 7))).toBe(false);
    expect(acme.isNamedBy(Buffer.alloc(0))).toBe(false);
    // No token names only the pages issued to no token.
    expect(NO_OWNER.isNamedBy(Buffer.alloc(0))).toBe(true);
    expect(NO_OWNER.isNamedBy(tagOf('demo-token-acme'))).toBe(false);
  });
});
