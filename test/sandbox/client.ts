// Small HTTP helpers and independent re-statements of the platform's rules,
// so the sandbox tests compare its answers with expectations it did not compute.
import type { Sandbox } from '../../sandbox/index.ts';
import { sortRecords } from '../support/expected.ts';

export const ACME = 'demo-token-acme';
export const GLOBEX = 'demo-token-globex';

export interface Answer<T> { status: number; headers: Headers; body: T; text: string }

export async function call<T = unknown>(url: string, init: RequestInit = {}): Promise<Answer<T>> {
  const res = await fetch(url, init);
  const text = await res.text();
  let body: unknown = undefined;
  if ((res.headers.get('content-type') ?? '').includes('json') && text !== '') {
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
  }
  return { status: res.status, headers: res.headers, body: body as T, text };
}

/** GET with the given demo token (none when token is null). */
export function get<T = unknown>(sandbox: Sandbox, path: string, token: string | null = ACME, headers: Record<string, string> = {}): Promise<Answer<T>> {
  return call<T>(sandbox.url + path, { headers: token === null ? headers : { authorization: `Bearer ${token}`, ...headers } });
}

export function put<T = unknown>(sandbox: Sandbox, path: string, body: unknown, token = ACME): Promise<Answer<T>> {
  return call<T>(sandbox.url + path, { method: 'PUT', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
}

export interface Page<T> { totalElements: number; totalPages: number; number: number; numberOfElements: number; hasNext: boolean; content: T[] }

export interface ShapeB { timestamp: string; traceId: string; message: string; errorCode: string; errors: { path: string; message: string; errorCode: string }[] }
export interface ShapeA { timestamp: string; traceId: string; error: string; message: string }

export const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}\+0000$/;
export const TRACE_ID = /^[0-9a-f]{32}$/;

/** `2026-03-04T10:15:30.123+0000` → epoch ms. */
export function epochOf(timestamp: string): number {
  const m = /^(.{23})([+-]\d{2})(\d{2})$/.exec(timestamp);
  if (!m) throw new Error(`not a platform timestamp: ${timestamp}`);
  return Date.parse(`${m[1]}${m[2]}:${m[3]}`);
}

/** The paths and codes of a shape-B body (messages are for people). */
export function violations(body: ShapeB): [string, string][] {
  return body.errors.map((e) => [e.path, e.errorCode]);
}

export const byCreatedDesc = <T extends { id: string; createdAt: string }>(records: readonly T[]): T[] => sortRecords(records, [[(r) => epochOf(r.createdAt), 'DESC']]);

export function ids(records: readonly { id: string }[]): string[] {
  return records.map((r) => r.id);
}
