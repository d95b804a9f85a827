import type { ServerResponse } from 'node:http';

/**
 * Resolves once a streaming response has room again (or its client is gone). A client that does
 * not read stops the reading of its events there, so they wait in its subscriber's bounded queue
 * (and it is dropped past it) instead of in an unbounded write buffer. Whichever event comes, both
 * listeners go: a long stream waits here again and again, and a listener left from each wait would
 * grow it until it closes.
 */
export function room(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

/** Writes `chunk`, then waits for room when the response's buffer is full. */
export async function writeWithRoom(res: ServerResponse, chunk: string): Promise<void> {
  if (!res.write(chunk)) await room(res);
}
