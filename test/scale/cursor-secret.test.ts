import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { startSandbox, type Sandbox } from '../../sandbox/index.ts';
import { startProductionGateway, type GatewayProcess } from '../support/gateway-process.ts';
import { until } from '../support/time.ts';
import { graphql, logLines } from './support/http.ts';

// Sealed cursors across gateway processes (a restart, another replica, the workers of one): the
// real process, as `npm start` runs it, reading CURSOR_SECRET from its environment.

const SECRET = 'one secret for every replica, 32+ characters';
const TOKEN = 'demo-token-acme';

let sandbox: Sandbox;
let gateway: GatewayProcess | undefined;

beforeAll(async () => {
  sandbox = await startSandbox();
});
afterEach(async () => {
  await gateway?.stop();
  gateway = undefined;
});
afterAll(async () => {
  await sandbox.close();
});

async function startWith(cursorSecret: string | undefined, workers = 1): Promise<string> {
  const started = await startProductionGateway(
    { UPSTREAM_URL: sandbox.url, LOG_LEVEL: 'info', WORKERS: String(workers), ...(cursorSecret === undefined ? {} : { CURSOR_SECRET: cursorSecret }) },
    40_000,
  );
  gateway = started.process;
  return started.origin;
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
async function movedLines(count: number): Promise<Record<string, unknown>[]> {
  const lines = () => logLines(gateway!.stdout()).filter((line) => line.msg === 'cursor record was not where the cursor left it');
  return until(`${count} anchor log lines`, () => (lines().length >= count ? lines() : undefined), 20_000);
}

function listIds(): string[] {
  const account = sandbox.tokens.find((token) => token.token === TOKEN)!.businessAccountId;
  return sandbox.store.exceptions(account).map((record) => record.id);
}

/** Live steps until one exception arrives at the head of the account's list. */
function arrive(): void {
  const before = listIds().length;
  for (let step = 0; step < 50 && listIds().length === before; step++) sandbox.live.step();
  expect(listIds().length).toBe(before + 1);
}

describe('a cursor handed out by another gateway process', () => {
  it('keeps its record under the same CURSOR_SECRET, and is refused with CURSOR_OTHER_KEYS under another or without one', async () => {
    const before = listIds();
    let origin = await startWith(SECRET);
    const first = await page(origin);
    expect(first.ids).toEqual(before.slice(0, 3));
    await gateway!.stop();

    // A record arrives before the cursor's: only its anchor tells where the cursor's record went.
    arrive();

    origin = await startWith(SECRET);
    expect((await page(origin, first.endCursor)).ids).toEqual(before.slice(3, 6));
    expect((await movedLines(1)).map((line) => line.anchor)).toEqual(['moved']);
    await gateway!.stop();

    // Another secret (a rotation, or a changed key id): refused, the client restarts paging.
    origin = await startWith('another deployment has this secret, 32+ ch');
    expect(await refusal(origin, first.endCursor)).toEqual([[OTHER_KEYS, 'BAD_USER_INPUT', 'CURSOR_OTHER_KEYS']]);
    await gateway!.stop();

    // Without a secret: keys of its own, which sealed nothing the client holds.
    origin = await startWith(undefined);
    expect(await refusal(origin, first.endCursor)).toEqual([[OTHER_KEYS, 'BAD_USER_INPUT', 'CURSOR_OTHER_KEYS']]);
    await gateway!.stop();
  }, 120_000);
});

describe('the workers of one instance without CURSOR_SECRET', () => {
  it('read each other\'s cursors with their anchor: they share the key the primary drew', async () => {
    const before = listIds();
    const origin = await startWith(undefined, 2);
    const first = await page(origin);
    arrive();
    // Each request opens a new connection; the primary hands connections to the workers in turn.
    for (let request = 0; request < 6; request++) expect((await page(origin, first.endCursor)).ids).toEqual(before.slice(3, 6));
    const moved = await movedLines(6);
    expect(moved.map((line) => line.anchor)).toEqual(Array(6).fill('moved'));
    expect(new Set(moved.map((line) => line.worker)).size).toBe(2);
    await gateway!.stop();

    // The key they drew is theirs alone: another instance refuses their cursor.
    const other = await startWith(undefined, 2);
    for (let request = 0; request < 2; request++) expect(await refusal(other, first.endCursor)).toEqual([[OTHER_KEYS, 'BAD_USER_INPUT', 'CURSOR_OTHER_KEYS']]);
  }, 120_000);
});
