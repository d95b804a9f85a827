import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mediaTypeOf, synthesizeFile } from '../../sandbox/content/file-samples.ts';
import type { DocumentExtension } from '../../sandbox/data/records.ts';
import { startSandbox, type Sandbox } from '../../sandbox/index.ts';
import { sortRecords } from '../support/expected.ts';
import { startGatewayProcess, type GatewayProcess } from '../support/gateway-process.ts';
import { bearer, postGraphQL } from '../support/graphql-client.ts';

// A newcomer's first hour as the README tells it: `npm start` (the real
// process, over its embedded sandbox), the ids it prints, and the shell
// examples of docs/queries.md (the README's next step) pasted into bash with
// those ids. The expected data comes from a sandbox of the same deterministic
// seed, in this process.

const README = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
const QUERIES = readFileSync(new URL('../../docs/queries.md', import.meta.url), 'utf8');
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

(curlAvailable ? describe : describe.skip)('the shell examples of docs/queries.md, pasted into bash', () => {
  it('answer each area with data and no error', async () => {
    const block = /```sh\n(gql\(\)[\s\S]*?)```/.exec(QUERIES)![1]!;
    // The gateway runs on a free port: the examples must follow PORT, as they do for a user who set it.
    const env = { PATH: process.env.PATH ?? '', PORT: new URL(endpoint).port, ...shellVariables(banner) };
    const { stdout } = await promisify(execFile)('bash', ['-c', block], { env });
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

interface Answer<T = Record<string, unknown>> {
  data?: T;
  errors?: unknown;
}

/** Runs one operation of docs/queries.md's GraphQL block against the gateway, with the demo token. */
async function runReadmeOperation<T = Record<string, unknown>>(operationName: string, variables: Record<string, string>): Promise<Answer<T>> {
  const query = /```graphql\n([\s\S]*?)```/.exec(QUERIES)![1]!;
  return (await postGraphQL(endpoint, { query, operationName, variables }, bearer('demo-token-acme'))).body as Answer<T>;
}

describe('the GraphQL operations of docs/queries.md', () => {
  it('answer every area with data and no error', async () => {
    const ids = shellVariables(banner);
    const answers = await Promise.all([
      runReadmeOperation('Exceptions', {}),
      runReadmeOperation('Acceptances', { account: ids.ACCOUNT! }),
      runReadmeOperation('Document', { id: ids.DOCUMENT_SCANNED! }),
    ]);
    expect(answers.map((answer) => answer.errors)).toEqual([undefined, undefined, undefined]);
    expect(answers.map((answer) => Object.values(answer.data!)[0])).not.toContain(null);
  });

  it('Batches: the seeded batches of the template version that match its search words', async () => {
    const ids = shellVariables(banner);
    const words = /search: "([^"]+)"/.exec(/query Batches[\s\S]*?\n\}/.exec(QUERIES)![0])![1]!.toLowerCase().split(/\s+/);
    const acme = reference.tokens[0]!.businessAccountId;
    const matching = reference.store
      .linxBatches(acme)
      .filter((b) => b.templateVersionId === ids.TEMPLATE_VERSION_ID)
      .filter((b) => words.every((word) => (reference.store.linxBatchName(b.id) ?? '').toLowerCase().includes(word) || b.templateDisplayName.toLowerCase().includes(word)));
    const expected = sortRecords(matching, [[(b) => b.createdAt, 'DESC']]).slice(0, 20);
    expect(expected.length).toBeGreaterThan(0);
    const answer = await runReadmeOperation<{ linxBatches: { nodes: unknown[] } }>('Batches', { templateId: ids.TEMPLATE_ID!, templateVersionId: ids.TEMPLATE_VERSION_ID! });
    expect(answer.errors).toBeUndefined();
    expect(answer.data!.linxBatches.nodes).toEqual(
      expected.map(({ id, status, templateDisplayName, totalRequestsCount, completedRequestsCount }) => ({ id, status, templateDisplayName, totalRequestsCount, completedRequestsCount })),
    );
  });

  it('Update: the upload URL takes the file with the Content-Type docs/queries.md names for its extension', async () => {
    const ids = shellVariables(banner);
    const comment = /# Update a document[\s\S]*?\nmutation Update/.exec(QUERIES)![0].replace(/\n# /g, ' ');
    // "image/jpeg (JPG, JPEG), image/png (PNG) or application/pdf (PDF)"
    const named = Object.fromEntries(
      [...comment.matchAll(/([a-z]+\/[a-z]+) \(([A-Z, ]+)\)/g)].flatMap((m) => m[2]!.split(', ').map((extension) => [extension, m[1]!])),
    ) as Record<DocumentExtension, string>;
    const extensions: DocumentExtension[] = ['JPG', 'JPEG', 'PNG', 'PDF'];
    expect(named).toEqual(Object.fromEntries(extensions.map((extension) => [extension, mediaTypeOf(extension)])));
    expect(comment).toContain('no Authorization header');

    type Update = { updateDocument: { document: { version: string; extension: DocumentExtension }; uploadUrl: { value: string }; userErrors: unknown[] } };
    const { data, errors } = await runReadmeOperation<Update>('Update', { id: ids.DOCUMENT_NEW! });
    expect([errors, data!.updateDocument.userErrors]).toEqual([undefined, []]);
    const { document, uploadUrl } = data!.updateDocument;
    const file = synthesizeFile(document.extension, 2_048);
    const wrongType = document.extension === 'PDF' ? 'image/png' : 'application/pdf';
    const refused = await fetch(uploadUrl.value, { method: 'PUT', headers: { 'content-type': wrongType }, body: new Uint8Array(file) });
    expect(refused.status).toBe(415);
    const uploaded = await fetch(uploadUrl.value, { method: 'PUT', headers: { 'content-type': named[document.extension] }, body: new Uint8Array(file) });
    expect(uploaded.status).toBe(200);
    const after = await runReadmeOperation<{ document: { version: string } }>('Document', { id: ids.DOCUMENT_NEW! });
    expect(after.data!.document.version).toBe(String(Number(document.version) + 1));
  });
});
