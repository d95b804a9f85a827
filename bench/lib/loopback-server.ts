import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** A server the harness starts: its base URL, and a close that ends its connections too. */
export interface LoopbackServer {
  url: string;
  close(): Promise<void>;
}

export interface LoopbackOptions {
  port?: number;
  host?: string;
  /** Status of the answer when `handle` fails before it has answered (the bare proxy: 502, the floor: 500). */
  failureStatus: number;
}

/**
 * Serves `handle` over node:http with the keep-alive settings every system under test uses, and
 * answers a failure the handler did not answer itself with `{ message }` (or cuts the connection
 * when the answer had started).
 */
export async function serveLoopback(handle: (req: http.IncomingMessage, res: http.ServerResponse) => Promise<void>, options: LoopbackOptions): Promise<LoopbackServer> {
  const server = http.createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      const message = error instanceof Error ? error.message : String(error);
      if (res.headersSent) return res.destroy();
      const body = JSON.stringify({ message });
      res.writeHead(options.failureStatus, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }).end(body);
    });
  });
  server.keepAliveTimeout = 65_000;
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host}:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/**
 * The runnable form of a server the harness spawns: UPSTREAM_URL (required), PORT (default
 * `defaultPort`) and HOST from the environment; SIGTERM and SIGINT close it and exit 0.
 */
export async function runFromEnvironment(name: string, defaultPort: number, start: (options: { upstreamUrl: string; port: number; host: string }) => Promise<LoopbackServer>): Promise<void> {
  const upstreamUrl = process.env.UPSTREAM_URL;
  if (!upstreamUrl) {
    process.stderr.write('UPSTREAM_URL is required\n');
    process.exit(1);
  }
  const server = await start({ upstreamUrl, port: Number(process.env.PORT ?? defaultPort), host: process.env.HOST ?? '127.0.0.1' });
  process.stdout.write(`${name} listening on ${server.url} → ${upstreamUrl}\n`);
  const stop = (): void => void server.close().then(() => process.exit(0));
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}
