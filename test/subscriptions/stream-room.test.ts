import { once } from 'node:events';
import { createServer, get, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { streamOpen, writeWithRoom } from '../../src/http/stream-room.ts';

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

describe('a stream whose client stopped reading', () => {
  it('is closed once it has waited for room longer than the stall bound', async () => {
    let closed!: (state: { destroyed: boolean; writableFinished: boolean }) => void;
    const ended = new Promise<{ destroyed: boolean; writableFinished: boolean }>((resolve) => (closed = resolve));
    const stalling = createServer((_req, res: ServerResponse) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      void (async () => {
        // Writes until the buffers are full, then waits: the client never reads.
        while (streamOpen(res)) await writeWithRoom(res, CHUNK, 50);
        closed({ destroyed: res.destroyed, writableFinished: res.writableFinished });
      })();
    });
    stalling.listen(0, '127.0.0.1');
    await once(stalling, 'listening');
    const { port } = stalling.address() as AddressInfo;
    // The client never reads: it does not even see the connection closed (a paused socket reads no end).
    const request = get({ host: '127.0.0.1', port, path: '/' }, (res) => res.pause());
    request.on('error', () => undefined);
    expect(await ended).toEqual({ destroyed: true, writableFinished: false });
    const connections = await new Promise<number>((resolve, reject) => stalling.getConnections((error, count) => (error ? reject(error) : resolve(count))));
    expect(connections).toBe(0);
    request.destroy();
    await new Promise<void>((resolve) => stalling.close(() => resolve()));
  });
});

describe('a stream whose client has gone', () => {
  it('has no room to wait for: a write into it ends at once, and the stream reads as closed', async () => {
    let report!: (state: { open: boolean; writableFlag: boolean }) => void;
    const written = new Promise<{ open: boolean; writableFlag: boolean }>((resolve) => (report = resolve));
    const gone = createServer((_req, res: ServerResponse) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      // Once it has closed: Node keeps `writable` true on a destroyed response, the write returns false, and no drain or close comes again.
      res.once('close', () => {
        void (async () => {
          await writeWithRoom(res, CHUNK);
          report({ open: streamOpen(res), writableFlag: res.writable });
        })();
      });
      res.destroy();
    });
    gone.listen(0, '127.0.0.1');
    await once(gone, 'listening');
    const { port } = gone.address() as AddressInfo;
    get({ host: '127.0.0.1', port, path: '/' }).on('error', () => undefined);
    expect(await written).toEqual({ open: false, writableFlag: true });
    await new Promise<void>((resolve) => gone.close(() => resolve()));
  });
});
