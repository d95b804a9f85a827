import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Worker } from 'node:worker_threads';
import type { Logger } from 'pino';
import { DOCUMENTS_ANSWER, DOCUMENTS_ASK, heartbeatIntervalMs, type DocumentsAnswerMessage, type DocumentsAsk } from './cluster-messages.ts';
import type { DocumentsAnswer, DocumentsRequest } from '../hardening/index.ts';
import type { Readiness } from '../observability/health.ts';
import type { MetricsAnswer } from '../observability/index.ts';
import { send } from '../send.ts';

/**
 * The admin listener (ADMIN_PORT, ADMIN_HOST): GET /healthz, /readyz and /metrics on a plain
 * node:http server of their own. Probes and scrapes reach the process through it whatever the
 * public port is going through: it is outside MAX_CONNECTIONS (a client holding every public
 * connection cannot lock the liveness probe out, so Kubernetes does not restart a pod that is
 * serving), outside the rate limit and the public request checks (CORS, trusted documents, body
 * limits), which concern GraphQL clients, not the operator's tools. Scrapes here never compete
 * with GraphQL traffic for connections either.
 *
 * In a gateway process of its own (WORKERS=1) the listener runs on a thread of its own
 * (admin-thread.ts), so a GraphQL loop saturated by heavy queries cannot delay liveness:
 * - /healthz is answered by that thread: 200 while the gateway's event loop has turned within
 *   WORKER_HEARTBEAT_TIMEOUT_MS (it beats every fifth of that), 503 once it has not (an endless
 *   loop, a blocking call): busy is alive, stuck is not;
 * - /readyz is asked of the gateway's loop, which reports as before; when that loop does not answer
 *   within READY_ANSWER_WITHIN_MS the thread answers 503 `busy` itself: a saturated gateway is taken
 *   out of rotation, not restarted;
 * - /metrics is asked of the gateway's loop.
 * With WORKERS > 1 the group's primary, which serves no GraphQL, serves it on its own loop
 * (`startGroupAdminListener`): /healthz is the primary's (it replaces a worker whose loop stops
 * beating, src/process/cluster.ts), /readyz a listening worker's report, asked in turn (503 `busy` when none
 * answers within READY_ANSWER_WITHIN_MS), /metrics the whole group's.
 *
 * With ADMIN_TOKEN it also serves /trusted-documents (src/hardening/published-documents.ts): the
 * listener checks the bearer token and reads the bounded body, and the gateway's loop (a worker's, in
 * a group) validates and stores, since only it holds the schema.
 */

/** Probes send no body: a client that takes longer than this over its headers is cut, so a stray connection cannot hold a socket. */
const ADMIN_HEADERS_TIMEOUT_MS = 5_000;
const ADMIN_REQUEST_TIMEOUT_MS = 10_000;
/**
 * How long the admin thread waits for the gateway's loop to report readiness before answering 503
 * `busy`: half the deployment recipes' 2 s probe timeout, so the probe always gets an answer.
 */
const READY_ANSWER_WITHIN_MS = 1_000;
/** How long the admin thread waits for the gateway's loop to answer a scrape. */
const METRICS_ANSWER_WITHIN_MS = ADMIN_REQUEST_TIMEOUT_MS;
/** How long a /trusted-documents request waits for the gateway's loop: validating a large manifest takes a while. */
export const DOCUMENTS_ANSWER_WITHIN_MS = 60_000;
/** Largest manifest a publication may send; past it 413, and the body is not read further. */
const MAX_MANIFEST_BYTES = 8 * 1024 * 1024;
const DOCUMENTS_PATH = '/trusted-documents';

const JSON_TYPE = 'application/json; charset=utf-8';

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
  /** The gateway's loop is stuck when it has not turned for this long (WORKER_HEARTBEAT_TIMEOUT_MS). */
  stalledAfterMs: number;
  /** ADMIN_TOKEN: without it every /trusted-documents request is refused. */
  adminToken: string | undefined;
  /** The /trusted-documents routes on this loop; undefined without ADMIN_TOKEN. */
  documents: ((request: DocumentsRequest) => Promise<DocumentsAnswer>) | undefined;
}

/** An answer of the admin listener. */
export interface AdminAnswer {
  status: number;
  contentType: string;
  body: string;
}

/** A /trusted-documents request refused before it reached the gateway's loop, as it is logged: never with its token. */
export interface RefusedAdminRequest {
  method: string;
  path: string;
  reason: 'no token' | 'wrong token';
  address: string | undefined;
}

/** The /trusted-documents routes: the token they need, and the gateway loop that answers them. */
interface AdminDocuments {
  /** ADMIN_TOKEN; undefined refuses every request of these routes. */
  token: string | undefined;
  handle(request: DocumentsRequest): Promise<AdminAnswer>;
  refused(request: RefusedAdminRequest): void;
}

