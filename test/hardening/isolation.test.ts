import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createLogger } from '../../src/logger.ts';
import { documentTypes } from '../../src/documents/resolvers.ts';
import { mediaTypeOf, synthesizeFile } from '../../sandbox/content/file-samples.ts';
import { createRandom, type Random } from '../../sandbox/data/random.ts';
import type { DocumentRecord } from '../../sandbox/data/records.ts';
import { startStack, type Stack } from '../support/stack.ts';
import { accountOf } from '../support/expected.ts';
import { post } from './support/http.ts';
import { watchUnhandledRejections, type RejectionWatch } from './support/process-probe.ts';

const REQUESTS = 2_000;
const CONCURRENCY = 50;

interface Tenant {
  name: 'acme' | 'globex';
  token: string;
  businessAccountId: string;
  exceptionIds: Set<string>;
  documents: Map<string, DocumentRecord>;
  /** Acceptance ids by the financial account they are scoped to. */
  acceptances: Map<string, Set<string>>;
}

interface Call {
  kind: 'exceptions' | 'documents' | 'acceptances';
  tenant: Tenant;
  requestId: string;
  body: { query: string; variables: Record<string, unknown> };
  check(response: { status: number; body: GraphQLBody }): void;
}

type GraphQLBody = { data?: Record<string, unknown> | null; errors?: { message: string; path?: (string | number)[]; extensions?: Record<string, unknown> }[] };

const logLines: string[] = [];
let stack: Stack;
let tenants: [Tenant, Tenant];
let rejections: RejectionWatch;

beforeAll(async () => {
  rejections = watchUnhandledRejections();
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logLines.push(chunk.toString());
      done();
    },
  });
  // debug: every line the gateway can write is captured, including Apollo's and the upstream warnings.
  stack = await startStack({}, {}, createLogger('debug', { destination }));
  const tenant = (name: 'acme' | 'globex', token: string): Tenant => {
    const businessAccountId = accountOf(stack.sandbox, token);
    const acceptances = new Map<string, Set<string>>();
    for (const fa of stack.sandbox.store.financialAccounts(businessAccountId)) acceptances.set(fa, new Set());
    for (const a of stack.sandbox.store.acceptances(businessAccountId)) acceptances.get(a.scopes.FINANCIAL_ACCOUNT_ID)!.add(a.id);
    return {
      name,
      token,
      businessAccountId,
      exceptionIds: new Set(stack.sandbox.store.exceptions(businessAccountId).map((e) => e.id)),
      documents: new Map(stack.sandbox.store.documents(businessAccountId).map((d) => [d.id, d])),
      acceptances,
    };
  };
  tenants = [tenant('acme', stack.acme), tenant('globex', stack.globex)];
  expect(tenants[0].businessAccountId).not.toBe(tenants[1].businessAccountId);
});

afterAll(async () => {
  await stack?.close();
  rejections.stop();
});

const EXCEPTIONS = `query Exceptions($first: Int, $status: [ExceptionStatus!], $field: ExceptionOrderField!) {
  exceptions(first: $first, filter: { status: $status }, orderBy: [{ field: $field, direction: ASC }]) {
    totalCount nodes { id businessAccountId notes { businessAccountId } }
  }
}`;
const ACCEPTANCES = `query Acceptances($account: ID!, $last: Int) {
  documentAcceptances(financialAccountId: $account, last: $last) { totalCount nodes { id businessAccountId financialAccountId } }
}`;

function documentsQuery(count: number): string {
  const variables = Array.from({ length: count }, (_, i) => `$d${i}: ID!`).join(', ');
  const fields = Array.from({ length: count }, (_, i) => `d${i}: document(id: $d${i}) { id businessAccountId name holderId }`).join('\n  ');
  return `query Documents(${variables}) {\n  ${fields}\n}`;
}

function expectNoError(body: GraphQLBody) {
  expect(body.errors).toBeUndefined();
}

