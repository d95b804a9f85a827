import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createClient } from '@redis/client';
import { startSandbox, type Sandbox } from '../../sandbox/index.ts';
import { startProductionGateway, type ProductionGateway } from '../support/gateway-process.ts';
import { bearer, postGraphQL } from '../support/graphql-client.ts';
import { hasRedisServer, startRedisServer, type RedisServer } from '../support/redis-server.ts';
import { until } from '../support/time.ts';

// Trusted documents published at run time, on two real gateway processes in production mode sharing
// one real Redis (REDIS_URL), each running trusted documents only: what one replica is sent, the
// other serves; a manifest with one document that does not validate changes nothing anywhere; a
// retirement on one replica is honoured by the other; a wrong or missing token is refused, and the
// log never holds the token sent. The file (TRUSTED_DOCUMENTS) keeps working beside them.

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const describeRedis = hasRedisServer || process.env.CI ? describe : describe.skip;

const ADMIN_TOKEN = 'publish-token-0123456789abcdef0123456789';
const FILE_QUERY = 'query FromFile { __typename }';
const WEB_QUERY = 'query Web { __typename }';
const COUNT_QUERY = 'query Count { exceptions(first: 1) { totalCount } }';
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
/** graphql-codegen's client preset with `hashAlgorithm: 'sha256'`: `sha256:<hex>` → text. */
const clientPreset = (...texts: string[]) => Object.fromEntries(texts.map((text) => [`sha256:${sha256(text)}`, text]));

let sandbox: Sandbox;
let redis: RedisServer;
let directory: string;
let a: ProductionGateway;
let b: ProductionGateway;
let token: string;

const env = () => ({ UPSTREAM_URL: sandbox.url, REDIS_URL: redis.url, ADMIN_TOKEN, TRUSTED_DOCUMENTS_ONLY: 'true', LOG_LEVEL: 'info' });

function admin(gateway: ProductionGateway, method: string, route: string, body?: string, headers: Record<string, string> = bearer(ADMIN_TOKEN)) {
  return fetch(`${gateway.admin}/trusted-documents${route}`, { method, headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) }, body }).then(async (response) => ({ status: response.status, body: (await response.json()) as Record<string, unknown> }));
}

/** A request naming its document by id, as a client built with the manifest sends it. */
const byId = (gateway: ProductionGateway, documentId: string) => postGraphQL(`${gateway.origin}/graphql`, { documentId }, bearer(token));

/** `npm run trust` as an app's CI runs it. */
function trust(args: string[], adminUrl: string, tokenEnv: string | undefined = ADMIN_TOKEN): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(`${ROOT}node_modules/.bin/node`, ['--disable-warning=ExperimentalWarning', 'scripts/typescript.mjs', 'scripts/trust.ts', ...args, '--admin-url', adminUrl], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', ...(tokenEnv === undefined ? {} : { ADMIN_TOKEN: tokenEnv }) },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, stdout, stderr })));
}

