import { randomBytes } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FieldError } from './api/query.ts';
import { formatTimestamp } from './data/time.ts';

/** A complete answer, built before anything is written so that faults can delay or trickle it. */
export interface Reply {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string | Buffer;
  /**
   * Why this answer departs from the platform contract on purpose (a fault, an
   * opt-in variant); absent for an answer the contract describes. The contract
   * test checks every answer without it against openapi/platform.yaml.
   */
  readonly offContract?: string;
}

export function reasonPhrase(status: number): string {
  return STATUS_CODES[status] ?? 'Unknown';
}

/** The media type of the request body, lower-cased and without parameters; undefined when not sent. */
export function mediaType(req: IncomingMessage): string | undefined {
  const value = req.headers['content-type'];
  return value === undefined ? undefined : (value.split(';')[0] ?? '').trim().toLowerCase();
}

/** decodeURIComponent that answers undefined instead of throwing on a malformed escape. */
export function safeDecode(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

function traceId(): string {
  return randomBytes(16).toString('hex');
}

export function json(status: number, body: string, headers: Readonly<Record<string, string>> = {}): Reply {
  return { status, headers: { 'content-type': 'application/json', ...headers }, body };
}

/** The plain error body: `{ timestamp, traceId, error: <reason phrase>, message }`. */
export function plainErrorBody(status: number, message: string, nowMs: number): string {
  return JSON.stringify({ timestamp: formatTimestamp(nowMs), traceId: traceId(), error: reasonPhrase(status), message });
}

/** The validation error body: `{ timestamp, traceId, message, errorCode, errors: [{ path, message, errorCode }] }`. */
export function validationErrorBody(message: string, errorCode: string, errors: readonly FieldError[], nowMs: number): string {
  return JSON.stringify({ timestamp: formatTimestamp(nowMs), traceId: traceId(), message, errorCode, errors });
}

export function plainError(status: number, message: string, nowMs: number, headers: Readonly<Record<string, string>> = {}): Reply {
  return json(status, plainErrorBody(status, message, nowMs), headers);
}

export function validationError(errors: readonly FieldError[], nowMs: number, status = 400, errorCode = 'VALIDATION_ERROR', message = 'Request validation failed'): Reply {
  return json(status, validationErrorBody(message, errorCode, errors, nowMs));
}

/** Timers the sandbox owns (latency, trickle, scans), so that close() can cancel them all. */
export class TimerSet {
  readonly #timers = new Set<NodeJS.Timeout>();

  after(ms: number, run: () => void): void {
    const timer = setTimeout(() => {
      this.#timers.delete(timer);
      run();
    }, ms);
    this.#timers.add(timer);
  }

  clear(): void {
    for (const timer of this.#timers) clearTimeout(timer);
    this.#timers.clear();
  }
}

function writeHead(res: ServerResponse, reply: Reply, extraHeaders: Readonly<Record<string, string>>, length: number): void {
  res.writeHead(reply.status, { ...reply.headers, ...extraHeaders, 'content-length': String(length) });
}

/** Sends the reply at once, or, with `trickleMs`, its body in small chunks spread over that time. */
export function send(res: ServerResponse, reply: Reply, extraHeaders: Readonly<Record<string, string>>, timers: TimerSet, trickleMs = 0): void {
  if (res.destroyed) return;
  const body = typeof reply.body === 'string' ? Buffer.from(reply.body) : reply.body;
  writeHead(res, reply, extraHeaders, body.length);
  if (trickleMs <= 0 || body.length === 0) {
    res.end(body);
    return;
  }
  const chunks = Math.min(body.length, 16);
  const chunkSize = Math.ceil(body.length / chunks);
  res.flushHeaders();
  let offset = 0;
  const step = (): void => {
    if (res.destroyed) return;
    const end = Math.min(offset + chunkSize, body.length);
    const chunk = body.subarray(offset, end);
    offset = end;
    if (offset >= body.length) res.end(chunk);
    else {
      res.write(chunk);
      timers.after(trickleMs / chunks, step);
    }
  };
  timers.after(trickleMs / chunks, step);
}

/**
 * Reads a request body, counting bytes as they stream: undefined once it
 * passes `limit`. The rest is still drained, so the client can read the answer.
 */
export function readBody(req: IncomingMessage, limit: number): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    let chunks: Buffer[] | undefined = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) chunks = undefined;
      chunks?.push(chunk);
    });
    req.on('end', () => resolve(chunks && Buffer.concat(chunks)));
    req.on('error', reject);
  });
}
