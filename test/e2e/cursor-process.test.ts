import { describe, expect, it } from '@jest/globals';
import { gatewaysOverSandbox } from '../support/gateways-over-sandbox.ts';
import { graphql, logLines } from '../scale/support/http.ts';

// Cursors through the real process (`node dist/main.js`, as `npm start` runs it): across a renewed
// token, another account, a restart, a rotation of CURSOR_SECRET, and each reason a cursor is refused.

const SECRET = 'one secret for every replica, 32+ characters';
const ACME = 'demo-token-acme';
/** Another token of Acme's account, as after a renewal (docs/sandbox.md). */
const RENEWED = 'demo-token-acme-renewed';
const GLOBEX = 'demo-token-globex';
/** The cursor's own bytes (version, index), the binding digest, then the secret id. */
const SECRET_ID_AT = 11;

const gateways = gatewaysOverSandbox({ LOG_LEVEL: 'info' }, 40_000);

interface Answer {
  ids: string[] | null;
  endCursor: string | null;
  cursors: string[];
  errors: [string | undefined, string][] | undefined;
}

async function page(origin: string, token: string, after?: string, filter = ''): Promise<Answer> {
  const args = [`first: 3`, ...(after === undefined ? [] : [`after: ${JSON.stringify(after)}`]), ...(filter ? [`filter: ${filter}`] : [])].join(', ');
  const answer = await graphql(origin, `{ exceptions(${args}) { edges { cursor node { id } } pageInfo { endCursor } } }`, { authorization: `Bearer ${token}` });
  const body = answer.json<{ data: { exceptions: { edges: { cursor: string; node: { id: string } }[]; pageInfo: { endCursor: string } } | null }; errors?: { message: string; extensions: { reason?: string } }[] }>();
  const exceptions = body.data.exceptions;
  return {
    ids: exceptions?.edges.map((edge) => edge.node.id) ?? null,
    endCursor: exceptions?.pageInfo.endCursor ?? null,
    cursors: exceptions?.edges.map((edge) => edge.cursor) ?? [],
    errors: body.errors?.map((error) => [error.extensions.reason, error.message]),
  };
}

const idsOf = (token: string) => gateways.sandbox.store.exceptions(gateways.sandbox.tokens.find((demo) => demo.token === token)!.businessAccountId).map((record) => record.id);

function refusal(reason: string, message: string): Answer {
  return { ids: null, endCursor: null, cursors: [], errors: [[reason, message]] };
}

function changed(cursor: string, at: number): string {
  const bytes = Buffer.from(cursor, 'base64url');
  bytes[at] = (bytes[at] as number) ^ 0x01;
  return bytes.toString('base64url');
}

describe('cursors of the real process, two workers sharing CURSOR_SECRET', () => {
  it("page on with a renewed token of the same account, refuse another account's with CURSOR_OTHER_CALLER, and refuse each broken cursor with its reason", async () => {
    const { origin, process: gateway } = await gateways.start({ CURSOR_SECRET: SECRET, WORKERS: '2' });
    const acme = idsOf(ACME);
    const first = await page(origin, ACME);
    expect(first.ids).toEqual(acme.slice(0, 3));

    // Page 2 with the renewed token continues page 1, from the endCursor and from each edge's cursor.
    expect((await page(origin, RENEWED, first.endCursor!)).ids).toEqual(acme.slice(3, 6));
    for (const [index, cursor] of first.cursors.entries()) expect((await page(origin, RENEWED, cursor)).ids).toEqual(acme.slice(index + 1, index + 4));

    // Another account's token: refused, never Acme's rows.
    expect(await page(origin, GLOBEX, first.endCursor!)).toEqual(refusal('CURSOR_OTHER_CALLER', "after cursor belongs to another account's list; restart paging without it"));
    const globex = await page(origin, GLOBEX);
    expect(globex.ids).toEqual(idsOf(GLOBEX).slice(0, 3));
    expect(await page(origin, ACME, globex.endCursor!)).toEqual(refusal('CURSOR_OTHER_CALLER', "after cursor belongs to another account's list; restart paging without it"));

    expect(await page(origin, ACME, 'no-cursor')).toEqual(
      refusal('CURSOR_MALFORMED', 'after is not a cursor of this connection; pass a startCursor, endCursor or edge cursor from a previous page, or restart paging without it'),
    );
    expect(await page(origin, ACME, changed(first.endCursor!, 50))).toEqual(
      refusal('CURSOR_TAMPERED', 'after cursor was changed after the gateway issued it; pass cursors back exactly as received, or restart paging without it'),
    );
    expect(await page(origin, ACME, changed(first.endCursor!, SECRET_ID_AT))).toEqual(
      refusal('CURSOR_OTHER_KEYS', 'after cursor was sealed under keys this gateway does not hold (a rotated CURSOR_SECRET, another gateway instance, or an earlier cursor format); restart paging without it'),
    );
    expect(await page(origin, ACME, first.endCursor!, '{ status: [NEW] }')).toEqual(refusal('CURSOR_OTHER_CONNECTION', 'after cursor does not belong to this filter/order; restart paging without it'));
    // No warning: the secret is set.
    expect(logLines(gateway.stdout()).filter((line) => line.setting === 'CURSOR_SECRET')).toEqual([]);
  }, 120_000);
});