describeRedis('trusted documents published on one replica, served by the other', () => {
  beforeAll(async () => {
    [sandbox, redis, directory] = await Promise.all([startSandbox(), startRedisServer(['--maxmemory-policy', 'volatile-lru']), mkdtemp(path.join(tmpdir(), 'published-documents-'))]);
    token = sandbox.tokens[0]!.token;
    await writeFile(path.join(directory, 'file.json'), JSON.stringify({ fromFile: FILE_QUERY }));
    [a, b] = await Promise.all([startProductionGateway({ ...env(), TRUSTED_DOCUMENTS: path.join(directory, 'file.json') }), startProductionGateway(env())]);
  }, 60_000);
  afterAll(async () => {
    await Promise.all([a?.process.stop(), b?.process.stop()]);
    await Promise.all([redis?.stop(), sandbox?.close(), directory && rm(directory, { recursive: true, force: true })]);
  });

  it('serves nothing but the file before a publication: an unknown id is refused on both', async () => {
    expect((await byId(a, 'fromFile')).body).toEqual({ data: { __typename: 'Query' } });
    for (const gateway of [a, b]) {
      const answer = await byId(gateway, `sha256:${sha256(WEB_QUERY)}`);
      expect([answer.status, answer.body.errors?.[0]?.extensions.code]).toEqual([400, 'PERSISTED_QUERY_NOT_IN_LIST']);
    }
  });

  it('publishes a client preset manifest with npm run trust on one replica, and the other serves it by id and by Apollo hash', async () => {
    const manifest = path.join(directory, 'persisted-documents.json');
    await writeFile(manifest, JSON.stringify(clientPreset(WEB_QUERY, COUNT_QUERY)));
    const published = await trust(['publish', manifest, '--app', 'web'], a.admin!);
    expect(published).toEqual({ code: 0, stdout: 'published 2 documents for app "web"\n', stderr: '' });

    const served = await until('b serves the published document', async () => {
      const answer = await byId(b, `sha256:${sha256(WEB_QUERY)}`);
      return answer.status === 200 ? answer : undefined;
    }, 10_000);
    expect(served.body).toEqual({ data: { __typename: 'Query' } });
    const apollo = await postGraphQL(`${b.origin}/graphql`, { extensions: { persistedQuery: { version: 1, sha256Hash: sha256(COUNT_QUERY) } } }, bearer(token));
    const onA = await byId(a, `sha256:${sha256(COUNT_QUERY)}`);
    expect(apollo.status).toBe(200);
    expect(typeof (apollo.body.data as { exceptions: { totalCount: number } }).exceptions.totalCount).toBe('number');
    expect(apollo.body).toEqual(onA.body);
    // The file's documents are still served beside them.
    expect((await byId(a, 'fromFile')).body).toEqual({ data: { __typename: 'Query' } });

    const listed = await admin(b, 'GET', '');
    expect(listed.status).toBe(200);
    expect((listed.body.apps as Record<string, unknown>[]).map(({ publishedAt: _at, ...app }) => app)).toEqual([
      { name: 'web', documents: 2, ids: [`sha256:${sha256(WEB_QUERY)}`, `sha256:${sha256(COUNT_QUERY)}`].sort() },
    ]);
    expect((await trust(['list'], b.admin!)).stdout).toBe(`web\t2 documents\tpublished ${String((listed.body.apps as { publishedAt: string }[])[0]!.publishedAt)}\n${[sha256(WEB_QUERY), sha256(COUNT_QUERY)].sort().map((hash) => `  sha256:${hash}\n`).join('')}`);
  }, 30_000);

  it('refuses a whole manifest of which one document does not validate, naming it: nothing changes on either replica or in Redis', async () => {
    const redisClient = createClient({ url: redis.url });
    await redisClient.connect();
    const before = { keys: (await redisClient.keys('gateway-trusted-documents:*')).sort(), web: await redisClient.hGetAll('gateway-trusted-documents:app:web'), version: await redisClient.get('gateway-trusted-documents:version') };
    const good = 'query Fine { __typename }';
    const manifest = { good, bad: 'query Bad { exceptions(first: 1) { totalCount noSuchField } }' };
    for (const app of ['web', 'mobile']) {
      const answer = await admin(a, 'PUT', `/${app}`, JSON.stringify(manifest));
      expect(answer).toEqual({ status: 400, body: { id: 'bad', error: 'document "bad" does not validate: Cannot query field "noSuchField" on type "ExceptionConnection".' } });
    }
    const apollo = { format: 'apollo-persisted-query-manifest', version: 1, operations: [{ id: 'one', name: 'One', type: 'query', body: good }, { id: 'two', name: 'Two', type: 'query', body: 'query Two { __typename } query Three { __typename }' }] };
    expect(await admin(b, 'PUT', '/mobile', JSON.stringify(apollo))).toEqual({ status: 400, body: { error: 'app "mobile": document "two" holds 2 operations, not one' } });
    expect(await admin(b, 'PUT', '/mobile', '{"not json')).toMatchObject({ status: 400 });

    const after = { keys: (await redisClient.keys('gateway-trusted-documents:*')).sort(), web: await redisClient.hGetAll('gateway-trusted-documents:app:web'), version: await redisClient.get('gateway-trusted-documents:version') };
    redisClient.destroy();
    expect(after).toEqual(before);
    for (const gateway of [a, b]) {
      expect((await byId(gateway, 'good')).body.errors?.[0]?.extensions.code).toBe('PERSISTED_QUERY_NOT_IN_LIST');
      expect((await byId(gateway, `sha256:${sha256(WEB_QUERY)}`)).status).toBe(200);
    }
    expect(((await admin(a, 'GET', '')).body.apps as { name: string }[]).map((app) => app.name)).toEqual(['web']);
  }, 30_000);

  it('refuses a missing or wrong admin token with 401, changing nothing and logging no token', async () => {
    const wrong = 'wrong-token-abcdefabcdefabcdefabcdefabcdef';
    const sent = [
      await admin(a, 'PUT', '/web', JSON.stringify({ other: 'query Other { __typename }' }), bearer(wrong)),
      await admin(a, 'DELETE', '/web', undefined, {}),
      await admin(b, 'GET', '', undefined, { authorization: `Bearer ${ADMIN_TOKEN}x` }),
    ];
    expect(sent.map((answer) => answer.status)).toEqual([401, 401, 401]);
    expect(sent[0]!.body).toEqual({ error: 'wrong admin token: send Authorization: Bearer <ADMIN_TOKEN>' });
    expect(sent[1]!.body).toEqual({ error: 'no admin token: send Authorization: Bearer <ADMIN_TOKEN>' });
    const refused = await trust(['retire', '--app', 'web'], a.admin!, wrong);
    expect([refused.code, refused.stderr]).toEqual([1, 'npm run trust: 401: wrong admin token: send Authorization: Bearer <ADMIN_TOKEN>\n']);

    await a.process.waitFor(/(admin request refused[\s\S]*){3}/, 5_000);
    const lines = a.process.stdout().split('\n').filter((line) => line.includes('admin request refused'));
    expect(lines.map((line) => (JSON.parse(line) as { method: string; path: string; reason: string }).reason)).toEqual(['wrong token', 'no token', 'wrong token']);
    expect(a.process.stdout()).not.toContain(wrong);
    expect(b.process.stdout()).not.toContain(`${ADMIN_TOKEN}x`);
    expect((await byId(b, `sha256:${sha256(WEB_QUERY)}`)).status).toBe(200);
  }, 30_000);

  it('retires an app on one replica: the other serves its documents no more, and a restarted replica serves what is published', async () => {
    await admin(a, 'PUT', '/admin-console', JSON.stringify({ console: 'query Console { __typename }' }));
    expect(await admin(b, 'DELETE', '/web')).toEqual({ status: 200, body: { app: 'web', retired: true } });
    const refused = await until('a refuses the retired document', async () => {
      const answer = await byId(a, `sha256:${sha256(WEB_QUERY)}`);
      return answer.status === 400 ? answer : undefined;
    }, 10_000);
    expect(refused.body.errors?.[0]?.extensions.code).toBe('PERSISTED_QUERY_NOT_IN_LIST');
    expect(await admin(b, 'DELETE', '/web')).toEqual({ status: 404, body: { error: 'no documents are published for app "web"' } });

    // Kept in Redis: a replica started now serves what is published, and nothing retired.
    await b.process.stop();
    b = await startProductionGateway(env());
    const served = await until('the new replica serves the published document', async () => {
      const answer = await byId(b, 'console');
      return answer.status === 200 ? answer : undefined;
    }, 10_000);
    expect(served.body).toEqual({ data: { __typename: 'Query' } });
    expect((await byId(b, `sha256:${sha256(WEB_QUERY)}`)).status).toBe(400);
  }, 60_000);
});

