import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import contentType from 'content-type';
import type { Logger } from 'pino';
import { clip } from '../client-text.ts';
import { ErrorCode } from '../errors.ts';
import { currentRequestId } from '../request/scope.ts';
import { refuse } from './refusal.ts';
import { pathOf, type Stage } from './stage.ts';

/** Longest request path written to a log line: the path is the client's choice. */
const MAX_LOGGED_PATH_CHARS = 200;

/** The shape of the errors body-parser gives (http-errors with a `type`), and readDeclared's. */
interface BodyError extends Error {
  status: number;
  type: string;
}

function isBodyError(error: unknown): error is BodyError {
  return typeof error === 'object' && error !== null && typeof (error as BodyError).status === 'number' && typeof (error as BodyError).type === 'string';
}

/** The type of a body that is not valid data of its declared Content-Encoding (body-parser leaves zlib's errors untyped). */
const ENCODING_INVALID = 'encoding.invalid';

function sizeLabel(bytes: number): string {
  return bytes % 1024 === 0 ? `${bytes / 1024} kB` : `${bytes} bytes`;
}

/** What a refusal of the body means to a client. Messages are ours: the parser's may quote the body back. */
function describe(type: string, bodyBytes: number, headers: IncomingHttpHeaders): { status: number; message: string; extensions: Record<string, unknown> } {
  switch (type) {
    case 'entity.too.large':
      return { status: 413, message: `Request body is larger than the ${sizeLabel(bodyBytes)} limit`, extensions: { code: ErrorCode.PAYLOAD_TOO_LARGE, limit: 'MAX_BODY_BYTES', max: bodyBytes } };
    case 'entity.parse.failed':
      return { status: 400, message: 'Request body is not valid JSON', extensions: { code: ErrorCode.BAD_REQUEST } };
    case 'charset.unsupported':
    case 'encoding.unsupported':
      return { status: 415, message: 'Request body must be JSON in UTF-8, optionally compressed with gzip, deflate, br or zstd', extensions: { code: ErrorCode.UNSUPPORTED_MEDIA_TYPE } };
    case ENCODING_INVALID:
      // Only an encoding the reader supports gets here (anything else is 415), so the name is ours to repeat.
      return {
        status: 400,
        message: `Request body is not valid ${String(headers['content-encoding']).toLowerCase()} data: it could not be decompressed`,
        extensions: { code: ErrorCode.BAD_CONTENT_ENCODING },
      };
    default:
      return { status: 400, message: 'Request body could not be read', extensions: { code: ErrorCode.BAD_REQUEST } };
  }
}

const DECIMAL = /^\d{1,9}$/;

/** Whether the declared type is what body-parser's JSON parser reads without transformation: JSON in UTF-8. */
function parsePlainJson(type: string): boolean {
  try {
    const media = contentType.parse(type);
    const charset = media.parameters.charset;
    const parameters = Object.keys(media.parameters).length;
    return media.type === 'application/json' && (charset === undefined ? parameters === 0 : parameters === 1 && charset.toLowerCase() === 'utf-8');
  } catch {
    return false;
  }
}

/**
 * parsePlainJson of the last type seen: a client sends the same Content-Type with every request,
 * so the header is parsed once per change of client, not once per request. One entry, so a
 * client varying the header only costs the parse it would have cost anyway.
 */
let lastType: string | undefined;
let lastTypeIsPlain = false;

function isPlainJson(type: string): boolean {
  if (type !== lastType) {
    lastTypeIsPlain = parsePlainJson(type);
    lastType = type;
  }
  return lastTypeIsPlain;
}

/** The declared length of a body the plain reader can take (uncompressed UTF-8 JSON within the limit), else undefined. */
function plainLength(req: IncomingMessage, limit: number): number | undefined {
  if (req.method !== 'POST') return undefined;
  const { headers } = req;
  const type = headers['content-type'];
  const length = headers['content-length'];
  if (type === undefined || headers['content-encoding'] !== undefined || headers['transfer-encoding'] !== undefined) return undefined;
  if (length === undefined || !DECIMAL.test(length) || !isPlainJson(type)) return undefined;
  const bytes = Number(length);
  return bytes > 0 && bytes <= limit ? bytes : undefined;
}

/** A refusal of the body, shaped as raw-body's (http-errors with a `type`), so one describe() serves both readers. */
function bodyError(status: number, message: string, type: string): BodyError {
  return Object.assign(new Error(message), { status, type });
}

/**
 * The body of a request that declared its length (plainLength), as one buffer: the chunk itself
 * when it came in one, else the chunks copied once into a buffer of the declared length. Refuses as
 * raw-body does with a length: a request that ended short of its length or was aborted (400), one
 * whose stream failed (that error) or had already been read (500).
 */
