import { startBanner } from './banner.ts';
import { ConfigError, loadConfig, type Config } from './config.ts';
import { createLogger } from './logger.ts';
import { startGateway } from './server.ts';
import type { Sandbox } from '../sandbox/index.ts';

const SHUTDOWN_BACKSTOP_MS = 5_000;

// Starts the gateway. Without UPSTREAM_URL it first starts the embedded platform
// sandbox and serves over it, so a fresh clone has something to query.
async function main() {
  const config = loadConfig();
  const logger = createLogger(config.logLevel, { pretty: process.stdout.isTTY && config.env === 'development' });
  let upstreamUrl = config.upstreamUrl;
  let sandbox: Sandbox | undefined;
  let portsTaken: string | undefined;
  if (!upstreamUrl) {
    ({ sandbox, portsTaken } = await startEmbeddedSandbox(config));
    upstreamUrl = sandbox.url;
  }
  // The playground opens with the first demo account's token and ids from its records.
  const demo = sandbox?.tokens[0];
  const examples = sandbox && demo ? sandbox.examples(demo.businessAccountId) : undefined;
  const gateway = await startGateway(config, upstreamUrl, {
    logger,
    demoToken: demo?.token,
    // Imported only with the sandbox: a production start-up does not load the playground's modules.
    exampleValues: examples ? (await import('./playground/sandbox-examples.ts')).sandboxExampleValues(examples) : undefined,
  });
  process.stdout.write(startBanner(config, gateway.url, upstreamUrl, sandbox && examples ? { ...sandbox, portsTaken, examples } : undefined));

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal, timeoutMs: config.shutdownTimeoutMs }, 'shutting down');
    // The drain itself is bounded by SHUTDOWN_TIMEOUT_MS (connections still busy then are cut);
    // this backstop only ends a close that hangs for another reason.
    const deadline = setTimeout(() => {
      logger.error('shutdown did not complete: exiting');
      process.exit(1);
    }, config.shutdownTimeoutMs + SHUTDOWN_BACKSTOP_MS).unref();
    try {
      await gateway.close();
      await sandbox?.close();
    } catch (error) {
      // A failed close is still a stop, but not a clean one: the exit code says so.
      logger.error({ err: error }, 'shutdown failed: exiting');
      process.exit(1);
    }
    clearTimeout(deadline);
    logger.info('stopped');
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
  const { startSandbox } = await import('../sandbox/index.ts');
  try {
    return { sandbox: await startSandbox({ port: config.sandboxPort, contentPort: config.sandboxContentPort, ...config.sandbox }) };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error;
    const ports = `${config.sandboxPort}/${config.sandboxContentPort}`;
    return { sandbox: await startSandbox({ port: 0, contentPort: 0, ...config.sandbox }), portsTaken: `(ports ${ports} are taken: the sandbox runs on free ports instead)` };
  }
}

main().catch((error: unknown) => {
  if (error instanceof ConfigError) {
    process.stderr.write(`${error.message}\n`);
    process.exit(1);
  }
  const { code, port, address } = error as { code?: string; port?: number; address?: string };
  if (code === 'EADDRINUSE') {
    process.stderr.write(`Port ${String(port)} on ${String(address)} is already in use: choose another with PORT (0 picks a free one)\n`);
    process.exit(1);
  }
  process.stderr.write(`Start-up failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
