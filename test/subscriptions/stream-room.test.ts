import { once } from 'node:events';
import { createServer, get, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { writeWithRoom } from '../../src/http/stream-room.ts';

// A stream's writes wait for room many times over its life (a client that reads, but more slowly
// than its feed changes): each wait must leave the response as it found it, or a long stream
// collects two listeners per wait until it closes.

const ROUNDS = 50;
/** Far over a response's write buffer, so that every write waits for room. */
const CHUNK = 'x'.repeat(256 * 1024);

let server: Server;
let handled: Promise<{ close: number; error: number; drain: number }>;

beforeAll(async () => {
  let report!: (counts: { close: number; error: number; drain: number }) => void;
  handled = new Promise((resolve) => (report = resolve));
  server = createServer((_req, res: ServerResponse) => {
    void (async () => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      const before = { close: res.listenerCount('close'), error: res.listenerCount('error'), drain: res.listenerCount('drain') };
      for (let round = 0; round < ROUNDS; round++) await writeWithRoom(res, CHUNK);
      report({ close: res.listenerCount('close') - before.close, error: res.listenerCount('error') - before.error, drain: res.listenerCount('drain') - before.drain });
      res.end();
    })();
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe('writeWithRoom', () => {
  it('leaves no listener behind on the response after waiting for room, however many times it waited', async () => {
    const { port } = server.address() as AddressInfo;
    const received = await new Promise<number>((resolve, reject) => {
      get({ host: '127.0.0.1', port, path: '/' }, (res) => {
        let bytes = 0;
        res.on('data', (chunk: Buffer) => (bytes += chunk.length));
        res.once('end', () => resolve(bytes));
      }).once('error', reject);
    });
    expect({ received, listenersAdded: await handled }).toEqual({ received: ROUNDS * CHUNK.length, listenersAdded: { close: 0, error: 0, drain: 0 } });
  });
});
