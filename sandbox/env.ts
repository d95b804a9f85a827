/** The standalone sandbox's environment variables, read and checked once. */
import type { SandboxOptions } from './index.ts';

export class ConfigError extends Error {}

function port(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const text = env[name];
  if (text === undefined || text === '') return fallback;
  if (!/^\d+$/.test(text) || Number(text) > 65535) throw new ConfigError(`${name} must be a port number between 0 and 65535, got "${text}"`);
  return Number(text);
}

function flag(env: NodeJS.ProcessEnv, name: string): boolean {
  const text = (env[name] ?? '').toLowerCase();
  if (text === '' || text === 'false' || text === '0') return false;
  if (text === 'true' || text === '1') return true;
  throw new ConfigError(`${name} must be true or false, got "${env[name] ?? ''}"`);
}

/** An optional integer setting; undefined when unset, so the sandbox's own default applies. */
function integer(env: NodeJS.ProcessEnv, name: string, min: number, max: number, unit: string): number | undefined {
  const text = env[name];
  if (text === undefined || text === '') return undefined;
  if (!/^\d+$/.test(text) || Number(text) < min || Number(text) > max) throw new ConfigError(`${name} must be an integer number of ${unit} between ${min} and ${max}, got "${text}"`);
  return Number(text);
}

/** Reads and checks the environment; throws a ConfigError naming the bad variable. */
export function optionsFromEnv(env: NodeJS.ProcessEnv): SandboxOptions {
  const host = env.SANDBOX_HOST === undefined || env.SANDBOX_HOST === '' ? '127.0.0.1' : env.SANDBOX_HOST;
  if (!/^[A-Za-z0-9.:-]+$/.test(host)) throw new ConfigError(`SANDBOX_HOST must be a host name or an IP address, got "${host}"`);
  const latencyText = env.SANDBOX_LATENCY_MS;
  let latencyMs = 0;
  if (latencyText !== undefined && latencyText !== '') {
    if (!/^\d+$/.test(latencyText) || Number(latencyText) > 600_000) throw new ConfigError(`SANDBOX_LATENCY_MS must be an integer number of milliseconds between 0 and 600000, got "${latencyText}"`);
    latencyMs = Number(latencyText);
  }
  const apiPort = port(env, 'SANDBOX_PORT', 4010);
  const contentPort = port(env, 'SANDBOX_CONTENT_PORT', 4011);
  if (apiPort !== 0 && apiPort === contentPort) throw new ConfigError(`SANDBOX_PORT and SANDBOX_CONTENT_PORT must differ, both are ${apiPort}`);
  const publicContentOrigin = env.SANDBOX_PUBLIC_CONTENT_ORIGIN === '' ? undefined : env.SANDBOX_PUBLIC_CONTENT_ORIGIN;
  if (publicContentOrigin !== undefined && !/^https?:\/\/[A-Za-z0-9.:[\]-]+\/?$/.test(publicContentOrigin)) {
    throw new ConfigError(`SANDBOX_PUBLIC_CONTENT_ORIGIN must be an http(s) origin such as http://localhost:4011, got "${publicContentOrigin}"`);
  }
  const liveIntervalMs = integer(env, 'SANDBOX_LIVE_INTERVAL_MS', 0, 3_600_000, 'milliseconds');
  const maxPageSize = integer(env, 'SANDBOX_MAX_PAGE_SIZE', 1, 1000, 'rows');
  const liveSeed = env.SANDBOX_LIVE_SEED === undefined || env.SANDBOX_LIVE_SEED === '' ? undefined : env.SANDBOX_LIVE_SEED;
  if (liveSeed !== undefined && liveSeed.length > 100) throw new ConfigError('SANDBOX_LIVE_SEED must be at most 100 characters');
  return {
    host, port: apiPort, contentPort, linxEnvelope: flag(env, 'SANDBOX_LINX_ENVELOPE'), latencyMs, publicContentOrigin,
    // Only the settings given: the sandbox's defaults apply to the rest.
    ...(flag(env, 'SANDBOX_LIVE') && { live: true }),
    ...(liveIntervalMs !== undefined && { liveIntervalMs }),
    ...(liveSeed !== undefined && { liveSeed }),
    ...(maxPageSize !== undefined && { maxPageSize }),
  };
}
