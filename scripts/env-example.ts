// `.env.example`: every setting of the gateway, written from their definitions (src/settings/settings.ts) by
// `npm run settings:docs` and checked by `npm run settings:check`, so it cannot drift from them.
// The settings a real deployment sets are given a value to replace; every other one is a comment
// showing its default. The format is the common one of `docker run --env-file`, `docker compose`'s
// env_file, systemd's EnvironmentFile, a POSIX shell and `node --env-file`: NAME=value lines,
// # comments, no quotes and no spaces in the values.
import { plain, GROUP_TITLES } from '../src/settings/gateway-help.ts';
import { GROUPS, SETTINGS, shownDefault, type Definition } from '../src/settings/settings.ts';

type SettingName = keyof typeof SETTINGS;

/**
 * The settings a production deployment over the real platform sets, with example values to replace
 * (docs/platform-access.md says where each comes from). They are valid: a test loads them.
 */
export const DEPLOYMENT_VALUES: Partial<Record<SettingName, string>> = {
  NODE_ENV: 'production',
  UPSTREAM_URL: 'https://platform.example.com',
  HOST: '0.0.0.0',
  PORT: '4000',
  CORS_ORIGINS: 'https://app.example.com',
  REDIS_URL: 'redis://persisted-queries.internal:6379',
  CURSOR_SECRET: 'replace-with-the-output-of-openssl-rand-base64-48',
  RATE_LIMIT_PER_SECOND: '20',
  RATE_LIMIT_BURST: '200',
  RATE_LIMIT_REDIS_URL: 'redis://budgets.internal:6379',
  TRUSTED_PROXIES: '10.0.0.0/8',
};

/** The embedded sandbox's settings have no part in a deployment over the real platform. */
const SKIPPED_GROUPS = new Set(['embedded-sandbox']);

const WIDTH = 100;

/** `text` as comment lines of at most WIDTH characters. */
function comment(text: string): string[] {
  const lines: string[] = [];
  let line = '#';
  for (const word of text.split(/\s+/)) {
    if (line.length + 1 + word.length > WIDTH && line !== '#') {
      lines.push(line);
      line = '#';
    }
    line += ` ${word}`;
  }
  return [...lines, line];
}

/** The text of `.env.example`. */
export function envExample(): string {
  const definitions = SETTINGS as Record<string, Definition>;
  const lines = [
    ...comment('Settings of the gateway for a deployment over the real platform: copy to .env, replace the example values, and pass the file as the environment (`docker run --env-file .env`, systemd EnvironmentFile=, or in a shell `set -a; . ./.env; set +a; npm start`). The lines with a value are the ones a deployment sets; a commented line shows a setting\'s default. Written by `npm run settings:docs` from src/settings/settings.ts; docs/configuration.md explains every setting, docs/platform-access.md the way to the platform (a token, a base path, a private CA). A private CA is Node\'s NODE_EXTRA_CA_CERTS, which must be in the environment the process starts with: Node ignores it in a file read with `node --env-file`.'),
  ];
  for (const group of GROUPS) {
    if (SKIPPED_GROUPS.has(group)) continue;
    lines.push('', `# --- ${plain(GROUP_TITLES[group])} ---`);
    for (const [name, definition] of Object.entries(definitions).filter(([, candidate]) => candidate.group === group)) {
      lines.push('', ...comment(`${plain(definition.doc)} (default: ${plain(shownDefault(definition))})`));
      const value = DEPLOYMENT_VALUES[name as SettingName];
      if (value !== undefined) lines.push(`${name}=${value}`);
      else lines.push(`# ${name}=${typeof definition.default === 'string' || typeof definition.default === 'number' || typeof definition.default === 'boolean' ? String(definition.default) : ''}`);
    }
  }
  return `${lines.join('\n')}\n`;
}
