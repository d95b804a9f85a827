import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from '@jest/globals';

const ROOT = path.resolve(import.meta.dirname, '../..');

// A real gateway process that records every OpenTelemetry SDK package it resolves
// while starting and stopping. The resolve hook sees each import, static or dynamic.
// The API package is left out: prom-client loads it (a few no-op functions) anyway.
const PROBE = `
import { registerHooks } from 'node:module';
const resolved = new Set();
registerHooks({
  resolve(specifier, context, next) {
    if (specifier.startsWith('@opentelemetry/') && specifier !== '@opentelemetry/api') resolved.add(specifier);
    return next(specifier, context);
  },
});
const { testConfig } = await import('./src/settings/config.ts');
const { startGateway } = await import('./src/server.ts');
const { createLogger } = await import('./src/logger.ts');
const gateway = await startGateway(testConfig(JSON.parse(process.argv[1])), 'http://127.0.0.1:9', { logger: createLogger('silent') });
await gateway.close();
gateway.server.close();
process.stdout.write(JSON.stringify([...resolved].sort()));
`;

async function sdkPackagesLoaded(env: Record<string, string>): Promise<string[]> {
  const { stdout } = await promisify(execFile)(process.execPath, ['--disable-warning=ExperimentalWarning', '--input-type=module', '-e', PROBE, JSON.stringify(env)], { cwd: ROOT });
  return JSON.parse(stdout) as string[];
}

describe('OpenTelemetry at start-up', () => {
  it('is not loaded at all when tracing is off', async () => {
    expect(await sdkPackagesLoaded({})).toEqual([]);
  });

  it('is loaded when tracing is on', async () => {
    expect(await sdkPackagesLoaded({ OTEL_TRACES_EXPORTER: 'console' })).toEqual([
      '@opentelemetry/core',
      '@opentelemetry/resources',
      '@opentelemetry/sdk-trace',
      '@opentelemetry/sdk-trace-base',
      '@opentelemetry/semantic-conventions',
    ]);
  });
});
