import http from 'node:http';
import got, { type Got } from 'got';

/**
 * The platform client of the bare proxy and the design-card floor: got over a keep-alive pool
 * (64 connections, all kept when idle, as the gateway's pool), no retries, one request timeout,
 * the body as text. Shared, so the two differ only in what happens around the call.
 */
export function bareClient(): Got {
  const agentOptions = { keepAlive: true, maxSockets: 64, maxFreeSockets: 64, scheduling: 'lifo' as const };
  return got.extend({
    agent: { http: new http.Agent(agentOptions) },
    throwHttpErrors: false,
    followRedirect: false,
    retry: { limit: 0 },
    timeout: { request: 10_000 },
    responseType: 'text',
  });
}