describe('cursors of one process read by another', () => {
  it('open under the same secret after a restart, under the previous secret during a rotation, and are refused with CURSOR_OTHER_KEYS under another', async () => {
    const acme = idsOf(ACME);
    let gateway = await gateways.start({ CURSOR_SECRET: SECRET });
    const first = await page(gateway.origin, ACME);
    await gateways.stop();

    gateway = await gateways.start({ CURSOR_SECRET: SECRET });
    expect((await page(gateway.origin, RENEWED, first.endCursor!)).ids).toEqual(acme.slice(3, 6));
    await gateways.stop();

    const rotated = 'the secret after the rotation, 32+ characters';
    gateway = await gateways.start({ CURSOR_SECRET: rotated, CURSOR_SECRET_PREVIOUS: SECRET });
    expect((await page(gateway.origin, ACME, first.endCursor!)).ids).toEqual(acme.slice(3, 6));
    const sealedAfter = (await page(gateway.origin, ACME)).endCursor!;
    await gateways.stop();

    gateway = await gateways.start({ CURSOR_SECRET: rotated });
    expect((await page(gateway.origin, ACME, sealedAfter)).ids).toEqual(acme.slice(3, 6));
    expect(await page(gateway.origin, ACME, first.endCursor!)).toEqual(
      refusal('CURSOR_OTHER_KEYS', 'after cursor was sealed under keys this gateway does not hold (a rotated CURSOR_SECRET, another gateway instance, or an earlier cursor format); restart paging without it'),
    );
  }, 160_000);
});

describe('a production start-up without CURSOR_SECRET', () => {
  it('warns that other replicas and restarts will refuse its cursors, and refuses those of another instance', async () => {
    const first = await page((await gateways.start({ CURSOR_SECRET: SECRET })).origin, ACME);
    await gateways.stop();
    const { origin, process: gateway } = await gateways.start({ WORKERS: '2' });
    await gateway.waitFor(/"setting":"CURSOR_SECRET"/, 5_000);
    const warnings = logLines(gateway.stdout()).filter((line) => line.setting === 'CURSOR_SECRET');
    expect(warnings.map((line) => [line.level, line.msg])).toEqual([
      [
        40,
        "CURSOR_SECRET is not set: this instance's 2 workers share a key drawn at start-up, so every other replica, and this one after a restart, refuses its cursors (CURSOR_OTHER_KEYS) and clients lose their place in every list. Set the same CURSOR_SECRET (32 characters or more) on every replica.",
      ],
    ]);
    expect((await page(origin, ACME, first.endCursor!)).errors?.map(([reason]) => reason)).toEqual(['CURSOR_OTHER_KEYS']);
  }, 120_000);
});
