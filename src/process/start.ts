import cluster from 'node:cluster';
import type { Logger } from 'pino';
import { readFile } from 'node:fs/promises';
import { Kind, parse, type OperationDefinitionNode } from 'graphql';
import { startBanner, type Listeners, type TrustedOperation } from './banner.ts';
import { cursorSecretWarning, drawnCursorSecret } from '../connections/cursor-seal.ts';
import { checkRedisAddresses, ConfigError, loadConfig, type Config } from '../settings/config.ts';
import { readGatewayCommandLine } from '../settings/gateway-help.ts';
import { manifestEntries } from '../hardening/trusted-documents.ts';
import { markProcessStopping } from '../observability/health.ts';
import { createLogger, flushLogs } from '../logger.ts';
import type { ExampleValues } from '../playground/index.ts';
import { startGateway } from '../server.ts';
import { settingTypos } from '../settings/setting-typos.ts';
import { ADMIN_ON_PRIMARY_ENV, heartbeatIntervalMs, READINESS_ANSWER, READINESS_ASK, WORKER_HEARTBEAT, WORKER_LISTENING, type ReadinessAnswer, type ReadinessAsk, type WorkerListening } from './cluster-messages.ts';
import type { Sandbox } from '../../sandbox/index.ts';

const SHUTDOWN_BACKSTOP_MS = 5_000;

/** Set by the primary for its workers: the playground's demo values over the primary's embedded sandbox. */
const WORKER_PLAYGROUND_ENV = 'GATEWAY_WORKER_PLAYGROUND';

interface PlaygroundValues {
  demoToken?: string;
  exampleValues?: ExampleValues;
}

// Starts the gateway. Without UPSTREAM_URL it first starts the embedded platform sandbox and serves
// over it, so a fresh clone has something to query. With WORKERS > 1 this process becomes the
// primary of a worker group (src/process/cluster.ts) and each worker runs this file again as a gateway.
async function main() {
  readGatewayCommandLine();
  const config = loadConfig();
  // Once per process group: the workers read the same environment.
  if (!cluster.isWorker) for (const warning of settingTypos(process.env)) process.stderr.write(`${warning}\n`);
  const logger = createLogger(config.logLevel, { pretty: process.stdout.isTTY && config.env === 'development' });
  if (cluster.isWorker) return serveAsWorker(config, logger.child({ pid: process.pid, worker: cluster.worker?.id }));
  await checkRedisAddresses(config);
  const cursorWarning = cursorSecretWarning(config.env === 'production', config.paging.cursorSecret, config.scaling.workers);
  if (cursorWarning !== undefined) logger.warn({ setting: 'CURSOR_SECRET' }, cursorWarning);

  let upstreamUrl = config.upstreamUrl;
  let sandbox: Sandbox | undefined;
  let portsTaken: string | undefined;
  if (!upstreamUrl) {
    // One sandbox per process group: it holds the platform's state, which every worker must share.
    ({ sandbox, portsTaken } = await startEmbeddedSandbox(config));
    upstreamUrl = sandbox.url;
  }
  // The playground opens with the first demo account's token and ids from its records.
  const demo = sandbox?.tokens[0];
  const examples = sandbox && demo ? sandbox.examples(demo.businessAccountId) : undefined;
  const playground: PlaygroundValues = {
    demoToken: demo?.token,
    // Imported only with the sandbox: a production start-up does not load the playground's modules.
    exampleValues: examples ? (await import('../playground/sandbox-examples.ts')).sandboxExampleValues(examples) : undefined,
  };
  const trusted = config.trustedDocuments ? await trustedOperations(config.trustedDocuments.file) : undefined;
  const banner = (listeners: Listeners) => startBanner(config, listeners, upstreamUrl, sandbox && examples ? { ...sandbox, portsTaken, examples } : undefined, trusted);

  let stopLive: (() => void) | undefined;
  if (config.scaling.workers > 1) {
    const { superviseWorkers } = await import('./cluster.ts');
    await superviseWorkers(config, logger, {
      count: config.scaling.workers,
      env: {
        // Without CURSOR_SECRET the workers of one instance still share one cursor key: the primary draws it.
        ...(config.paging.cursorSecret === undefined ? { CURSOR_SECRET: drawnCursorSecret() } : {}),
        ...(sandbox ? { UPSTREAM_URL: upstreamUrl, [WORKER_PLAYGROUND_ENV]: JSON.stringify(playground) } : {}),
      },
      onListening: (listeners) => {
        process.stdout.write(banner(listeners));
        stopLive ??= sandbox && liveSteps(config, sandbox);
      },
      close: async () => {
        stopLive?.();
        await sandbox?.close();
      },
    });
    return;
  }

  const gateway = await startGateway(config, upstreamUrl, { logger, ...playground });
  // Handlers before the banner: a supervisor that signals as soon as it reads the banner must find them.
  stopOnSignals(config, logger, async () => {
    stopLive?.();
    await gateway.close();
    await sandbox?.close();
  });
  process.stdout.write(banner({ url: gateway.url, adminUrl: gateway.adminUrl }));
  stopLive = sandbox && liveSteps(config, sandbox);
}

