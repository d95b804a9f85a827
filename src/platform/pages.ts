import { z } from 'zod';
import type { PageResult } from '../connections/index.ts';
import { transportError } from './errors.ts';

// The gateway checks what it relies on (a list of records with string ids and,
// for envelopes, a numeric total) and passes the rest through: a 200 that breaks
// this is an upstream fault, reported as UPSTREAM_ERROR instead of a crash later.
const record = z.looseObject({ id: z.string() });
const envelope = z.looseObject({ totalElements: z.number().int().nonnegative(), content: z.array(record) });
const bareArray = z.array(record);

/** Reads a page envelope, or (where the endpoint may answer one) a bare array without totals. */
export function readPage<T>(body: unknown, requestId: string, options: { bareArrayAllowed: boolean }): PageResult<T> {
  if (Array.isArray(body) && options.bareArrayAllowed) {
    const parsed = bareArray.safeParse(body);
    if (parsed.success) return { items: body as T[], total: null };
  } else {
    const parsed = envelope.safeParse(body);
    if (parsed.success) return { items: parsed.data.content as T[], total: parsed.data.totalElements };
  }
  throw transportError('body', requestId, 'not the page the contract describes');
}

/** Reads a single record (e.g. a Document). */
export function readRecord<T>(body: unknown, requestId: string): T {
  if (!record.safeParse(body).success) throw transportError('body', requestId, 'not the record the contract describes');
  return body as T;
}
