/**
 * The embedded sandbox of the financial platform: a stateful, seeded
 * implementation of the platform contract on two loopback listeners, the
 * API ({base_url}) and the content host ({documents_url}), with switchable
 * faults for resilience tests.
 */
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { ADMIN_PREFIX, handleAdmin } from './admin/routes.ts';
import { handleApi, matchApi } from './api/host.ts';
import { CORS_HEADERS, legalDocumentPath, matchContent, serveContent } from './content/host.ts';
import type { ContentEnv } from './content/host.ts';
import { dispatch } from './dispatch.ts';
import type { DispatchEnv, SandboxAnswer } from './dispatch.ts';
import { FaultRegistry } from './admin/faults.ts';
import type { Fault, RouteName } from './admin/faults.ts';
import { MAX_CONTENT_LENGTH } from './content/file-samples.ts';
import { plainError, send, TimerSet } from './http.ts';
import { DEFAULT_RECORDED_REQUESTS, RequestLog } from './admin/request-log.ts';
import type { RecordedRequest } from './admin/request-log.ts';
import { ACCOUNT_PROFILES } from './data/seed.ts';
import type { DemoToken } from './data/seed.ts';
import { exampleIds } from './data/examples.ts';
import type { ExampleIds } from './data/examples.ts';
import { UrlSigner } from './content/signed-urls.ts';
import { PlatformStore } from './data/store.ts';
import type { SandboxStore } from './data/store.ts';
import type { LiveChange } from './data/live.ts';
import { MAX_PAGE_SIZE } from './api/query.ts';
import { respellTimestamps, STORED_ZONE_DESIGNATOR } from './data/time.ts';
import { isZoneDesignator } from '../src/settings/sandbox-settings.ts';

export type { Fault } from './admin/faults.ts';
export type { SandboxAnswer } from './dispatch.ts';
export type { DemoToken } from './data/seed.ts';
export type * from './data/records.ts';

export interface SandboxOptions {
  /** API port; 0 (default) picks an ephemeral one. */
  port?: number;
  /** Content-host port; 0 (default) picks an ephemeral one. */
  contentPort?: number;
  /** Bind address of both listeners; default 127.0.0.1. The admin routes exist only on loopback. */
  host?: string;
  /** Answer LinX searches with the page envelope instead of a bare array. */
  linxEnvelope?: boolean;
  /**
   * How the API's answers spell each date-time's zone: `+0000` (default), `Z`, `+00:00`, or another
   * offset such as `+02:00` or `-0530` (the wall time moved to it, the same instant).
   */
  zoneDesignator?: string;
  /** Time from an upload to its scan result; default 300 ms. */
  scanDelayMs?: number;
  /** Validity of the document content URLs; default 900 s. */
  urlTtlSeconds?: number;
  /** Added to every request before it is answered; default 0. */
  latencyMs?: number;
  /** Clock for timestamps, URL expiry and date rules; default the real clock. Seed data never uses it. */
  now?: () => Date;
  /** How many requests `requests` keeps, the most recent ones (the counters stay exact); default 10000. */
  maxRecordedRequests?: number;
  /**
   * Origin clients reach the content host at, when it differs from the bind address
   * (e.g. `http://localhost:4011` behind docker-compose). Default: the listener's own address.
   */
  publicContentOrigin?: string;
  /**
   * Live mode: every `liveIntervalMs` exceptions arrive and change status, a LinX batch moves on,
   * an acceptance arrives and now and then a document's scan moves on (data/live.ts,
   * data/live-records.ts); `live.step()` makes a step at any time. Default off.
   */
  live?: boolean;
  /** Time between two live steps; default 3000 ms. 0 leaves stepping to `live.step()`. */
  liveIntervalMs?: number;
  /** Seed of the live changes; the same seed gives the same changes. Default `live`. */
  liveSeed?: string;
  /** Largest page size the list endpoints serve; a larger `size` is silently served at this size. Default 1000 (the largest accepted). */
  maxPageSize?: number;
  /** Sees every answer of both hosts just before it is sent (admin routes excluded). */
  onAnswer?: (answer: SandboxAnswer) => void;
}

