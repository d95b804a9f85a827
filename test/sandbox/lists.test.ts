import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startSandbox } from '../../sandbox/index.ts';
import type { AcceptanceRecord, ExceptionRecord, Sandbox } from '../../sandbox/index.ts';
import { accountOf, sortRecords } from '../support/expected.ts';
import { ACME, GLOBEX, TIMESTAMP, TRACE_ID, byCreatedDesc, epochOf, get, ids, violations } from './client.ts';
import type { Page, ShapeA, ShapeB } from './client.ts';

let sandbox: Sandbox;
let acme: string;
let globex: string;

beforeAll(async () => {
  sandbox = await startSandbox();
  acme = accountOf(sandbox, ACME);
  globex = accountOf(sandbox, GLOBEX);
});
afterAll(() => sandbox.close());

const exceptions = (query: string, token = ACME) => get<Page<ExceptionRecord>>(sandbox, `/exceptions${query}`, token);
const invalid = (query: string) => get<ShapeB>(sandbox, `/exceptions${query}`);

describe('paging (zero-based endpoints)', () => {
  it('answers page 0 of 20 in createdAt DESC order by default, with the page envelope', async () => {
    const all = byCreatedDesc(sandbox.store.exceptions(acme));
    const { status, body } = await exceptions('');
    expect(status).toBe(200);
    expect(Object.keys(body)).toEqual(['totalElements', 'totalPages', 'number', 'numberOfElements', 'hasNext', 'content']);
    expect(body).toMatchObject({ totalElements: 300, totalPages: 15, number: 0, numberOfElements: 20, hasNext: true });
    expect(body.content).toEqual(all.slice(0, 20));
  });

  it('walks pages by zero-based index, the last one partial and without a next page', async () => {
    const all = byCreatedDesc(sandbox.store.exceptions(acme));
    const second = await exceptions('?page=1&size=7');
    expect(ids(second.body.content)).toEqual(ids(all.slice(7, 14)));
    expect(second.body).toMatchObject({ totalElements: 300, totalPages: 43, number: 1, numberOfElements: 7, hasNext: true });
    const last = await exceptions('?page=42&size=7');
    expect(ids(last.body.content)).toEqual(ids(all.slice(294)));
    expect(last.body).toMatchObject({ totalPages: 43, number: 42, numberOfElements: 6, hasNext: false });
  });

  it('answers an empty page with the real totals past the end', async () => {
    const { status, body } = await exceptions('?page=100');
    expect(status).toBe(200);
    expect(body).toEqual({ totalElements: 300, totalPages: 15, number: 100, numberOfElements: 0, hasNext: false, content: [] });
  });

  it('accepts sizes 1 and 1000', async () => {
    expect((await exceptions('?size=1')).body).toMatchObject({ totalPages: 300, numberOfElements: 1 });
    const all = await exceptions('?size=1000');
    expect(all.body).toMatchObject({ totalElements: 300, totalPages: 1, numberOfElements: 300, hasNext: false });
  });

  it.each([
    ['?page=-1', 'page', 'OUT_OF_RANGE'],
    ['?page=1.5', 'page', 'INVALID_FORMAT'],
    ['?page=abc', 'page', 'INVALID_FORMAT'],
    ['?page=2147483648', 'page', 'INVALID_FORMAT'],
    ['?page=0&page=1', 'page', 'REPEATED'],
    ['?size=0', 'size', 'OUT_OF_RANGE'],
    ['?size=1001', 'size', 'OUT_OF_RANGE'],
    ['?size=', 'size', 'INVALID_FORMAT'],
    ['?size=ten', 'size', 'INVALID_FORMAT'],
  ])('rejects %s with 400 (%s %s)', async (query, path, code) => {
    const { status, body } = await invalid(query);
    expect(status).toBe(400);
    expect(violations(body)).toEqual([[path, code]]);
  });

  it('lists every violation at once in shape B', async () => {
    const { status, body, headers } = await invalid('?page=-3&size=5000&sort=nope');
    expect(status).toBe(400);
    expect(headers.get('content-type')).toBe('application/json');
    expect(Object.keys(body)).toEqual(['timestamp', 'traceId', 'message', 'errorCode', 'errors']);
    expect(body.timestamp).toMatch(TIMESTAMP);
    expect(body.traceId).toMatch(TRACE_ID);
    expect(body.errorCode).toBe('VALIDATION_ERROR');
    expect(body.errors).toEqual([
      { path: 'page', message: 'must be at least 0', errorCode: 'OUT_OF_RANGE' },
      { path: 'size', message: 'must be between 1 and 1000', errorCode: 'OUT_OF_RANGE' },
      { path: 'sort', message: 'unknown sort field "nope"', errorCode: 'UNKNOWN_FIELD' },
    ]);
  });
});

