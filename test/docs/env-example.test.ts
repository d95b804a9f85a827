import { readFileSync } from 'node:fs';
import { parseEnv } from 'node:util';
import { describe, expect, it } from '@jest/globals';
import { DEPLOYMENT_VALUES, envExample } from '../../scripts/env-example.ts';
import { loadConfig } from '../../src/settings/config.ts';
import { SETTINGS } from '../../src/settings/settings.ts';

// .env.example: written from the settings' definitions, every setting of a deployment over the real
// platform once, and the values it sets a valid production configuration.

const text = readFileSync(new URL('../../.env.example', import.meta.url), 'utf8');

describe('.env.example', () => {
  it('is what the settings give (npm run settings:docs writes it)', () => {
    expect(text).toBe(envExample());
  });

  it('names every setting but the embedded sandbox’s exactly once, set or commented with its default', () => {
    const named = [...text.matchAll(/^(?:# )?([A-Z][A-Z0-9_]*)=/gm)].map((match) => match[1]);
    expect([...named].sort()).toEqual(Object.entries(SETTINGS).filter(([, definition]) => definition.group !== 'embedded-sandbox').map(([name]) => name).sort());
    expect([...text.matchAll(/^# (LOG_LEVEL|ADMIN_PORT|WORKERS|TRUSTED_DOCUMENTS)=(.*)$/gm)].map((match) => [match[1], match[2]])).toEqual([['LOG_LEVEL', 'info'], ['TRUSTED_DOCUMENTS', ''], ['ADMIN_PORT', '9090'], ['WORKERS', '1']]);
  });

  it('sets the deployment values, which Node reads as they are and the gateway loads as a production configuration', () => {
    const values = parseEnv(text);
    expect(values).toEqual(DEPLOYMENT_VALUES);
    const config = loadConfig(values);
    expect({ env: config.env, upstreamUrl: config.upstreamUrl, rateLimit: config.rateLimit, budgets: config.budgetStore.redisUrl }).toEqual({
      env: 'production',
      upstreamUrl: 'https://platform.example.com',
      rateLimit: { perSecond: 20, burst: 200 },
      budgets: 'redis://budgets.internal:6379',
    });
  });
});