function readDeclared(req: IncomingMessage, length: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    if (!req.readable) {
      reject(bodyError(500, 'stream is not readable', 'stream.not.readable'));
      return;
    }
    const chunks: Buffer[] = [];
    let received = 0;
    const cleanup = () => {
      req.off('aborted', onAborted);
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onFailure);
      req.off('close', cleanup);
    };
    const fail = (error: Error) => {
      cleanup();
      req.unpipe();
      req.pause();
      reject(error);
    };
    function onData(chunk: Buffer) {
      received += chunk.length;
      chunks.push(chunk);
    }
    function onEnd() {
      if (received !== length) return fail(bodyError(400, 'request size did not match content length', 'request.size.invalid'));
      cleanup();
      resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, received));
    }
    function onAborted() {
      fail(bodyError(400, 'request aborted', 'request.aborted'));
    }
    function onFailure(error: Error) {
      fail(error);
    }
    req.on('aborted', onAborted);
    req.on('close', cleanup);
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onFailure);
  });
}

const UTF8_BOM = [0xef, 0xbb, 0xbf] as const;

/** JSON's whitespace, as bytes (RFC 8259): what may come before the value. */
function isJsonSpace(byte: number): boolean {
  return byte === 0x20 || byte === 0x09 || byte === 0x0a || byte === 0x0d;
}

/**
 * body-parser's strict JSON reading: a UTF-8 BOM dropped, an object or array at the top, else a
 * parse failure. The first character is found in the bytes, so the text is made once, for JSON.parse.
 */
function parseJson(buffer: Buffer): { value: unknown } | { failed: true } {
  const start = buffer.length >= 3 && buffer[0] === UTF8_BOM[0] && buffer[1] === UTF8_BOM[1] && buffer[2] === UTF8_BOM[2] ? 3 : 0;
  let first = start;
  while (first < buffer.length && isJsonSpace(buffer[first]!)) first++;
  // `{` and `[`: ASCII, so a byte of their value is the character itself in UTF-8.
  if (buffer[first] !== 0x7b && buffer[first] !== 0x5b) return { failed: true };
  try {
    return { value: JSON.parse(buffer.toString('utf8', start)) };
  } catch {
    return { failed: true };
  }
}

type WithBody = IncomingMessage & { body?: unknown };

/**
 * `req.body` of a GraphQL request. The common request (a POST of plain UTF-8 JSON with a declared
 * length) is read and parsed here, in one pass: its bytes as they came, one string, one JSON.parse; everything else (compressed bodies, other UTF
 * charsets, chunked uploads, GET) by body-parser's JSON reader with the same limit, which leaves
 * `req.body` undefined when there is no JSON body. A body that cannot be read is refused here, with
 * a code (413, 415 or 400) and a message of our own.
 */
export function bodyStage(bodyBytes: number, logger: Logger): Stage {
  // body-parser (with its charset tables and media-type database) is loaded by the first request
  // that needs it, not at start-up: most deployments never receive such a body.
  let general: Promise<Stage> | undefined;
  const generalReader = () => (general ??= import('body-parser').then(({ default: bodyParser }) => bodyParser.json({ limit: bodyBytes }) as unknown as Stage));
  const refused = (req: IncomingMessage, res: Parameters<Stage>[1], type: string) => {
    const { status, message, extensions } = describe(type, bodyBytes, req.headers);
    // Only the parser's classification: its message may hold what the client sent.
    logger.info({ requestId: currentRequestId(), path: clip(pathOf(req), MAX_LOGGED_PATH_CHARS), status, reason: type }, 'request body refused');
    refuse(res, status, message, extensions);
  };
  const failed = (req: IncomingMessage, res: Parameters<Stage>[1], next: Parameters<Stage>[2], error: unknown) => {
    // zlib's errors reach us untyped (and as 400): a body that is not what its Content-Encoding says.
    const type = isBodyError(error) ? error.type : error instanceof Error && req.headers['content-encoding'] !== undefined ? ENCODING_INVALID : undefined;
    const status = (error as { status?: unknown } | null)?.status;
    if (type !== undefined && typeof status === 'number' && status >= 400 && status < 500) return refused(req, res, type);
    next(error);
  };
  return (req, res, next) => {
    const length = plainLength(req, bodyBytes);
    if (length === undefined) {
      generalReader().then((reader) => reader(req, res, (error?: unknown) => (error === undefined || error === null ? next() : failed(req, res, next, error))), next);
      return;
    }
    readDeclared(req, length).then((buffer) => {
      const parsed = parseJson(buffer);
      if ('failed' in parsed) return refused(req, res, 'entity.parse.failed');
      (req as WithBody).body = parsed.value;
      next();
    }, (error: unknown) => failed(req, res, next, error));
  };
}
