import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { accountOf } from '../support/expected.ts';
import { DEMO_TOKENS, startSandbox } from '../../sandbox/index.ts';
import type { Actor, Sandbox } from '../../sandbox/index.ts';
import { ACME, GLOBEX, TIMESTAMP, epochOf } from './client.ts';

let sandbox: Sandbox;
const accounts: [string, string][] = [];

beforeAll(async () => {
  sandbox = await startSandbox();
  accounts.push(['Acme', accountOf(sandbox, ACME)], ['Globex', accountOf(sandbox, GLOBEX)]);
});
afterAll(() => sandbox.close());

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const BASE = Date.parse('2026-10-01T00:00:00Z');
const distinct = <T>(values: T[]): T[] => [...new Set(values)].sort();

function checkActor(actor: Actor): void {
  if (actor.type === 'internal') expect(actor.id === undefined || actor.id === '').toBe(true);
  else expect(actor.id).toMatch(UUID);
}

describe('demo tokens', () => {
  it('name two Business Accounts with fixed ids', () => {
    expect(DEMO_TOKENS).toEqual([
      { token: 'demo-token-acme', businessAccountId: '3f6c1e2a-8b4d-4c7e-9f10-2a5b6c7d8e01', businessAccountName: 'Acme Payroll Inc' },
      { token: 'demo-token-globex', businessAccountId: '9a2d4b6f-1c3e-4a5b-8d7c-6e5f4a3b2c02', businessAccountName: 'Globex Lending LLC' },
    ]);
    expect(sandbox.tokens).toEqual(DEMO_TOKENS);
    expect(sandbox.store.businessAccountIds()).toEqual(DEMO_TOKENS.map((t) => t.businessAccountId));
  });
});

describe.each([['Acme', 0], ['Globex', 1]])('%s seeded data', (_name, index) => {
  const ba = () => accounts[index]![1];

  it('has 250+ exceptions over every category, type and status, with distinct createdAt before the base date', () => {
    const exceptions = sandbox.store.exceptions(ba());
    expect(exceptions.length).toBeGreaterThanOrEqual(250);
    expect(distinct(exceptions.map((e) => e.category))).toEqual(['BANK_ACCOUNT_VERIFICATION', 'CUSTOMER', 'TRANSACTION']);
    expect(distinct(exceptions.map((e) => e.type))).toEqual(['ACH_NOC', 'ACH_RETURN', 'BANK_ACCOUNT_VERIFICATION_DECLINED', 'BANK_ACCOUNT_VERIFICATION_NOC', 'EARNED_WAGE_ACCESS', 'RECONCILIATION']);
    expect(distinct(exceptions.map((e) => e.status))).toEqual(['IN_PROGRESS', 'NEW', 'REOPENED', 'RESOLVED']);
    expect(new Set(exceptions.map((e) => e.createdAt)).size).toBe(exceptions.length);
    for (const e of exceptions) {
      expect(e.businessAccountId).toBe(ba());
      expect(e.createdAt).toMatch(TIMESTAMP);
      expect(epochOf(e.createdAt)).toBeLessThan(BASE);
      expect(epochOf(e.updatedAt)).toBeGreaterThanOrEqual(epochOf(e.createdAt));
      expect(Object.keys(e.notes).sort()).toEqual(['businessAccountId', 'contentText', 'createdAt', 'createdBy', 'entityId', 'entityType', 'id', 'title', 'updatedAt', 'updatedBy']);
      [e.createdBy, e.updatedBy, e.notes.createdBy, e.notes.updatedBy].forEach(checkActor);
    }
  });

  it('assigns every IN_PROGRESS exception, leaves some others unassigned, and uses several assignees', () => {
    const exceptions = sandbox.store.exceptions(ba());
    expect(exceptions.filter((e) => e.status === 'IN_PROGRESS').every((e) => e.assignedTo !== undefined)).toBe(true);
    expect(exceptions.filter((e) => e.assignedTo === undefined).length).toBeGreaterThan(30);
    const used = distinct(exceptions.flatMap((e) => (e.assignedTo ? [e.assignedTo.id] : [])));
    expect(used).toEqual(distinct(sandbox.store.assignees(ba()).map((a) => a.id)));
    expect(used.length).toBeGreaterThanOrEqual(5);
  });

  it('uses every actor type, internal actors with a blank or absent id', () => {
    const actors = [...sandbox.store.exceptions(ba()), ...sandbox.store.linxBatches(ba()), ...sandbox.store.documents(ba())].flatMap((r) => [r.createdBy, r.updatedBy]);
    expect(distinct(actors.map((a) => a.type))).toEqual(['employee', 'internal', 'operator_employee', 'service-account']);
    const internal = actors.filter((a) => a.type === 'internal');
    expect(internal.some((a) => a.id === '')).toBe(true);
    expect(internal.some((a) => !('id' in a))).toBe(true);
  });

  it('has 3+ Financial Accounts with 60+ acceptances each, accepted and rejected, linking to the content host', () => {
    const acceptances = sandbox.store.acceptances(ba());
    const financialAccounts = sandbox.store.financialAccounts(ba());
    expect(financialAccounts.length).toBeGreaterThanOrEqual(3);
    for (const account of financialAccounts) {
      const own = acceptances.filter((a) => a.scopes.FINANCIAL_ACCOUNT_ID === account);
      expect(own.length).toBeGreaterThanOrEqual(60);
      expect(distinct(own.map((a) => a.accepted))).toEqual([false, true]);
    }
    expect(acceptances.every((a) => financialAccounts.includes(a.scopes.FINANCIAL_ACCOUNT_ID))).toBe(true);
    expect(new Set(acceptances.map((a) => a.createdAt)).size).toBe(acceptances.length);
    for (const a of acceptances) {
      expect(Object.keys(a.scopes)).toEqual(['FINANCIAL_ACCOUNT_ID']);
      expect(a.downloadUrl.startsWith(`${sandbox.documentsUrl}/legal-documents/`)).toBe(true);
      expect(a.acceptorType).toBe('CUSTOMER');
      expect(epochOf(a.respondedAt)).toBeLessThanOrEqual(epochOf(a.createdAt));
    }
  });

  it('has LinX batches for 2 templates x 2 versions, 20+ each, every status, consistent counters', () => {
    const templates = sandbox.store.linxTemplates(ba());
    expect(templates).toHaveLength(2);
    const batches = sandbox.store.linxBatches(ba());
    expect(batches.length).toBeGreaterThanOrEqual(80);
    for (const template of templates) {
      expect(template.versions.map((v) => v.templateVersion)).toEqual([1, 2]);
      for (const version of template.versions) {
        const own = batches.filter((b) => b.templateVersionId === version.templateVersionId);
        expect(own.length).toBeGreaterThanOrEqual(20);
        expect(own.every((b) => b.templateId === template.templateId && b.templateVersion === version.templateVersion && b.templateDisplayName === version.displayName)).toBe(true);
        expect(distinct(own.map((b) => b.status))).toEqual(['ACTIVE', 'CANCELLING', 'COMPLETED', 'FAILED', 'INVALID', 'NEW', 'QUEUED']);
      }
    }
    for (const b of batches) {
      const outcomes = b.activeRequestsCount + b.cancelledRequestsCount + b.completedRequestsCount + b.declinedRequestsCount + b.expiredRequestsCount + b.failedRequestsCount + b.rejectedRequestsCount;
      expect(b.totalRequestsCount).toBe(outcomes);
      expect(sandbox.store.linxBatchName(b.id)).toMatch(/^[A-Z][a-z]+ [a-z -]+ [a-z]+ \d+$/);
    }
    expect(new Set(batches.map((b) => b.createdAt)).size).toBe(batches.length);
  });

  it('has documents of every type, applicable holder type and status', () => {
    const documents = sandbox.store.documents(ba());
    const allowed: Record<string, string[]> = {
      'driving-license': ['BENEFICIARY', 'CUSTOMER'], passport: ['BENEFICIARY', 'CUSTOMER'], formation: ['CUSTOMER'], tax: ['CUSTOMER'], ownership: ['CUSTOMER'], other: ['BENEFICIARY', 'BUSINESS_ACCOUNT', 'CUSTOMER'],
    };
    for (const [documentType, holderTypes] of Object.entries(allowed)) {
      const own = documents.filter((d) => d.documentType === documentType);
      expect(distinct(own.map((d) => d.holderType))).toEqual(holderTypes);
      for (const holderType of holderTypes) {
        expect(distinct(own.filter((d) => d.holderType === holderType).map((d) => d.status))).toEqual(['INCOMPLETE', 'MALICIOUS', 'NEW', 'SCANNED', 'UPLOADED']);
      }
    }
    for (const d of documents) {
      expect(d.name.length).toBeGreaterThanOrEqual(1);
      expect(d.name.length).toBeLessThanOrEqual(40);
      if (d.holderType === 'BUSINESS_ACCOUNT') expect(d.holderId).toBe(ba());
      if (['formation', 'tax', 'ownership', 'other'].includes(d.documentType)) expect(d.description).toBeDefined();
      if (d.documentType === 'driving-license' || d.documentType === 'passport') {
        expect([d.number, d.issuingCountryCode, d.expiryDate].every((v) => v !== undefined)).toBe(true);
        expect(d.expiryDate).toMatch(DATE);
      }
      if (d.documentType === 'driving-license') expect(d.issuingStateCode).toMatch(/^[A-Z0-9]{2,3}$/);
      expect(['JPG', 'JPEG', 'PNG', 'PDF']).toContain(d.extension);
      expect(d.contentLength).toBeLessThanOrEqual(5_242_880);
    }
  });
});

