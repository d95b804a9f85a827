import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';

// REDIS_URL (persisted queries, which may be evicted) and RATE_LIMIT_REDIS_URL (budgets, which must
// never be) must name two servers, or at least two databases. Two URLs can name one server in many
// spellings (`redis://localhost:6379/` and `redis://127.0.0.1`, a host name and its address), so
// they are compared by what they reach: the host's addresses, the port and the database.

/** The server and database a `redis://` or `rediss://` URL names, as node-redis reads it. */
export interface RedisEndpoint {
  readonly host: string;
  readonly port: number;
  readonly database: number;
}

const DEFAULT_PORT = 6379;

/** The endpoint of a URL the settings accepted (`redis[s]://[user[:password]@]host[:port][/database]`). */
export function redisEndpoint(url: string): RedisEndpoint {
  const parsed = new URL(url);
  return {
    host: parsed.hostname.replace(/^\[|\]$/g, '').toLowerCase(),
    port: parsed.port === '' ? DEFAULT_PORT : Number(parsed.port),
    database: parsed.pathname.length > 1 ? Number(parsed.pathname.slice(1)) : 0,
  };
}

/** Every loopback name and address is this host: a Redis on loopback is reached through any of them. */
const LOOPBACK = 'loopback';
const hostOf = (address: string) =>
  address === 'localhost' || address === '::1' || (isIP(address) === 4 && address.startsWith('127.')) || address === '::ffff:127.0.0.1' ? LOOPBACK : address;

/** `a` and `b` name the same database of the same server, by their spelling alone (no name resolved). */
export function sameRedisByName(a: string, b: string): boolean {
  const [first, second] = [redisEndpoint(a), redisEndpoint(b)];
  return first.port === second.port && first.database === second.database && hostOf(first.host) === hostOf(second.host);
}

/** Resolves a host name to its addresses, as node:dns/promises' lookup with `all`. */
export type Lookup = (host: string) => Promise<readonly string[]>;

const systemLookup: Lookup = async (host) => (await lookup(host, { all: true })).map((entry) => entry.address);

/**
 * The address, port and database both URLs reach, when they reach the same database of one server
 * (a host name that does not resolve is compared as written); undefined when they do not.
 */
export async function sharedRedis(a: string, b: string, resolve: Lookup = systemLookup): Promise<string | undefined> {
  const [first, second] = [redisEndpoint(a), redisEndpoint(b)];
  if (first.port !== second.port || first.database !== second.database) return undefined;
  const addresses = async (host: string) => {
    if (isIP(host) !== 0 || hostOf(host) === LOOPBACK) return [host];
    return resolve(host).catch(() => [host]);
  };
  const [ofFirst, ofSecond] = await Promise.all([addresses(first.host), addresses(second.host)]);
  const shared = ofFirst.find((address) => ofSecond.some((other) => hostOf(other) === hostOf(address)));
  if (shared === undefined) return undefined;
  return `${shared.includes(':') ? `[${shared}]` : shared}:${first.port}, database ${first.database}`;
}
