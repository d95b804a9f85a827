import type { CursorReader, CursorWriter } from './cursor-bytes.ts';
import type { KeyValue } from './types.ts';

/**
 * Sort-key values as an anchored cursor packs them: a tag byte, then the value in its shortest
 * form. A platform timestamp travels as its instant, and a value equal to the record's id (the id
 * tiebreak key) is not repeated.
 */

const VALUE_NULL = 0;
const VALUE_TRUE = 1;
const VALUE_FALSE = 2;
const VALUE_NUMBER = 3;
const VALUE_TEXT = 4;
/** A timestamp in the platform's form, yyyy-MM-ddTHH:mm:ss.SSS+0000, packed as epoch milliseconds. */
const VALUE_PLATFORM_TIME = 5;
/** The same value as the anchor's id. */
const VALUE_ID = 6;

export function isKeyValue(value: unknown): value is KeyValue {
  return value === null || typeof value === 'string' || typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value));
}

function platformTime(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 23)}+0000`;
}

/** The digit at `index` of `text`, or -1. */
function digit(text: string, index: number): number {
  const code = text.charCodeAt(index) - 48;
  return code >= 0 && code <= 9 ? code : -1;
}

/** The number written with the digits at [from, to) of `text`, or -1 when one is not a digit. */
function digits(text: string, from: number, to: number): number {
  let value = 0;
  for (let index = from; index < to; index++) {
    const next = digit(text, index);
    if (next < 0) return -1;
    value = value * 10 + next;
  }
  return value;
}

const MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function daysIn(year: number, month: number): number {
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  return month === 2 && leap ? 29 : (MONTH_DAYS[month - 1] as number);
}

/**
 * Epoch milliseconds of a platform timestamp (yyyy-MM-ddTHH:mm:ss.SSS+0000) whose text they
 * reproduce exactly; null otherwise (other forms, impossible dates, years before 1000 that
 * Date.UTC would move to the 1900s). Read by hand: this runs once per edge of every page.
 */
function packableTime(text: string): number | null {
  // yyyy-MM-ddTHH:mm:ss.SSS+0000: the separators at their places.
  if (text.length !== 28 || text.charCodeAt(4) !== 45 || text.charCodeAt(7) !== 45 || text.charCodeAt(10) !== 84) return null;
  if (text.charCodeAt(13) !== 58 || text.charCodeAt(16) !== 58 || text.charCodeAt(19) !== 46 || !text.endsWith('+0000')) return null;
  const year = digits(text, 0, 4);
  const month = digits(text, 5, 7);
  const day = digits(text, 8, 10);
  const hour = digits(text, 11, 13);
  const minute = digits(text, 14, 16);
  const second = digits(text, 17, 19);
  const milli = digits(text, 20, 23);
  if (year < 1000 || month < 1 || month > 12 || day < 1 || hour < 0 || hour > 23 || minute < 0 || minute > 59 || second < 0 || second > 59 || milli < 0) return null;
  if (day > daysIn(year, month)) return null;
  return Date.UTC(year, month - 1, day, hour, minute, second, milli);
}

export function writeValue(writer: CursorWriter, value: KeyValue, id: string): void {
  if (value === null) return writer.byte(VALUE_NULL);
  if (value === true) return writer.byte(VALUE_TRUE);
  if (value === false) return writer.byte(VALUE_FALSE);
  if (typeof value === 'number') {
    writer.byte(VALUE_NUMBER);
    return writer.float(value);
  }
  if (value === id) return writer.byte(VALUE_ID);
  const ms = packableTime(value);
  if (ms !== null) {
    writer.byte(VALUE_PLATFORM_TIME);
    return writer.float(ms);
  }
  writer.byte(VALUE_TEXT);
  writer.text(value);
}

export function readValue(reader: CursorReader, id: string): KeyValue {
  const tag = reader.byte();
  switch (tag) {
    case VALUE_NULL:
      return null;
    case VALUE_TRUE:
      return true;
    case VALUE_FALSE:
      return false;
    case VALUE_NUMBER:
      return reader.float();
    case VALUE_ID:
      return id;
    case VALUE_PLATFORM_TIME:
      return platformTime(reader.float());
    case VALUE_TEXT:
      return reader.text();
    default:
      throw new RangeError(`unknown value tag ${tag}`);
  }
}