describe('determinism and separation', () => {
  it('gives the two accounts different ids and names', () => {
    const [acme, globex] = accounts.map(([, ba]) => ba) as [string, string];
    const idsOf = (ba: string) => new Set([...sandbox.store.exceptions(ba), ...sandbox.store.acceptances(ba), ...sandbox.store.linxBatches(ba), ...sandbox.store.documents(ba)].map((r) => r.id));
    const shared = [...idsOf(acme)].filter((id) => idsOf(globex).has(id));
    expect(shared).toEqual([]);
    expect(sandbox.store.linxTemplates(acme)[0]!.versions[0]!.displayName).not.toBe(sandbox.store.linxTemplates(globex)[0]!.versions[0]!.displayName);
    expect(sandbox.store.assignees(acme)[0]!.email).toMatch(/@acmepayroll\.example$/);
    expect(sandbox.store.assignees(globex)[0]!.email).toMatch(/@globexlending\.example$/);
  });

  it('seeds the same records in every sandbox, whatever the clock', async () => {
    const other = await startSandbox({ now: () => new Date('2030-01-01T00:00:00Z') });
    try {
      const withoutLinks = <T extends { downloadUrl: string }>(records: readonly T[]) => records.map(({ downloadUrl: _u, ...rest }) => rest);
      for (const [, ba] of accounts) {
        expect(other.store.exceptions(ba)).toEqual(sandbox.store.exceptions(ba));
        expect(other.store.linxBatches(ba)).toEqual(sandbox.store.linxBatches(ba));
        expect(other.store.documents(ba)).toEqual(sandbox.store.documents(ba));
        expect(withoutLinks(other.store.acceptances(ba))).toEqual(withoutLinks(sandbox.store.acceptances(ba)));
      }
    } finally {
      await other.close();
    }
  });
});
