import { describe, expect, it } from '@jest/globals';
import type { GatewayProcess } from '../support/gateway-process.ts';
import { gatewaysOverSandbox } from '../support/gateways-over-sandbox.ts';
import { until } from '../support/time.ts';
import { graphql, logLines } from './support/http.ts';

// Sealed cursors across gateway processes (a restart, another replica, the workers of one): the
// real process, as `npm start` runs it, reading CURSOR_SECRET from its environment.

const SECRET = 'one secret for every replica, 32+ characters';
const TOKEN = 'demo-token-acme';

const gateways = gatewaysOverSandbox({ LOG_LEVEL: 'info' }, 40_000);

function startWith(cursorSecret: string | undefined, workers = 1) {
  return gateways.start({ WORKERS: String(workers), ...(cursorSecret === undefined ? {} : { CURSOR_SECRET: cursorSecret }) });
}

interface Page {
  ids: string[];
  endCursor: string;
}

async function page(origin: string, after?: string): Promise<Page> {
  const answer = await graphql(origin, `{ exceptions(first: 3${after === undefined ? '' : `, after: ${JSON.stringify(after)}`}) { nodes { id } pageInfo { endCursor } } }`);
  const body = answer.json<{ data: { exceptions: { nodes: { id: string }[]; pageInfo: { endCursor: string } } } }>();
  return { ids: body.data.exceptions.nodes.map((node) => node.id), endCursor: body.data.exceptions.pageInfo.endCursor };
}

const OTHER_KEYS = 'after cursor was sealed under keys this gateway does not hold (a rotated CURSOR_SECRET, another gateway instance, or an earlier cursor format); restart paging without it';

/** The refusal of `after`: message, code and reason of each error. */
async function refusal(origin: string, after: string): Promise<[string, string, string][]> {
  const answer = await graphql(origin, `{ exceptions(first: 3, after: ${JSON.stringify(after)}) { nodes { id } } }`);
  return answer.json<{ errors: { message: string; extensions: { code: string; reason: string } }[] }>().errors.map((error) => [error.message, error.extensions.code, error.extensions.reason]);
}

/** The anchor outcomes logged once `count` of them are (log lines are written in batches). */
async function movedLines(gateway: GatewayProcess, count: number): Promise<Record<string, unknown>[]> {
  const lines = () => logLines(gateway.stdout()).filter((line) => line.msg === 'cursor record was not where the cursor left it');
  return until(`${count} anchor log lines`, () => (lines().length >= count ? lines() : undefined), 20_000);
}

function listIds(): string[] {
  const { store, tokens } = gateways.sandbox;
  const account = tokens.find((token) => token.token === TOKEN)!.businessAccountId;
  return store.exceptions(account).map((record) => record.id);
}

/** Live steps until one exception arrives at the head of the account's list. */
function arrive(): void {
  const before = listIds().length;
  for (let step = 0; step < 50 && listIds().length === before; step++) gateways.sandbox.live.step();
  expect(listIds().length).toBe(before + 1);
}

describe('a cursor handed out by another gateway process', () => {
  it('keeps its record under the same CURSOR_SECRET, and is refused with CURSOR_OTHER_KEYS under another or without one', async () => {
    const before = listIds();
    let gateway = await startWith(SECRET);
    const first = await page(gateway.origin);
    expect(first.ids).toEqual(before.slice(0, 3));
    await gateways.stop();

    // A record arrives before the cursor's: only its anchor tells where the cursor's record went.
    arrive();

    gateway = await startWith(SECRET);
    expect((await page(gateway.origin, first.endCursor)).ids).toEqual(before.slice(3, 6));
    expect((await movedLines(gateway.process, 1)).map((line) => line.anchor)).toEqual(['moved']);
    await gateways.stop();

    // Another secret (a rotation, or a changed key id): refused, the client restarts paging.
    gateway = await startWith('another deployment has this secret, 32+ ch');
    expect(await refusal(gateway.origin, first.endCursor)).toEqual([[OTHER_KEYS, 'BAD_USER_INPUT', 'CURSOR_OTHER_KEYS']]);
    await gateways.stop();

    // Without a secret: keys of its own, which sealed nothing the client holds.
    gateway = await startWith(undefined);
    expect(await refusal(gateway.origin, first.endCursor)).toEqual([[OTHER_KEYS, 'BAD_USER_INPUT', 'CURSOR_OTHER_KEYS']]);
  }, 120_000);
});

describe('the workers of one instance without CURSOR_SECRET', () => {
  it('read each other\'s cursors with their anchor: they share the key the primary drew', async () => {
    const before = listIds();
    const { origin, process } = await startWith(undefined, 2);
    const first = await page(origin);
    arrive();
    // Each request opens a new connection; the primary hands connections to the workers in turn.
    for (let request = 0; request < 6; request++) expect((await page(origin, first.endCursor)).ids).toEqual(before.slice(3, 6));
    const moved = await movedLines(process, 6);
    expect(moved.map((line) => line.anchor)).toEqual(Array(6).fill('moved'));
    expect(new Set(moved.map((line) => line.worker)).size).toBe(2);
    await gateways.stop();

    // The key they drew is theirs alone: another instance refuses their cursor.
    const { origin: other } = await startWith(undefined, 2);
    for (let request = 0; request < 2; request++) expect(await refusal(other, first.endCursor)).toEqual([[OTHER_KEYS, 'BAD_USER_INPUT', 'CURSOR_OTHER_KEYS']]);
  }, 120_000);
});
