import { describe, expect, it } from '@jest/globals';
import { PLATFORM_DEFAULT_SORT, actorTypes, enumMapping, fieldName, sameSpelling, sortParams } from '../../src/platform/values.ts';

describe('enumMapping', () => {
  const status = enumMapping({ NEW: 'new', IN_REVIEW: 'in-review' });

  it('spells each schema value the platform’s way', () => {
    expect(status.toPlatform('NEW')).toBe('new');
    expect(status.toPlatform('IN_REVIEW')).toBe('in-review');
  });

  it('reads each platform value back, unknown ones as the fallback, and absent ones as null', () => {
    expect(status.fromPlatform('new', 'UNKNOWN')).toBe('NEW');
    expect(status.fromPlatform('in-review', 'UNKNOWN')).toBe('IN_REVIEW');
    expect(status.fromPlatform('escalated', 'UNKNOWN')).toBe('UNKNOWN');
    // The schema value itself is not a platform spelling.
    expect(status.fromPlatform('NEW', 'UNKNOWN')).toBe('UNKNOWN');
    expect(status.fromPlatform('escalated', null)).toBeNull();
    expect(status.fromPlatform(null, 'UNKNOWN')).toBeNull();
    expect(status.fromPlatform(undefined, 'UNKNOWN')).toBeNull();
    // An empty string is a value the platform sent, not an absent one.
    expect(status.fromPlatform('', 'UNKNOWN')).toBe('UNKNOWN');
  });

  it('the actor types of the contract', () => {
    expect(['employee', 'internal', 'operator_employee', 'service-account', 'robot'].map((type) => actorTypes.fromPlatform(type, 'UNKNOWN'))).toEqual([
      'EMPLOYEE',
      'INTERNAL',
      'OPERATOR_EMPLOYEE',
      'SERVICE_ACCOUNT',
      'UNKNOWN',
    ]);
    expect(actorTypes.toPlatform('SERVICE_ACCOUNT')).toBe('service-account');
  });
});

describe('sameSpelling', () => {
  it('maps each value to itself, and anything else to the fallback', () => {
    const category = sameSpelling(['TRANSACTION', 'ACCOUNT'] as const);
    expect(category.toPlatform('ACCOUNT')).toBe('ACCOUNT');
    expect(category.fromPlatform('TRANSACTION', 'UNKNOWN')).toBe('TRANSACTION');
    expect(category.fromPlatform('transaction', 'UNKNOWN')).toBe('UNKNOWN');
  });
});

describe('order parameters', () => {
  it('fieldName turns SCREAMING_SNAKE_CASE into the record’s camelCase, digits included', () => {
    expect(fieldName('CREATED_AT')).toBe('createdAt');
    expect(fieldName('ID')).toBe('id');
    expect(fieldName('LINE_2_TOTAL')).toBe('line2Total');
    expect(fieldName('DUE_DATE_UTC')).toBe('dueDateUtc');
  });

  it('sortParams sends one sort=field,DIRECTION per order, in order, and none without an order', () => {
    expect(sortParams([{ field: 'DUE_DATE', direction: 'ASC' }, { field: 'ID', direction: 'DESC' }])).toEqual(['dueDate,ASC', 'id,DESC']);
    expect(sortParams([])).toBeUndefined();
    expect(sortParams(null)).toBeUndefined();
    expect(sortParams(undefined)).toBeUndefined();
    expect(PLATFORM_DEFAULT_SORT).toEqual(['createdAt,DESC']);
  });
});
