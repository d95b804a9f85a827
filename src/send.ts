import type { ServerResponse } from 'node:http';

/**
 * The one way the gateway writes an answer with a text body: its status, type and length, then the
 * body. Headers set before (Cache-Control, Allow, Vary) are kept. Node sends no body to a HEAD
 * request, so the same call answers GET and HEAD.
 */
export function send(res: ServerResponse, status: number, type: string, body: string): void {
  res.statusCode = status;
  res.setHeader('Content-Type', type);
  res.setHeader('Content-Length', Buffer.byteLength(body));
  res.end(body);
}
