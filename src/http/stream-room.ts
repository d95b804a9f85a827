import { once } from 'node:events';
import type { ServerResponse } from 'node:http';

/**
 * Resolves once a streaming response has room again (or its client is gone). A client that does
 * not read stops the reading of its events there, so they wait in its subscriber's bounded queue
 * (and it is dropped past it) instead of in an unbounded write buffer.
 */
export function room(res: ServerResponse): Promise<unknown> {
  return Promise.race([once(res, 'drain'), once(res, 'close')]);
}

/** Writes `chunk`, then waits for room when the response's buffer is full. */
export async function writeWithRoom(res: ServerResponse, chunk: string): Promise<void> {
  if (!res.write(chunk)) await room(res);
}
