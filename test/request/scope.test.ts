import { describe, expect, it } from '@jest/globals';
import type { IncomingMessage } from 'node:http';
import type { Admission } from '../../src/request/admission.ts';
import { admissionOf, admit, currentRequestId, currentRequestScope, RequestScope, requestScopeOf, runInScope, runWithRequestId } from '../../src/request/scope.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const request = (headers: Record<string, string> = {}) => ({ headers }) as unknown as IncomingMessage;

describe('RequestScope', () => {
  it("takes the caller's sane x-request-id", () => {
    expect(new RequestScope({ 'x-request-id': 'abc-123.x:y' }).requestId).toBe('abc-123.x:y');
  });

  it('makes up an id for a missing or unsafe one, once, the same on every read', () => {
    for (const headers of [{}, { 'x-request-id': 'has space' }, { 'x-request-id': 'x'.repeat(129) }, { 'x-request-id': '' }]) {
      const scope = new RequestScope(headers);
      expect(scope.requestId).toMatch(UUID);
      expect(scope.requestId).toBe(scope.requestId);
    }
  });

  it('keeps an id it was given over the header', () => {
    expect(new RequestScope({ 'x-request-id': 'from-header' }, 'given').requestId).toBe('given');
  });
});

describe('the scope a request is handled in', () => {
  it('has no id outside a request', () => {
    expect(currentRequestId()).toBeUndefined();
    expect(currentRequestScope()).toBeUndefined();
  });

  it("is the request's through everything its handling starts, awaited or not", async () => {
    const seen = await runWithRequestId('req-a', async () => {
      const ids = [currentRequestId()];
      await new Promise((resolve) => setImmediate(resolve));
      ids.push(currentRequestId());
      ids.push(await new Promise<string | undefined>((resolve) => setTimeout(() => resolve(currentRequestId()), 0)));
      return ids;
    });
    expect(seen).toEqual(['req-a', 'req-a', 'req-a']);
    expect(currentRequestId()).toBeUndefined();
  });

  it('keeps concurrent requests apart, and an inner request its own', async () => {
    const [a, b] = await Promise.all([
      runWithRequestId('req-1', async () => (await Promise.resolve(), currentRequestId())),
      runWithRequestId('req-2', async () => (await Promise.resolve(), currentRequestId())),
    ]);
    expect([a, b]).toEqual(['req-1', 'req-2']);
    expect(runWithRequestId('outer', () => [runWithRequestId('inner', () => currentRequestId()), currentRequestId()])).toEqual(['inner', 'outer']);
  });

  it("runs a request's handling in the request's own scope, with its arguments", () => {
    const req = request({ 'x-request-id': 'req-scope' });
    const scope = requestScopeOf(req);
    expect(runInScope(scope, (a: number, b: string) => [a, b, currentRequestScope(), currentRequestId()], 1, 'x')).toEqual([1, 'x', scope, 'req-scope']);
  });
});

describe('requestScopeOf, admit and admissionOf', () => {
  it("is one scope per request, made on first use from the request's headers", () => {
    const req = request({ 'x-request-id': 'req-7' });
    const scope = requestScopeOf(req);
    expect(requestScopeOf(req)).toBe(scope);
    expect(scope.requestId).toBe('req-7');
    expect(requestScopeOf(request())).not.toBe(scope);
  });

  it("keeps the admission in the request's scope", () => {
    const req = request();
    const admission: Admission = { callerKey: 'token:abc', caller: 'token', tokenKey: 'abc', refusedByPlatform: false };
    expect(admissionOf(req)).toBeUndefined();
    admit(req, admission);
    expect(admissionOf(req)).toBe(admission);
    expect(requestScopeOf(req).admission).toBe(admission);
    expect(admissionOf(undefined)).toBeUndefined();
  });
});
