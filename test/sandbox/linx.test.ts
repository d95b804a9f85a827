import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { accountOf } from '../support/expected.ts';
import { startSandbox } from '../../sandbox/index.ts';
import type { LinxBatchRecord, LinxTemplate, Sandbox } from '../../sandbox/index.ts';
import { ACME, GLOBEX, byCreatedDesc, get, ids, violations } from './client.ts';
import type { Page, ShapeB } from './client.ts';

let sandbox: Sandbox;
let acme: string;
let template: LinxTemplate;
let batches: LinxBatchRecord[];
let scope: string;

beforeAll(async () => {
  sandbox = await startSandbox();
  acme = accountOf(sandbox, ACME);
  template = sandbox.store.linxTemplates(acme)[1]!;
  const version = template.versions[0]!;
  scope = `templateId=${template.templateId}&templateVersionId=${version.templateVersionId}`;
  batches = byCreatedDesc(sandbox.store.linxBatches(acme).filter((b) => b.templateVersionId === version.templateVersionId));
});
afterAll(() => sandbox.close());
afterEach(() => sandbox.setLinxEnvelope(false));

const search = <T = LinxBatchRecord[]>(query: string, token = ACME) => get<T>(sandbox, `/v2/linx/workflow-batches?${query}`, token);

describe('answer shape and one-based paging', () => {
  it('answers a bare array of the first 20 batches of the template version by default', async () => {
    expect(batches).toHaveLength(26);
    const { status, body } = await search(scope);
    expect(status).toBe(200);
    expect(Array.isArray(body)).toBe(true);
    expect(body).toEqual(batches.slice(0, 20));
  });

  it('treats page 1 as the first page and page 2 as the next', async () => {
    expect(ids((await search(`${scope}&page=1&size=10`)).body)).toEqual(ids(batches.slice(0, 10)));
    expect(ids((await search(`${scope}&page=2&size=10`)).body)).toEqual(ids(batches.slice(10, 20)));
    expect(ids((await search(`${scope}&page=3&size=10`)).body)).toEqual(ids(batches.slice(20)));
    expect((await search(`${scope}&page=4&size=10`)).body).toEqual([]);
  });

  it('answers the envelope, echoing the one-based page, when switched on', async () => {
    sandbox.setLinxEnvelope(true);
    const first = await search<Page<LinxBatchRecord>>(scope);
    expect(first.body).toMatchObject({ totalElements: 26, totalPages: 2, number: 1, numberOfElements: 20, hasNext: true });
    expect(first.body.content).toEqual(batches.slice(0, 20));
    const second = await search<Page<LinxBatchRecord>>(`${scope}&page=2`);
    expect(second.body).toMatchObject({ totalElements: 26, totalPages: 2, number: 2, numberOfElements: 6, hasNext: false });
    expect(ids(second.body.content)).toEqual(ids(batches.slice(20)));
    const past = await search<Page<LinxBatchRecord>>(`${scope}&page=9`);
    expect(past.body).toEqual({ totalElements: 26, totalPages: 2, number: 9, numberOfElements: 0, hasNext: false, content: [] });
  });

  it('starts in envelope mode when the option says so', async () => {
    const enveloped = await startSandbox({ linxEnvelope: true });
    try {
      const { body } = await get<Page<LinxBatchRecord>>(enveloped, `/v2/linx/workflow-batches?${scope}&size=5`);
      expect(body).toMatchObject({ totalElements: 26, totalPages: 6, number: 1, numberOfElements: 5, hasNext: true });
    } finally {
      await enveloped.close();
    }
  });

  it('rejects page 0 and other bad paging', async () => {
    const zero = await search<ShapeB>(`${scope}&page=0`);
    expect(zero.status).toBe(400);
    expect(zero.body.errors).toEqual([{ path: 'page', message: 'must be at least 1', errorCode: 'OUT_OF_RANGE' }]);
    expect(violations((await search<ShapeB>(`${scope}&size=0&page=x`)).body)).toEqual([['page', 'INVALID_FORMAT'], ['size', 'OUT_OF_RANGE']]);
  });
});

describe('required template scope', () => {
  it('requires templateId and templateVersionId as UUIDs', async () => {
    const none = await search<ShapeB>('');
    expect(none.status).toBe(400);
    expect(violations(none.body)).toEqual([['templateId', 'REQUIRED'], ['templateVersionId', 'REQUIRED']]);
    const bad = await search<ShapeB>(`templateId=onboarding&templateVersionId=${template.versions[0]!.templateVersionId}`);
    expect(violations(bad.body)).toEqual([['templateId', 'INVALID_FORMAT']]);
  });

  it('answers nothing for a version of another template or another Business Account', async () => {
    const otherVersion = sandbox.store.linxTemplates(acme)[0]!.versions[0]!.templateVersionId;
    expect((await search(`templateId=${template.templateId}&templateVersionId=${otherVersion}`)).body).toEqual([]);
    expect((await search(scope, GLOBEX)).body).toEqual([]);
  });
});

describe('filters', () => {
  it('filters by status', async () => {
    const completed = await search(`${scope}&status=COMPLETED&size=100`);
    expect(completed.body.length).toBeGreaterThan(0);
    expect(ids(completed.body)).toEqual(ids(batches.filter((b) => b.status === 'COMPLETED')));
  });

  it('accepts only the filter statuses (ACTIVE is returned but not filterable)', async () => {
    expect(violations((await search<ShapeB>(`${scope}&status=ACTIVE`)).body)).toEqual([['status', 'INVALID_VALUE']]);
    expect(violations((await search<ShapeB>(`${scope}&status=completed`)).body)).toEqual([['status', 'INVALID_VALUE']]);
  });

  const name = (b: LinxBatchRecord) => sandbox.store.linxBatchName(b.id)!.toLowerCase();

  it('matches every search term, case-insensitively, in the template display name', async () => {
    const words = template.versions[0]!.displayName.toUpperCase();
    expect(ids((await search(`${scope}&size=100&search=${encodeURIComponent(words)}`)).body)).toEqual(ids(batches));
  });

  it('matches terms in the batch display name, each term in either name', async () => {
    const cohortWord = name(batches[0]!).split(' ')[1]!;
    const expected = batches.filter((b) => name(b).includes(cohortWord));
    expect(expected.length).toBeLessThan(batches.length);
    expect(ids((await search(`${scope}&size=100&search=${cohortWord.toUpperCase()}`)).body)).toEqual(ids(expected));
    const templateWord = template.versions[0]!.displayName.split(' ')[0]!.toLowerCase();
    const both = await search(`${scope}&size=100&search=${encodeURIComponent(`  ${templateWord}\t${cohortWord} `)}`);
    expect(ids(both.body)).toEqual(ids(expected));
  });

  it('requires all terms to match (AND), also with the status filter', async () => {
    const first = name(batches[0]!);
    const [month] = first.split(' ');
    const expected = batches.filter((b) => name(b).includes(month!) && b.status === batches[0]!.status);
    const found = await search(`${scope}&size=100&search=${month}&status=${batches[0]!.status}`);
    expect(found.body.length).toBeGreaterThan(0);
    expect(ids(found.body)).toEqual(ids(expected));
    expect((await search(`${scope}&search=${month}%20zeppelin`)).body).toEqual([]);
  });
});
