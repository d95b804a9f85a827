import { platformTimestampMillis } from '../date-time.ts';
import type { Anchor, KeyValue, SortKey } from './types.ts';

export type { SortKey } from './types.ts';


/**
 * The platform breaks ties between equal sort keys by id, ascending (the contract does not say;
 * the sandbox does so and the gateway assumes it). Anchors rely on it only in the sort-key
 * fallback, where it decides which of two tied records comes first.
 */
const TIEBREAK: SortKey = { field: 'id', descending: false };

/**
 * The order of a connection from its platform `sort` parameters (`field,DIRECTION`, as the area
 * builds them), or the list's default order when there are none; ends with the id tiebreak.
 */
export function orderOf(sort: readonly string[] | undefined, defaultSort: readonly string[]): SortKey[] {
  const keys = (sort && sort.length > 0 ? sort : defaultSort).map((text) => {
    const [field = '', direction = 'ASC'] = text.split(',');
    return { field, descending: direction.toUpperCase() === 'DESC' };
  });
  return keys.some((key) => key.field === TIEBREAK.field) ? keys : [...keys, TIEBREAK];
}

function valueAt(record: unknown, field: string): KeyValue {
  let value: unknown = record;
  for (const segment of field.split('.')) {
    if (value === null || typeof value !== 'object') return null;
    value = (value as Record<string, unknown>)[segment];
  }
  return value === undefined || (typeof value === 'object' && value !== null) ? null : (value as KeyValue);
}

/** The id of a platform record (every list record has one: the platform seam checks it). */
export function idOf(record: unknown): string {
  const id = (record as { id?: unknown } | null)?.id;
  return typeof id === 'string' ? id : '';
}

/** The anchor of a record: its id and its values of the order's keys. */
export function anchorOf(record: unknown, order: readonly SortKey[]): Anchor {
  return { id: idOf(record), keys: order.map((key) => valueAt(record, key.field)) };
}

/** anchorOf for many records of one order: the key paths are split once, not once per record. */
export function anchorReader(order: readonly SortKey[]): (record: unknown) => Anchor {
  const paths = order.map((key) => key.field.split('.'));
  return (record) => ({
    id: idOf(record),
    keys: paths.map((path) => {
      let value: unknown = record;
      for (const segment of path) {
        if (value === null || typeof value !== 'object') return null;
        value = (value as Record<string, unknown>)[segment];
      }
      return value === undefined || (typeof value === 'object' && value !== null) ? null : (value as KeyValue);
    }),
  });
}

/**
 * Null sorts after every value (last in ascending order, first in descending, as in PostgreSQL);
 * two date-times compare as the instants they name (`platformTimestampMillis`, the platform's one
 * rule), so offsets written differently order correctly, and one instant in two spellings by its
 * text (an anchor's value is restored in its own spelling, so it ties with its record); other
 * strings by code point.
 */
function compareValues(a: KeyValue, b: KeyValue): number {
  if (a === null) return b === null ? 0 : 1;
  if (b === null) return -1;
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b);
  const left = String(a);
  const right = String(b);
  if (left === right) return 0;
  const leftMs = platformTimestampMillis(left);
  if (leftMs !== null) {
    const rightMs = platformTimestampMillis(right);
    if (rightMs !== null && leftMs !== rightMs) return leftMs - rightMs;
  }
  return left < right ? -1 : left > right ? 1 : 0;
}

/** Negative when `record` comes before the anchor in `order`, positive after, 0 when tied on every key. */
export function compareToAnchor(record: unknown, keys: readonly KeyValue[], order: readonly SortKey[]): number {
  for (let index = 0; index < order.length; index++) {
    const key = order[index]!;
    const difference = compareValues(valueAt(record, key.field), keys[index] ?? null);
    if (difference !== 0) return key.descending ? -difference : difference;
  }
  return 0;
}
