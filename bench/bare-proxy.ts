/**
 * The bare proxy: the least work a Node process can do between a client and
 * the platform, used as the throughput ceiling for the gateway. It forwards the
 * caller's Authorization (and x-request-id) with got over the same keep-alive
 * pool settings the gateway uses and answers the upstream bytes unparsed.
 *
 *   GET <any platform path>            → that path upstream; status and body as received
 *   GET /__batch?u=<path>&u=<path>...  → every path upstream in parallel; `[body1,body2,...]`
 *
 * The batch route is the equivalent of one GraphQL request that reads several
 * areas: one request in, N parallel calls out, one JSON answer back.
 *
 * Run: UPSTREAM_URL=http://127.0.0.1:4010 PORT=4020 node bench/bare-proxy.ts
 */
import type http from 'node:http';
import { bareClient } from './lib/bare-client.ts';
import { runFromEnvironment, serveLoopback, type LoopbackServer } from './lib/loopback-server.ts';

export interface BareProxyOptions {
  upstreamUrl: string;
  port?: number;
  host?: string;
}

export type BareProxy = LoopbackServer;

interface Upstream {
  status: number;
  body: string;
}

const BATCH_PATH = '/__batch';
const MAX_BATCH = 10;

export async function startBareProxy(options: BareProxyOptions): Promise<BareProxy> {
  const base = options.upstreamUrl.replace(/\/+$/, '');
  const client = bareClient();

  const forward = async (pathAndQuery: string, headers: http.IncomingHttpHeaders): Promise<Upstream> => {
    const outgoing: Record<string, string> = { accept: 'application/json' };
    if (typeof headers.authorization === 'string') outgoing.authorization = headers.authorization;
    if (typeof headers['x-request-id'] === 'string') outgoing['x-request-id'] = headers['x-request-id'];
    const response = await client(base + pathAndQuery, { headers: outgoing });
    return { status: response.statusCode, body: response.body };
  };

  const reply = (res: http.ServerResponse, status: number, body: string): void => {
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  };

  const handle = async (req: http.IncomingMessage, res: http.ServerResponse): Promise<void> => {
    const url = req.url ?? '/';
    if (req.method !== 'GET') return reply(res, 405, '{"message":"GET only"}');
    if (url === BATCH_PATH || url.startsWith(`${BATCH_PATH}?`)) {
      const paths = new URLSearchParams(url.slice(BATCH_PATH.length + 1)).getAll('u');
      if (paths.length === 0 || paths.length > MAX_BATCH || paths.some((p) => !p.startsWith('/'))) {
        return reply(res, 400, '{"message":"u must be 1 to 10 absolute paths"}');
      }
      const answers = await Promise.all(paths.map((path) => forward(path, req.headers)));
      const failed = answers.find((answer) => answer.status < 200 || answer.status >= 300);
      if (failed) return reply(res, failed.status, failed.body);
      return reply(res, 200, `[${answers.map((answer) => answer.body).join(',')}]`);
    }
    const answer = await forward(url, req.headers);
    reply(res, answer.status, answer.body);
  };

  return serveLoopback(handle, { port: options.port, host: options.host, failureStatus: 502 });
}

if (import.meta.main) await runFromEnvironment('bare proxy', 4020, startBareProxy);
