/**
 * Test and benchmark controls under /__sandbox/ on the API listener. Served
 * only on a loopback bind, need no token, and are not recorded as platform
 * requests.
 */
import type { IncomingMessage } from 'node:http';
import { isFaultTarget, ROUTE_NAMES } from './faults.ts';
import type { Fault, FaultRegistry, RouteName } from './faults.ts';
import { plainError, json, readBody } from '../http.ts';
import type { Reply } from '../http.ts';
import type { RequestLog } from './request-log.ts';
import type { PlatformStore } from '../data/store.ts';
import { exampleIds } from '../data/examples.ts';
import { isZoneDesignator } from '../../src/settings/sandbox-settings.ts';

export const ADMIN_PREFIX = '/__sandbox/';

export interface AdminEnv {
  readonly faults: FaultRegistry;
  readonly log: RequestLog;
  readonly store: PlatformStore;
  setLinxEnvelope(on: boolean): void;
  /** Throws a RangeError for a designator the sandbox cannot write. */
  setZoneDesignator(designator: string): void;
  /** Re-seeds the data, clears the faults and restores the configured LinX answer shape and zone designator; the request log stays. */
  reset(): void;
  now(): number;
}

const ok = (body: unknown = { ok: true }): Reply => json(200, JSON.stringify(body));

async function readJson(req: IncomingMessage): Promise<unknown> {
  const raw = await readBody(req, 65_536);
  if (raw === undefined) throw new TypeError('body too large');
  try {
    return raw.length === 0 ? {} : JSON.parse(raw.toString('utf8'));
  } catch {
    throw new TypeError('body is not valid JSON');
  }
}

/** What a benchmark or a manual tester needs to address the seeded data. */
function fixtures(store: PlatformStore): unknown {
  return {
    businessAccounts: store.profiles().map((profile) => {
      const ba = profile.businessAccountId;
      return {
        token: profile.token,
        businessAccountId: ba,
        businessAccountName: profile.businessAccountName,
        financialAccounts: store.financialAccounts(ba),
        linxTemplates: store.linxTemplates(ba),
        assignees: store.assignees(ba),
        documents: store.documents(ba).map(({ id, documentType, holderType, status, extension }) => ({ id, documentType, holderType, status, extension })),
        examples: (({ documentToUpdate, ...ids }) => ({ ...ids, documentToUpdate: documentToUpdate.id }))(exampleIds(store, ba)),
      };
    }),
  };
}

export async function handleAdmin(env: AdminEnv, req: IncomingMessage, path: string, params: URLSearchParams): Promise<Reply> {
  const action = `${req.method ?? ''} ${path.slice(ADMIN_PREFIX.length)}`;
  try {
    switch (action) {
      case 'POST faults': {
        const body = (await readJson(req)) as { route?: unknown; fault?: unknown };
        // set() checks both and throws a TypeError naming what is wrong.
        env.faults.set(body.route as RouteName, body.fault as Fault);
        return ok();
      }
      case 'DELETE faults': {
        const route = params.get('route') ?? undefined;
        if (route !== undefined && !isFaultTarget(route)) throw new TypeError(`route must be one of *, ${ROUTE_NAMES.join(', ')}`);
        env.faults.clear(route);
        return ok();
      }
      case 'GET requests': {
        const summary = env.log.summary();
        return ok(params.get('detail') === '1' ? { ...summary, requests: env.log.requests } : summary);
      }
      case 'DELETE requests':
        env.log.reset();
        return ok();
      case 'POST reset':
        req.resume();
        env.reset();
        return ok();
      case 'POST linx-envelope': {
        const body = (await readJson(req)) as { on?: unknown };
        if (typeof body.on !== 'boolean') throw new TypeError('on must be a boolean');
        env.setLinxEnvelope(body.on);
        return ok({ on: body.on });
      }
      case 'POST zone-designator': {
        const body = (await readJson(req)) as { designator?: unknown };
        if (typeof body.designator !== 'string' || !isZoneDesignator(body.designator)) {
          throw new TypeError('designator must be Z, +0000, +00:00 or another offset such as +02:00 or -0530 (up to ±23:59)');
        }
        env.setZoneDesignator(body.designator);
        return ok({ designator: body.designator });
      }
      case 'GET fixtures':
        return ok(fixtures(env.store));
      case 'POST live/step':
        // One live step now, whether or not live mode runs on its timer: what a test or a demo waits to see.
        req.resume();
        return ok({ changes: env.store.liveStep() });
      default:
        req.resume();
        return plainError(404, `No sandbox control ${action}`, env.now());
    }
  } catch (error) {
    if (error instanceof TypeError) return plainError(400, error.message, env.now());
    throw error;
  }
}
