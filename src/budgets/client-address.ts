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
