import { hash, randomBytes } from 'node:crypto';
import type { PlatformCall } from './policy.ts';
import type { Answer, Exchange } from './upstream-call.ts';

/** A GET in flight that identical GETs of other requests join instead of calling again. */
export interface SharedRead {
  readonly key: string;
  readonly answer: Promise<Answer>;
  /** Stops the call once every caller waiting on it has gone. */
  readonly controller: AbortController;
  /** Callers still waiting for the answer. */
  callers: number;
}

/**
 * The shared-reads stage: deduplication across requests. Identical GETs (same credentials, same
 * path and query) of concurrent requests share one call while it is in flight, and nothing is
 * kept once it settles, so a request never sees an answer fetched before it asked. Deduplication
 * within one request is the request's own DataLoader's (client.ts): a request reaches this stage
 * at most once per path, so every caller of a shared read is a different request.
 */
export class SharedReads {
  /** Whether identical GETs of concurrent requests share a call (UPSTREAM_SHARE_READS). */
  readonly enabled: boolean;
  /** Identical GETs in flight, by credentialKey + path and query; an entry leaves when its call settles or is stopped. */
  private readonly reads = new Map<string, SharedRead>();
  /** Salts the credential part of `reads`' keys, so they never hold a token nor a plain hash of one. */
  private readonly credentialSecret = randomBytes(32).toString('base64url');

  constructor(enabled: boolean) {
    this.enabled = enabled;
  }

  /** What identifies a caller's credentials in the shared-read keys: a keyed hash, never the token. */
  credentialKey(authorization: string): string {
    // A one-shot SHA-256 of a per-process random secret and the header rather than an HMAC: as
    // unguessable for this use (an in-memory map key, compared for equality only), for less work.
    return hash('sha256', `${this.credentialSecret}\n${authorization}`, 'base64url');
  }

  /** Whether a GET with these credentials and path would join a call in flight (and so cost the platform nothing). */
  joins(credential: string, pathAndQuery: string): boolean {
    return this.enabled && this.reads.has(`${credential} ${pathAndQuery}`);
  }

  /**
   * The call's key among the shared reads, built once per call (and its credentials' part once per
   * request): undefined for a call that is never shared (a PUT, or sharing off).
   */
  keyOf(call: PlatformCall): string | undefined {
    if (!this.enabled || call.method !== 'GET') return undefined;
    if (call.readKey !== undefined) return call.readKey;
    let credential: string;
    if (call.caller === undefined) credential = this.credentialKey(call.authorization);
    else credential = call.caller.credential ??= this.credentialKey(call.authorization);
    return (call.readKey = `${credential} ${call.pathAndQuery}`);
  }

  /** Whether the call would join a read in flight, and so cost the platform nothing. */
  joinsCall(call: PlatformCall): boolean {
    const key = this.keyOf(call);
    return key !== undefined && this.reads.has(key);
  }

  /** The read in flight under `key`, if any. */
  inFlight(key: string): SharedRead | undefined {
    return this.reads.get(key);
  }

  /** Shared reads in flight and the callers waiting on them, for tests and diagnostics. */
  counts(): { calls: number; callers: number } {
    let callers = 0;
    for (const read of this.reads.values()) callers += read.callers;
    return { calls: this.reads.size, callers };
  }

  /**
   * A GET that identical GETs of other requests may join until it settles. Its own signal stops it
   * once every caller waiting on it has gone (see wait()), with the reason of the last one to go.
   */
  start(key: string, exchange: Exchange): SharedRead {
    const controller = new AbortController();
    const read: SharedRead = {
      key,
      controller,
      callers: 0,
      answer: exchange(controller.signal, () => Math.max(1, read.callers)).finally(() => {
        if (this.reads.get(key) === read) this.reads.delete(key);
      }),
    };
    // Every caller may have gone before it settles: its failure then has no one left to tell.
    read.answer.catch(() => {});
    this.reads.set(key, read);
    return read;
  }

  /** The shared answer for one caller: it stops waiting at its own deadline or hang-up, without stopping the call for the others. */
  wait(read: SharedRead, signal: AbortSignal | undefined): Promise<Answer> {
    read.callers++;
    if (signal === undefined) return read.answer;
    return new Promise<Answer>((resolve, reject) => {
      const leave = () => {
        reject(signal.reason);
        if (--read.callers > 0) return;
        // Nobody waits any more: a later identical GET starts afresh rather than joining a stopped call.
        if (this.reads.get(read.key) === read) this.reads.delete(read.key);
        read.controller.abort(signal.reason);
      };
      signal.addEventListener('abort', leave, { once: true });
      read.answer.then(
        (answer) => {
          signal.removeEventListener('abort', leave);
          resolve(answer);
        },
        (error: unknown) => {
          signal.removeEventListener('abort', leave);
          reject(error);
        },
      );
    });
  }
}
