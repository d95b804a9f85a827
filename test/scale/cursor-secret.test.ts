import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { startSandbox, type Sandbox } from '../../sandbox/index.ts';
import { startProductionGateway, type GatewayProcess } from '../support/gateway-process.ts';
import { until } from '../support/time.ts';
import { graphql, logLines } from './support/http.ts';

// Sealed cursors across gateway processes (a restart, another replica): the real process, as
// `npm start` runs it, reading CURSOR_SECRET from its environment.

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
  it('keeps its record under the same CURSOR_SECRET, is refused under another, and pages on from its position without one', async () => {
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
    const refused = await graphql(origin, `{ exceptions(first: 3, after: ${JSON.stringify(first.endCursor)}) { nodes { id } } }`);
    expect(refused.json<{ errors: { message: string; extensions: { code: string } }[] }>().errors.map((error) => [error.message, error.extensions.code])).toEqual([
      ['after is not a cursor of this connection; pass a startCursor, endCursor or edge cursor from a previous page, or restart paging without it', 'BAD_USER_INPUT'],
    ]);
    await gateway!.stop();

    // Without a secret: read as its position alone, the page starts at position 3 of the list as it is now.
    origin = await startWith(undefined);
    expect((await page(origin, first.endCursor)).ids).toEqual(listIds().slice(3, 6));
    expect(listIds().slice(3, 6)).toEqual(before.slice(2, 5));
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

    // The key they drew is theirs alone: another instance reads their cursor as its position, as without a secret.
    const other = await startWith(undefined, 2);
    for (let request = 0; request < 2; request++) expect((await page(other, first.endCursor)).ids).toEqual(listIds().slice(3, 6));
  }, 120_000);
});
