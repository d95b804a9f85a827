import { formatPlatformTimestamp, platformFormMillis } from '../date-time.ts';
import type { CursorReader, CursorWriter } from './cursor-bytes.ts';
import type { KeyValue } from './types.ts';

/**
 * Sort-key values as an anchored cursor packs them: a tag byte, then the value in its shortest
 * form. A timestamp in the platform's usual form travels as its instant (it restores to the same
 * text); one spelled otherwise travels as its text, which the anchors compare by the instant it names
 * (order.ts). A value equal to the record's id (the id tiebreak key) is not repeated.
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

export function writeValue(writer: CursorWriter, value: KeyValue, id: string): void {
  if (value === null) return writer.byte(VALUE_NULL);
  if (value === true) return writer.byte(VALUE_TRUE);
  if (value === false) return writer.byte(VALUE_FALSE);
  if (typeof value === 'number') {
    writer.byte(VALUE_NUMBER);
    return writer.float(value);
  }
  if (value === id) return writer.byte(VALUE_ID);
  const ms = platformFormMillis(value);
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
      return formatPlatformTimestamp(reader.float());
    case VALUE_TEXT:
      return reader.text();
    default:
      throw new RangeError(`unknown value tag ${tag}`);
  }
}