/** What the listener needs from whoever runs it: liveness now, and the answers only the gateway's loop can give. */
export interface AdminRoutes {
  /** Whether /metrics is served. */
  metrics: boolean;
  health(): AdminAnswer;
  ask(path: '/readyz' | '/metrics'): Promise<AdminAnswer>;
  documents: AdminDocuments;
}

/** A document route's answer as the admin listener sends it. */
export const documentsAnswer = ({ status, body }: DocumentsAnswer): AdminAnswer => json(status, body);

const digest = (text: string) => createHash('sha256').update(text).digest();

/** Whether `header` carries the token, compared in constant time over fixed-length digests. */
function tokenReason(header: string | undefined, expected: Buffer): RefusedAdminRequest['reason'] | undefined {
  const given = /^Bearer +(\S+) *$/i.exec(header ?? '')?.[1];
  if (given === undefined) return 'no token';
  return timingSafeEqual(digest(given), expected) ? undefined : 'wrong token';
}

/** The request's body, or undefined once it was answered 413 for passing MAX_MANIFEST_BYTES. */
function readBody(req: IncomingMessage, tooLarge: () => void): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length']);
    if (declared > MAX_MANIFEST_BYTES) {
      tooLarge();
      return resolve(undefined);
    }
    const chunks: Buffer[] = [];
    let bytes = 0;
    req.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes <= MAX_MANIFEST_BYTES) return void chunks.push(chunk);
      req.removeAllListeners('data');
      req.pause();
      tooLarge();
      resolve(undefined);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

type Answer = (res: ServerResponse, given: AdminAnswer) => void;

/** /trusted-documents (GET: the apps) and /trusted-documents/{app} (PUT: publish, DELETE: retire), behind ADMIN_TOKEN. */
function documentsRoute(req: IncomingMessage, res: ServerResponse, path: string, documents: AdminDocuments, answer: Answer): void {
  const list = path === DOCUMENTS_PATH || path === `${DOCUMENTS_PATH}/`;
  const allowed = list ? ['GET', 'HEAD'] : ['PUT', 'DELETE'];
  if (!allowed.includes(req.method ?? '')) {
    res.setHeader('Allow', allowed.join(', '));
    return answer(res, json(405, { error: `method not allowed: ${list ? 'GET /trusted-documents lists the apps' : 'PUT publishes an app\'s documents, DELETE retires them'}` }));
  }
  if (documents.token === undefined) return answer(res, json(403, { error: 'admin writes are off: set ADMIN_TOKEN to publish trusted documents' }));
  const reason = tokenReason(req.headers.authorization, digest(documents.token));
  if (reason !== undefined) {
    documents.refused({ method: req.method!, path, reason, address: req.socket.remoteAddress });
    res.setHeader('WWW-Authenticate', 'Bearer realm="gateway admin"');
    return answer(res, json(401, { error: `${reason === 'no token' ? 'no' : 'wrong'} admin token: send Authorization: Bearer <ADMIN_TOKEN>` }));
  }
  const app = list ? undefined : safeDecode(path.slice(DOCUMENTS_PATH.length + 1));
  const failed = () => {
    if (!res.headersSent) answer(res, json(500, { error: 'internal error' }));
    else res.destroy();
  };
  if (req.method !== 'PUT') {
    documents.handle({ method: req.method === 'DELETE' ? 'DELETE' : 'GET', app }).then((given) => answer(res, given), failed);
    return;
  }
  if (!/^application\/json\b/i.test(req.headers['content-type'] ?? '')) return answer(res, json(415, { error: 'send the manifest as Content-Type: application/json' }));
  const tooLarge = () => {
    res.setHeader('Connection', 'close');
    answer(res, json(413, { error: `the manifest is larger than ${MAX_MANIFEST_BYTES} bytes` }));
  };
  readBody(req, tooLarge)
    .then((body) => (body === undefined ? undefined : documents.handle({ method: 'PUT', app, body })))
    .then((given) => given && answer(res, given), failed);
}

const safeDecode = (segment: string) => {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
};

export const json = (status: number, value: unknown): AdminAnswer => ({ status, contentType: JSON_TYPE, body: JSON.stringify(value) });

export const LIVE: AdminAnswer = json(200, { status: 'ok' });

/** Readiness when the gateway's loop did not answer in time: busy, out of rotation, not dead. */
export const busyReadiness = (withinMs: number): AdminAnswer =>
  json(503, { status: 'unavailable', reason: 'busy', detail: `the gateway's event loop did not answer within ${withinMs} ms` });

