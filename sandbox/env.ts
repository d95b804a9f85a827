/** The standalone sandbox's environment variables, read and checked once (definitions: ./settings.ts). */
import type { SandboxOptions } from './index.ts';
import { readSandboxSetting, SandboxSettingError, type SandboxSettingName, type SandboxSettingValue } from '../src/settings/sandbox-settings.ts';

export class ConfigError extends Error {}

/** Reads and checks the environment; throws a ConfigError naming the bad variable. */
export function optionsFromEnv(env: NodeJS.ProcessEnv): SandboxOptions {
  const setting = <N extends SandboxSettingName>(name: N): SandboxSettingValue<N> => {
    try {
      return readSandboxSetting(name, env[name]);
    } catch (error) {
      if (error instanceof SandboxSettingError) throw new ConfigError(`${name} ${error.message}`);
      throw error;
    }
  };
  const given = (name: SandboxSettingName) => env[name] !== undefined && env[name] !== '';
  const host = setting('SANDBOX_HOST');
  const latencyMs = setting('SANDBOX_LATENCY_MS');
  const apiPort = setting('SANDBOX_PORT');
  const contentPort = setting('SANDBOX_CONTENT_PORT');
  if (apiPort !== 0 && apiPort === contentPort) throw new ConfigError(`SANDBOX_PORT and SANDBOX_CONTENT_PORT must differ, both are ${apiPort}`);
  const publicContentOrigin = setting('SANDBOX_PUBLIC_CONTENT_ORIGIN');
  const liveIntervalMs = setting('SANDBOX_LIVE_INTERVAL_MS');
  const maxPageSize = setting('SANDBOX_MAX_PAGE_SIZE');
  const liveSeed = setting('SANDBOX_LIVE_SEED');
  return {
    host, port: apiPort, contentPort, linxEnvelope: setting('SANDBOX_LINX_ENVELOPE'), latencyMs, publicContentOrigin,
    // Only the settings given: the sandbox's defaults apply to the rest.
    ...(setting('SANDBOX_LIVE') && { live: true }),
    ...(given('SANDBOX_LIVE_INTERVAL_MS') && { liveIntervalMs }),
    ...(liveSeed !== undefined && { liveSeed }),
    ...(given('SANDBOX_ZONE_DESIGNATOR') && { zoneDesignator: setting('SANDBOX_ZONE_DESIGNATOR') }),
    ...(maxPageSize !== undefined && { maxPageSize }),
  };
}
