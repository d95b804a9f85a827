import { describe, expect, it } from '@jest/globals';
import { acceptanceResolvers } from '../../src/acceptances/resolvers.ts';

type Resolver = (...args: unknown[]) => unknown;
const DocumentAcceptance = acceptanceResolvers.DocumentAcceptance as unknown as Record<string, Resolver>;
const FinancialAccount = acceptanceResolvers.FinancialAccount as unknown as Record<string, Resolver>;
const field = (name: string, record: Record<string, unknown>) => DocumentAcceptance[name]!(record, {}, {}, {});

describe('DocumentAcceptance fields', () => {
  it('read the financial account from the FINANCIAL_ACCOUNT_ID scope, when it is a string', () => {
    expect(field('financialAccountId', { scopes: { FINANCIAL_ACCOUNT_ID: 'fa1', BUSINESS_ACCOUNT_ID: 'ba1' } })).toBe('fa1');
    expect(field('financialAccount', { scopes: { FINANCIAL_ACCOUNT_ID: 'fa1' } })).toEqual({ id: 'fa1' });
    for (const scopes of [undefined, null, {}, { FINANCIAL_ACCOUNT_ID: 7 }, { BUSINESS_ACCOUNT_ID: 'ba1' }]) {
      expect([field('financialAccountId', { scopes }), field('financialAccount', { scopes })]).toEqual([null, null]);
    }
  });

  it('reference the business account by its id, or nothing', () => {
    expect(field('businessAccount', { businessAccountId: 'ba1' })).toEqual({ id: 'ba1' });
    expect(field('businessAccount', { businessAccountId: '' })).toBeNull();
  });
});

describe('FinancialAccount', () => {
  it('resolves a reference to its id alone, whatever else the router sends', () => {
    expect(FinancialAccount.__resolveReference!({ __typename: 'FinancialAccount', id: 'fa1', name: 'ignored' }, {}, {})).toEqual({ id: 'fa1' });
  });
});
