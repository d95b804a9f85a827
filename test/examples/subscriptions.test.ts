import { execFile } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { copyExample, installExample, npmIn, spawnNpmIn } from '../support/example-project.ts';
import { startProductionGateway, watchOutput, type ProductionGateway } from '../support/gateway-process.ts';
import { bearer, postGraphQL } from '../support/graphql-client.ts';

// The subscription recipes of docs/subscription-clients.md as projects of their own, each run as its
// README says from a temporary folder outside this checkout: installed from the registry (npm's
// cache first), started against a gateway in production mode over its embedded sandbox; while it
// listens, the document it follows is updated through the gateway, and the change must arrive,
// printed by the app, which then ends (EVENTS=2: the document as it was, then the change).

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const run = promisify(execFile);
const TOKEN = 'demo-token-acme';
/** The recipes, and what each needs between its install and its start. */
const EXAMPLES: Record<string, (folder: string) => Promise<unknown>> = {
  'subscriptions-graphql-ws': async () => undefined,
  'subscriptions-apollo-client': async () => undefined,
  'subscriptions-urql': async () => undefined,
  'subscriptions-relay': async (folder) => {
    await run('npm', ['run', '--silent', 'supergraph', '--', '--api', '--out', join(folder, 'schema.graphql')], { cwd: ROOT });
    return npmIn(folder, ['run', '--silent', 'relay']);
  },
};

const folders: Record<string, string> = {};
let gateway: ProductionGateway;
let documentId: string;

beforeAll(async () => {
  // Each recipe is installed before the gateway starts: installs are the slow part, and independent.
  await Promise.all(Object.entries(EXAMPLES).map(async ([name, prepare]) => {
    folders[name] = copyExample(name);
    await installExample(folders[name]);
    await prepare(folders[name]);
  }));
  // Polls at the floor (250 ms), so that a change arrives soon; the sandbox's live mode stays off, so
  // the only change of the document is the test's own.
  gateway = await startProductionGateway({ SUBSCRIPTION_POLL_MS: '250' });
  documentId = /^ {2}DOCUMENT_NEW=(\S+)/m.exec((await gateway.process.waitFor(/DOCUMENT_NEW=\S+\s/, 10_000)).input!)![1]!;
}, 300_000);

afterAll(async () => {
  await gateway?.process.stop();
  for (const folder of Object.values(folders)) rmSync(folder, { recursive: true, force: true });
});

interface DocumentState {
  id: string;
  status: string;
  version: string;
  name: string | null;
}
const line = (document: DocumentState) => `documentChanged ${document.id} ${document.status} version ${document.version}: ${document.name}`;

describe.each(Object.keys(EXAMPLES))('examples/%s', (name) => {
  it('prints the document, then the change made while it listens, and ends', async () => {
    const graphql = `${gateway.origin}/graphql`;
    const before = await postGraphQL(graphql, { query: 'query($id: ID!) { document(id: $id) { id status version name } }', variables: { id: documentId } }, bearer(TOKEN));
    const current = (before.body as { data: { document: DocumentState } }).data.document;

    const app = spawnNpmIn(folders[name]!, ['start', '--silent'], { GATEWAY_URL: graphql, TOKEN, DOCUMENT_ID: documentId, EVENTS: '2' });
    const exited = new Promise<number | null>((resolve) => app.once('exit', (code) => resolve(code)));
    const stdout = watchOutput(app.stdout!, exited);
    const stderr = watchOutput(app.stderr!);
    try {
      await stdout.waitFor(/^documentChanged .*\n/m, 60_000);
      const update = await postGraphQL(graphql, {
        query: 'mutation($id: ID!, $name: String!) { updateDocument(input: {id: $id, documentType: PASSPORT, name: $name, number: "X1234567", issuingCountryCode: "USA", expiryDate: "2031-05-01"}) { document { id status version name } userErrors { message } } }',
        variables: { id: documentId, name: `Passport seen by ${name.slice('subscriptions-'.length)}` },
      }, bearer(TOKEN));
      const { document: updated, userErrors } = (update.body as { data: { updateDocument: { document: DocumentState; userErrors: unknown[] } } }).data.updateDocument;
      expect(userErrors).toEqual([]);
      expect(await exited).toBe(0);
      expect({ stdout: stdout.text(), stderr: stderr.text() }).toEqual({ stdout: `${line(current)}\n${line(updated)}\n`, stderr: '' });
      expect(updated.name).toBe(`Passport seen by ${name.slice('subscriptions-'.length)}`);
    } finally {
      if (app.exitCode === null && app.signalCode === null) process.kill(-app.pid!, 'SIGKILL');
    }
  }, 90_000);
});
