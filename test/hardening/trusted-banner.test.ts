import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startProductionGateway, type GatewayProcess } from '../support/gateway-process.ts';
import { bearer, postJson } from '../support/graphql-client.ts';

// `npm start` in production with trusted documents only (TRUSTED_DOCUMENTS set): the banner must
// not offer the README's text queries, which are refused there, but the manifest's operations and
// an example that runs as printed.

const PAGE = 'query ExceptionPage($first: Int!) { exceptions(first: $first) { nodes { id } } }';
const COUNT = 'query ExceptionCount { exceptions(first: 1) { totalCount } }';
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
/** The embedded sandbox's exceptions of demo-token-acme. */
const ACME_EXCEPTIONS = 300;

describe('the start-up banner with trusted documents only', () => {
  let dir: string;
  let manifest: string;
  let gateway: GatewayProcess;
  let origin: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'trusted-banner-'));
    manifest = join(dir, 'trusted-documents.json');
    writeFileSync(manifest, JSON.stringify({ [sha256(PAGE)]: PAGE, [sha256(COUNT)]: COUNT }));
    ({ process: gateway, origin } = await startProductionGateway({ TRUSTED_DOCUMENTS: manifest, LOG_LEVEL: 'warn' }));
  }, 120_000);
  afterAll(async () => {
    await gateway?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('lists the manifest\'s operations and shows a request by id instead of the README\'s text queries', () => {
    const banner = gateway.stdout();
    expect(banner).toContain(
      [
        `Trusted documents: ${manifest} (only these run)`,
        "  Text queries (the README's examples, the playground) are refused here: send an operation's id,",
        "  as documentId, Relay doc_id or Apollo extensions.persistedQuery.sha256Hash. The manifest's operations:",
        `    ${sha256(PAGE)}  query ExceptionPage`,
        `    ${sha256(COUNT)}  query ExceptionCount`,
        '  For example (query ExceptionCount):',
        `    curl -s ${origin}/graphql -H 'content-type: application/json' -H 'authorization: Bearer demo-token-acme' -d '{"documentId":"${sha256(COUNT)}"}'`,
        '',
      ].join('\n'),
    );
    expect(banner).not.toContain("for the README's examples");
    expect(banner).toContain('Ids to try with demo-token-acme, as variables of the trusted operations\n');
  });

  it('prints an example that runs as printed, while a text query is refused', async () => {
    const command = /^ {4}(curl -s .*)$/m.exec(gateway.stdout())![1]!;
    const { stdout } = await promisify(execFile)('bash', ['-c', command]);
    expect(JSON.parse(stdout)).toEqual({ data: { exceptions: { totalCount: ACME_EXCEPTIONS } }, extensions: { cost: { requestedQueryCost: 1, actualQueryCost: 1 } } });

    const text = await postJson(`${origin}/graphql`, { query: COUNT }, bearer('demo-token-acme'));
    expect(text.status).toBe(400);
    expect(((await text.json()) as { errors: { extensions: { code: string } }[] }).errors[0]!.extensions.code).toBe('PERSISTED_QUERY_ID_REQUIRED');
  });
});

describe('the start-up banner with an Apollo Client manifest', () => {
  let dir: string;
  let gateway: GatewayProcess;
  let origin: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'trusted-banner-apollo-'));
    const manifest = join(dir, 'persisted-query-manifest.json');
    // As generate-persisted-query-manifest writes it: the id is the SHA-256 of the body.
    const operations = [PAGE, COUNT].map((body) => ({ id: sha256(body), name: /query (\w+)/.exec(body)![1], type: 'query', body }));
    writeFileSync(manifest, JSON.stringify({ format: 'apollo-persisted-query-manifest', version: 1, operations }));
    // Text queries run too (TRUSTED_DOCUMENTS_ONLY=false): the operations are listed all the same.
    ({ process: gateway, origin } = await startProductionGateway({ TRUSTED_DOCUMENTS: manifest, TRUSTED_DOCUMENTS_ONLY: 'false', LOG_LEVEL: 'warn' }));
  }, 40_000);
  afterAll(async () => {
    await gateway?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('lists its operations with an example request by id', () => {
    expect(gateway.stdout()).toContain(
      [
        "  Text queries run too; a client built with the manifest sends an operation's id,",
        "  as documentId, Relay doc_id or Apollo extensions.persistedQuery.sha256Hash. The manifest's operations:",
        `    ${sha256(PAGE)}  query ExceptionPage`,
        `    ${sha256(COUNT)}  query ExceptionCount`,
        '  For example (query ExceptionCount):',
        `    curl -s ${origin}/graphql -H 'content-type: application/json' -H 'authorization: Bearer demo-token-acme' -d '{"documentId":"${sha256(COUNT)}"}'`,
        '',
      ].join('\n'),
    );
  });
});