export interface Sandbox {
  /** base_url, e.g. http://127.0.0.1:40123 (no trailing slash). */
  url: string;
  /** Origin of the content host: a separate listener, so a different origin. */
  documentsUrl: string;
  tokens: DemoToken[];
  store: SandboxStore;
  /** Ready-to-use ids of a Business Account's seeded records (by default the first demo token's). */
  examples(businessAccountId?: string): ExampleIds;
  faults: { set(route: RouteName | '*', fault: Fault): void; clear(route?: RouteName | '*'): void };
  /** The requests received by both hosts, oldest first (admin routes excluded): the most recent `maxRecordedRequests`; a fresh copy on each read. */
  readonly requests: RecordedRequest[];
  resetRequests(): void;
  setLinxEnvelope(on: boolean): void;
  /** Switches the spelling of the answers' date-times (see SandboxOptions.zoneDesignator); throws a RangeError for one it cannot write. */
  setZoneDesignator(designator: string): void;
  /** Live changes to the records (see SandboxOptions.live). */
  live: {
    /** Makes one step now, whether or not live mode runs; returns what changed. */
    step(): LiveChange[];
    /** Every change since start or the last reset, oldest first. */
    changes(): readonly LiveChange[];
  };
  /** Closes both listeners and destroys hanging sockets. */
  close(): Promise<void>;
}

export const DEMO_TOKENS: DemoToken[] = ACCOUNT_PROFILES.map(({ token, businessAccountId, businessAccountName }) => ({ token, businessAccountId, businessAccountName }));

/** Legal-document links in acceptances are minted at seed time and stay valid this long. */
const ACCEPTANCE_URL_TTL_SECONDS = 7 * 24 * 3600;

function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || host.startsWith('127.');
}

function listen(server: Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      const address = server.address();
      resolve(typeof address === 'object' && address !== null ? address.port : port);
    });
  });
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

function splitUrl(req: IncomingMessage): { path: string; query: string } {
  const url = req.url ?? '/';
  const mark = url.indexOf('?');
  return mark === -1 ? { path: url, query: '' } : { path: url.slice(0, mark), query: url.slice(mark + 1) };
}

function tune(server: Server): void {
  // Longer than the usual client keep-alive, so clients never reuse a socket the sandbox is closing.
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
}

