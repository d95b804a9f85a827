import { describe, expect, it } from '@jest/globals';
import { RequestCalls, type RequestCallsOptions } from '../../src/platform/request-calls.ts';
import { tokenKey } from '../../src/request/caller-token.ts';

const options = (overrides: Partial<RequestCallsOptions> = {}): RequestCallsOptions => ({
  maxCalls: 5,
  tokens: undefined,
  token: 'secret-token',
  tokenKey: undefined,
  onTokenRefused: undefined,
  ...overrides,
});

describe('RequestCalls', () => {
  it('starts with nothing counted and no ledger', () => {
    const calls = new RequestCalls(options());
    expect([calls.tally, calls.sent, calls.ledger, calls.credential]).toEqual([{ calls: 0, sent: 0 }, 0, undefined, undefined]);
  });

  it("computes the token's key once, on first read, unless the caller gave it", () => {
    expect(new RequestCalls(options()).tokenKey).toBe(tokenKey('secret-token'));
    expect(new RequestCalls(options({ tokenKey: 'given' })).tokenKey).toBe('given');
    expect(new RequestCalls(options({ token: undefined })).tokenKey).toBeUndefined();
  });

  it("gives each operation of a batch its own ledger and attempts, on the request's tally, options, token key and credentials", () => {
    const own = { draw: () => undefined, forOperation: () => own };
    const request = new RequestCalls(options({ ledger: { draw: () => undefined, forOperation: () => own } }));
    const key = request.tokenKey;
    request.credential = 'cred';
    request.sent = 2;
    request.tally.calls = 3;
    const operation = request.forOperation();
    expect(operation).not.toBe(request);
    expect([operation.options, operation.tally, operation.tokenKey, operation.credential]).toEqual([request.options, request.tally, key, 'cred']);
    expect(operation.tally).toBe(request.tally);
    expect([operation.ledger, operation.sent]).toEqual([own, 0]);
    expect(operation.ledger).not.toBe(request.ledger);
    operation.tally.sent++;
    expect(request.tally.sent).toBe(1);
  });

  it("counts an attempt sent in one place, for the operation and its request's tally", () => {
    const request = new RequestCalls(options());
    const operation = request.forOperation();
    request.attemptSent();
    operation.attemptSent();
    operation.attemptSent();
    expect([request.sent, operation.sent, request.tally.sent]).toEqual([1, 2, 3]);
  });

  it('shares a tally it is given', () => {
    const tally = { calls: 4, sent: 6 };
    expect(new RequestCalls(options(), tally).tally).toBe(tally);
  });
});
