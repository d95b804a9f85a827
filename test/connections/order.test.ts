import { describe, expect, it } from '@jest/globals';
import { anchorOf, anchorReader, compareToAnchor, idOf, orderOf } from '../../src/connections/order.ts';
import type { KeyValue, SortKey } from '../../src/connections/types.ts';

const ID: SortKey = { field: 'id', descending: false };

describe('orderOf', () => {
  it('reads sort parameters, direction in any case, and ends with the id tiebreak', () => {
    expect(orderOf(['status,ASC', 'createdAt,desc'], ['createdAt,DESC'])).toEqual([
      { field: 'status', descending: false },
      { field: 'createdAt', descending: true },
      ID,
    ]);
  });

  it("takes the list's default order when the query gives none", () => {
    const order = [{ field: 'createdAt', descending: true }, ID];
    expect(orderOf(undefined, ['createdAt,DESC'])).toEqual(order);
    expect(orderOf([], ['createdAt,DESC'])).toEqual(order);
  });

  it('reads a field without a direction as ascending, and keeps an id key where the query puts it', () => {
    expect(orderOf(['description'], [])).toEqual([{ field: 'description', descending: false }, ID]);
    expect(orderOf(['id,DESC', 'status'], [])).toEqual([
      { field: 'id', descending: true },
      { field: 'status', descending: false },
    ]);
  });
});

describe('anchors of records', () => {
  const record = { id: 'e1', status: 'NEW', assignedTo: { lastName: 'Zoë', team: { name: 'ops' } }, tags: ['a'], count: 3, flagged: false, missing: undefined };
  const order: SortKey[] = ['status', 'assignedTo.lastName', 'assignedTo.team.name', 'assignedTo', 'tags', 'count', 'flagged', 'missing', 'nothing.deeper', 'status.length'].map((field) => ({
    field,
    descending: false,
  }));
  const keys: KeyValue[] = ['NEW', 'Zoë', 'ops', null, null, 3, false, null, null, null];

  it('takes each key from the record, nested fields by their dotted path, objects and absent values as null', () => {
    expect(anchorOf(record, order)).toEqual({ id: 'e1', keys });
    expect(anchorReader(order)(record)).toEqual({ id: 'e1', keys });
  });

  it('reads an id that is not text as none', () => {
    expect(idOf({ id: 7 })).toBe('');
    expect(idOf(null)).toBe('');
    expect(anchorReader([ID])({ id: 7 })).toEqual({ id: '', keys: [7] });
  });
});

describe('comparing a record to an anchor', () => {
  const by = (field: string, descending = false): SortKey[] => [{ field, descending }];

  it.each<[string, KeyValue, KeyValue, number]>([
    ['texts by code point', 'Apple', 'apple', -1],
    ['equal texts', 'apple', 'apple', 0],
    ['numbers', 2, 10, -1],
    ['equal numbers', 2.5, 2.5, 0],
    ['booleans, false first', false, true, -1],
    ['null after every value', null, 'a', 1],
    ['a value before null', 0, null, -1],
    ['two nulls', null, null, 0],
    ['instants written with different offsets', '2026-08-01T10:00:00.000+0200', '2026-08-01T09:00:00.000Z', -1],
    ['the same instant written twice, then by text', '2026-08-01T10:00:00.000+0200', '2026-08-01T08:00:00.000Z', 1],
    ['platform timestamps', '2026-08-01T10:00:00.001+0000', '2026-08-01T10:00:00.000+0000', 1],
    ['a date-time against text that only starts like one', '2026-08-01T10:00:00.000Z', '2026-08-01T10:00:zz', -1],
    ['text that sorts after the word null, still before null', 'zebra', null, -1],
    ['a number against text, as text', 10, '9', -1],
    ['text against a number, as text', '10', 9, -1],
    ['a number against a boolean, as text', 5, true, -1],
    ['a boolean against text, as text', true, 'abc', 1],
    ['text that is no date-time against a date-time, as text', '3', '2026-08-01T10:00:00.000+0000', 1],
    ['a date-time against text that is no date-time, as text', '2026-08-01T10:00:00.000+0000', '3', -1],
    // Whatever the local zone, 10:00 local on 1 August is later than 12:00 at +23:59 (12:01 UTC on 31 July).
    ['a local date-time with four fraction digits against an instant', '2026-08-01T10:00:00.0000', '2026-08-01T12:00:00.000+2359', 1],
  ])('orders %s', (_, value, anchored, sign) => {
    expect(Math.sign(compareToAnchor({ value }, [anchored], by('value')))).toBe(sign);
    expect(Math.sign(compareToAnchor({ value }, [anchored], by('value', true)))).toBe(sign === 0 ? 0 : -sign);
  });

  it('goes on to the next key on a tie, and reads a missing anchor value as null (first in a descending key)', () => {
    const order: SortKey[] = [{ field: 'status', descending: false }, { field: 'createdAt', descending: true }, ID];
    const record = { id: 'b', status: 'NEW', createdAt: '2026-08-01T10:00:00.000+0000' };
    expect(compareToAnchor(record, ['NEW', '2026-08-01T10:00:00.000+0000', 'a'], order)).toBeGreaterThan(0);
    expect(compareToAnchor(record, ['NEW', '2026-08-01T10:00:00.000+0000', 'b'], order)).toBe(0);
    expect(compareToAnchor(record, ['NEW', '2026-08-01T09:00:00.000+0000', 'z'], order)).toBeLessThan(0);
    expect(compareToAnchor(record, ['NEW'], order)).toBeGreaterThan(0);
  });
});
