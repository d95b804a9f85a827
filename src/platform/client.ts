import DataLoader from 'dataloader';
import { bearerToken, canonicalAuthorization, type CallerToken } from '../request/caller-token.ts';
import type { TokenVerdicts } from './token-verdicts.ts';
import { ErrorCode } from '../errors.ts';
import { transportError } from './error-mapping.ts';
import { PlatformError } from './platform-error.ts';
import type { PolicyChain } from './policy-chain.ts';
import { RequestCalls, type CallLedger } from './request-calls.ts';

/** Query parameters in send order; arrays become repeated keys (`sort=a&sort=b`). */
export type Query = Record<string, string | number | boolean | readonly string[] | null | undefined>;

/** Encodes a value as exactly one path segment, so an id can never reach another route. */
export function pathSegment(value: string): string {
  // WHATWG URL parsing collapses `.`/`..` even when percent-encoded, so no encoding makes them safe.
  if (value === '' || value === '.' || value === '..') {
    throw new PlatformError(ErrorCode.BAD_USER_INPUT, `"${value}" is not a valid id`);
  }
  try {
    return encodeURIComponent(value);
  } catch {
    // A lone UTF-16 surrogate has no UTF-8 encoding, so it cannot be an id either.
    throw new PlatformError(ErrorCode.BAD_USER_INPUT, 'The id contains characters that cannot be encoded (a lone UTF-16 surrogate)');
  }
}

/**
 * Canonical query string: keys sorted, repeated values kept in their order (sort
 * keys are significant), so equal requests get equal cache keys.
 */
export function queryString(query: Query): string {
  const params = new URLSearchParams();
  for (const key of Object.keys(query).sort()) {
    const value = query[key];
    if (value === undefined || value === null) continue;
    if (Array.isArray(value)) for (const item of value) params.append(key, item);
    else params.append(key, String(value));
  }
  const text = params.toString();
  return text ? `?${text}` : '';
}

function parseJson(body: string): unknown {
  if (body.trim() === '') throw transportError('body', 'empty body');
  try {
    return JSON.parse(body);
  } catch {
    throw transportError('body', 'malformed JSON');
  }
}

export interface PlatformClientOptions {
  /** Platform calls this request may make (MAX_PLATFORM_CALLS_PER_REQUEST); further calls fail without being sent. */
  maxCalls?: number;
  /** What the process knows of tokens: an unknown token's calls go one at a time, a refused one's not at all. */
  tokens?: TokenVerdicts;
  /** The token's key in `tokens`, when the caller already has it (the request's admission); else computed on the first call. */
  tokenKey?: string;
  /** Told when the platform refuses this request's token (401): the client's address is charged for it. */
  onTokenRefused?: () => void;
  /** The request's caller as src/request/caller-token.ts read it, so the header is not parsed again. */
  caller?: CallerToken;
  /** The request's budget every attempt is drawn from (its admission's, or a subscription poll's), when one is set. */
  ledger?: CallLedger;
}

/** A GET as the request's loader keeps it: identical paths are one GET, whichever route asks. */
interface PlatformGet {
  route: string;
  pathAndQuery: string;
}

/**
 * The platform as seen by one GraphQL request: it carries the caller's
 * Authorization header (the request id is the request scope's), makes each distinct GET once per
 * request, and makes at most `maxCalls` calls. Never shared between requests,
 * so nothing one caller fetched can reach another (PolicyChain may answer
 * identical GETs of concurrent requests with one call, but each request parses
 * its own copy of the answer).
 */
export class PlatformClient {
  private readonly authorization: string | undefined;
  private readonly http: PolicyChain;
  /** Built on the first cached GET: a request that reads only documents (their own loader) needs none. */
  #gets: DataLoader<PlatformGet, unknown, string> | undefined;
  /** Stops every call of this request: its deadline, or the caller hanging up (src/request/deadline.ts). */
  private readonly signal: AbortSignal | undefined;
  /** What the policies need of this request: its calls budget, token gate and bucket draw. */
  readonly requestCalls: RequestCalls;