describe('published trusted documents without the setting or without Redis', () => {
  it('refuses every admin request while ADMIN_TOKEN is unset', async () => {
    const gateway = await startProductionGateway();
    try {
      const put = await fetch(`${gateway.admin}/trusted-documents/web`, { method: 'PUT', headers: { ...bearer(ADMIN_TOKEN), 'content-type': 'application/json' }, body: JSON.stringify({ q: WEB_QUERY }) });
      expect([put.status, await put.json()]).toEqual([403, { error: 'admin writes are off: set ADMIN_TOKEN to publish trusted documents' }]);
      const list = await fetch(`${gateway.admin}/trusted-documents`);
      expect(list.status).toBe(403);
    } finally {
      await gateway.process.stop();
    }
  }, 60_000);

  it('serves a publication on every worker of a group without Redis, and from a worker started after it', async () => {
    const gateway = await startProductionGateway({ WORKERS: '2', ADMIN_TOKEN, TRUSTED_DOCUMENTS_ONLY: 'true', LOG_LEVEL: 'info' });
    try {
      const published = await fetch(`${gateway.admin}/trusted-documents/web`, { method: 'PUT', headers: { ...bearer(ADMIN_TOKEN), 'content-type': 'application/json' }, body: JSON.stringify(clientPreset(WEB_QUERY)) });
      expect([published.status, await published.json()]).toEqual([200, { app: 'web', documents: 1 }]);
      const id = `sha256:${sha256(WEB_QUERY)}`;
      /** The workers that answered the document, by the pid of their request log lines. */
      const answeredBy = async () => {
        const answers = await Promise.all(Array.from({ length: 8 }, () => fetch(`${gateway.origin}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', connection: 'close' }, body: JSON.stringify({ documentId: id }) }).then((response) => response.json())));
        expect(answers).toEqual(Array.from({ length: 8 }, () => ({ data: { __typename: 'Query' }, extensions: { cost: { requestedQueryCost: 0, actualQueryCost: 0 } } })));
      };
      await answeredBy();
      const pids = () => new Set(gateway.process.stdout().split('\n').filter((line) => line.includes('"operationName":"Web"')).map((line) => (JSON.parse(line) as { pid: number }).pid));
      await until('both workers answered', () => (pids().size === 2 ? true : undefined), 10_000);
      expect(pids().size).toBe(2);
      // A worker that replaces one killed gets the set from the primary before it serves.
      const [first] = [...pids()];
      process.kill(first!, 'SIGKILL');
      await gateway.process.waitFor(/"msg":"worker listening"[\s\S]*"msg":"worker listening"[\s\S]*"msg":"worker listening"/, 20_000);
      await until('the new worker answered', async () => {
        await answeredBy();
        return pids().size >= 3 ? true : undefined;
      }, 20_000);
    } finally {
      await gateway.process.stop();
    }
  }, 90_000);
});
