/**
 * The bare event-stream server: the least a Node process holds for an idle SSE subscription, the
 * floor the subscriptions benchmark compares the gateway's memory with. It answers every request,
 * but `GET /healthz` (200, for the harness to know it is up), once its body is read, with the gateway's stream headers and a first comment, then one comment
 * every 12 s (the gateway's heartbeat), until the client hangs up. No GraphQL, no subscription.
 *
 * Run: PORT=24920 node bench/bare-sse.ts
 */
import http from 'node:http';

const HEARTBEAT_MS = 12_000;

const server = http.createServer((req, res) => {
  if (req.method === 'GET' && req.url === '/healthz') {
    res.end('ok');
    return;
  }
  req.resume();
  req.once('end', () => {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive', 'x-accel-buffering': 'no', vary: 'Origin' });
    res.write(':\n\n');
    const heartbeat = setInterval(() => res.write(':\n\n'), HEARTBEAT_MS);
    res.once('close', () => clearInterval(heartbeat));
  });
});
server.listen(Number(process.env.PORT ?? 24920), process.env.HOST ?? '127.0.0.1', () => {
  process.stdout.write(`bare SSE server listening on ${JSON.stringify(server.address())}\n`);
});
const stop = (): void => {
  server.close(() => process.exit(0));
  server.closeAllConnections();
};
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