/** One request of a random kind for a random tenant; its check knows exactly what that tenant may see. */
function makeCall(random: Random, index: number): Call {
  const tenant = random.pick(tenants);
  const other = tenant === tenants[0] ? tenants[1] : tenants[0];
  const requestId = `isolation-${index}`;
  const kind = random.pick(['exceptions', 'documents', 'acceptances'] as const);

  if (kind === 'exceptions') {
    const status = random.chance(0.5) ? undefined : [random.pick(['NEW', 'IN_PROGRESS', 'RESOLVED', 'REOPENED'])];
    const variables = { first: random.int(1, 10), status, field: random.pick(['ID', 'CREATED_AT', 'STATUS', 'UPDATED_AT']) };
    const expectedTotal = stack.sandbox.store.exceptions(tenant.businessAccountId).filter((e) => !status || status.includes(e.status)).length;
    return {
      kind, tenant, requestId, body: { query: EXCEPTIONS, variables },
      check({ body }) {
        expectNoError(body);
        const page = body.data!.exceptions as { totalCount: number; nodes: { id: string; businessAccountId: string; notes: { businessAccountId: string } | null }[] };
        expect(page.totalCount).toBe(expectedTotal);
        expect(page.nodes.length).toBe(Math.min(variables.first, expectedTotal));
        for (const node of page.nodes) {
          expect(tenant.exceptionIds.has(node.id)).toBe(true);
          expect(node.businessAccountId).toBe(tenant.businessAccountId);
          if (node.notes) expect(node.notes.businessAccountId).toBe(tenant.businessAccountId);
        }
      },
    };
  }

  if (kind === 'documents') {
    // Own and foreign ids in one request, through the per-request document loader.
    const own = random.shuffle([...tenant.documents.keys()]).slice(0, random.int(1, 3));
    const foreign = random.shuffle([...other.documents.keys()]).slice(0, random.int(1, 2));
    const ids = random.shuffle([...own, ...foreign]);
    const variables = Object.fromEntries(ids.map((id, i) => [`d${i}`, id]));
    return {
      kind, tenant, requestId, body: { query: documentsQuery(ids.length), variables },
      check({ body }) {
        const notFound = new Set<string>();
        for (const error of body.errors ?? []) {
          expect(error.extensions).toMatchObject({ code: 'NOT_FOUND', requestId, upstream: { status: 404 } });
          notFound.add(String(error.path?.[0]));
        }
        ids.forEach((id, i) => {
          const value = body.data![`d${i}`];
          const mine = tenant.documents.get(id);
          if (mine) {
            expect(value).toEqual({ id, businessAccountId: tenant.businessAccountId, name: mine.name, holderId: mine.holderId });
          } else {
            expect(value).toBeNull();
            expect(notFound.has(`d${i}`)).toBe(true);
          }
        });
        expect(notFound.size).toBe(foreign.length);
      },
    };
  }

  // Acceptances of one of the caller's accounts, or of the other tenant's: the latter must come back empty.
  const foreignAccount = random.chance(0.25);
  const account = random.pick([...(foreignAccount ? other : tenant).acceptances.keys()]);
  const owned = foreignAccount ? new Set<string>() : tenant.acceptances.get(account)!;
  const variables = { account, last: random.int(1, 10) };
  return {
    kind, tenant, requestId, body: { query: ACCEPTANCES, variables },
    check({ body }) {
      expectNoError(body);
      const page = body.data!.documentAcceptances as { totalCount: number; nodes: { id: string; businessAccountId: string; financialAccountId: string }[] };
      expect(page.totalCount).toBe(owned.size);
      expect(page.nodes.length).toBe(Math.min(variables.last, owned.size));
      for (const node of page.nodes) {
        expect(owned.has(node.id)).toBe(true);
        expect(node).toMatchObject({ businessAccountId: tenant.businessAccountId, financialAccountId: account });
      }
    },
  };
}

