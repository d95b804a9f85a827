import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { frontDoor } from '../../src/http/front-door.ts';
import { refuse } from '../../src/http/refusal.ts';
import type { Stage } from '../../src/http/stage.ts';
import { createLogger } from '../../src/logger.ts';
import { runWithRequestId } from '../../src/request/scope.ts';
import { startStack, type Stack } from '../support/stack.ts';

/** The raw answer: status line and headers as sent (Date dropped), and the body. */
interface RawAnswer {
  head: string;
  body: string;
}

function raw(port: number, method: string, path: string, headers: Record<string, string> = {}): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path, headers: { connection: 'close', ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const lines = [`${res.statusCode}`];
        for (let i = 0; i < res.rawHeaders.length; i += 2) if (res.rawHeaders[i] !== 'Date') lines.push(`${res.rawHeaders[i]}: ${res.rawHeaders[i + 1]}`);
        resolve({ head: lines.join('\n'), body: Buffer.concat(chunks).toString() });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

describe('the front door', () => {
  const lines: Array<Record<string, unknown>> = [];
  const logger = createLogger('info', {
    destination: new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
        done();
      },
    }),
  });
  let server: Server;
  let port: number;
  const reached: string[] = [];
  const stages: Stage[] = [
    (req, _res, next) => {
      reached.push('first');
      if (req.url === '/fails') return next(new Error('store down'));
      if (req.url === '/throws') throw new Error('bug in a stage');
      next();
    },
    (req, res, next) => {
      reached.push('second');
      if (req.url === '/late') {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.write('partial');
        setImmediate(() => next(new Error('failed mid-answer')));
        return;
      }
      if (req.url === '/off-the-end') return next();
      res.end('answered by the second stage');
    },
  ];

  beforeAll(async () => {
    server = createServer(frontDoor(stages, logger));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  afterEach(() => {
    reached.length = 0;
    lines.length = 0;
  });

  it('runs the stages in order until one answers', async () => {
    expect((await raw(port, 'GET', '/')).body).toBe('answered by the second stage');
    expect(reached).toEqual(['first', 'second']);
  });

  for (const path of ['/fails', '/throws', '/off-the-end']) {
    it(`answers ${path} at once with a 500 carrying the request id, and logs the cause`, async () => {
      const answer = await raw(port, 'GET', path, { 'x-request-id': 'door-1' });
      expect(answer).toEqual({
        head: '500\nContent-Type: application/json; charset=utf-8\nContent-Length: 115\nConnection: close',
        body: '{"errors":[{"message":"Internal server error","extensions":{"code":"INTERNAL_SERVER_ERROR","requestId":"door-1"}}]}',
      });
      expect(reached).toEqual(path === '/off-the-end' ? ['first', 'second'] : ['first']);
      expect(lines.map((line) => [line.msg, line.requestId, line.path, (line.err as { message?: string }).message])).toEqual([
        ['request failed', 'door-1', path, { '/fails': 'store down', '/throws': 'bug in a stage', '/off-the-end': 'no stage answered the request' }[path]],
      ]);
    });
  }

  it('cuts the connection when a stage fails after the answer has begun', async () => {
    await expect(raw(port, 'GET', '/late')).rejects.toThrow(/aborted|socket hang up/);
  });
});

describe('the refusal renderer', () => {
  it('stamps the request id of the scope last, and none outside a request', async () => {
    const bodies: string[] = [];
    const server = createServer((req, res) => {
      const write = () => refuse(res, 429, 'spent', { code: 'RATE_LIMITED', limit: 'X' });
      if (req.url === '/scoped') runWithRequestId('scoped-1', write);
      else write();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    const { port } = server.address() as AddressInfo;
    for (const path of ['/scoped', '/unscoped']) bodies.push((await raw(port, 'GET', path)).body);
    await new Promise<void>((resolve) => server.close(() => resolve()));
    expect(bodies).toEqual([
      '{"errors":[{"message":"spent","extensions":{"code":"RATE_LIMITED","limit":"X","requestId":"scoped-1"}}]}',
      '{"errors":[{"message":"spent","extensions":{"code":"RATE_LIMITED","limit":"X"}}]}',
    ]);
  });
});

describe('the operator routes and the paths around /graphql on the public port', () => {
  let stack: Stack;
  let port: number;
  beforeAll(async () => {
    stack = await startStack({ NODE_ENV: 'production', ADMIN_PORT: 'off' });
    port = Number(new URL(stack.gateway.url).port);
  });
  afterAll(async () => {
    await stack.close();
  });

  it('answers /healthz to GET and HEAD, in any case and with a trailing slash', async () => {
    const ok = { head: '200\nContent-Type: application/json; charset=utf-8\nContent-Length: 15\nConnection: close', body: '{"status":"ok"}' };
    expect(await raw(port, 'GET', '/healthz')).toEqual(ok);
    expect(await raw(port, 'GET', '/HEALTHZ/?probe=1')).toEqual(ok);
    expect(await raw(port, 'HEAD', '/healthz')).toEqual({ ...ok, body: '' });
  });

  it('answers any other method or path with a JSON 404 carrying the request id', async () => {
    const body = '{"errors":[{"message":"Not found: the GraphQL endpoint is POST /graphql","extensions":{"code":"NOT_FOUND","requestId":"nf-1"}}]}';
    const notFound = { head: `404\nContent-Type: application/json; charset=utf-8\nContent-Length: ${body.length}\nConnection: close`, body };
    for (const [method, path] of [['POST', '/healthz'], ['OPTIONS', '/healthz'], ['GET', '/graphq'], ['GET', '/graphqlx'], ['GET', '//graphql']] as const) {
      expect([method, path, await raw(port, method, path, { 'x-request-id': 'nf-1' })]).toEqual([method, path, notFound]);
    }
  });

  it('serves /metrics with the registry’s content type', async () => {
    const answer = await raw(port, 'GET', '/metrics');
    expect(answer.head.split('\n').slice(0, 2)).toEqual(['200', 'Content-Type: text/plain; version=0.0.4; charset=utf-8']);
    expect(answer.body).toContain('# TYPE graphql_requests_total counter');
  });

  it('shows a browser the playground-off page, by the Accept header as negotiator reads it', async () => {
    const page = await raw(port, 'GET', '/graphql', { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' });
    expect(page.head).toBe('404\nVary: Origin, Accept\nCache-Control: no-store\nContent-Type: text/html; charset=utf-8\nContent-Length: 353\nConnection: close');
    expect(page.body).toContain('The playground is off');
    // A range with a parameter matches only a type with that parameter: not the page, so the GraphQL
    // server answers (and refuses a GET without a preflight header).
    for (const accept of ['application/json, text/html', 'text/html;level=1', 'text/*;q=0.5, application/json;q=0.6']) {
      expect([accept, (await raw(port, 'GET', '/graphql', { accept })).head.split('\n')[0]]).toEqual([accept, '400']);
    }
  });
});
