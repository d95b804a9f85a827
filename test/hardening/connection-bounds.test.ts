import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { connect, type Socket } from 'node:net';
import { testConfig } from '../../src/settings/config.ts';
import { startProductionGateway, type GatewayProcess } from '../support/gateway-process.ts';
import { until } from '../support/time.ts';

// The bounds on client connections, on the real process (`node dist/main.js`, production mode)
// with small settings: a request whose headers or body trickle in is cut, and connections beyond
// MAX_CONNECTIONS are closed as they are accepted.

const HEADERS_TIMEOUT_MS = 1_000;
const REQUEST_TIMEOUT_MS = 2_000;
const MAX_CONNECTIONS = 3;
/** Longest a trickle is kept up before the test gives up on the server cutting it. */
const GIVE_UP_MS = 20_000;

let gateway: GatewayProcess;
let port: number;

beforeAll(async () => {
  const started = await startProductionGateway({
    LOG_LEVEL: 'info',
    HEADERS_TIMEOUT_MS: String(HEADERS_TIMEOUT_MS),
    REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS),
    MAX_CONNECTIONS: String(MAX_CONNECTIONS),
  });
  gateway = started.process;
  port = Number(new URL(started.origin).port);
}, 120_000);
afterAll(async () => {
  await gateway?.stop();
});

interface Outcome {
  /** Everything the server sent before the connection ended. */
  received: string;
  /** Bytes of the request the client had sent by then. */
  sent: number;
  /** Whether the client had sent its whole request. */
  complete: boolean;
}

/** Sends `head` at once, then `trickle` one byte every `everyMs`, until the server ends the connection (or GIVE_UP_MS passes). */
function trickle(head: string, rest: string, everyMs: number): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let received = '';
    let sent = 0;
    let timer: NodeJS.Timeout | undefined;
    const giveUp = setTimeout(() => {
      clearInterval(timer);
      socket.destroy();
      reject(new Error(`the server kept a trickled request open ${GIVE_UP_MS} ms (${sent} bytes sent)`));
    }, GIVE_UP_MS);
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => (received += chunk));
    socket.on('error', () => undefined);
    socket.once('close', () => {
      clearInterval(timer);
      clearTimeout(giveUp);
      resolve({ received, sent, complete: sent === head.length + rest.length });
    });
    socket.once('connect', () => {
      socket.write(head);
      sent = head.length;
      timer = setInterval(() => {
        if (sent - head.length >= rest.length) return;
        socket.write(rest[sent - head.length]!);
        sent += 1;
      }, everyMs);
    });
  });
}

const BODY = JSON.stringify({ query: '{ __typename }' }).padEnd(400, ' ');

describe('bounds on client connections', () => {
  it('cuts a request whose body trickles in: 408 and the connection closed, before the body is complete', async () => {
    const head = `POST /graphql HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${BODY.length}\r\n\r\n`;
    const outcome = await trickle(head, BODY, 100);
    expect(outcome.complete).toBe(false);
    expect(outcome.received).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
    expect(outcome.received).toMatch(/\r\nConnection: close\r\n/i);
  }, 120_000);

  it('cuts a request whose headers trickle in', async () => {
    const headers = `Host: 127.0.0.1\r\nContent-Type: application/json\r\nX-Padding: ${'p'.repeat(200)}\r\nContent-Length: 2\r\n\r\n{}`;
    const outcome = await trickle('POST /graphql HTTP/1.1\r\n', headers, 100);
    expect(outcome.complete).toBe(false);
    expect(outcome.received).toMatch(/^(HTTP\/1\.1 408 Request Timeout\r\n|$)/);
  }, 120_000);

  it('serves a request sent at a normal pace with the same settings', async () => {
    const head = `POST /graphql HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: ${BODY.length}\r\n\r\n`;
    const outcome = await trickle(head + BODY, '', 100);
    expect(outcome.complete).toBe(true);
    expect(outcome.received).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(outcome.received.slice(outcome.received.indexOf('\r\n\r\n') + 4)).toBe('{"data":{"__typename":"Query"},"extensions":{"cost":{"requestedQueryCost":0,"actualQueryCost":0}}}\n');
  });

  // Last: every connection of the tests above has been closed by the server, so none counts against the cap.
  it(`closes the connection beyond MAX_CONNECTIONS (${MAX_CONNECTIONS}) as it is accepted, and takes one again once another closes`, async () => {
    const open = (): Promise<Socket> =>
      new Promise((resolve, reject) => {
        const socket = connect(port, '127.0.0.1', () => resolve(socket));
        socket.once('error', reject);
      });
    /** Sends a keep-alive GET /healthz and resolves with the answer's status line, or '' when the server closes the connection instead. */
    const ask = (socket: Socket): Promise<string> =>
      new Promise((resolve) => {
        let received = '';
        const done = () => resolve(received.split('\r\n')[0] ?? '');
        socket.setEncoding('latin1');
        socket.on('data', (chunk: string) => {
          received += chunk;
          if (received.includes('\r\n\r\n') && received.includes('{"status":"ok"}')) done();
        });
        socket.once('close', done);
        socket.on('error', () => undefined);
        socket.write('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
      });
    const held: Socket[] = [];
    try {
      // Each held connection is answered once, so the server has certainly accepted it before the next opens.
      for (let i = 0; i < MAX_CONNECTIONS; i++) {
        const socket = await open();
        held.push(socket);
        expect(await ask(socket)).toBe('HTTP/1.1 200 OK');
      }
      const refused = await open();
      held.push(refused);
      expect(await ask(refused)).toBe('');
      expect(refused.destroyed || refused.readableEnded).toBe(true);

      held[0]!.destroy();
      await new Promise<void>((resolve) => held[0]!.once('close', () => resolve()));
      // The server sees the close asynchronously: retry until a connection is served (bounded for a hang, not for speed).
      const status = await until('a connection served again', async () => {
        const again = await open();
        held.push(again);
        const line = await ask(again);
        return line === '' ? undefined : line;
      }, 20_000);
      expect(status).toBe('HTTP/1.1 200 OK');
      await gateway.waitFor(/"msg":"connections refused: MAX_CONNECTIONS open"/, 20_000);
      expect(gateway.stdout()).toMatch(/"level":40,[^\n]*"dropped":1,"maxConnections":3,[^\n]*"msg":"connections refused: MAX_CONNECTIONS open"/);
    } finally {
      for (const socket of held) socket.destroy();
    }
  }, 120_000);


  it('refuses at start-up a header timeout longer than the request timeout, which Node would not take', () => {
    expect(() => testConfig({ HEADERS_TIMEOUT_MS: '5000', REQUEST_TIMEOUT_MS: '4000' })).toThrow('HEADERS_TIMEOUT_MS: must not exceed REQUEST_TIMEOUT_MS (4000)');
    expect(testConfig({ HEADERS_TIMEOUT_MS: '4000', REQUEST_TIMEOUT_MS: '4000' }).connections).toEqual({ headersTimeoutMs: 4000, requestTimeoutMs: 4000, maxConnections: 4096 });
    expect(testConfig().connections).toEqual({ headersTimeoutMs: 10_000, requestTimeoutMs: 30_000, maxConnections: 4096 });
  });
});
