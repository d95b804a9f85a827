import { EventEmitter, once } from 'node:events';
import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { bodyStage } from '../../src/http/body.ts';
import { frontDoor } from '../../src/http/front-door.ts';
import { createLogger } from '../../src/logger.ts';

// The body stage's own reader: a POST of plain JSON with a declared length, read as its chunks
// come and parsed once. Every other body goes to body-parser (test/hardening/ covers both).

describe('the body of a declared length', () => {
  const lines: Array<Record<string, unknown>> = [];
  const wrote = new EventEmitter();
  const logged = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      wrote.emit('line');
      done();
    },
  });
  const logger = createLogger('info', { destination: logged });
  let server: Server;
  let port: number;

  beforeAll(async () => {
    server = createServer(
      frontDoor(
        [
          bodyStage(1024, logger),
          (req, res) => res.end(JSON.stringify({ body: (req as IncomingMessage & { body?: unknown }).body })),
        ],
        logger,
      ),
    );
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    server.close();
    await once(server, 'close');
  });
  afterEach(() => {
    lines.length = 0;
  });

  /** Sends `parts` as the body, each in a write of its own, the next once the server has had the one before. */
  function post(parts: Buffer[], length: number, end: 'end' | 'hang up'): Promise<{ status: number; body: string } | 'hung up'> {
    return new Promise((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port, method: 'POST', path: '/graphql', headers: { 'content-type': 'application/json', 'content-length': String(length), 'x-request-id': 'body-1' } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode!, body: Buffer.concat(chunks).toString() }));
      });
      req.on('error', (error) => (end === 'hang up' ? resolve('hung up') : reject(error)));
      const write = (index: number) => {
        if (index === parts.length) {
          if (end === 'end') req.end();
          else req.destroy();
          return;
        }
        req.write(parts[index], () => setImmediate(() => write(index + 1)));
      };
      write(0);
    });
  }

  it('reads a body sent in several chunks as one, a UTF-8 BOM and leading whitespace dropped', async () => {
    const text = Buffer.from('\u{feff} \n{"query":"{ ping }","variables":{"name":"Zoë"}}');
    const parts = [text.subarray(0, 7), text.subarray(7, 30), text.subarray(30)];
    expect(await post(parts, text.length, 'end')).toEqual({ status: 200, body: '{"body":{"query":"{ ping }","variables":{"name":"Zoë"}}}' });
    expect(lines).toEqual([]);
  });

  it('refuses a body whose first character is not { or [, as body-parser does', async () => {
    const text = Buffer.from(' "a string"');
    expect(await post([text], text.length, 'end')).toEqual({
      status: 400,
      body: '{"errors":[{"message":"Request body is not valid JSON","extensions":{"code":"BAD_REQUEST","requestId":"body-1"}}]}',
    });
    expect(lines.map((line) => [line.msg, line.requestId, line.status, line.reason])).toEqual([['request body refused', 'body-1', 400, 'entity.parse.failed']]);
  });

  it('refuses, with the request id, a body whose sender hangs up before its declared length', async () => {
    expect(await post([Buffer.from('{"query":')], 100, 'hang up')).toBe('hung up');
    // The refusal is logged when the server sees the connection close, which may be after the client does.
    if (lines.length === 0) await once(wrote, 'line');
    expect(lines.map((line) => [line.msg, line.requestId, line.status, line.reason])).toEqual([['request body refused', 'body-1', 400, 'request.aborted']]);
  });
});
