import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from '@jest/globals';
import { refuse, refuseUnexpected } from '../../src/http/refusal.ts';
import { runWithRequestId } from '../../src/request/scope.ts';

// HTTP-level refusals: the status, the JSON content type, the length in bytes and the
// GraphQL-shaped body, with the request id when the refusal is written inside a request's scope.

/** A response that records what is written to it: the status, the headers and the body. */
class RecordedResponse {
  statusCode = 200;
  readonly headers: Record<string, string | number> = {};
  body: string | undefined;
  ends = 0;

  setHeader(name: string, value: string | number): this {
    this.headers[name] = value;
    return this;
  }

  end(text: string): this {
    this.body = text;
    this.ends += 1;
    return this;
  }
}

const recorded = () => new RecordedResponse();
const asResponse = (res: RecordedResponse) => res as unknown as ServerResponse;

describe('refuse', () => {
  it('writes the status, a JSON content type, the length and one GraphQL-shaped error, once', () => {
    const res = recorded();
    refuse(asResponse(res), 413, 'Request body too large', { code: 'BAD_USER_INPUT', limitBytes: 1024 });
    const body = '{"errors":[{"message":"Request body too large","extensions":{"code":"BAD_USER_INPUT","limitBytes":1024}}]}';
    expect(res).toEqual({
      statusCode: 413,
      headers: { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': body.length },
      body,
      ends: 1,
    });
  });

  it('stamps the request id of the scope it is written in, without changing the extensions given', () => {
    const res = recorded();
    const extensions = { code: 'RATE_LIMITED', retryAfter: 2 };
    runWithRequestId('req-42', () => refuse(asResponse(res), 429, 'Too many requests', extensions));
    expect(JSON.parse(res.body!)).toEqual({ errors: [{ message: 'Too many requests', extensions: { code: 'RATE_LIMITED', retryAfter: 2, requestId: 'req-42' } }] });
    expect(extensions).toEqual({ code: 'RATE_LIMITED', retryAfter: 2 });
  });

  it('gives the length in bytes, not characters, for a message outside ASCII', () => {
    const res = recorded();
    refuse(asResponse(res), 400, 'Requête refusée — ✓', { code: 'BAD_USER_INPUT' });
    expect(res.body).toBe('{"errors":[{"message":"Requête refusée — ✓","extensions":{"code":"BAD_USER_INPUT"}}]}');
    expect([res.body!.length, res.headers['Content-Length']]).toEqual([85, 91]);
  });

  it('writes empty extensions as an empty object', () => {
    const res = recorded();
    refuse(asResponse(res), 404, 'Not found', {});
    expect(res.body).toBe('{"errors":[{"message":"Not found","extensions":{}}]}');
  });
});

describe('refuseUnexpected', () => {
  it('writes a 500 that says nothing of the cause', () => {
    const res = recorded();
    refuseUnexpected(asResponse(res));
    const body = '{"errors":[{"message":"Internal server error","extensions":{"code":"INTERNAL_SERVER_ERROR"}}]}';
    expect(res).toEqual({
      statusCode: 500,
      headers: { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': body.length },
      body,
      ends: 1,
    });
  });
});

describe('a refusal on the wire', () => {
  it('reaches an HTTP client with its status, headers and body exactly', async () => {
    const server = createServer((req, res) => {
      if (req.url === '/unexpected') runWithRequestId('req-2', () => refuseUnexpected(res));
      else runWithRequestId('req-1', () => refuse(res, 405, 'Method not allowed', { code: 'BAD_REQUEST', allowed: ['GET', 'POST'] }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const refused = await fetch(`${base}/graphql`, { method: 'DELETE' });
      const refusedBody = await refused.text();
      expect([refused.status, refused.headers.get('content-type'), refused.headers.get('content-length'), refusedBody]).toEqual([
        405,
        'application/json; charset=utf-8',
        '126',
        '{"errors":[{"message":"Method not allowed","extensions":{"code":"BAD_REQUEST","allowed":["GET","POST"],"requestId":"req-1"}}]}',
      ]);
      const failed = await fetch(`${base}/unexpected`);
      const failedBody = await failed.text();
      expect([failed.status, failed.headers.get('content-type'), failed.headers.get('content-length'), failedBody]).toEqual([
        500,
        'application/json; charset=utf-8',
        '114',
        '{"errors":[{"message":"Internal server error","extensions":{"code":"INTERNAL_SERVER_ERROR","requestId":"req-2"}}]}',
      ]);
    } finally {
      await new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
    }
  });
});