describe('sort', () => {
  const records = () => sandbox.store.exceptions(acme);

  it('sorts by several keys, each with its own direction, then by id', async () => {
    const { body } = await exceptions('?size=1000&sort=status,ASC&sort=createdAt,asc');
    expect(ids(body.content)).toEqual(ids(sortRecords(records(), [[(r) => r.status, 'ASC'], [(r) => epochOf(r.createdAt), 'ASC']])));
    expect(body.content[0]?.status).toBe('IN_PROGRESS');
  });

  it('reads a field alone as ascending and follows dotted paths', async () => {
    const { body } = await exceptions('?size=1000&sort=createdBy.type');
    expect(ids(body.content)).toEqual(ids(sortRecords(records(), [[(r) => r.createdBy.type, 'ASC']])));
  });

  it('puts records without the field last in ASC and first in DESC', async () => {
    const unassigned = records().filter((r) => r.assignedTo === undefined).length;
    expect(unassigned).toBeGreaterThan(20);
    const desc = await exceptions('?size=1000&sort=assignedTo.lastName,DESC');
    expect(ids(desc.body.content)).toEqual(ids(sortRecords(records(), [[(r) => r.assignedTo?.lastName, 'DESC']])));
    expect(desc.body.content.slice(0, unassigned).every((r) => r.assignedTo === undefined)).toBe(true);
    const asc = await exceptions('?size=1000&sort=assignedTo.lastName,ASC');
    expect(asc.body.content.slice(300 - unassigned).every((r) => r.assignedTo === undefined)).toBe(true);
    expect(asc.body.content[0]?.assignedTo?.lastName).toBe('Brennan');
  });

  it('breaks ties by id ascending so that pages never overlap', async () => {
    const pages = await Promise.all([0, 1, 2].map((page) => exceptions(`?sort=category,DESC&size=100&page=${page}`)));
    const seen = pages.flatMap((p) => ids(p.body.content));
    expect(new Set(seen).size).toBe(300);
    expect(seen).toEqual(ids(sortRecords(records(), [[(r) => r.category, 'DESC']])));
    const transaction = pages[0]!.body.content.filter((r) => r.category === 'TRANSACTION').map((r) => r.id);
    expect(transaction).toEqual([...transaction].sort());
  });

  it('sorts numbers numerically', async () => {
    const template = sandbox.store.linxTemplates(acme)[0]!;
    const version = template.versions[0]!;
    const { body } = await get<{ id: string; totalRequestsCount: number }[]>(sandbox, `/v2/linx/workflow-batches?templateId=${template.templateId}&templateVersionId=${version.templateVersionId}&size=100&sort=totalRequestsCount,DESC`);
    const expected = sortRecords(sandbox.store.linxBatches(acme).filter((b) => b.templateVersionId === version.templateVersionId), [[(b) => b.totalRequestsCount, 'DESC']]);
    expect(ids(body)).toEqual(ids(expected));
    expect(body[0]!.totalRequestsCount).toBeGreaterThan(99);
  });

  it.each([
    ['sort=nope', 'UNKNOWN_FIELD'],
    ['sort=assignedTo', 'UNKNOWN_FIELD'],
    ['sort=assignedTo.nickname,ASC', 'UNKNOWN_FIELD'],
    ['sort=createdAt,SIDEWAYS', 'INVALID_FORMAT'],
    ['sort=createdAt,DESC,id', 'INVALID_FORMAT'],
  ])('rejects %s with 400 %s', async (query, code) => {
    const { status, body } = await invalid(`?${query}`);
    expect(status).toBe(400);
    expect(violations(body)).toEqual([['sort', code]]);
  });
});