/** The admin listener's routes, whichever thread serves them. */
export function adminRequestListener(routes: AdminRoutes): RequestListener {
  const answer = (res: Parameters<RequestListener>[1], { status, contentType, body }: AdminAnswer) => {
    res.setHeader('Cache-Control', 'no-store');
    send(res, status, contentType, body);
  };
  return (req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    if (path === DOCUMENTS_PATH || path.startsWith(`${DOCUMENTS_PATH}/`)) return documentsRoute(req, res, path, routes.documents, answer);
    const known = path === '/healthz' || path === '/readyz' || (path === '/metrics' && routes.metrics);
    if (!known) return answer(res, json(404, { error: 'not found: the admin port serves GET /healthz, /readyz and /metrics' }));
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.setHeader('Allow', 'GET, HEAD');
      return answer(res, json(405, { error: 'method not allowed' }));
    }
    if (path === '/healthz') return answer(res, routes.health());
    routes.ask(path).then(
      (given) => answer(res, given),
      () => {
        if (!res.headersSent) answer(res, json(500, { error: 'internal error' }));
        else res.destroy();
      },
    );
  };
}

export function createAdminServer(listener: RequestListener): Server {
  return createServer({ headersTimeout: ADMIN_HEADERS_TIMEOUT_MS, requestTimeout: ADMIN_REQUEST_TIMEOUT_MS }, listener);
}

/** The answers only the gateway's loop can give: its readiness report and the scrape. */
function askGateway({ readiness, scrape, logger }: AdminOptions) {
  return (path: '/readyz' | '/metrics'): Promise<AdminAnswer> => {
    const answer = path === '/readyz'
      ? readiness.check().then((report) => json(report.status === 'ready' ? 200 : 503, report))
      : scrape!();
    return answer.catch((error: unknown) => {
      logger.error({ err: error }, 'admin request failed');
      throw error;
    });
  };
}

/** A refused /trusted-documents request in the log: the method, path, reason and address, never the token sent. */
const logRefused = (logger: Logger) => (request: RefusedAdminRequest) => logger.warn(request, `admin request refused: ${request.reason}`);

/** What the primary of a group (WORKERS > 1) serves the group's admin port with. */
export interface GroupAdminOptions {
  host: string;
  port: number;
  logger: Logger;
  adminToken: string | undefined;
  /** A /trusted-documents request answered by a listening worker. */
  documents(request: DocumentsRequest): Promise<AdminAnswer>;
  /** A listening worker's readiness report, or busy when none answers within READY_ANSWER_WITHIN_MS. */
  readiness(withinMs: number): Promise<AdminAnswer>;
  /** The group's metrics; undefined when METRICS=false. */
  scrape: (() => Promise<AdminAnswer>) | undefined;
}

/**
 * The group's admin listener on the primary's loop, which serves no GraphQL: liveness is the
 * primary's own (it replaces a worker whose loop stops beating, src/process/cluster.ts), readiness a
 * listening worker's report (busy when none answers in time), metrics the group's sum.
 */
export async function startGroupAdminListener({ host, port, readiness, scrape, logger, adminToken, documents }: GroupAdminOptions): Promise<AdminListener> {
  return listenOnLoop(host, port, {
    metrics: scrape !== undefined,
    health: () => LIVE,
    ask: (path) => (path === '/readyz' ? readiness(READY_ANSWER_WITHIN_MS) : scrape!()),
    documents: { token: adminToken, handle: documents, refused: logRefused(logger) },
  });
}

async function listenOnLoop(host: string, port: number, routes: AdminRoutes): Promise<AdminListener> {
  const server = createAdminServer(adminRequestListener(routes));
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => reject(Object.assign(error, { setting: 'ADMIN_PORT' })));
    server.listen(port, host, () => resolve());
  });
  const { port: bound } = server.address() as AddressInfo;
  return {
    url: urlOf(host, bound),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        // Probes keep their connections alive; the process is stopping, so none is waited for.
        server.closeAllConnections();
      }),
  };
}

/** What the gateway's loop hands the admin thread. */
export interface AdminThreadSetup {
  host: string;
  port: number;
  metrics: boolean;
  /** The time (ms since the epoch) the gateway's loop last turned, written by that loop. */
  heartbeat: SharedArrayBuffer;
  stalledAfterMs: number;
  readyWithinMs: number;
  metricsWithinMs: number;
  adminToken: string | undefined;
  documentsWithinMs: number;
}

/** Messages between the gateway's loop and the admin thread. */
export type FromAdminThread =
  | { type: 'listening'; port: number }
  | { type: 'listen-error'; code: string | undefined; message: string; address: string | undefined; port: number | undefined }
  | { type: 'ask'; id: number; path: '/readyz' | '/metrics' }
  | { type: 'documents'; id: number; request: DocumentsRequest }
  | { type: 'refused'; request: RefusedAdminRequest };
