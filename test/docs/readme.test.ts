import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startSandbox, type Sandbox } from '../../sandbox/index.ts';
import { sortRecords } from '../support/expected.ts';
import { startGatewayProcess, type GatewayProcess } from '../support/gateway-process.ts';

// A newcomer's first hour as the README tells it: `npm start` (the real
// process, over its embedded sandbox), the ids it prints, and the README's
// shell examples pasted into bash with those ids. The expected data comes from
// a sandbox of the same deterministic seed, in this process.

const README = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
const curlAvailable = (() => {
  try {
    return readFileSync('/usr/bin/curl').length > 0;
  } catch {
    return false;
  }
})();
if (!curlAvailable && process.env.CI) throw new Error('/usr/bin/curl is missing but CI is set: install it with apt-get install curl');
if (!curlAvailable) console.warn('Skipping the README shell examples: curl not found (apt-get install curl)');

/** `NAME=value` lines of a text (the banner, or the README's copy of it). */
function shellVariables(text: string): Record<string, string> {
  return Object.fromEntries([...text.matchAll(/^ {2}([A-Z_]+)=(\S+)/gm)].map((m) => [m[1]!, m[2]!]));
}

let gateway: GatewayProcess;
let held: Server;
let heldPort: number;
let reference: Sandbox;
let banner: string;
let endpoint: string;

beforeAll(async () => {
  // The sandbox's configured API port is held by another process: start-up must fall back and say so.
  held = createServer();
  await new Promise<void>((resolve) => held.listen(0, '127.0.0.1', resolve));
  heldPort = (held.address() as AddressInfo).port;
  [reference] = await Promise.all([startSandbox()]);
  // The default log level, so a log line printed during start-up would show in the banner.
  gateway = startGatewayProcess({ PORT: '0', SANDBOX_PORT: String(heldPort), SANDBOX_CONTENT_PORT: '0' });
  await gateway.waitFor(/DOCUMENT_MALICIOUS=\S+.*\n/, 30_000);
  banner = gateway.stdout();
  endpoint = /^GraphQL endpoint: (\S+)$/m.exec(banner)![1]!;
}, 40_000);
afterAll(async () => {
  await gateway?.stop();
  await new Promise<void>((resolve) => (held ? held.close(() => resolve()) : resolve()));
  await reference?.close();
});

describe('npm start', () => {
  it('prints the endpoint, the sandbox (on free ports when its own are taken), the demo tokens and ids', () => {
    const platform = /^Platform: (http:\/\/127\.0\.0\.1:(\d+)) \(embedded sandbox; content URLs on http:\/\/127\.0\.0\.1:\d+\)$/m.exec(banner)!;
    expect(Number(platform[2])).not.toBe(heldPort);
    expect(banner).toContain(`  (ports ${heldPort}/0 are taken: the sandbox runs on free ports instead)`);
    expect(banner).toContain('  demo-token-acme    Acme Payroll Inc\n  demo-token-globex  Globex Lending LLC\n');
    expect(banner).toContain(`every seeded id: GET ${platform[1]}/__sandbox/fixtures`);
    // Nothing but the banner on stdout: no log line in between.
    expect(banner).not.toMatch(/^\{/m);
  });

  it('prints the ids the README shows, of the seeded records they name', () => {
    const printed = shellVariables(banner);
    expect(shellVariables(/```text\n([\s\S]*?)```/.exec(README)![1]!)).toEqual(printed);
    const acme = reference.tokens[0]!.businessAccountId;
    const documents = reference.store.documents(acme);
    const template = reference.store.linxTemplates(acme)[0]!;
    expect(printed).toEqual({
      ACCOUNT: reference.store.financialAccounts(acme)[0],
      TEMPLATE_ID: template.templateId,
      TEMPLATE_VERSION_ID: template.versions[0]!.templateVersionId,
      ...Object.fromEntries(['NEW', 'UPLOADED', 'INCOMPLETE', 'SCANNED', 'MALICIOUS'].map((status) => [`DOCUMENT_${status}`, documents.find((d) => d.status === status)!.id])),
    });
    expect(reference.store.document(printed.DOCUMENT_NEW!)!.documentType).toBe('passport');
  });

  it('says which variable to change when the gateway port is taken', async () => {
    const taken = startGatewayProcess({ PORT: String(heldPort), UPSTREAM_URL: reference.url });
    expect(await taken.exited).toBe(1);
    expect(taken.stderr()).toBe(`Port ${heldPort} on 127.0.0.1 is already in use: choose another with PORT (0 picks a free one)\n`);
  });

  it('serves the printed fixtures URL', async () => {
    const fixtures = /every seeded id: GET (\S+)\)/.exec(banner)![1]!;
    const body = (await (await fetch(fixtures)).json()) as { businessAccounts: { token: string; examples: { financialAccountId: string } }[] };
    expect(body.businessAccounts[0]!.token).toBe('demo-token-acme');
    expect(body.businessAccounts[0]!.examples.financialAccountId).toBe(shellVariables(banner).ACCOUNT);
  });
});

