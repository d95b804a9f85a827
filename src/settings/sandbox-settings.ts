/**
 * The sandbox's settings (environment variables), defined once: `npm run sandbox` reads every one
 * (sandbox/env.ts), and the gateway's configuration (src/settings/config.ts) reads the ones `npm start`
 * passes to its embedded sandbox through the same definition, so both accept the same values and
 * have the same defaults. It lives in src/ and depends on nothing: the gateway's settings read it
 * without importing the sandbox (only start-up, which starts the embedded sandbox, imports sandbox/).
 */

type Definition =
  | { readonly kind: 'port'; readonly default: number }
  | { readonly kind: 'flag'; readonly default: boolean }
  | { readonly kind: 'integer'; readonly min: number; readonly max: number; readonly unit: string; readonly default?: number }
  | { readonly kind: 'host'; readonly default: string }
  | { readonly kind: 'origin' }
  | { readonly kind: 'text'; readonly maxLength: number }
  | { readonly kind: 'zone-designator'; readonly default: string };

export const SANDBOX_SETTINGS = {
  SANDBOX_HOST: { kind: 'host', default: '127.0.0.1' },
  SANDBOX_PORT: { kind: 'port', default: 4010 },
  SANDBOX_CONTENT_PORT: { kind: 'port', default: 4011 },
  SANDBOX_PUBLIC_CONTENT_ORIGIN: { kind: 'origin' },
  SANDBOX_LINX_ENVELOPE: { kind: 'flag', default: false },
  SANDBOX_ZONE_DESIGNATOR: { kind: 'zone-designator', default: '+0000' },
  SANDBOX_LATENCY_MS: { kind: 'integer', min: 0, max: 600_000, unit: 'milliseconds', default: 0 },
  SANDBOX_LIVE: { kind: 'flag', default: false },
  SANDBOX_LIVE_INTERVAL_MS: { kind: 'integer', min: 0, max: 3_600_000, unit: 'milliseconds', default: 3_000 },
  SANDBOX_LIVE_SEED: { kind: 'text', maxLength: 100 },
  SANDBOX_MAX_PAGE_SIZE: { kind: 'integer', min: 1, max: 1_000, unit: 'rows' },
} as const satisfies Record<string, Definition>;

export type SandboxSettingName = keyof typeof SANDBOX_SETTINGS;
type DefinitionOf<N extends SandboxSettingName> = (typeof SANDBOX_SETTINGS)[N];

/** The value a setting reads as: its default when unset, or undefined for one without a default. */
export type SandboxSettingValue<N extends SandboxSettingName> =
  | (DefinitionOf<N> extends { kind: 'port' | 'integer' } ? number : DefinitionOf<N> extends { kind: 'flag' } ? boolean : string)
  | (DefinitionOf<N> extends { default: unknown } ? never : undefined);

/** A bad value; the message says what is wrong without naming the variable, which the reader adds. */
export class SandboxSettingError extends Error {}

/** Reads one setting from its text (undefined or empty: unset); throws a SandboxSettingError for a bad value. */
export function readSandboxSetting<N extends SandboxSettingName>(name: N, text: string | undefined): SandboxSettingValue<N> {
  return read(SANDBOX_SETTINGS[name], text) as SandboxSettingValue<N>;
}

function read(definition: Definition, text: string | undefined): number | boolean | string | undefined {
  if (text === undefined || text === '') return 'default' in definition ? definition.default : undefined;
  switch (definition.kind) {
    case 'port':
      if (!/^\d+$/.test(text) || Number(text) > 65535) throw new SandboxSettingError(`must be a port number between 0 and 65535, got "${text}"`);
      return Number(text);
    case 'flag': {
      const lower = text.toLowerCase();
      if (lower === 'false' || lower === '0') return false;
      if (lower === 'true' || lower === '1') return true;
      throw new SandboxSettingError(`must be true or false, got "${text}"`);
    }
    case 'integer': {
      const { min, max, unit } = definition;
      if (!/^\d+$/.test(text) || Number(text) < min || Number(text) > max) throw new SandboxSettingError(`must be an integer number of ${unit} between ${min} and ${max}, got "${text}"`);
      return Number(text);
    }
    case 'host':
      if (!/^[A-Za-z0-9.:-]+$/.test(text)) throw new SandboxSettingError(`must be a host name or an IP address, got "${text}"`);
      return text;
    case 'origin':
      if (!/^https?:\/\/[A-Za-z0-9.:[\]-]+\/?$/.test(text)) throw new SandboxSettingError(`must be an http(s) origin such as http://localhost:4011, got "${text}"`);
      return text;
    case 'text':
      if (text.length > definition.maxLength) throw new SandboxSettingError(`must be at most ${definition.maxLength} characters`);
      return text;
    case 'zone-designator':
      if (!isZoneDesignator(text)) throw new SandboxSettingError(`must be a zone designator: Z, +0000, +00:00 or another offset such as +02:00 or -0530 (up to ±23:59), got "${text}"`);
      return text;
  }
}

/** `Z`, or an offset `±HHMM` / `±HH:MM` of at most ±23:59: the spellings of a date-time's zone the sandbox can answer in. */
export function isZoneDesignator(text: string): boolean {
  const match = /^(?:Z|[+-](\d{2}):?(\d{2}))$/.exec(text);
  return match !== null && (match[1] === undefined || (Number(match[1]) <= 23 && Number(match[2]) <= 59));
}
