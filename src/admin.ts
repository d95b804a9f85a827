import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import type { Readiness } from './health.ts';
import type { MetricsAnswer } from './observability/index.ts';

/**
 * The admin listener (ADMIN_PORT, ADMIN_HOST): GET /healthz, /readyz and /metrics on a plain
 * node:http server of their own. Probes and scrapes reach the process through it whatever the
 * public port is going through: it is outside MAX_CONNECTIONS (a client holding every public
 * connection cannot lock the liveness probe out, so Kubernetes does not restart a pod that is
 * serving), outside the rate limit and the public request checks (CORS, trusted documents, body
 * limits), which concern GraphQL clients, not the operator's tools. Scrapes here never compete
 * with GraphQL traffic for connections either. With WORKERS > 1 every worker listens on it
 * (node:cluster shares the port), and /metrics answers for the whole group as before.
 */

/** Probes send no body: a client that takes longer than this over its headers is cut, so a stray connection cannot hold a socket. */
const ADMIN_HEADERS_TIMEOUT_MS = 5_000;
const ADMIN_REQUEST_TIMEOUT_MS = 10_000;

export interface AdminListener {
  /** `http://host:port` once listening. */
  url: string;
  close(): Promise<void>;
}

export interface AdminOptions {
  host: string;
  port: number;
  readiness: Readiness;
  /** Undefined when METRICS=false: /metrics is then 404 here too. */
  scrape: (() => Promise<MetricsAnswer>) | undefined;
  logger: Logger;
}

function send(res: ServerResponse, status: number, contentType: string, body: string): void {
  res.writeHead(status, { 'content-type': contentType, 'content-length': Buffer.byteLength(body), 'cache-control': 'no-store' });
  res.end(body);
}

const json = (res: ServerResponse, status: number, value: unknown) => send(res, status, 'application/json; charset=utf-8', JSON.stringify(value));

export async function startAdminListener({ host, port, readiness, scrape, logger }: AdminOptions): Promise<AdminListener> {
  const server = createServer({ headersTimeout: ADMIN_HEADERS_TIMEOUT_MS, requestTimeout: ADMIN_REQUEST_TIMEOUT_MS }, (req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    const known = path === '/healthz' || path === '/readyz' || (path === '/metrics' && scrape !== undefined);
    if (!known) return json(res, 404, { error: 'not found: the admin port serves GET /healthz, /readyz and /metrics' });
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.setHeader('allow', 'GET, HEAD');
      return json(res, 405, { error: 'method not allowed' });
    }
    if (path === '/healthz') return json(res, 200, { status: 'ok' });
    const answer = path === '/readyz'
      ? readiness.check().then((report) => ({ status: report.status === 'ready' ? 200 : 503, contentType: 'application/json; charset=utf-8', body: JSON.stringify(report) }))
      : scrape!();
    answer.then(
      (a) => send(res, a.status, a.contentType, a.body),
      (error: unknown) => {
        logger.error({ err: error }, 'admin request failed');
        if (!res.headersSent) json(res, 500, { error: 'internal error' });
        else res.destroy();
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => reject(Object.assign(error, { setting: 'ADMIN_PORT' })));
    server.listen(port, host, () => resolve());
  });
  const { port: bound } = server.address() as AddressInfo;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${bound}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        // Probes keep their connections alive; the process is stopping, so none is waited for.
        server.closeAllConnections();
      }),
  };
}