(curlAvailable ? describe : describe.skip)('the README shell examples, pasted into bash', () => {
  it('answer each area with data and no error', async () => {
    const block = /```sh\n(gql\(\)[\s\S]*?)```/.exec(README)![1]!.replaceAll('localhost:4000', new URL(endpoint).host);
    const { stdout } = await promisify(execFile)('bash', ['-c', block], { env: { PATH: process.env.PATH ?? '', ...shellVariables(banner) } });
    const answers = stdout.split('\n').filter((line) => line !== '').map((line) => JSON.parse(line) as { data: Record<string, unknown>; errors?: unknown });
    expect(answers.map((answer) => answer.errors)).toEqual([undefined, undefined, undefined, undefined, undefined]);
    const [exceptions, acceptances, batches, document, update] = answers.map((answer) => answer.data);

    const acme = reference.tokens[0]!.businessAccountId;
    const open = sortRecords(reference.store.exceptions(acme).filter((e) => e.status === 'NEW' || e.status === 'REOPENED'), [[(e) => e.createdAt, 'DESC']]);
    expect(exceptions).toMatchObject({ exceptions: { totalCount: open.length, nodes: open.slice(0, 3).map(({ id, status, category }) => ({ id, status, category })) } });
    const variables = shellVariables(banner);
    const forAccount = sortRecords(reference.store.acceptances(acme).filter((a) => a.scopes.FINANCIAL_ACCOUNT_ID === variables.ACCOUNT), [[(a) => a.createdAt, 'DESC']]);
    expect((acceptances as unknown as { documentAcceptances: { nodes: { id: string }[] } }).documentAcceptances.nodes.map((n) => n.id)).toEqual(forAccount.slice(-3).map((a) => a.id));
    const ofVersion = sortRecords(reference.store.linxBatches(acme).filter((b) => b.templateVersionId === variables.TEMPLATE_VERSION_ID), [[(b) => b.createdAt, 'DESC']]);
    expect((batches as unknown as { linxBatches: { nodes: { id: string }[] } }).linxBatches.nodes.map((n) => n.id)).toEqual(ofVersion.slice(0, 3).map((b) => b.id));
    expect(document).toMatchObject({ document: { id: variables.DOCUMENT_SCANNED, documentType: 'PASSPORT', status: 'SCANNED', url: { value: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\//) } } });
    expect(update).toMatchObject({ updateDocument: { document: { id: variables.DOCUMENT_NEW }, uploadUrl: { value: expect.any(String) }, userErrors: [] } });
  }, 30_000);
});

describe('the documentation of settings', () => {
  it('names every variable the configuration reads', () => {
    const source = readFileSync(new URL('../../src/config.ts', import.meta.url), 'utf8');
    const variables = [...source.matchAll(/^ {2}([A-Z][A-Z0-9_]+): /gm)].map((m) => m[1]!);
    expect(variables.length).toBeGreaterThan(40);
    const docs = ['configuration.md', 'security.md'].map((name) => readFileSync(new URL(`../../docs/${name}`, import.meta.url), 'utf8')).join('\n');
    expect(variables.filter((name) => !docs.includes(`\`${name}\``))).toEqual([]);
  });
});
