import { afterEach, describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { ConfigError, testConfig, type Config } from '../../src/settings/config.ts';
import { setupHardening, type Hardening } from '../../src/hardening/index.ts';
import { noIntrospection } from '../../src/hardening/introspection.ts';

const logger = { warn: () => undefined, info: () => undefined, debug: () => undefined, error: () => undefined } as unknown as Logger;

let hardening: Hardening | undefined;
const folders: string[] = [];
afterEach(async () => {
  await hardening?.close();
  hardening = undefined;
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

async function setup(config: Config): Promise<Hardening> {
  hardening = await setupHardening(config, logger);
  return hardening;
}

/** A manifest file holding `text`, and the configuration naming it. */
function withManifest(text: string, only = false): Config {
  const folder = mkdtempSync(join(tmpdir(), 'hardening-'));
  folders.push(folder);
  const file = join(folder, 'manifest.json');
  writeFileSync(file, text);
  return { ...testConfig(), trustedDocuments: { file, only } };
}

describe('setupHardening', () => {
  it('adds the introspection refusal only where introspection is off', async () => {
    expect((await setup(testConfig({ INTROSPECTION: 'false' }))).apollo.validationRules[0]).toBe(noIntrospection);
    await hardening!.close();
    expect((await setup(testConfig({ INTROSPECTION: 'true' }))).apollo.validationRules).not.toContain(noIntrospection);
  });

  it('hides field suggestions with one more plugin where they are off', async () => {
    const shown = (await setup(testConfig({ FIELD_SUGGESTIONS: 'true' }))).apollo.plugins.length;
    await hardening!.close();
    expect((await setup(testConfig({ FIELD_SUGGESTIONS: 'false' }))).apollo.plugins).toHaveLength(shown + 1);
  });

  it('has a batch limit stage only where batches are allowed', async () => {
    const off = await setup(testConfig({ ALLOW_BATCHED_REQUESTS: 'false' }));
    expect([off.apollo.allowBatchedHttpRequests, off.stages.batchLimit]).toEqual([false, undefined]);
    await off.close();
    const on = await setup(testConfig({ ALLOW_BATCHED_REQUESTS: 'true', MAX_BATCH_SIZE: '3' }));
    expect([on.apollo.allowBatchedHttpRequests, typeof on.stages.batchLimit]).toEqual([true, 'function']);
  });

  it("turns automatic persisted queries off, or on in Apollo's own cache with the configured lifetime", async () => {
    expect((await setup(testConfig({ PERSISTED_QUERIES: 'false' }))).apollo.persistedQueries).toBe(false);
    await hardening!.close();
    expect((await setup(testConfig({ PERSISTED_QUERIES: 'true', PERSISTED_QUERY_TTL_SECONDS: '60' }))).apollo.persistedQueries).toEqual({ ttl: 60 });
  });

  it('has the web-client and body stages always, a trusted-documents stage only with a manifest', async () => {
    const plain = await setup(testConfig());
    expect([typeof plain.stages.webClientHeaders, typeof plain.stages.body, plain.stages.trustedDocuments]).toEqual(['function', 'function', undefined]);
    await plain.close();
    expect(typeof (await setup(withManifest('{"q1":"query Q { __typename }"}'))).stages.trustedDocuments).toBe('function');
  });

  it('stops start-up on a manifest it cannot use, as on a bad variable', async () => {
    const missing: Config = { ...testConfig(), trustedDocuments: { file: '/nonexistent/manifest.json', only: true } };
    await expect(setupHardening(missing, logger)).rejects.toEqual(
      new ConfigError('Invalid configuration:\n  TRUSTED_DOCUMENTS: cannot read /nonexistent/manifest.json (ENOENT); build it with npm run relay'),
    );
    const broken = withManifest('{not json');
    await expect(setupHardening(broken, logger)).rejects.toBeInstanceOf(ConfigError);
    await expect(setupHardening(withManifest('{"q1":"query A { a } query B { b }"}'), logger)).rejects.toThrow('holds 2 operations, not one');
  });
});
