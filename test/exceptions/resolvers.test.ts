import { describe, expect, it } from '@jest/globals';
import { exceptionResolvers } from '../../src/exceptions/resolvers.ts';

type Resolver = (...args: unknown[]) => unknown;
const Exception = exceptionResolvers.Exception as unknown as Record<string, Resolver>;
const field = (name: string, record: Record<string, unknown>) => Exception[name]!(record, {}, {}, {});

describe('Exception fields', () => {
  it('map the platform category, type and status, and read a value the schema does not know as UNKNOWN', () => {
    expect(['TRANSACTION', 'NEW_KIND', null].map((category) => field('category', { category }))).toEqual(['TRANSACTION', 'UNKNOWN', null]);
    expect(['EARNED_WAGE_ACCESS', 'ACH_REVERSAL'].map((type) => field('type', { type }))).toEqual(['EARNED_WAGE_ACCESS', 'UNKNOWN']);
    expect(['REOPENED', 'ESCALATED'].map((status) => field('status', { status }))).toEqual(['REOPENED', 'UNKNOWN']);
  });

  it.each([
    ['BANK_ACCOUNT_VERIFICATION', 'FinancialAccount'],
    ['CUSTOMER', 'CustomerAccount'],
    ['TRANSACTION', 'Transaction'],
  ])('references the entity of a %s exception as a %s', (category, typename) => {
    expect(field('entity', { category, entityId: 'e1' })).toEqual({ __typename: typename, id: 'e1' });
  });

  it('references no entity without an id, or for a category it does not know', () => {
    expect(field('entity', { category: 'CUSTOMER', entityId: '' })).toBeNull();
    expect(field('entity', { category: 'CUSTOMER' })).toBeNull();
    expect(field('entity', { category: 'NEW_KIND', entityId: 'e1' })).toBeNull();
    expect(field('entity', { category: null, entityId: 'e1' })).toBeNull();
  });

  it('references the business account by its id, or nothing', () => {
    expect(field('businessAccount', { businessAccountId: 'ba1' })).toEqual({ id: 'ba1' });
    expect(field('businessAccount', { businessAccountId: null })).toBeNull();
  });
});