describe('acceptances', () => {
  const acceptances = (query: string, token = ACME) => get<Page<AcceptanceRecord>>(sandbox, `/v1/acceptances${query}`, token);

  it("lists one Financial Account's acceptances, zero-based, newest first", async () => {
    const account = sandbox.store.financialAccounts(acme)[1]!;
    const expected = byCreatedDesc(sandbox.store.acceptances(acme).filter((a) => a.scopes.FINANCIAL_ACCOUNT_ID === account));
    expect(expected).toHaveLength(71);
    const { status, body } = await acceptances(`?financialAccountId=${account}&page=3`);
    expect(status).toBe(200);
    expect(body).toMatchObject({ totalElements: 71, totalPages: 4, number: 3, numberOfElements: 11, hasNext: false });
    expect(body.content).toEqual(expected.slice(60));
  });

  it('sorts acceptances by any field', async () => {
    const account = sandbox.store.financialAccounts(acme)[0]!;
    const { body } = await acceptances(`?financialAccountId=${account}&size=100&sort=accepted,ASC&sort=respondedAt,DESC`);
    const expected = sortRecords(sandbox.store.acceptances(acme).filter((a) => a.scopes.FINANCIAL_ACCOUNT_ID === account), [[(a) => a.accepted, 'ASC'], [(a) => epochOf(a.respondedAt), 'DESC']]);
    expect(ids(body.content)).toEqual(ids(expected));
    expect(body.content[0]?.accepted).toBe(false);
  });

  it("answers an empty page for an unknown or another Business Account's Financial Account", async () => {
    const empty = { totalElements: 0, totalPages: 0, number: 0, numberOfElements: 0, hasNext: false, content: [] };
    expect((await acceptances('?financialAccountId=00000000-0000-4000-8000-000000000000')).body).toEqual(empty);
    const foreign = sandbox.store.financialAccounts(globex)[0]!;
    expect((await acceptances(`?financialAccountId=${foreign}`)).body).toEqual(empty);
    expect((await acceptances(`?financialAccountId=${foreign}`, GLOBEX)).body.totalElements).toBe(62);
  });

  it('requires financialAccountId as a UUID', async () => {
    const missing = await get<ShapeB>(sandbox, '/v1/acceptances');
    expect(missing.status).toBe(400);
    expect(violations(missing.body)).toEqual([['financialAccountId', 'REQUIRED']]);
    const malformed = await get<ShapeB>(sandbox, '/v1/acceptances?financialAccountId=fa-1');
    expect(malformed.status).toBe(400);
    expect(violations(malformed.body)).toEqual([['financialAccountId', 'INVALID_FORMAT']]);
  });
});

describe('authentication and scoping', () => {
  it.each([
    ['no Authorization header', {}, 'Missing Authorization header'],
    ['an unknown token', { authorization: 'Bearer demo-token-initech' }, 'Invalid or unknown access token'],
    ['another scheme', { authorization: `Basic ${ACME}` }, 'Invalid or unknown access token'],
    ['a bare token', { authorization: ACME }, 'Invalid or unknown access token'],
  ])('answers 401 shape A for %s', async (_case, headers, message) => {
    const { status, body, headers: answerHeaders } = await get<ShapeA>(sandbox, '/exceptions', null, headers);
    expect(status).toBe(401);
    expect(answerHeaders.get('www-authenticate')).toBe('Bearer');
    expect(Object.keys(body)).toEqual(['timestamp', 'traceId', 'error', 'message']);
    expect(body).toMatchObject({ error: 'Unauthorized', message });
    expect(body.timestamp).toMatch(TIMESTAMP);
    expect(body.traceId).toMatch(TRACE_ID);
  });

  it('accepts the scheme in any case', async () => {
    expect((await get(sandbox, '/exceptions?size=1', null, { authorization: `bearer ${ACME}` })).status).toBe(200);
  });

  it("shows each token only its own Business Account's records", async () => {
    const { body } = await exceptions('?size=1000', GLOBEX);
    expect(body.totalElements).toBe(260);
    expect(body.content.every((r) => r.businessAccountId === globex)).toBe(true);
    expect(ids(body.content)).toEqual(ids(byCreatedDesc(sandbox.store.exceptions(globex))));
  });

  it('answers 404 for unknown paths and 405 with Allow for a wrong method', async () => {
    const unknown = await get<ShapeA>(sandbox, '/v1/exceptions');
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toBe('Not Found');
    const trailing = await get(sandbox, '/exceptions/');
    expect(trailing.status).toBe(404);
    const post = await fetch(`${sandbox.url}/exceptions`, { method: 'POST', headers: { authorization: `Bearer ${ACME}` } });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET');
    expect(((await post.json()) as ShapeA).error).toBe('Method Not Allowed');
    const del = await fetch(`${sandbox.url}/v1/documents/${sandbox.store.documents(acme)[0]!.id}`, { method: 'DELETE', headers: { authorization: `Bearer ${ACME}` } });
    expect(del.status).toBe(405);
    expect(del.headers.get('allow')).toBe('GET, PUT');
  });

  it('echoes and records x-request-id and the Authorization header as received', async () => {
    sandbox.resetRequests();
    const { headers } = await get(sandbox, '/exceptions?size=1', ACME, { 'x-request-id': 'req-42' });
    expect(headers.get('x-request-id')).toBe('req-42');
    expect(sandbox.requests).toEqual([
      { host: 'api', method: 'GET', route: 'exceptions', path: '/exceptions', query: 'size=1', authorization: `Bearer ${ACME}`, requestId: 'req-42', at: expect.any(Number) },
    ]);
  });
});

