/**
 * Runs the sandbox on its own (`npm run sandbox`), configured by the SANDBOX_* variables
 * defined in ./settings.ts (table in docs/sandbox.md).
 */
import { readCommandLine } from '../src/settings/command-line.ts';
import { ConfigError, optionsFromEnv } from './env.ts';
import type { SandboxOptions } from './index.ts';
import { SANDBOX_SETTINGS } from '../src/settings/sandbox-settings.ts';

readCommandLine(
  { options: {} },
  {
    command: 'npm run sandbox',
    summary: [
      'Runs the platform sandbox on its own: the REST API of openapi/platform.yaml, stateful and seeded,',
      'and its content host for document uploads. Prints its URLs and demo tokens; SIGINT or SIGTERM',
      'stops it. `npm start` without UPSTREAM_URL runs the same sandbox inside the gateway.',
    ].join('\n'),
    options: {},
    examples: ['npm run sandbox', 'SANDBOX_PORT=5010 SANDBOX_LATENCY_MS=300 npm run sandbox'],
    more: [
      'Settings (environment variables; what each means: docs/sandbox.md):',
      ...Object.entries(SANDBOX_SETTINGS).map(([name, definition]) => `  ${name}${'default' in definition ? ` (default: ${String(definition.default)})` : ''}`),
    ].join('\n'),
  },
);

async function main(): Promise<void> {
  let options: SandboxOptions;
  try {
    options = optionsFromEnv(process.env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    console.error(`sandbox: ${error.message}`);
    process.exit(1);
  }
  // Loaded only once the configuration is known to be good, so a bad value fails fast.
  const { startSandbox } = await import('./index.ts');
  const sandbox = await startSandbox(options).catch((error: unknown) => {
    const { code, port } = error as { code?: string; port?: number };
    if (code !== 'EADDRINUSE') throw error;
    console.error(`sandbox: port ${String(port)} is already in use; choose another with SANDBOX_PORT / SANDBOX_CONTENT_PORT (0 picks a free one)`);
    process.exit(1);
  });
  const lines = [
    `Platform sandbox: ${sandbox.url}`,
    `Content host: ${sandbox.documentsUrl}`,
    `LinX answers: ${options.linxEnvelope ? 'page envelope' : 'bare array'}${options.latencyMs ? `; added latency ${options.latencyMs} ms` : ''}`,
    ...(options.zoneDesignator !== undefined && options.zoneDesignator !== '+0000' ? [`Date-times written with the zone designator ${options.zoneDesignator}`] : []),
    ...(options.live ? [`Live records: a step every ${options.liveIntervalMs ?? 3000} ms (exceptions, LinX batches, acceptances, documents)`] : []),
    ...(options.maxPageSize ? [`Page sizes served up to ${options.maxPageSize}`] : []),
    'Demo tokens (Authorization: Bearer <token>):',
    ...sandbox.tokens.map((t) => `  ${t.token}  ${t.businessAccountName} (${t.businessAccountId})`),
    `Seeded ids: GET ${sandbox.url}/__sandbox/fixtures`,
  ];
  // Handlers first, banner second: whoever waits for the banner may signal at once, and a signal
  // that arrived before the handlers would end the process without closing the sandbox.
  const stop = (): void => {
    sandbox.close().then(() => process.exit(0), () => process.exit(1));
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  console.log(lines.join('\n'));
}

await main();