describe('two tenants under concurrent, interleaved load', () => {
  it(`serves ${REQUESTS} requests at concurrency ${CONCURRENCY}, each with only its caller's records`, async () => {
    stack.sandbox.resetRequests();
    const random = createRandom('isolation');
    const calls = Array.from({ length: REQUESTS }, (_, i) => makeCall(random, i));
    const failures: string[] = [];
    const kinds = new Map<string, number>();
    let next = 0;
    const started = performance.now();
    const worker = async () => {
      while (next < calls.length) {
        const call = calls[next++]!;
        const response = await post(`${stack.gateway.url}/graphql`, call.body, { authorization: `Bearer ${call.tenant.token}`, 'x-request-id': call.requestId });
        kinds.set(call.kind, (kinds.get(call.kind) ?? 0) + 1);
        try {
          expect(response.status).toBe(200);
          call.check({ status: response.status, body: response.json as GraphQLBody });
          for (const tenant of tenants) expect(response.text).not.toContain(tenant.token);
        } catch (error) {
          failures.push(`${call.requestId} (${call.tenant.name}): ${(error as Error).message.slice(0, 500)}`);
        }
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    const seconds = (performance.now() - started) / 1000;
    console.info(`isolation: ${REQUESTS} requests (${[...kinds.entries()].map(([kind, n]) => `${n} ${kind}`).join(', ')}), ` +
      `concurrency ${CONCURRENCY}, ${stack.platformCalls().length} platform calls, ${seconds.toFixed(1)} s (${(REQUESTS / seconds).toFixed(0)} req/s)`);
    expect(failures).toEqual([]);

    // Every platform call carried the token of the request that caused it, and nothing else.
    const tokenOf = new Map(calls.map((call) => [call.requestId, `Bearer ${call.tenant.token}`]));
    const upstream = stack.platformCalls();
    expect(upstream.length).toBeGreaterThanOrEqual(REQUESTS);
    for (const request of upstream) {
      expect(request.requestId).toBeDefined();
      expect([request.requestId, request.authorization]).toEqual([request.requestId, tokenOf.get(request.requestId!)]);
    }
    expect(rejections.reasons).toEqual([]);
  }, 300_000); // Bounded for a hang, not for speed: a busy machine serves the 2,000 requests slowly.
});

describe('the caller’s token stays with the platform', () => {
  const secret = 'sk_live_9f8e7d6c5b4a39281706f5e4d3c2b1a0';

  it('is not echoed in an error, even when the platform rejects it', async () => {
    const response = await post(`${stack.gateway.url}/graphql`, { query: '{ exceptions(first: 1) { nodes { id } } document(id: "00000000-0000-4000-8000-000000000000") { id } }' }, { authorization: `Bearer ${secret}` });
    expect(response.json?.errors?.map((e) => e.extensions?.code)).toEqual(['UNAUTHENTICATED', 'UNAUTHENTICATED']);
    expect(response.text).not.toContain(secret);
    expect(response.text).not.toContain(secret.slice(0, 12));
  });

  it('is never sent to the content host: upload and download through content URLs carry no Authorization', async () => {
    const acme = tenants[0];
    const passport = [...acme.documents.values()].find((d) => d.documentType === 'passport')!;
    const update = await stack.gql<{ updateDocument: { uploadUrl: { value: string; allowed: string }; userErrors: unknown[] } }>(
      `mutation($input: UpdateDocumentInput!) { updateDocument(input: $input) { uploadUrl { value allowed } userErrors { code } } }`,
      { input: { id: passport.id, documentType: documentTypes.fromPlatform(passport.documentType, null), name: passport.name, number: 'X7654321', issuingCountryCode: 'USA', expiryDate: '2032-01-31' } },
      { token: acme.token },
    );
    expect(update.body.errors).toBeUndefined();
    const { uploadUrl, userErrors } = update.body.data!.updateDocument;
    expect([userErrors, uploadUrl.allowed]).toEqual([[], 'PUT']);
    expect(uploadUrl.value.startsWith(stack.sandbox.documentsUrl)).toBe(true);
    const upload = await fetch(uploadUrl.value, { method: 'PUT', body: new Uint8Array(synthesizeFile(passport.extension, 2_048)), headers: { 'content-type': mediaTypeOf(passport.extension) } });
    expect(upload.status).toBe(200);

    const scanned = [...acme.documents.values()].find((d) => d.status === 'SCANNED')!;
    const read = await stack.gql<{ document: { url: { value: string }; thumbnailUrl: { value: string } } }>(
      'query($id: ID!) { document(id: $id) { url { value } thumbnailUrl { value } } }', { id: scanned.id }, { token: acme.token });
    for (const url of [read.body.data!.document.url.value, read.body.data!.document.thumbnailUrl.value]) {
      expect((await fetch(url)).status).toBe(200);
    }

    const content = stack.sandbox.requests.filter((r) => r.host === 'content');
    expect(content.map((r) => r.method).sort()).toEqual(['GET', 'GET', 'PUT']);
    for (const request of content) {
      expect(request.authorization).toBeUndefined();
      for (const tenant of tenants) expect(`${request.path}?${request.query}`).not.toContain(tenant.token);
    }
    // The gateway itself only ever called the platform's API host.
    for (const request of stack.sandbox.requests) if (request.authorization !== undefined) expect(request.host).toBe('api');
  });

  it('never appears in the logs', () => {
    expect(logLines.length).toBeGreaterThan(REQUESTS);
    const leaks = logLines.filter((line) => [...tenants.map((t) => t.token), secret].some((token) => line.includes(token)));
    expect(leaks).toEqual([]);
    expect(logLines.some((line) => line.includes('Bearer '))).toBe(false);
  });
});