describe('a silent page-size cap (maxPageSize)', () => {
  let capped: Sandbox;
  beforeAll(async () => {
    capped = await startSandbox({ maxPageSize: 25 });
  });
  afterAll(() => capped.close());

  it('serves page N of the capped size, with the envelope computed from it', async () => {
    const all = byCreatedDesc(capped.store.exceptions(accountOf(capped, ACME)));
    const { body } = await get<Page<ExceptionRecord>>(capped, '/exceptions?page=1&size=40');
    expect(body).toMatchObject({ totalElements: 300, totalPages: 12, number: 1, numberOfElements: 25, hasNext: true });
    expect(ids(body.content)).toEqual(ids(all.slice(25, 50)));
    const last = await get<Page<ExceptionRecord>>(capped, '/exceptions?page=11&size=100');
    expect(last.body).toMatchObject({ totalPages: 12, number: 11, numberOfElements: 25, hasNext: false });
    expect(ids(last.body.content)).toEqual(ids(all.slice(275, 300)));
    // At or below the cap, pages are as asked.
    const small = await get<Page<ExceptionRecord>>(capped, '/exceptions?page=3&size=7');
    expect(ids(small.body.content)).toEqual(ids(all.slice(21, 28)));
  });

  it('caps bare-array LinX answers the same way, with nothing in them to tell', async () => {
    // The second template's first version has 26 batches.
    const template = capped.store.linxTemplates(accountOf(capped, ACME))[1]!;
    const query = `templateId=${template.templateId}&templateVersionId=${template.versions[0]!.templateVersionId}`;
    const { body } = await get<unknown[]>(capped, `/v2/linx/workflow-batches?${query}&size=40`);
    expect(body).toHaveLength(25);
  });
});

describe('live mode', () => {
  it('adds one exception at the head each step and moves some to their next status, the same way every run', async () => {
    const [one, two] = await Promise.all([startSandbox({ live: true, liveIntervalMs: 0 }), startSandbox({ live: true, liveIntervalMs: 0 })]);
    try {
      const account = accountOf(one, ACME);
      const before = one.store.exceptions(account);
      const steps = [one.live.step(), one.live.step(), one.live.step()];
      expect([two.live.step(), two.live.step(), two.live.step()]).toEqual(steps);
      const mine = steps.flat().filter((change) => change.businessAccountId === account);
      const arrivals = mine.filter((change) => change.kind === 'arrived').map((change) => change.id);
      expect(arrivals).toHaveLength(3);
      // The newest first, as the default order has it.
      const { body } = await get<Page<ExceptionRecord>>(one, '/exceptions?size=5');
      expect(body.totalElements).toBe(before.length + 3);
      expect(ids(body.content.slice(0, 3))).toEqual([...arrivals].reverse());
      expect(body.content.slice(0, 3).map((record) => [record.status, record.createdAt])).toEqual([
        ['NEW', '2026-10-01T00:03:00.000+0000'],
        ['NEW', '2026-10-01T00:02:00.000+0000'],
        ['NEW', '2026-10-01T00:01:00.000+0000'],
      ]);
      const moved = new Map<string, string>();
      for (const change of mine) if (change.kind === 'status') moved.set(change.id, change.to);
      expect(moved.size).toBeGreaterThan(0);
      const now = new Map(one.store.exceptions(account).map((record) => [record.id, record.status]));
      expect([...moved.keys()].map((id) => now.get(id))).toEqual([...moved.values()]);
      expect(one.live.changes()).toEqual(steps.flat());
      one.store.reset();
      expect(one.store.exceptions(account)).toEqual(before);
      expect(one.live.changes()).toEqual([]);
      expect(one.live.step()).toEqual(steps[0]);
    } finally {
      await Promise.all([one.close(), two.close()]);
    }
  });

  it('steps on its own every liveIntervalMs', async () => {
    const live = await startSandbox({ live: true, liveIntervalMs: 20 });
    try {
      const account = accountOf(live, ACME);
      const start = live.store.exceptions(account).length;
      await new Promise<void>((resolve) => {
        const check = setInterval(() => {
          if (live.live.changes().filter((change) => change.kind === 'arrived' && change.businessAccountId === account).length >= 2) {
            clearInterval(check);
            resolve();
          }
        }, 10);
      });
      expect(live.store.exceptions(account).length).toBeGreaterThanOrEqual(start + 2);
    } finally {
      await live.close();
    }
  });
});
