import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { HeaderMap } from '@apollo/server';

/**
 * How long a stream may wait for room before its client is taken as gone and the connection closed.
 * Its events wait in its subscriber's bounded queue meanwhile (and it is dropped past it), so memory
 * is bounded either way; this bounds the connection, and the socket buffers it holds in the kernel,
 * of a client that stopped reading, a dropped one among them, which would otherwise stay open
 * (no longer counted in SUBSCRIPTIONS_PER_TOKEN) until the client left. A client that reads again
 * resumes with its last cursor.
 */
const STALLED_STREAM_MS = 60_000;

/**
 * Resolves once a streaming response has room again, or its client is gone, or it waited
 * `stallMs` (the connection is then closed). A client that does not read stops the reading of its
 * events there, so they wait in its subscriber's bounded queue (and it is dropped past it) instead
 * of in an unbounded write buffer. Whichever event comes, both listeners and the timer go: a long
 * stream waits here again and again, and a listener left from each wait would grow it until it closes.
 */
export function room(res: ServerResponse, stallMs = STALLED_STREAM_MS): Promise<void> {
  // A response already closed (its client gone, or closed here) never drains or closes again.
  if (res.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    const stalled = setTimeout(() => res.destroy(), stallMs);
    stalled.unref();
    const done = (): void => {
      clearTimeout(stalled);
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

/** Writes `chunk`, then waits for room when the response's buffer is full. */
export async function writeWithRoom(res: ServerResponse, chunk: string | Buffer, stallMs = STALLED_STREAM_MS): Promise<void> {
  if (!res.write(chunk)) await room(res, stallMs);
}

/**
 * Whether a stream can still be written to. Not `res.writable`, which a response keeps true after
 * it was destroyed (its client gone): a loop that checked only that would write into a closed
 * response and wait for room that never comes.
 */
export function streamOpen(res: ServerResponse): boolean {
  return !res.destroyed && !res.writableEnded;
}

/** An empty frame keeps a quiet stream open through proxies that cut idle connections (graphql-sse's and graphql-ws' interval). */
export const HEARTBEAT_MS = 12_000;

/**
 * The head of a stream: 200 with `headers`, unbuffered by proxies, and those Apollo Server gave the
 * answer it carries (a refusal's `Retry-After`, the budget's `RateLimit`), its own framing aside.
 */
export function writeHead(res: ServerResponse, answered: HeaderMap | undefined, headers: OutgoingHttpHeaders): void {
  for (const [key, value] of answered ?? []) if (key !== 'content-type' && key !== 'content-length') res.setHeader(key, value);
  res.writeHead(200, { ...headers, 'x-accel-buffering': 'no', connection: 'keep-alive' });
}

/**
 * A transport's frame of a result, made once for every stream that sends the same result: the
 * subscribers of one feed running one document share one result object per event (subscribe.ts),
 * and serialising and encoding it once per stream was most of what each subscriber cost (400 readers
 * of one feed: 400 `JSON.stringify` and UTF-8 copies of every event). Held as long as the result is.
 */
export function framedOnce(frame: (value: unknown) => string): (value: unknown) => string | Buffer {
  const frames = new WeakMap<object, Buffer>();
  return (value) => {
    if (typeof value !== 'object' || value === null) return frame(value);
    let bytes = frames.get(value);
    if (bytes === undefined) frames.set(value, (bytes = Buffer.from(frame(value))));
    return bytes;
  };
}

export interface Framing {
  frame(value: unknown): string | Buffer;
  heartbeat: string;
  /** What ends the stream. */
  end: string;
  heartbeatMs?: number;
}

/**
 * Writes a subscription's results as frames, each once the response has room, with a heartbeat while
 * it is quiet (none into a stream whose client is not reading: its buffer would only grow), until its
 * last result, its client leaving, or the gateway stopping; then the closing frame. A client that
 * stopped reading keeps its connection until that frame is flushed or STALLED_STREAM_MS passed.
 */
export async function pipeResults(res: ServerResponse, results: AsyncIterableIterator<unknown>, { frame, heartbeat, end, heartbeatMs = HEARTBEAT_MS }: Framing): Promise<void> {
  const beat = setInterval(() => {
    if (!res.writableNeedDrain) res.write(heartbeat);
  }, heartbeatMs);
  beat.unref();
  res.once('close', () => {
    clearInterval(beat);
    void results.return?.();
  });
  try {
    for await (const value of results) {
      if (!streamOpen(res)) break;
      await writeWithRoom(res, frame(value));
    }
  } finally {
    clearInterval(beat);
    if (streamOpen(res)) {
      res.end(end);
      if (res.writableNeedDrain) await room(res);
    }
  }
}
