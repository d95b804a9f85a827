import type { ServerResponse } from 'node:http';

/**
 * The one way the gateway writes an answer with a text body: its status, type and length, then the
 * body. Headers set before (Cache-Control, Allow, Vary) are kept. `head`: the answer to a HEAD
 * request, whose length is the body's but which carries none (Node drops it anyway; a writer that
 * knows says so, and the body is not handed on).
 */
export function send(res: ServerResponse, status: number, type: string, body: string, head = false): void {
  res.statusCode = status;
  res.setHeader('Content-Type', type);
  res.setHeader('Content-Length', Buffer.byteLength(body));
  res.end(head ? undefined : body);
}