/**
 * The embedded sandbox's live mode: its records change on their own every SANDBOX_LIVE_INTERVAL_MS
 * unless SANDBOX_LIVE says otherwise, so that subscriptions show a live feed out of the box
 * (`npm run sandbox` and startSandbox() keep it off unless asked). The steps start once the gateway
 * listens, so the banner's first answers still show the seeded records. Returns the stop.
 */
function liveSteps(config: Config, sandbox: Sandbox): (() => void) | undefined {
  const unset = process.env.SANDBOX_LIVE === undefined || process.env.SANDBOX_LIVE === '';
  const intervalMs = config.sandbox.liveIntervalMs ?? 3000;
  if (!(unset || config.sandbox.live) || intervalMs <= 0) return undefined;
  const timer = setInterval(() => sandbox.live.step(), intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}

/**
 * The manifest's operations for the banner, from a Relay or an Apollo Client manifest. The gateway itself checks the manifest as it starts and
 * refuses a bad one with its own message; here an unreadable entry is only left out of the list.
 */
async function trustedOperations(file: string): Promise<TrustedOperation[] | undefined> {
  let manifest: unknown;
  try {
    manifest = JSON.parse(await readFile(file, 'utf8'));
  } catch {
    return undefined;
  }
  const operations: TrustedOperation[] = [];
  for (const [id, text] of manifestEntries(manifest)) {
    if (typeof id !== 'string') continue;
    try {
      const operation = parse(String(text)).definitions.find((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
      if (!operation) continue;
      const needsVariables = (operation.variableDefinitions ?? []).some((v) => v.type.kind === Kind.NON_NULL_TYPE && v.defaultValue === undefined);
      operations.push({ id, label: `${operation.operation} ${operation.name?.value ?? '(anonymous)'}`, needsVariables });
    } catch {
      // Not GraphQL: the gateway refuses the manifest at start-up.
    }
  }
  return operations;
}

/** A worker of the group: the gateway over the primary's platform URL, with no banner (the primary prints it). */
async function serveAsWorker(config: Config, logger: Logger) {
  const upstreamUrl = config.upstreamUrl;
  if (!upstreamUrl) throw new Error('a worker needs UPSTREAM_URL: the primary sets it to its embedded sandbox');
  const setup = process.env[WORKER_PLAYGROUND_ENV];
  const playground = setup ? (JSON.parse(setup) as PlaygroundValues) : {};
  // The primary serves the group's admin port (src/process/cluster.ts): this worker answers its readiness questions.
  const adminOnPrimary = process.env[ADMIN_ON_PRIMARY_ENV] === '1';
  const gateway = await startGateway(config, upstreamUrl, { logger, ...playground, adminOnPrimary });
  if (adminOnPrimary) {
    process.on('message', (message: unknown) => {
      if (typeof message !== 'object' || message === null || (message as { type?: unknown }).type !== READINESS_ASK) return;
      const { id } = message as ReadinessAsk;
      void gateway.readiness.check().then((report) => {
        if (process.connected) process.send?.({ type: READINESS_ANSWER, id, ready: report.status === 'ready', report } satisfies ReadinessAnswer);
      });
    });
  }
  stopOnSignals(config, logger, () => gateway.close());
  // Both listeners are up: the primary counts this worker as serving (and prints the banner once all are).
  process.send?.({ type: WORKER_LISTENING, url: gateway.url, adminUrl: gateway.adminUrl } satisfies WorkerListening);
  // Sent from this event loop's timers: when the loop is stuck, the beats stop and the primary replaces this worker.
  setInterval(() => {
    if (process.connected) process.send?.({ type: WORKER_HEARTBEAT });
  }, heartbeatIntervalMs(config.scaling.heartbeatTimeoutMs)).unref();
}

/**
 * SIGTERM/SIGINT: turn unready at once, keep serving for SHUTDOWN_DELAY_MS (a load balancer polling
 * /readyz takes the process out of rotation meanwhile), then close: the listener stops, in-flight
 * requests drain for up to SHUTDOWN_TIMEOUT_MS, and the process exits 0.
 */
function stopOnSignals(config: Config, logger: Logger, close: () => Promise<void>): void {
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    markProcessStopping();
    const delayMs = config.scaling.shutdownDelayMs;
    logger.info({ signal, delayMs, timeoutMs: config.shutdownTimeoutMs }, 'shutting down');
    // The drain itself is bounded by SHUTDOWN_TIMEOUT_MS (connections still busy then are cut);
    // this backstop only ends a close that hangs for another reason.
    setTimeout(() => {
      logger.error('shutdown did not complete: exiting');
      process.exit(1);
    }, delayMs + config.shutdownTimeoutMs + SHUTDOWN_BACKSTOP_MS).unref();
    if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
    try {
      await close();
    } catch (error) {
      // A failed close is still a stop, but not a clean one: the exit code says so.
      logger.error({ err: error }, 'shutdown failed: exiting');
      process.exit(1);
    }
    logger.info('stopped');
    await flushLogs();
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

/**
 * The sandbox on `npm run sandbox`'s ports (SANDBOX_PORT 4010, SANDBOX_CONTENT_PORT
 * 4011), so the URLs the docs give work; when they are taken (say, by a running
 * `npm run sandbox`), on free ports, and the banner says so.
 */
async function startEmbeddedSandbox(config: Config): Promise<{ sandbox: Sandbox; portsTaken?: string }> {
  const { startSandbox } = await import('../../sandbox/index.ts');
  // Its live steps, when on, start once the gateway listens (liveSteps).
  const options = { ...config.sandbox, live: false };
  try {
    return { sandbox: await startSandbox({ port: config.sandboxPort, contentPort: config.sandboxContentPort, ...options }) };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error;
    const ports = `${config.sandboxPort}/${config.sandboxContentPort}`;
    return { sandbox: await startSandbox({ port: 0, contentPort: 0, ...options }), portsTaken: `(ports ${ports} are taken: the sandbox runs on free ports instead)` };
  }
}

main().catch((error: unknown) => {
  if (error instanceof ConfigError) {
    process.stderr.write(`${error.message}\n`);
    process.exit(1);
  }
  const { code, port, address } = error as { code?: string; port?: number; address?: string };
  if (code === 'EADDRINUSE') {
    const setting = (error as { setting?: string }).setting ?? 'PORT';
    process.stderr.write(`Port ${String(port)} on ${String(address)} is already in use: choose another with ${setting} (0 picks a free one)\n`);
    process.exit(1);
  }
  process.stderr.write(`Start-up failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
