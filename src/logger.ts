import pino, { type Logger } from 'pino';

/**
 * Structured JSON logs. Credentials never reach a log line: the paths below are
 * redacted wherever a request or its headers are logged.
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

export function createLogger(level: string, options: { pretty?: boolean; destination?: NodeJS.WritableStream } = {}): Logger {
  const base = { level, redact: { paths: REDACTED_PATHS, censor: '[REDACTED]' }, base: { service: 'platform-gateway' } };
  if (options.destination) return pino(base, options.destination as pino.DestinationStream);
  if (options.pretty) {
    // pino-pretty is a development dependency: production images log JSON only.
    return pino({ ...base, transport: { target: 'pino-pretty', options: { colorize: true, translateTime: 'HH:MM:ss.l' } } });
  }
  return pino(base);
}
