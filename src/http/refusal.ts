import type { ServerResponse } from 'node:http';
import { errorEntry, ErrorCode } from '../errors.ts';
import { send } from '../send.ts';

/**
 * The one writer of HTTP-level refusals (a request turned away before or around GraphQL: a body
 * that cannot be read, a batch too large, an unknown path, a budget spent, an unexpected failure).
 * The body is GraphQL-over-HTTP shaped, `{"errors":[{"message","extensions"}]}`, so clients parse
 * every refusal the way they parse a GraphQL error, shaped as every error is (`errorEntry`, then
 * `shapeError`, src/errors.ts: the request id, client text cut, no internals in production).
 */
export function refuse(res: ServerResponse, status: number, message: string, extensions: Record<string, unknown>): void {
  send(res, status, 'application/json; charset=utf-8', JSON.stringify({ errors: [errorEntry(message, extensions)] }));
}

/** A failure nobody expected: a 500 without internals (the cause goes to the log, with the same request id). */
export function refuseUnexpected(res: ServerResponse): void {
  refuse(res, 500, 'Internal server error', { code: ErrorCode.INTERNAL_SERVER_ERROR });
}
