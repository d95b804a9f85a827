import pino, { type Logger } from 'pino';

export const CENSOR = '[REDACTED]';

/** Fields that carry credentials: the caller's token and cookies. */
const SECRET_KEYS = ['authorization', 'cookie', 'Authorization', 'Cookie'] as const;
/** Under any top-level field, only the lower-case names are credentials (the upper-case ones only in `headers`). */
const NESTED_SECRET_KEYS = ['authorization', 'cookie'] as const;

/**
 * Where credentials are replaced by `[REDACTED]`, in pino's path syntax (`*` is any top-level
 * field): wherever a request or its headers are logged. `redactSecrets` applies exactly these.
 */
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'headers.authorization',
  'headers.cookie',
  'authorization',
  'cookie',
  '*.authorization',
  '*.cookie',
  '*.headers.authorization',
  '*.headers.cookie',
  '*.headers.Authorization',
  '*.headers.Cookie',
  'headers.Authorization',
  'headers.Cookie',
  'Authorization',
  'Cookie',
];

type Fields = Record<string, unknown>;

const isObject = (value: unknown): value is Fields => typeof value === 'object' && value !== null;
const has = (object: Fields, key: string) => Object.prototype.hasOwnProperty.call(object, key);

/** A copy with the same prototype and own properties, so an Error stays an Error for pino's serialiser. */
function copyOf(object: Fields): Fields {
  const descriptors = Object.getOwnPropertyDescriptors(object);
  // V8's `stack` accessor reads the original error's internal slot, which a copy does not have.
  const stack = descriptors.stack;
  if (stack?.get) descriptors.stack = { value: object.stack, enumerable: stack.enumerable, writable: true, configurable: true };
  return Object.defineProperties(Object.create(Object.getPrototypeOf(object) as object | null) as Fields, descriptors);
}

function replaced(object: Fields, key: string, value: unknown): Fields {
  const copy = copyOf(object);
  Object.defineProperty(copy, key, { value, enumerable: true, writable: true, configurable: true });
  return copy;
}

/** `object` with `keys` censored, copied only when one of them is present; the caller's object is never modified. */
function censored(object: Fields, keys: readonly string[]): Fields {
  let result = object;
  for (const key of keys) if (has(object, key)) result = replaced(result, key, CENSOR);
  return result;
}

/**
 * The log line's fields with REDACTED_PATHS censored, as pino's `redact` option would, without its
 * path matcher over every field of every line (docs/benchmark.md): this walks at most three levels
 * and copies only what it censors, so a line without credentials costs a few property checks.
 */
export function redactSecrets(fields: Fields): Fields {
  let result = censored(fields, SECRET_KEYS);
  for (const key in fields) {
    const value = fields[key];
    if (!has(fields, key) || !isObject(value) || SECRET_KEYS.includes(key as (typeof SECRET_KEYS)[number])) continue;
    let inner = censored(value, key === 'headers' ? SECRET_KEYS : NESTED_SECRET_KEYS);
    const headers = inner.headers;
    if (has(inner, 'headers') && isObject(headers)) {
      const cleanHeaders = censored(headers, SECRET_KEYS);
      if (cleanHeaders !== headers) inner = replaced(inner, 'headers', cleanHeaders);
    }
    if (inner !== value) result = replaced(result, key, inner);
  }
  return result;
}

export function createLogger(level: string, options: { pretty?: boolean; destination?: pino.DestinationStream } = {}): Logger {
  const base = { level, formatters: { log: redactSecrets }, base: { service: 'platform-gateway' } };
  if (options.destination) return pino(base, options.destination);
  if (options.pretty) {
    // pino-pretty is a development dependency: production images log JSON only.
    return pino({ ...base, transport: { target: 'pino-pretty', options: { colorize: true, translateTime: 'HH:MM:ss.l' } } });
  }
  return pino(base, stdoutDestination());
}

/**
 * Log bytes held before they are written, and the longest a line waits when fewer arrive. Smaller
 * pieces make each line cheaper in a loop (sonic-boom measures the byte length of the piece it
 * appends to on every line), but cost the gateway more: 1 kB pieces of at most 2 kB took 37–39 µs
 * per request line against 23–31 with these, each write(2) being a trip through the thread pool
 * (docs/benchmark.md, *The request log line*).
 */
const LOG_WRITES = { minLength: 8192, periodicFlush: 100 } as const;

/** The gateway's buffered writer of log lines to `dest` (a file descriptor or path): standard output's, and the cost harnesses'. */
export function bufferedDestination(dest: number | string): pino.DestinationStream {
  return pino.destination({ dest, sync: false, ...LOG_WRITES });
}

let stdout: pino.DestinationStream | undefined;

/**
 * Standard output for every logger of the process, buffered: every request writes a line, and
 * gathering them saves a write(2) per request. Lines go out once 8 kB have gathered or within
 * 100 ms; pino writes what is pending when the process exits, so only a SIGKILL can lose the
 * last 100 ms. The periodic write is sonic-boom's own (`periodicFlush`), which writes without
 * the fsync(2) that a `flush` with a callback adds, and stops with the stream.
 */
/** Longest a stopping process waits for its pending log lines to be written before it exits anyway. */
const FINAL_FLUSH_MS = 1_000;

/**
 * Resolves once every pending line has been written (a write in flight included), or after
 * FINAL_FLUSH_MS. Called before a deliberate exit: the exit-time write of what is still buffered
 * would otherwise be able to overtake a write in flight, and print the last lines out of order.
 */
export function flushLogs(): Promise<void> {
  const stream = stdout as (pino.DestinationStream & { flush?(cb: (error?: Error) => void): void }) | undefined;
  if (stream?.flush === undefined) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, FINAL_FLUSH_MS);
    stream.flush!(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}

function stdoutDestination(): pino.DestinationStream {
  if (!stdout) {
    stdout = bufferedDestination(process.stdout.fd);
  }
  return stdout;
}