export type ToAdminThread = { type: 'answer'; id: number; answer: AdminAnswer | undefined } | { type: 'close' };

/**
 * The admin listener of a gateway process of its own, on a thread of its own, which a saturated
 * loop cannot hold up. (In a group of workers the primary serves the admin port instead:
 * `startGroupAdminListener`.)
 */
export async function startAdminListener(options: AdminOptions): Promise<AdminListener> {
  const { host, port, scrape, stalledAfterMs } = options;
  const heartbeat = new SharedArrayBuffer(8);
  const beat = new BigInt64Array(heartbeat);
  const turn = () => Atomics.store(beat, 0, BigInt(Date.now()));
  turn();
  // From this loop's timers: when the loop is stuck, the beats stop and /healthz turns 503.
  const beating = setInterval(turn, heartbeatIntervalMs(stalledAfterMs)).unref();
  const setup: AdminThreadSetup = {
    host, port, metrics: scrape !== undefined, heartbeat, stalledAfterMs, readyWithinMs: READY_ANSWER_WITHIN_MS, metricsWithinMs: METRICS_ANSWER_WITHIN_MS,
    adminToken: options.adminToken, documentsWithinMs: DOCUMENTS_ANSWER_WITHIN_MS,
  };
  // The sources run as TypeScript, the built gateway as the bundle's admin-thread.js beside this chunk.
  const entry = new URL(`./admin-thread.${import.meta.url.endsWith('.ts') ? 'ts' : 'js'}`, import.meta.url);
  const thread = new Worker(entry, { workerData: setup, env: {} });
  const ask = askGateway(options);
  const refused = logRefused(options.logger);
  const post = (message: ToAdminThread) => thread.postMessage(message);
  const exited = new Promise<void>((resolve) => thread.once('exit', () => resolve()));
  const bound = await new Promise<number>((resolve, reject) => {
    thread.once('error', reject);
    thread.on('message', (message: FromAdminThread) => {
      if (message.type === 'listening') resolve(message.port);
      else if (message.type === 'listen-error') reject(Object.assign(new Error(message.message), { code: message.code, address: message.address, port: message.port, setting: 'ADMIN_PORT' }));
      else if (message.type === 'refused') refused(message.request);
      else if (message.type === 'documents') {
        const { documents, logger } = options;
        const answered = documents ? documents(message.request).then(documentsAnswer) : Promise.resolve(json(403, { error: 'admin writes are off: set ADMIN_TOKEN to publish trusted documents' }));
        answered.then((answer) => post({ type: 'answer', id: message.id, answer }), (error: unknown) => {
          logger.error({ err: error }, 'admin request failed');
          post({ type: 'answer', id: message.id, answer: undefined });
        });
      } else ask(message.path).then((answer) => post({ type: 'answer', id: message.id, answer }), () => post({ type: 'answer', id: message.id, answer: undefined }));
    });
  }).catch(async (error: unknown) => {
    clearInterval(beating);
    await thread.terminate();
    throw error;
  });
  // Past start-up, a failure of the thread ends the admin listener: probes then fail, and say why in the log.
  thread.on('error', (error) => options.logger.error({ err: error }, 'admin listener failed'));
  return {
    url: urlOf(host, bound),
    close: async () => {
      clearInterval(beating);
      post({ type: 'close' });
      await exited;
    },
  };
}

/**
 * A worker of a group whose primary serves the admin port: answers the primary's /trusted-documents
 * requests on this loop, which holds the schema. Returns the stop.
 */
export function answerPrimaryDocuments(documents: ((request: DocumentsRequest) => Promise<DocumentsAnswer>) | undefined, logger: Logger): () => void {
  const listener = (message: unknown) => {
    if (typeof message !== 'object' || message === null || (message as { type?: unknown }).type !== DOCUMENTS_ASK) return;
    const { id, request } = message as DocumentsAsk;
    const answered = documents ? documents(request as DocumentsRequest).then(documentsAnswer) : Promise.resolve(json(403, { error: 'admin writes are off: set ADMIN_TOKEN to publish trusted documents' }));
    const reply = (answer: AdminAnswer | undefined) => {
      if (process.connected) process.send?.({ type: DOCUMENTS_ANSWER, id, answer } satisfies DocumentsAnswerMessage);
    };
    answered.then(reply, (error: unknown) => {
      logger.error({ err: error }, 'admin request failed');
      reply(undefined);
    });
  };
  process.on('message', listener);
  return () => process.off('message', listener);
}

const urlOf = (host: string, port: number) => `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
