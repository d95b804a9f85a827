import { describe, expect, it } from '@jest/globals';
import { startBanner, type SandboxSummary, type TrustedOperation } from '../src/process/banner.ts';
import { testConfig, type Config } from '../src/settings/config.ts';

const LISTENERS = { url: 'http://127.0.0.1:4000', adminUrl: 'http://127.0.0.1:9090' };
const PLATFORM = 'http://127.0.0.1:4010';

const SANDBOX: SandboxSummary = {
  url: PLATFORM,
  documentsUrl: 'http://127.0.0.1:4011',
  tokens: [
    { token: 'acme-token', businessAccountName: 'Acme Corp' },
    { token: 'globex', businessAccountName: 'Globex' },
  ],
  examples: {
    financialAccountId: 'fa-1',
    linxTemplate: { templateId: 'tpl-1', templateVersionId: 'tv-1', templateVersion: 3, displayName: 'Payroll' },
    documentsByStatus: [
      { status: 'SCANNED', id: 'doc-s', documentType: 'passport' },
      { status: 'NEW', id: 'doc-n', documentType: 'tax' },
    ],
  },
};

const withTrusted = (only: boolean): Config => ({ ...testConfig(), trustedDocuments: { file: 'manifest.json', only } });
const operation = (i: number, needsVariables = false): TrustedOperation => ({ id: `sha-${i}`, label: `query Op${i}`, needsVariables });

describe('startBanner', () => {
  it('says where to send queries and where the platform is, without a sandbox', () => {
    expect(startBanner(testConfig({ PLAYGROUND: 'false', METRICS: 'false', CORS_ORIGINS: 'https://app.example' }), { url: LISTENERS.url, adminUrl: undefined }, 'https://platform.example')).toBe(
      [
        'GraphQL endpoint: http://127.0.0.1:4000/graphql',
        'Admin: off (ADMIN_PORT=off; health, readiness on the GraphQL port)',
        'Platform: https://platform.example',
        'Browser apps (CORS): http://localhost:<any port>, http://127.0.0.1:<any port>, https://app.example',
        '',
      ].join('\n'),
    );
  });

  it('lists the demo tokens and ids to paste over the sandbox, in aligned columns', () => {
    expect(startBanner(testConfig(), LISTENERS, PLATFORM, { ...SANDBOX, portsTaken: 'ports 4010-4011 were taken: using others' })).toBe(
      [
        'GraphQL endpoint: http://127.0.0.1:4000/graphql',
        'Playground: open http://127.0.0.1:4000/graphql in a browser',
        'Admin (health, readiness, metrics): http://127.0.0.1:9090',
        'Platform: http://127.0.0.1:4010 (embedded sandbox; content URLs on http://127.0.0.1:4011)',
        '  ports 4010-4011 were taken: using others',
        'Browser apps (CORS): http://localhost:<any port>, http://127.0.0.1:<any port>',
        '',
        'Demo tokens (send as "Authorization: Bearer <token>"):',
        '  acme-token  Acme Corp',
        '  globex      Globex',
        '',
        "Ids to try with acme-token, as shell variables for the README's examples",
        '(paste them into your shell; every seeded id: GET http://127.0.0.1:4010/__sandbox/fixtures):',
        '  ACCOUNT=fa-1              # a Financial Account with acceptances',
        '  TEMPLATE_ID=tpl-1         # LinX template "Payroll"',
        '  TEMPLATE_VERSION_ID=tv-1  # its version 3',
        '  DOCUMENT_SCANNED=doc-s    # SCANNED passport',
        '  DOCUMENT_NEW=doc-n        # NEW tax',
        '',
      ].join('\n'),
    );
  });

  it('says when no browser app may call (production allows no loopback origin)', () => {
    expect(startBanner(testConfig({ NODE_ENV: 'production' }), LISTENERS, PLATFORM)).toContain('Browser apps (CORS): none (set CORS_ORIGINS)\n');
  });

  it('lists at most ten trusted operations, and an example request by id of the first one that needs no variables', () => {
    const operations = [operation(0, true), ...Array.from({ length: 11 }, (_, i) => operation(i + 1))];
    const banner = startBanner(withTrusted(false), LISTENERS, PLATFORM, SANDBOX, operations);
    const lines = banner.split('\n');
    const start = lines.indexOf('Trusted documents: manifest.json');
    expect(lines.slice(start, start + 17)).toEqual([
      'Trusted documents: manifest.json',
      "  Text queries run too; a client built with the manifest sends an operation's id,",
      "  as documentId, Relay doc_id or Apollo extensions.persistedQuery.sha256Hash. The manifest's operations:",
      ...Array.from({ length: 10 }, (_, i) => `    sha-${i}  query Op${i}`),
      '    … and 2 more',
      '  For example (query Op1):',
      `    curl -s http://127.0.0.1:4000/graphql -H 'content-type: application/json' -H 'authorization: Bearer acme-token' -d '{"documentId":"sha-1"}'`,
      '',
    ]);
    expect(banner).toContain("as shell variables for the README's examples");
  });

  it('with trusted documents only, says text queries are refused and offers the ids as variables', () => {
    const banner = startBanner(withTrusted(true), LISTENERS, PLATFORM, SANDBOX, [operation(1, true)]);
    expect(banner).toContain('Trusted documents: manifest.json (only these run)\n');
    expect(banner).toContain("  Text queries (the README's examples, the playground) are refused here: send an operation's id,\n");
    expect(banner).not.toContain('For example');
    expect(banner).toContain('Ids to try with acme-token, as variables of the trusted operations\n(every seeded id: GET http://127.0.0.1:4010/__sandbox/fixtures):\n');
  });

  it('shows a placeholder token without a sandbox', () => {
    expect(startBanner(withTrusted(true), LISTENERS, 'https://platform.example', undefined, [operation(1)])).toContain("-H 'authorization: Bearer <token>'");
  });
});
