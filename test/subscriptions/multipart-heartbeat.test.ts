import { once } from 'node:events';
import { createServer, get, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, jest } from '@jest/globals';
import type { FormattedExecutionResult } from 'graphql';
import { multipartStream } from '../../src/http/multipart.ts';

// A multipart stream's heartbeat keeps a quiet connection open through proxies; a stream whose
// client is not reading is not quiet, and parts written into it would only grow its buffer.

const HEARTBEAT_MS = 1_000;
/** One event far over the response's buffer: the stream then waits for room. */
const BIG = 'x'.repeat(8 * 1024 * 1024);

afterEach(() => {
  jest.useRealTimers();
});

/** A subscription's results: one big event, then none (the stream stays open). */
function oneBigEvent(): AsyncIterableIterator<FormattedExecutionResult> {
  let sent = false;
  const results: AsyncIterableIterator<FormattedExecutionResult> = {
    next: () => {
      if (sent) return new Promise(() => undefined);
      sent = true;
      return Promise.resolve({ done: false, value: { data: { big: BIG } } });
    },
    return: () => Promise.resolve({ done: true, value: undefined }),
    [Symbol.asyncIterator]: () => results,
  };
  return results;
}

describe('multipart heartbeats', () => {
  it('are not written into a stream whose client is not reading', async () => {
    // The transport's heartbeat timer on a clock the test moves (sockets and immediates stay real).
    jest.useFakeTimers({ doNotFake: ['setImmediate', 'clearImmediate', 'nextTick', 'queueMicrotask'] });
    const transport = multipartStream(HEARTBEAT_MS);
    let stalled!: (res: ServerResponse) => void;
    const waiting = new Promise<ServerResponse>((resolve) => (stalled = resolve));
    const server = createServer((req, res) => {
      void transport(res, { results: oneBigEvent(), document: undefined });
      const check = setImmediate(function poll() {
        if (res.writableNeedDrain) stalled(res);
        else setImmediate(poll);
      });
      res.once('close', () => clearImmediate(check));
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as AddressInfo;
    const request = get({ host: '127.0.0.1', port, path: '/' }, (res) => res.pause());
    request.on('error', () => undefined);
    const res = await waiting;
    const buffered = res.writableLength;
    jest.advanceTimersByTime(10 * HEARTBEAT_MS);
    expect(res.writableLength - buffered).toBe(0);
    request.destroy();
    res.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
});
