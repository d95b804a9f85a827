import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startSandbox } from '../../sandbox/index.ts';
import type { AcceptanceRecord, ExceptionRecord, LinxBatchRecord, Sandbox } from '../../sandbox/index.ts';
import { accountOf } from '../support/expected.ts';
import { ACME, get } from './client.ts';
import type { Page } from './client.ts';

let sandbox: Sandbox;
let acme: string;

beforeAll(async () => {
  sandbox = await startSandbox();
  acme = accountOf(sandbox, ACME);
});
afterAll(() => sandbox.close());

async function step(): Promise<{ kind: string; businessAccountId: string; id: string; step: number }[]> {
  const response = await fetch(`${sandbox.url}/__sandbox/live/step`, { method: 'POST' });
  expect(response.status).toBe(200);
  return ((await response.json()) as { changes: { kind: string; businessAccountId: string; id: string; step: number }[] }).changes;
}

describe('live mode beyond the exceptions', () => {
  it('moves a LinX batch, adds an acceptance and stamps each change after every seeded updatedAt, so a sort by updatedAt DESC shows it first', async () => {
    sandbox.store.reset();
    const seededLatest = Math.max(...sandbox.store.exceptions(acme).map((record) => Date.parse(record.updatedAt.replace(/(\d\d)(\d\d)$/, '$1:$2'))));
    const changes = (await step()).filter((change) => change.businessAccountId === acme);
    expect(changes.map((change) => [change.kind, change.step])).toEqual(
      expect.arrayContaining([['arrived', 1], ['linx', 1], ['acceptance', 1]]),
    );

    // Exceptions: the newest change (the arrival, or a status change of the same step) heads the updatedAt order.
    const byUpdate = await get<Page<ExceptionRecord>>(sandbox, '/exceptions?sort=updatedAt,DESC&size=2');
    const changedIds = changes.filter((change) => change.kind === 'arrived' || change.kind === 'status').map((change) => change.id).sort();
    expect(byUpdate.body.content.filter((record) => record.updatedAt === '2026-10-08T00:01:00.000+0000').map((record) => record.id).sort()).toEqual(changedIds);
    expect(Date.parse('2026-10-08T00:01:00.000Z')).toBeGreaterThan(seededLatest);

    // LinX: the batch that moved is the first of its template version by updatedAt DESC.
    const linx = changes.find((change) => change.kind === 'linx')!;
    const batch = sandbox.store.linxBatches(acme).find((record) => record.id === linx.id)!;
    const batches = await get<LinxBatchRecord[]>(sandbox, `/v2/linx/workflow-batches?templateId=${batch.templateId}&templateVersionId=${batch.templateVersionId}&sort=updatedAt,DESC&size=1`);
    expect(batches.body.map((record) => [record.id, record.updatedAt])).toEqual([[linx.id, '2026-10-08T00:01:00.000+0000']]);

    // Acceptances: the new one heads its Financial Account's createdAt DESC order.
    const acceptance = changes.find((change) => change.kind === 'acceptance') as unknown as { id: string; financialAccountId: string };
    const acceptances = await get<Page<AcceptanceRecord>>(sandbox, `/v1/acceptances?financialAccountId=${acceptance.financialAccountId}&size=1`);
    expect(acceptances.body.content.map((record) => [record.id, record.createdAt])).toEqual([[acceptance.id, '2026-10-01T00:01:00.000+0000']]);
  });

  it('moves waiting documents through their scan, and a reset brings every record back as seeded', async () => {
    sandbox.store.reset();
    const seededBatches = sandbox.store.linxBatches(acme);
    const moved: { id: string; from: string; to: string }[] = [];
    for (let n = 0; n < 30; n++) {
      for (const change of await step()) {
        if (change.kind === 'document' && change.businessAccountId === acme) moved.push(change as unknown as { id: string; from: string; to: string });
      }
    }
    expect(moved.length).toBeGreaterThan(0);
    for (const change of moved) expect([['NEW', 'UPLOADED'], ['UPLOADED', 'SCANNED'], ['UPLOADED', 'MALICIOUS']]).toContainEqual([change.from, change.to]);
    const last = moved.at(-1)!;
    expect(sandbox.store.document(last.id)?.status).toBe(last.to);
    sandbox.store.reset();
    expect(sandbox.store.linxBatches(acme)).toEqual(seededBatches);
    // As seeded: the status before its first live change.
    expect(sandbox.store.document(last.id)?.status).toBe(moved.find((change) => change.id === last.id)!.from);
  });
});
