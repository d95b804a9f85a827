import type { IncomingMessage } from 'node:http';
import proxyAddr from 'proxy-addr';

/**
 * The client's address: the socket's peer, or, when the peer is a proxy listed in TRUSTED_PROXIES,
 * the address that proxy (and any trusted proxy before it) received the request from, read from
 * `X-Forwarded-For` right to left. An entry written by anyone else is ignored, so a forged header
 * changes nothing.
 */
export type AddressOf = (req: IncomingMessage) => string;

export function clientAddress(trustedProxies: readonly string[]): AddressOf {
  if (trustedProxies.length === 0) return (req) => req.socket.remoteAddress ?? 'unknown';
  const trust = proxyAddr.compile([...trustedProxies]);
  return (req) => proxyAddr(req, trust);
}

/** Throws when a TRUSTED_PROXIES entry is not an address or CIDR (proxy-addr's own check). */
export function checkTrustedProxies(entries: readonly string[]): string | undefined {
  try {
    proxyAddr.compile([...entries]);
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

/** Hex groups of an IPv6 address, `::` expanded; undefined when it is not one. */
function ipv6Groups(address: string): string[] | undefined {
  const bare = address.split('%')[0]!.toLowerCase();
  if (!bare.includes(':')) return undefined;
  const [head, tail, extra] = bare.split('::');
  if (extra !== undefined) return undefined;
  const part = (text: string | undefined) => (text === undefined || text === '' ? [] : text.split(':'));
  const left = part(head);
  const right = part(tail);
  const missing = 8 - left.length - right.length;
  if (tail === undefined ? missing !== 0 : missing < 1) return undefined;
  return [...left, ...Array<string>(tail === undefined ? 0 : missing).fill('0'), ...right];
}

/**
 * The unit a per-address limit counts: an IPv4 address as it is (an IPv4-mapped IPv6 address as its
 * IPv4 address), an IPv6 address by its /64, the smallest block one subscriber is given: a client
 * holding a /64 could otherwise count as 2^64 addresses.
 */
export function addressUnit(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return mapped[1]!;
  const groups = ipv6Groups(address);
  if (groups === undefined || groups.some((group) => !/^[0-9a-f]{1,4}$/.test(group))) return address;
  return `${groups.slice(0, 4).map((group) => group.replace(/^0+(?=.)/, '')).join(':')}::/64`;
}
