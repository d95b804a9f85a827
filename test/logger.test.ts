import { execFile } from 'node:child_process';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import pino from 'pino';
import { CENSOR, createLogger, REDACTED_PATHS, redactSecrets } from '../src/logger.ts';

/** Lines as written, without the time (which differs between two loggers). */
function linesOf(write: (logger: pino.Logger) => void, logger: (destination: Writable) => pino.Logger): string[] {
  let text = '';
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      text += chunk.toString('utf8');
      done();
    },
  });
  write(logger(destination));
  return text.split('\n').filter(Boolean).map((line) => line.replace(/"time":\d+,/, ''));
}

/** pino's own path redaction over REDACTED_PATHS: what the gateway's logger must write, line for line. */
const reference = (destination: Writable) => pino({ level: 'info', redact: { paths: REDACTED_PATHS, censor: CENSOR }, base: { service: 'platform-gateway' } }, destination);
const gateway = (destination: Writable) => createLogger('info', { destination });

const KEYS = ['authorization', 'cookie', 'Authorization', 'Cookie', 'headers', 'req', 'upstream', 'err', 'requestId', 'x-request-id', 'route'];
const leaf = fc.oneof(fc.string({ maxLength: 8 }), fc.integer(), fc.boolean(), fc.constant(null), fc.constant('Bearer secret-token'));
const fields = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: 'small', withCrossShrink: true }, leaf, fc.array(tie('value'), { maxLength: 2 }), tie('object')),
  object: fc.dictionary(fc.constantFrom(...KEYS), tie('value'), { maxKeys: 4 }),
})).object as fc.Arbitrary<Record<string, unknown>>;

describe('log redaction', () => {
  it('writes what pino redaction over REDACTED_PATHS writes, for any fields', () => {
    fc.assert(
      fc.property(fields, (object) => {
        const snapshot = JSON.stringify(object);
        const write = (logger: pino.Logger) => logger.info(object, 'line');
        expect(linesOf(write, gateway)).toEqual(linesOf(write, reference));
        // The caller's object is left as it was.
        expect(JSON.stringify(object)).toBe(snapshot);
      }),
      { numRuns: 2000 },
    );
  });

  it('writes what pino redaction writes for errors, messages only and request lines', () => {
    const error = Object.assign(new Error('refused'), { authorization: 'Bearer secret', headers: { cookie: 'sid=1', accept: 'json' } });
    const write = (logger: pino.Logger) => {
      logger.info('message only');
      logger.error(error);
      logger.error({ err: error, requestId: 'r-1' }, 'failed');
      logger.info({ req: { method: 'POST', headers: { authorization: 'Bearer x', Cookie: 'c', 'x-request-id': 'r' } } }, 'incoming');
      logger.info({ requestId: 'r-2', operationName: 'Inbox', durationMs: 1.5, errorCodes: [], upstreamCalls: 1 }, 'graphql request');
    };
    expect(linesOf(write, gateway)).toEqual(linesOf(write, reference));
    expect(error.authorization).toBe('Bearer secret');
  });

  it('returns a line without credentials as it is, without copying it', () => {
    const line = { requestId: 'r-1', operationName: 'Inbox', upstream: { route: 'exceptions.list' }, headers: { accept: 'json' } };
    expect(redactSecrets(line)).toBe(line);
  });
});

describe("the process's standard output", () => {
  it('writes lines shorter and longer than one write, whole and in order, by the time the process has exited', async () => {
    const root = fileURLToPath(new URL('..', import.meta.url));
    // 300 lines from 60 bytes to about 6 kB, about 900 kB in all: many pieces, lines across their edges.
    const script = [
      `import { createLogger } from ${JSON.stringify(`${root}src/logger.ts`)};`,
      "const logger = createLogger('info');",
      "for (let n = 0; n < 300; n++) logger.info({ n, pad: 'x'.repeat((n * 97) % 6000) }, 'line');",
      'process.exit(0);',
    ].join('\n');
    const stdout = await new Promise<string>((resolve, reject) =>
      execFile(`${root}node_modules/.bin/node`, ['--disable-warning=ExperimentalWarning', '--input-type=module', '-e', script], { cwd: root, maxBuffer: 8 << 20 }, (error, out) =>
        error ? reject(error) : resolve(out)),
    );
    const lines = stdout.split('\n').filter(Boolean).map((line) => JSON.parse(line) as { n: number; pad: string });
    expect(lines.map(({ n }) => n)).toEqual(Array.from({ length: 300 }, (_, n) => n));
    expect(lines.map(({ pad }) => pad.length)).toEqual(Array.from({ length: 300 }, (_, n) => (n * 97) % 6000));
  }, 60_000);
});
