import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { expect } from '@jest/globals';
import { testConfig, type Config } from '../../src/settings/config.ts';
import { PlatformError } from '../../src/platform/platform-error.ts';
import { systemClock, type Clock } from '../../src/platform/clock.ts';
import { PolicyChain, type UpstreamCallEvent } from '../../src/platform/policy-chain.ts';
import { sleep } from '../support/time.ts';

/** Host the nock-based suites fake; nothing real ever answers there. */
export const PLATFORM_URL = 'http://platform.test';

/** A realistic caller credential; its secret part must never show up in errors or logs. */
export const TOKEN_SECRET = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJzZWFtLXRlc3QifQ.c2lnbmF0dXJlLXNlY3JldA';
export const TOKEN = `Bearer ${TOKEN_SECRET}`;

/**
 * Upstream settings for tests: the production defaults with millisecond backoff
 * and sub-second timeouts so failure paths finish quickly.
 */
export function upstreamSettings(overrides: Record<string, string> = {}): Config['upstream'] {
  return testConfig({
    UPSTREAM_RETRY_BASE_MS: '5',
    UPSTREAM_CONNECT_TIMEOUT_MS: '300',
    UPSTREAM_RESPONSE_TIMEOUT_MS: '300',
    UPSTREAM_REQUEST_TIMEOUT_MS: '800',
    UPSTREAM_BREAKER_COOLDOWN_MS: '100',
    ...overrides,
  }).upstream;
}

/**
 * A PolicyChain over the nock host with `upstreamSettings(overrides)` (no retries unless the
 * overrides give some: most suites test what a single call does), and the list of what it reports.
 */
export function observedPlatformHttp(overrides: Record<string, string> = {}, clock: Clock = systemClock): { http: PolicyChain; events: UpstreamCallEvent[] } {
  const http = new PolicyChain(PLATFORM_URL, upstreamSettings({ UPSTREAM_RETRY_LIMIT: '0', ...overrides }), undefined, clock);
  const events: UpstreamCallEvent[] = [];
  http.observe((event) => events.push(event));
  return { http, events };
}

/** Platform protection settings for tests (per-route bounds, shared reads) from the same variables as the gateway's. */
export function protectionSettings(overrides: Record<string, string> = {}): Config['platformProtection'] {
  return testConfig(overrides).platformProtection;
}

/** Awaits a call that must fail and returns its PlatformError. */
export async function failure(call: Promise<unknown>): Promise<PlatformError> {
  try {
    await call;
  } catch (error) {
    expect(error).toBeInstanceOf(PlatformError);
    return error as PlatformError;
  }
  throw new Error('expected the platform call to fail');
}

/** The same for synchronous calls (path encoding). */
export function syncFailure(call: () => unknown): PlatformError {
  try {
    call();
  } catch (error) {
    expect(error).toBeInstanceOf(PlatformError);
    return error as PlatformError;
  }
  throw new Error('expected the call to fail');
}

/** Collects what an observer of PolicyChain reports, with durations checked and dropped. */
export function eventsOf(events: UpstreamCallEvent[]): Omit<UpstreamCallEvent, 'durationMs'>[] {
  return events.map(({ durationMs, ...rest }) => {
    expect(durationMs).toBeGreaterThanOrEqual(0);
    return rest;
  });
}

interface SeenRequest {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  at: number;
}

export type Handler = (request: http.IncomingMessage, response: http.ServerResponse, seen: SeenRequest) => void;

/** A loopback HTTP server standing in for the platform where nock cannot (hangs, resets, sockets). */
export interface TestServer {
  url: string;
  requests: SeenRequest[];
  /** Sockets the server has accepted and not yet seen closed. */
  openSockets(): number;
  /** Every connection the server ever accepted. */
  connections(): number;
  handle(handler: Handler): void;
  close(): Promise<void>;
}

export async function startServer(handler: Handler): Promise<TestServer> {
  const sockets = new Set<Socket>();
  let accepted = 0;
  let current = handler;
  const requests: SeenRequest[] = [];
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const seen: SeenRequest = {
        method: request.method ?? '',
        url: request.url ?? '',
        headers: request.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        at: performance.now(),
      };
      requests.push(seen);
      current(request, response, seen);
    });
  });
  server.on('connection', (socket) => {
    accepted++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    openSockets: () => sockets.size,
    connections: () => accepted,
    handle: (next) => {
      current = next;
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A loopback port nothing listens on (bound, then released). */
export async function closedPort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Polls until the condition holds; socket close events arrive asynchronously. */
export async function eventually(condition: () => boolean, timeoutMs = 2_000): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!condition()) {
    if (performance.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms: ${condition.toString()}`);
    await sleep(10);
  }
}

export const json = (body: unknown) => JSON.stringify(body);
