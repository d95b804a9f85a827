import type { AddressInfo } from 'node:net';
import { parentPort, workerData } from 'node:worker_threads';
import { adminRequestListener, busyReadiness, createAdminServer, LIVE, type AdminAnswer, type AdminThreadSetup, type FromAdminThread, type ToAdminThread } from './admin.ts';
import type { DocumentsRequest } from '../hardening/index.ts';
import { Asks } from '../shared-state/asks.ts';

// The admin listener's own thread (src/process/admin.ts): it owns the admin port, answers /healthz from the
// gateway loop's heartbeat, and asks that loop for /readyz and /metrics, answering for it when it
// is too busy to. It loads nothing of the gateway but the listener's routes.

const setup = workerData as AdminThreadSetup;
const port = parentPort!;
const beat = new BigInt64Array(setup.heartbeat);
const JSON_TYPE = 'application/json; charset=utf-8';

/** The gateway loop's answers; undefined when it could not answer. */
const answers = new Asks<AdminAnswer | undefined>();

type Question = { type: 'ask'; path: '/readyz' | '/metrics' } | { type: 'documents'; request: DocumentsRequest };

/** The gateway loop's answer, or `late` when it gives none within `withinMs`. */
async function ask(question: Question, withinMs: number, late: () => AdminAnswer): Promise<AdminAnswer> {
  const answer = await answers.ask((id) => port.postMessage({ ...question, id } satisfies FromAdminThread), withinMs, late);
  if (answer === undefined) throw new Error('the gateway could not answer');
  return answer;
}

const silentMs = () => Date.now() - Number(Atomics.load(beat, 0));

const server = createAdminServer(
  adminRequestListener({
    metrics: setup.metrics,
    health: () => {
      const silent = silentMs();
      if (silent <= setup.stalledAfterMs) return LIVE;
      return { status: 503, contentType: JSON_TYPE, body: JSON.stringify({ status: 'stalled', detail: `the gateway's event loop has not turned for ${silent} ms` }) };
    },
    ask: (path) =>
      path === '/readyz'
        ? ask({ type: 'ask', path }, setup.readyWithinMs, () => busyReadiness(setup.readyWithinMs))
        : ask({ type: 'ask', path }, setup.metricsWithinMs, () => ({ status: 503, contentType: JSON_TYPE, body: JSON.stringify({ error: 'busy: the gateway did not answer the scrape in time' }) })),
    documents: {
      token: setup.adminToken,
      handle: (request) => ask({ type: 'documents', request }, setup.documentsWithinMs, () => ({ status: 503, contentType: JSON_TYPE, body: JSON.stringify({ error: 'busy: the gateway did not answer in time; what it was sent may still be stored' }) })),
      // Logged by the gateway's loop, which has the logger.
      refused: (request) => port.postMessage({ type: 'refused', request } satisfies FromAdminThread),
    },
  }),
);

port.on('message', (message: ToAdminThread) => {
  if (message.type === 'answer') return void answers.answer(message.id, message.answer);
  server.close(() => port.close());
  // Probes keep their connections alive; the process is stopping, so none is waited for.
  server.closeAllConnections();
});
server.once('error', (error: NodeJS.ErrnoException & { address?: string; port?: number }) => {
  // The start-up's message names the address and port, as for a listener on the gateway's loop.
  port.postMessage({ type: 'listen-error', code: error.code, message: error.message, address: error.address, port: error.port } satisfies FromAdminThread);
  port.close();
});
server.listen(setup.port, setup.host, () => port.postMessage({ type: 'listening', port: (server.address() as AddressInfo).port } satisfies FromAdminThread));