  constructor(http: PolicyChain, authorization: string | undefined, signal?: AbortSignal, options: PlatformClientOptions = {}, requestCalls?: RequestCalls) {
    this.http = http;
    // One spelling upstream whatever the client wrote (`bearer  T` is `Bearer T`): one shared-read key per token.
    const token = options.caller?.token ?? bearerToken(authorization);
    this.authorization = token === undefined ? undefined : canonicalAuthorization(token);
    this.signal = signal;
    this.requestCalls = requestCalls ?? new RequestCalls({
      maxCalls: options.maxCalls ?? Number.POSITIVE_INFINITY,
      tokens: options.tokens,
      token,
      tokenKey: options.tokenKey ?? options.caller?.key,
      onTokenRefused: options.onTokenRefused,
      ledger: options.ledger,
    });
  }

  /**
   * The same request's platform for one operation of its batch: its own GET cache, count of attempts
   * sent and budget, the request's token, deadline and MAX_PLATFORM_CALLS_PER_REQUEST.
   */
  forOperation(): PlatformClient {
    return new PlatformClient(this.http, this.authorization, this.signal, {}, this.requestCalls.forOperation());
  }

  /**
   * Deduplication within this request (docs/platform.md): identical GETs, whichever route asks,
   * are one call and one parsed answer for the request's lifetime. Across requests, the shared
   * reads of PolicyChain join identical GETs in flight; they keep nothing once a call settles.
   */
  private get gets(): DataLoader<PlatformGet, unknown, string> {
    return (this.#gets ??= new DataLoader((gets) => Promise.all(gets.map((get) => this.fetchGet(get).catch((error: Error) => error))), {
      // Nothing to batch upstream: the loader is here for per-request dedup of identical GETs.
      batch: false,
      cacheKeyFn: (get) => get.pathAndQuery,
    }));
  }

  /** Upstream calls this request (or operation of a batch) made, for its log line: every call handed to the seam, joined shared reads included. */
  get calls(): number {
    return this.requestCalls.calls;
  }

  /** Attempts the platform received for this request (or operation), retries included: its `actualQueryCost`. */
  get sent(): number {
    return this.requestCalls.sent;
  }

  /** The caller's credentials, or UNAUTHENTICATED before anything is sent. */
  private credentials(): string {
    if (this.authorization === undefined) {
      throw new PlatformError(ErrorCode.UNAUTHENTICATED, 'Send the platform access token as "Authorization: Bearer <token>"');
    }
    return this.authorization;
  }

  /** GET a JSON resource; identical GETs within this request are made once. */
  async get(route: string, path: string, query: Query = {}): Promise<unknown> {
    this.credentials();
    return this.gets.load({ route, pathAndQuery: path + queryString(query) });
  }

  /**
   * GET a JSON resource for a caller that keeps its own per-request cache (a DataLoader by id):
   * not kept in this request's GET cache, so a record lives in one cache only.
   */
  async getUncached(route: string, path: string, query: Query = {}): Promise<unknown> {
    this.credentials();
    return this.fetchGet({ route, pathAndQuery: path + queryString(query) });
  }

  /** PUT a JSON body. Never retried and never deduplicated: one call, one upstream PUT. */
  async put(route: string, path: string, body: unknown): Promise<unknown> {
    const authorization = this.credentials();
    const response = await this.http.send({ route, method: 'PUT', pathAndQuery: path, authorization, body, signal: this.signal, caller: this.requestCalls });
    return parseJson(response.body);
  }

  segment(value: string): string {
    return pathSegment(value);
  }

  private async fetchGet({ route, pathAndQuery }: PlatformGet): Promise<unknown> {
    const authorization = this.credentials();
    const response = await this.http.send({ route, method: 'GET', pathAndQuery, authorization, signal: this.signal, caller: this.requestCalls });
    return parseJson(response.body);
  }
}
