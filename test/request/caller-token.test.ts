import { describe, expect, it } from '@jest/globals';
import { bearerToken, callerToken, canonicalAuthorization, tokenKey } from '../../src/request/caller-token.ts';

describe('the caller\'s token', () => {
  it('is a bearer token however the scheme is spelt, and nothing else is one', () => {
    expect(['bearer T', 'BEARER T', 'BeArEr \t T', 'Bearer T  ', 'Basic T', 'Bearer a b', 'Bearer', 'xBearer T', ''].map(bearerToken)).toEqual([
      'T', 'T', 'T', 'T', undefined, undefined, undefined, undefined, undefined,
    ]);
    expect([bearerToken(undefined), canonicalAuthorization('T')]).toEqual([undefined, 'Bearer T']);
  });

  it('is read once per request: every reader of the same headers gets the same reading, with its key', () => {
    const headers = { authorization: 'bearer  secret-token' };
    const first = callerToken(headers);
    // A later change of the header (the admission writes the canonical spelling) does not re-parse it.
    headers.authorization = 'Basic other';
    expect(callerToken(headers)).toBe(first);
    expect([first.token, first.key]).toEqual(['secret-token', tokenKey('secret-token')]);
    expect(tokenKey('secret-token')).toMatch(/^[0-9a-f]{32}$/);
  });

  it('has no token and no key for a header that is not a bearer token', () => {
    const basic = callerToken({ authorization: 'Basic dXNlcjpwYXNz' });
    expect([basic.token, basic.key]).toEqual([undefined, undefined]);
    expect([callerToken({}).token, callerToken({}).key]).toEqual([undefined, undefined]);
  });
});
