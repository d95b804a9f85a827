import { execFile } from 'node:child_process';
import { copyFileSync, readFileSync, symlinkSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { accountOf, sortRecords } from '../support/expected.ts';
import { startStack, type Stack } from '../support/stack.ts';

// docs/web-clients.md's Apollo Client recipe, run as written: its manifest config and command in an
// Apollo Client project, the manifest given to a production gateway (trusted documents only), and its
// client module driving a real Apollo Client that sends ids only.

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const DOC = readFileSync(new URL('../../docs/web-clients.md', import.meta.url), 'utf8');
// The Apollo Client part of the section (the Relay steps before it have blocks of their own).
const section = DOC.slice(DOC.indexOf('Apollo Client does not send the text it was written with'));
const config = /```json\n([\s\S]*?)```/.exec(section)![1]!;
const command = /```sh\n([\s\S]*?)```/.exec(section)![1]!.trim();
const clientModule = /```js\n(\/\/ src\/apollo-client\.js\n[\s\S]*?)```/.exec(section)![1]!;

const OPEN = `import { gql } from '@apollo/client';
export const OPEN_EXCEPTIONS = gql\`
  query OpenExceptions($first: Int!, $after: String) {
    exceptions(first: $first, after: $after) {
      totalCount
      nodes { id status }
      pageInfo { hasNextPage endCursor }
    }
  }
\`;
`;
// Added to the app after the gateway's manifest was deployed.
const COUNT = `import { gql } from '@apollo/client';
export const EXCEPTION_COUNT = gql\`
  query ExceptionCount { exceptions(first: 1) { totalCount } }
\`;
`;

/** Pages through the exceptions with the documented client, then tries the newer operation; prints what it saw. */
const DRIVER = `const sent = [];
const realFetch = globalThis.fetch;
globalThis.fetch = (url, init) => {
  sent.push(JSON.parse(init.body));
  return realFetch(url, init);
};
const { createApolloClient } = await import('./src/apollo-client.js');
const { OPEN_EXCEPTIONS } = await import('./src/open-exceptions.js');
const { EXCEPTION_COUNT } = await import('./src/exception-count.js');
const client = createApolloClient({ uri: process.env.GATEWAY_URL, getToken: async () => process.env.TOKEN });
const pages = [];
let after = null;
do {
  const { data } = await client.query({ query: OPEN_EXCEPTIONS, variables: { first: 2, after }, fetchPolicy: 'no-cache' });
  pages.push(data.exceptions);
  after = data.exceptions.pageInfo.hasNextPage && pages.length < 3 ? data.exceptions.pageInfo.endCursor : null;
} while (after);
let refused;
try {
  await client.query({ query: EXCEPTION_COUNT, fetchPolicy: 'no-cache' });
} catch (error) {
  refused = { name: error.name, statusCode: error.statusCode, result: error.result ?? JSON.parse(error.bodyText ?? 'null') };
}
console.log(JSON.stringify({ pages, refused, sent }));
`;

interface Exception {
  id: string;
  status: string;
}

const run = promisify(execFile);
let project: string;
let stack: Stack;
let gatewayManifest: { format: string; version: number; operations: { id: string; name: string; type: string; body: string }[] };

beforeAll(async () => {
  project = await mkdtemp(join(tmpdir(), 'apollo-client-app-'));
  // The app's dependencies are this repository's: the same installed @apollo packages.
  symlinkSync(join(ROOT, 'node_modules'), join(project, 'node_modules'));
  await writeFile(join(project, 'package.json'), JSON.stringify({ name: 'apollo-client-app', private: true, type: 'module' }));
  await mkdir(join(project, 'src'));
  await writeFile(join(project, 'persisted-query-manifest.config.json'), config);
  await writeFile(join(project, 'src/open-exceptions.js'), OPEN);
  await run('bash', ['-c', command], { cwd: project });
  // What the gateway is deployed with; the app then gains an operation and rebuilds its manifest.
  copyFileSync(join(project, 'persisted-query-manifest.json'), join(project, 'gateway-manifest.json'));
  gatewayManifest = JSON.parse(await readFile(join(project, 'gateway-manifest.json'), 'utf8'));
  await writeFile(join(project, 'src/exception-count.js'), COUNT);
  await run('bash', ['-c', command], { cwd: project });
  await writeFile(join(project, 'src/apollo-client.js'), clientModule);
  await writeFile(join(project, 'driver.js'), DRIVER);
  stack = await startStack({ NODE_ENV: 'production', TRUSTED_DOCUMENTS: join(project, 'gateway-manifest.json') });
}, 60_000);
afterAll(async () => {
  await stack?.close();
  if (project) await rm(project, { recursive: true, force: true });
});

describe('docs/web-clients.md: Apollo Client with trusted documents', () => {
  it('builds an Apollo manifest whose bodies are what Apollo Client sends (printed, __typename added)', () => {
    expect(gatewayManifest).toEqual({
      format: 'apollo-persisted-query-manifest',
      version: 1,
      operations: [
        {
          id: expect.stringMatching(/^[0-9a-f]{64}$/),
          name: 'OpenExceptions',
          type: 'query',
          body:
            'query OpenExceptions($first: Int!, $after: String) {\n  exceptions(first: $first, after: $after) {\n    totalCount\n    nodes {\n      id\n      status\n      __typename\n    }\n    pageInfo {\n      hasNextPage\n      endCursor\n      __typename\n    }\n    __typename\n  }\n}',
        },
      ],
    });
  });

  it('answers a real Apollo Client that sends ids only with exact data, and refuses an operation missing from its manifest', async () => {
    stack.sandbox.resetRequests();
    const { stdout } = await run(join(ROOT, 'node_modules/.bin/node'), ['driver.js'], {
      cwd: project,
      env: { PATH: process.env.PATH ?? '', GATEWAY_URL: `${stack.gateway.url}/graphql`, TOKEN: stack.acme },
    });
    const { pages, refused, sent } = JSON.parse(stdout) as { pages: unknown[]; refused: unknown; sent: Record<string, unknown>[] };

    const records = sortRecords(stack.sandbox.store.exceptions(accountOf(stack.sandbox, stack.acme)), [[(e) => e.createdAt, 'DESC']]);
    expect(records.length).toBeGreaterThan(6);
    const page = (n: number) => ({
      __typename: 'ExceptionConnection',
      totalCount: records.length,
      nodes: records.slice(2 * n, 2 * n + 2).map((e: Exception) => ({ __typename: 'Exception', id: e.id, status: e.status })),
      pageInfo: { __typename: 'PageInfo', hasNextPage: true, endCursor: expect.any(String) },
    });
    expect(pages).toEqual([page(0), page(1), page(2)]);

    const [open] = gatewayManifest.operations;
    // Apollo Client 4 names itself in every request's extensions.
    const persistedQuery = (id: string) => ({ clientLibrary: { name: '@apollo/client', version: '4.3.8' }, persistedQuery: { version: 1, sha256Hash: id } });
    const clientManifest = JSON.parse(await readFile(join(project, 'persisted-query-manifest.json'), 'utf8')) as typeof gatewayManifest;
    const count = clientManifest.operations.find((o) => o.name === 'ExceptionCount')!;
    // Ids only, never the text.
    expect(sent).toEqual([
      { operationName: 'OpenExceptions', variables: { first: 2, after: null }, extensions: persistedQuery(open!.id) },
      { operationName: 'OpenExceptions', variables: { first: 2, after: expect.any(String) }, extensions: persistedQuery(open!.id) },
      { operationName: 'OpenExceptions', variables: { first: 2, after: expect.any(String) }, extensions: persistedQuery(open!.id) },
      { operationName: 'ExceptionCount', variables: {}, extensions: persistedQuery(count.id) },
    ]);
    expect(refused).toEqual({
      name: 'ServerError',
      statusCode: 400,
      result: { errors: [{ message: `No trusted document has the id "${count.id}"`, extensions: { code: 'PERSISTED_QUERY_NOT_IN_LIST', requestId: expect.any(String) } }] },
    });
    // One platform call per page (the paging library's window arithmetic picks the sizes); none for the refused operation.
    expect(stack.platformCalls().map((call) => `${call.method} ${call.path}?${call.query}`)).toEqual(['GET /exceptions?page=0&size=2', 'GET /exceptions?page=0&size=4', 'GET /exceptions?page=1&size=3']);
  }, 30_000);
});
