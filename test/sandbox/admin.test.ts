import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { accountOf } from '../support/expected.ts';
import { startSandbox } from '../../sandbox/index.ts';
import type { Sandbox } from '../../sandbox/index.ts';
import { ACME, GLOBEX, call, get, put } from './client.ts';
import type { ShapeA } from './client.ts';

let sandbox: Sandbox;

beforeAll(async () => {
  sandbox = await startSandbox();
});
afterAll(() => sandbox.close());

const admin = <T = unknown>(method: string, path: string, body?: unknown) =>
  call<T>(`${sandbox.url}/__sandbox/${path}`, { method, ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }) });

const zeroRoutes = { acceptances: 0, exceptions: 0, linx: 0, 'document.get': 0, 'document.put': 0, content: 0, unknown: 0 };

describe('admin routes', () => {
  it('sets and clears faults', async () => {
    expect((await admin('POST', 'faults', { route: 'exceptions', fault: { status: 503, retryAfter: 3 } })).status).toBe(200);
    const faulty = await get(sandbox, '/exceptions');
    expect([faulty.status, faulty.headers.get('retry-after')]).toEqual([503, '3']);
    await admin('POST', 'faults', { route: '*', fault: { status: 500 } });
    expect((await admin('DELETE', 'faults?route=exceptions')).status).toBe(200);
    expect((await get(sandbox, '/exceptions')).status).toBe(500);
    expect((await admin('DELETE', 'faults')).status).toBe(200);
    expect((await get(sandbox, '/exceptions')).status).toBe(200);
  });

  it.each([
    [{ route: 'documents', fault: { status: 500 } }, 'route must be one of *, acceptances, exceptions, linx, document.get, document.put, content'],
    [{ route: 'linx', fault: { status: 'x' } }, 'invalid fault field "status": "x"'],
    [{ route: 'linx', fault: { sometimes: true } }, 'unknown fault field "sometimes"'],
    [{ route: 'linx', fault: null }, 'fault must be an object'],
  ])('refuses %j with 400', async (body, message) => {
    const answer = await admin<ShapeA>('POST', 'faults', body);
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ error: 'Bad Request', message });
  });

  it('refuses a body that is not JSON', async () => {
    const answer = await call<ShapeA>(`${sandbox.url}/__sandbox/faults`, { method: 'POST', body: '{route' });
    expect([answer.status, answer.body.message]).toEqual([400, 'body is not valid JSON']);
  });

  it('counts platform requests by route and host, without counting itself, and resets the counts', async () => {
    expect((await admin('DELETE', 'requests')).status).toBe(200);
    expect(sandbox.requests).toEqual([]);
    await get(sandbox, '/exceptions', ACME, { 'x-request-id': 'r-1' });
    await get(sandbox, '/exceptions', GLOBEX, { 'x-request-id': 'r-1' });
    await get(sandbox, '/v1/acceptances?financialAccountId=00000000-0000-4000-8000-000000000000', ACME, { 'x-request-id': 'r-2' });
    await get(sandbox, '/v3/unknown');
    await call(`${sandbox.documentsUrl}/elsewhere`);
    const summary = await admin('GET', 'requests');
    expect(summary.body).toEqual({ total: 5, byRoute: { ...zeroRoutes, exceptions: 2, acceptances: 1, unknown: 2 }, byHost: { api: 4, content: 1 } });
    const detail = await admin<{ requests: { requestId?: string; route: string }[] }>('GET', 'requests?detail=1');
    expect(detail.body.requests.map((r) => [r.route, r.requestId])).toEqual([['exceptions', 'r-1'], ['exceptions', 'r-1'], ['acceptances', 'r-2'], ['unknown', undefined], ['unknown', undefined]]);
    expect(sandbox.requests).toHaveLength(5);
    await admin('DELETE', 'requests');
    expect((await admin('GET', 'requests')).body).toEqual({ total: 0, byRoute: zeroRoutes, byHost: { api: 0, content: 0 } });
  });

  it('switches the LinX answer between bare array and envelope', async () => {
    const template = sandbox.store.linxTemplates(accountOf(sandbox, ACME))[0]!;
    const path = `/v2/linx/workflow-batches?templateId=${template.templateId}&templateVersionId=${template.versions[1]!.templateVersionId}&size=3`;
    expect((await admin('POST', 'linx-envelope', { on: true })).body).toEqual({ on: true });
    expect((await get<{ totalElements: number }>(sandbox, path)).body.totalElements).toBe(21);
    await admin('POST', 'linx-envelope', { on: false });
    expect((await get<unknown[]>(sandbox, path)).body).toHaveLength(3);
    expect((await admin('POST', 'linx-envelope', { on: 'yes' })).status).toBe(400);
  });

  it('switches the spelling of every date-time of the answers, each naming the same instant, until a reset', async () => {
    const path = `/v1/acceptances?financialAccountId=${sandbox.store.financialAccounts(accountOf(sandbox, ACME))[0]!}&size=2`;
    const stored = (await get<{ content: { createdAt: string; respondedAt: string }[] }>(sandbox, path)).body.content;
    expect(stored[0]!.createdAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}\+0000$/);
    const wall = (text: string, offsetMinutes: number) => new Date(Date.parse(`${text.slice(0, 23)}Z`) + offsetMinutes * 60_000).toISOString().slice(0, 23);
    for (const [designator, offsetMinutes] of [['Z', 0], ['+00:00', 0], ['+02:00', 120], ['-0530', -330], ['+0000', 0]] as const) {
      expect((await admin('POST', 'zone-designator', { designator })).body).toEqual({ designator });
      const { content } = (await get<{ content: { createdAt: string; respondedAt: string }[] }>(sandbox, path)).body;
      expect(content.map((record) => [record.createdAt, record.respondedAt])).toEqual(
        stored.map((record) => [`${wall(record.createdAt, offsetMinutes)}${designator}`, `${wall(record.respondedAt, offsetMinutes)}${designator}`]),
      );
    }
    for (const designator of ['+24:00', '+02:60', 'UTC', '+2', 7]) expect((await admin('POST', 'zone-designator', { designator })).status).toBe(400);
    await admin('POST', 'zone-designator', { designator: 'Z' });
    await admin('POST', 'reset');
    expect((await get<{ content: { createdAt: string }[] }>(sandbox, path)).body.content[0]!.createdAt).toBe(stored[0]!.createdAt);
  });

  it('resets the data and the faults, but not the LinX option given at start or the request log', async () => {
    const document = sandbox.store.documents(accountOf(sandbox, ACME)).find((d) => d.documentType === 'other')!;
    expect((await put(sandbox, `/v1/documents/${document.id}`, { documentType: 'other', name: 'Changed', description: 'Changed' })).status).toBe(200);
    await admin('POST', 'faults', { route: 'linx', fault: { status: 500 } });
    await admin('POST', 'linx-envelope', { on: true });
    const logged = sandbox.requests.length;
    expect((await admin('POST', 'reset')).status).toBe(200);
    expect(sandbox.store.document(document.id)).toEqual(document);
    expect((await get(sandbox, '/v2/linx/workflow-batches')).status).toBe(400);
    expect(sandbox.requests).toHaveLength(logged + 1);
    const template = sandbox.store.linxTemplates(accountOf(sandbox, ACME))[0]!;
    const batches = await get(sandbox, `/v2/linx/workflow-batches?templateId=${template.templateId}&templateVersionId=${template.versions[0]!.templateVersionId}`);
    expect(Array.isArray(batches.body)).toBe(true);
  });

  it('lists the seeded ids a client needs', async () => {
    const { body } = await admin<{ businessAccounts: { token: string; businessAccountId: string; financialAccounts: string[]; linxTemplates: unknown[]; documents: { id: string }[] }[] }>('GET', 'fixtures');
    expect(body.businessAccounts.map((a) => a.token)).toEqual([ACME, GLOBEX]);
    const acme = body.businessAccounts[0]!;
    expect(acme.financialAccounts).toEqual(sandbox.store.financialAccounts(acme.businessAccountId));
    expect(acme.linxTemplates).toEqual(sandbox.store.linxTemplates(acme.businessAccountId));
    expect(acme.documents.map((d) => d.id)).toEqual(sandbox.store.documents(acme.businessAccountId).map((d) => d.id));
  });

  it('lists ready-to-use example ids per Business Account, the ones npm start prints', async () => {
    const { body } = await admin<{ businessAccounts: { businessAccountId: string; examples: unknown }[] }>('GET', 'fixtures');
    const acme = body.businessAccounts[0]!;
    const documents = sandbox.store.documents(acme.businessAccountId);
    const template = sandbox.store.linxTemplates(acme.businessAccountId)[0]!;
    const firstOf = (status: string) => documents.find((d) => d.status === status);
    expect(acme.examples).toEqual({
      financialAccountId: sandbox.store.financialAccounts(acme.businessAccountId)[0],
      linxTemplate: {
        templateId: template.templateId,
        templateVersionId: template.versions[0]!.templateVersionId,
        templateVersion: template.versions[0]!.templateVersion,
        displayName: template.versions[0]!.displayName,
      },
      documentsByStatus: ['NEW', 'UPLOADED', 'INCOMPLETE', 'SCANNED', 'MALICIOUS']
        .filter((status) => firstOf(status))
        .map((status) => ({ status, id: firstOf(status)!.id, documentType: firstOf(status)!.documentType })),
      documentToUpdate: documents.find((d) => d.documentType === 'passport')!.id,
    });
    expect((acme.examples as { documentsByStatus: unknown[] }).documentsByStatus).toHaveLength(5);
    expect(sandbox.examples(acme.businessAccountId).documentToUpdate.id).toBe(documents.find((d) => d.documentType === 'passport')!.id);
  });

  it('answers 404 for an unknown control', async () => {
    expect((await admin('GET', 'faults')).status).toBe(404);
  });
});