export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const host = options.host ?? '127.0.0.1';
  const clock = options.now;
  const now = clock ? (): number => clock().getTime() : Date.now;
  const timers = new TimerSet();
  const scans = new TimerSet();
  const faults = new FaultRegistry();
  const log = new RequestLog(options.maxRecordedRequests ?? DEFAULT_RECORDED_REQUESTS);
  let linxEnvelope = options.linxEnvelope ?? false;
  const checkedDesignator = (designator: string): string => {
    if (!isZoneDesignator(designator)) throw new RangeError(`zoneDesignator must be Z, +0000, +00:00 or another offset such as +02:00 or -0530, got "${designator}"`);
    return designator;
  };
  const configuredDesignator = checkedDesignator(options.zoneDesignator ?? STORED_ZONE_DESIGNATOR);
  let zoneDesignator = configuredDesignator;
  const setZoneDesignator = (designator: string): void => {
    zoneDesignator = checkedDesignator(designator);
  };
  const dispatchEnv: DispatchEnv = { now, faults, log, timers, latencyMs: options.latencyMs ?? 0, onAnswer: options.onAnswer };
  const urlHost = host.includes(':') ? `[${host}]` : host;

  // The content origin is known only once its listener is bound, and the
  // store's URLs need it: the handlers are attached right after, in the same
  // tick, before any connection can be served.
  const content = createServer();
  tune(content);
  const contentPort = await listen(content, options.contentPort ?? 0, host);
  const documentsUrl = options.publicContentOrigin?.replace(/\/+$/, '') ?? `http://${urlHost}:${contentPort}`;
  const signer = new UrlSigner(documentsUrl);
  const platformStore = new PlatformStore((documentId, version) =>
    signer.sign('LEGAL', legalDocumentPath(documentId, version), Math.floor(now() / 1000) + ACCEPTANCE_URL_TTL_SECONDS), undefined, options.liveSeed);
  const liveIntervalMs = options.liveIntervalMs ?? 3000;
  const liveTimer = options.live && liveIntervalMs > 0 ? setInterval(() => platformStore.liveStep(), liveIntervalMs) : undefined;
  liveTimer?.unref();
  platformStore.onReset(() => scans.clear());
  const contentEnv: ContentEnv = { store: platformStore, signer, now, scans, scanDelayMs: options.scanDelayMs ?? 300 };
  const onContent = (req: IncomingMessage, res: ServerResponse): void => {
    const { path, query } = splitUrl(req);
    const target = matchContent(req.method ?? '', path);
    dispatch(dispatchEnv, 'content', target === undefined ? 'unknown' : 'content', req, res, path, query, () => {
      if (target === undefined) return plainError(404, `No content at ${path}`, now(), CORS_HEADERS);
      if (target === 'method') return plainError(405, `Method ${req.method ?? ''} is not allowed here`, now(), CORS_HEADERS);
      return serveContent(contentEnv, target, path, new URLSearchParams(query), req);
    });
  };
  content.on('request', onContent);
  // Refuse an announced oversize upload before the client sends its body.
  content.on('checkContinue', (req: IncomingMessage, res: ServerResponse) => {
    if (!(Number(req.headers['content-length']) > MAX_CONTENT_LENGTH)) res.writeContinue();
    onContent(req, res);
  });

  const maxPageSize = options.maxPageSize ?? MAX_PAGE_SIZE;
  if (!Number.isSafeInteger(maxPageSize) || maxPageSize < 1 || maxPageSize > MAX_PAGE_SIZE) {
    throw new RangeError(`maxPageSize must be an integer between 1 and ${MAX_PAGE_SIZE}, got ${maxPageSize}`);
  }
  const apiEnv = { store: platformStore, signer, now, urlTtlSeconds: options.urlTtlSeconds ?? 900, linxEnvelope: () => linxEnvelope, maxPageSize };
  const adminEnabled = isLoopback(host);
  const adminEnv = {
    faults, log, store: platformStore, now,
    setLinxEnvelope: (on: boolean) => { linxEnvelope = on; },
    setZoneDesignator,
    reset: () => {
      platformStore.reset();
      faults.clear();
      linxEnvelope = options.linxEnvelope ?? false;
      zoneDesignator = configuredDesignator;
    },
  };
  const api = createServer((req, res) => {
    const { path, query } = splitUrl(req);
    const params = new URLSearchParams(query);
    if (adminEnabled && path.startsWith(ADMIN_PREFIX)) {
      handleAdmin(adminEnv, req, path, params)
        .then((reply) => send(res, reply, {}, timers))
        .catch((error: unknown) => {
          console.error('sandbox: admin route failed', error);
          send(res, plainError(500, 'Unexpected sandbox error', now()), {}, timers);
        });
      return;
    }
    const match = matchApi(req.method ?? '', path);
    dispatch(dispatchEnv, 'api', match.route, req, res, path, query, async () => {
      const reply = await handleApi(apiEnv, match, req, params);
      // Read when the answer is made, so a switch applies to the next answer.
      return typeof reply.body === 'string' ? { ...reply, body: respellTimestamps(reply.body, zoneDesignator) } : reply;
    });
  });
  tune(api);
  let apiPort: number;
  try {
    apiPort = await listen(api, options.port ?? 0, host);
  } catch (error) {
    await closeServer(content);
    throw error;
  }

  let closing: Promise<void> | undefined;
  return {
    url: `http://${urlHost}:${apiPort}`,
    documentsUrl,
    tokens: DEMO_TOKENS.map((token) => ({ ...token })),
    store: platformStore,
    examples: (businessAccountId = DEMO_TOKENS[0]!.businessAccountId) => exampleIds(platformStore, businessAccountId),
    faults: { set: (route, fault) => faults.set(route, fault), clear: (route) => faults.clear(route) },
    get requests() {
      return log.requests;
    },
    resetRequests: () => log.reset(),
    setLinxEnvelope: (on) => { linxEnvelope = on; },
    setZoneDesignator,
    live: { step: () => platformStore.liveStep(), changes: () => platformStore.liveChanges() },
    close: () => {
      closing ??= (async () => {
        if (liveTimer) clearInterval(liveTimer);
        timers.clear();
        scans.clear();
        await Promise.all([closeServer(api), closeServer(content)]);
      })();
      return closing;
    },
  };
}
