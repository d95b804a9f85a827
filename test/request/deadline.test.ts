import { getMaxListeners } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from '@jest/globals';
import { CallerGone, RequestDeadlineExceeded, requestSignal } from '../../src/request/deadline.ts';
import { sleep } from '../support/time.ts';

// A request's abort signal: its deadline, and (with a response) the caller hanging up first.

const aborted = (signal: AbortSignal) => new Promise<unknown>((resolve) => signal.addEventListener('abort', () => resolve(signal.reason), { once: true }));
const timers = () => process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length;

describe('without a response (in-process use)', () => {
  it('aborts with RequestDeadlineExceeded once the deadline has passed', async () => {
    const signal = requestSignal(20);
    expect(signal.aborted).toBe(false);
    const reason = await aborted(signal);
    expect(reason).toBeInstanceOf(RequestDeadlineExceeded);
    expect(reason).toMatchObject({ name: 'RequestDeadlineExceeded', message: 'request deadline of 20 ms', deadlineMs: 20 });
  });

  it('takes any number of listeners without a warning cap, and its timer keeps no process alive', () => {
    const before = timers();
    const signal = requestSignal(60_000);
    expect(getMaxListeners(signal)).toBe(0);
    expect(timers()).toBe(before);
  });
});

describe('with a response', () => {
  let server: http.Server | undefined;

  afterEach(async () => {
    server?.closeAllConnections();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    server = undefined;
  });

  /** A loopback server whose handler gets a request signal; resolves with the first request's signal and response. */
  async function serve(deadlineMs: number) {
    let handed: (value: { signal: AbortSignal; response: http.ServerResponse }) => void = () => {};
    const handled = new Promise<{ signal: AbortSignal; response: http.ServerResponse }>((resolve) => (handed = resolve));
    server = http.createServer((_request, response) => handed({ signal: requestSignal(deadlineMs, response), response }));
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, handled };
  }

  it('aborts with CallerGone when the caller closes the connection before the answer', async () => {
    const { url, handled } = await serve(60_000);
    const controller = new AbortController();
    const call = fetch(url, { signal: controller.signal }).catch(() => undefined);
    const { signal } = await handled;
    controller.abort();
    const reason = await aborted(signal);
    await call;
    expect(reason).toBeInstanceOf(CallerGone);
    expect(reason).toMatchObject({ name: 'CallerGone', message: 'the caller closed the connection' });
  });

  it('never aborts once the answer was written, not even when the deadline would have passed', async () => {
    const { url, handled } = await serve(30);
    const call = fetch(url).then((response) => response.text());
    const { signal, response } = await handled;
    const closed = new Promise((resolve) => response.once('close', resolve));
    response.end('done');
    expect(await call).toBe('done');
    await closed;
    // Longer than the deadline: a timer left running would abort the signal meanwhile.
    await sleep(80);
    expect(signal.aborted).toBe(false);
  });
});
