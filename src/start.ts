import { ConfigError, loadConfig } from './config.ts';
import { createLogger } from './logger.ts';
import { startGateway } from './server.ts';
import { sandboxExampleValues } from './playground/index.ts';
import type { Sandbox } from '../sandbox/index.ts';

const SHUTDOWN_BACKSTOP_MS = 5_000;

// Starts the gateway. Without UPSTREAM_URL it first starts the embedded platform
// sandbox and serves over it, so a fresh clone has something to query.
async function main() {
  const config = loadConfig();
  const logger = createLogger(config.logLevel, { pretty: process.stdout.isTTY && config.env === 'development' });
  let upstreamUrl = config.upstreamUrl;
  let sandbox: Sandbox | undefined;
  if (!upstreamUrl) {
    const { startSandbox } = await import('../sandbox/index.ts');
    sandbox = await startSandbox({ port: config.sandboxPort, ...config.sandbox });
    upstreamUrl = sandbox.url;
  }
  // The playground opens with the first demo account's token and ids from its records.
  const demo = sandbox?.tokens[0];
  const gateway = await startGateway(config, upstreamUrl, {
    logger,
    demoToken: demo?.token,
    exampleValues: sandbox && demo ? sandboxExampleValues(sandbox.store, demo.businessAccountId) : undefined,
  });
  const lines = [`GraphQL endpoint: ${gateway.url}/graphql`, `Platform: ${upstreamUrl}${sandbox ? ' (embedded sandbox)' : ''}`];
  if (config.playground) lines.push(`Playground: open ${gateway.url}/graphql in a browser`);
  if (sandbox) {
    lines.push('Demo tokens (send as "Authorization: Bearer <token>"):');
    for (const t of sandbox.tokens) lines.push(`  ${t.token}  ${t.businessAccountName}`);
  }
  process.stdout.write(`${lines.join('\n')}\n`);

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
    await gateway.close();
    await sandbox?.close();
    clearTimeout(deadline);
    logger.info('stopped');
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

main().catch((error: unknown) => {
  if (error instanceof ConfigError) {
    process.stderr.write(`${error.message}\n`);
    process.exit(1);
  }
  process.stderr.write(`Start-up failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
