import { badUserInput } from '../errors.ts';
import { NO_OWNER, type CursorOwner } from './owner-tag.ts';
import { readCursor, type DecodedCursor } from './cursor.ts';
import type { SortKey } from './order.ts';
import { RequestPageSize } from './page-cap.ts';
import type { AnchorOutcome, ConnectionArgs, PagingOptions } from './types.ts';

/** The paging options of one connection request, checked, and its arguments, read. */

const DEFAULT_MAX_WALK_RECORDS = 10_000;

export interface Settings {
  pageBase: 0 | 1;
  defaultSize: number;
  maxSize: number;
  /** The page sizes this request may ask for; shared by all its calls. */
  pageSize: RequestPageSize;
  binding: string;
  totals: 'always' | 'sometimes';
  maxWalkRecords: number;
  order: readonly SortKey[] | null;
  onAnchor: (outcome: AnchorOutcome) => void;
  caller: CursorOwner;
}

/** A request's connection arguments, read: sizes checked, cursors decoded. */
export interface ParsedArgs {
  after: DecodedCursor | null;
  before: DecodedCursor | null;
  first: number | null;
  last: number | null;
}

function isCount(value: unknown, min: number): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= min;
}

/** Checks the options; a nonsensical one is a programming error (TypeError), not a client one. */
export function readOptions(options: PagingOptions): Settings {
  const { pageBase, defaultSize, maxSize, upstreamMaxPageSize, binding } = options;
  const totals = options.totals ?? 'sometimes';
  const maxWalkRecords = options.maxWalkRecords ?? DEFAULT_MAX_WALK_RECORDS;
  if (pageBase !== 0 && pageBase !== 1) throw new TypeError(`pageBase must be 0 or 1, got ${String(pageBase)}`);
  if (!isCount(maxSize, 1)) throw new TypeError(`maxSize must be a positive integer, got ${maxSize}`);
  if (!isCount(defaultSize, 1) || defaultSize > maxSize) {
    throw new TypeError(`defaultSize must be between 1 and maxSize (${maxSize}), got ${defaultSize}`);
  }
  if (!isCount(upstreamMaxPageSize, 1)) {
    throw new TypeError(`upstreamMaxPageSize must be a positive integer, got ${upstreamMaxPageSize}`);
  }
  if (typeof binding !== 'string') throw new TypeError('binding must be a string');
  if (totals !== 'always' && totals !== 'sometimes') throw new TypeError(`totals must be 'always' or 'sometimes'`);
  if (!isCount(maxWalkRecords, 0)) throw new TypeError(`maxWalkRecords must be a non-negative integer`);
  const order = options.order && options.order.length > 0 ? options.order : null;
  const onAnchor = options.onAnchor ?? (() => undefined);
  const pageSize = new RequestPageSize(upstreamMaxPageSize, options.onPageCap, options.onReplan);
  return { pageBase, defaultSize, maxSize, pageSize, binding, totals, maxWalkRecords, order, onAnchor, caller: options.caller ?? NO_OWNER };
}

function readSize(name: 'first' | 'last', value: number | null | undefined, maxSize: number): number | null {
  if (value === null || value === undefined) return null;
  if (!isCount(value, 0) || value > maxSize) throw badUserInput(`${name} must be between 0 and ${maxSize}, got ${value}`, { argumentName: name });
  return value;
}

/** Reads the client's arguments; anything wrong with them is BAD_USER_INPUT, raised before any upstream call. */
export function readArgs(args: ConnectionArgs, settings: Settings): ParsedArgs {
  if (args.first != null && args.last != null) {
    throw badUserInput('first and last cannot be used together; pass first to page forwards or last to page backwards');
  }
  const first = readSize('first', args.first, settings.maxSize);
  const last = readSize('last', args.last, settings.maxSize);
  const after = args.after == null ? null : readCursor(args.after, settings.binding, 'after', settings.caller);
  const before = args.before == null ? null : readCursor(args.before, settings.binding, 'before', settings.caller);
  return { after, before, first, last };
}
