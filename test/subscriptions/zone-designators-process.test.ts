import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createClient, type Client } from 'graphql-sse';
import { startProductionGateway, type ProductionGateway } from '../support/gateway-process.ts';
import { until } from '../support/time.ts';
import { liveCreatedAt, liveUpdatedAt } from '../../sandbox/data/live.ts';

// The feeds of the gateway process against its embedded sandbox switched to each spelling of a
// date-time's zone designator the contract allows: every change of every feed is sent, whatever the
// spelling, and the same instant is answered in UTC.

const POLL_MS = 250;
const ACME = 'demo-token-acme';
/** `+0000` last: the feeds keep their positions across the switches, and a spelling a feed could not read would send nothing. */
const DESIGNATORS: readonly [string, number][] = [['Z', 0], ['+00:00', 0], ['+02:00', 120], ['-05:30', -330], ['+0000', 0]];

interface Fixtures {
  businessAccounts: { token: string; businessAccountId: string; financialAccounts: string[]; linxTemplates: { templateId: string; versions: { templateVersionId: string }[] }[] }[];
}
interface Change {
  kind: string;
  businessAccountId: string;
  id: string;
  step: number;
  financialAccountId?: string;
}
interface Edge {
  cursor: string;
  node: { id: string; updatedAt?: string; createdAt?: string };
}

let gateway: ProductionGateway;
let client: Client;
let acme: Fixtures['businessAccounts'][number];
/** Each feed's received edges, in order. */
const received = new Map<string, Edge[]>();
const failures: unknown[] = [];

async function admin<T>(path: string, init: RequestInit = {}): Promise<T> {
  const response = await fetch(`${gateway.platform!}/__sandbox/${path}`, init);
  expect(response.status).toBe(200);
  return (await response.json()) as T;
}

/** The number of platform reads of `path` so far. */
async function reads(path: string): Promise<number> {
  const { requests } = await admin<{ requests: { path: string }[] }>('requests?detail=1');
  return requests.filter((request) => request.path === path).length;
}

/** Opens `query` as feed `name` and keeps every edge it sends. */
function open(name: string, field: string, query: string, variables: Record<string, unknown>): void {
  const edges: Edge[] = [];
  received.set(name, edges);
  void (async () => {
    for await (const result of client.iterate<Record<string, Edge>>({ query, variables })) {
      if (result.errors) failures.push({ name, errors: result.errors });
      else edges.push(result.data![field]!);
    }
  })().catch((error: unknown) => failures.push({ name, error }));
}

/** The live instant of a change, as the gateway answers it: the sandbox's stored `+0000` text in UTC ISO form. */
const utc = (stored: string) => `${stored.slice(0, 23)}Z`;

beforeAll(async () => {
  gateway = await startProductionGateway({ SUBSCRIPTION_POLL_MS: String(POLL_MS) });
  acme = (await admin<Fixtures>('fixtures')).businessAccounts.find((account) => account.token === ACME)!;
  client = createClient({ url: `${gateway.origin}/graphql`, headers: { authorization: `Bearer ${ACME}` } });
  open('exceptions', 'exceptionsChanged', 'subscription { exceptionsChanged { cursor node { id updatedAt } } }', {});
  for (const template of acme.linxTemplates) {
    for (const version of template.versions) {
      open(`linx ${version.templateVersionId}`, 'linxBatchesChanged', 'subscription($filter: LinxBatchFilter!) { linxBatchesChanged(filter: $filter) { cursor node { id updatedAt } } }', {
        filter: { templateId: template.templateId, templateVersionId: version.templateVersionId },
      });
    }
  }
  for (const account of acme.financialAccounts) {
    open(`acceptances ${account}`, 'documentAcceptancesAdded', 'subscription($account: ID!) { documentAcceptancesAdded(financialAccountId: $account) { cursor node { id createdAt } } }', { account });
  }
  // Every feed has read its list's head once: a change from now on is one to send.
  const feeds = 1 + acme.linxTemplates.reduce((sum, template) => sum + template.versions.length, 0);
  await until('the first poll of every feed', async () => ((await reads('/exceptions')) >= 1 && (await reads('/v2/linx/workflow-batches')) >= feeds - 1 && (await reads('/v1/acceptances')) >= acme.financialAccounts.length ? true : undefined), 20_000);
}, 60_000);

afterAll(async () => {
  client?.dispose();
  await gateway?.process.stop();
});

describe('feeds against a platform spelling its date-times differently', () => {
  it.each(DESIGNATORS)('send every change of exceptions, LinX batches and acceptances with the zone written %s', async (designator, offsetMinutes) => {
    expect(await admin('zone-designator', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ designator }) })).toEqual({ designator });
    // The sandbox now writes that spelling: a read of its list shows it.
    const [account] = acme.financialAccounts;
    const sample = await (await fetch(`${gateway.platform!}/v1/acceptances?financialAccountId=${account!}&size=1`, { headers: { authorization: `Bearer ${ACME}` } })).json() as { content: { createdAt: string }[] };
    expect(sample.content[0]!.createdAt.endsWith(designator)).toBe(true);
    const wallShift = Date.parse(`${sample.content[0]!.createdAt.slice(0, 23)}Z`) - Date.parse(sample.content[0]!.createdAt);
    expect(wallShift).toBe(offsetMinutes * 60_000);

    const counts = new Map([...received].map(([name, edges]) => [name, edges.length]));
    const { changes } = await admin<{ changes: Change[] }>('live/step', { method: 'POST' });
    const ours = changes.filter((change) => change.businessAccountId === acme.businessAccountId);
    const exceptionIds = ours.filter((change) => change.kind === 'arrived' || change.kind === 'status').map((change) => change.id);
    const linxIds = ours.filter((change) => change.kind === 'linx').map((change) => change.id);
    const acceptances = ours.filter((change) => change.kind === 'acceptance');
    expect(exceptionIds.length).toBeGreaterThan(0);
    expect(acceptances.length).toBeGreaterThan(0);

    const news = (name: string) => received.get(name)!.slice(counts.get(name));
    const linxNews = () => [...received.keys()].filter((name) => name.startsWith('linx ')).flatMap(news);
    await until(
      'every change sent',
      () =>
        news('exceptions').length >= exceptionIds.length && linxNews().length >= linxIds.length && acceptances.every((change) => news(`acceptances ${change.financialAccountId!}`).length >= 1) ? true : undefined,
      15_000,
    );
    expect(failures).toEqual([]);
    expect(news('exceptions').map((edge) => edge.node.id).sort()).toEqual([...exceptionIds].sort());
    expect(linxNews().map((edge) => edge.node.id).sort()).toEqual([...linxIds].sort());
    for (const change of acceptances) expect(news(`acceptances ${change.financialAccountId!}`).map((edge) => edge.node.id)).toEqual([change.id]);
    // Each instant answered in UTC, the one the sandbox stored for the step, whatever the spelling it was sent in.
    const step = ours[0]!.step;
    expect([...news('exceptions'), ...linxNews()].map((edge) => edge.node.updatedAt)).toEqual([...exceptionIds, ...linxIds].map(() => utc(liveUpdatedAt(step))));
    expect(acceptances.map((change) => news(`acceptances ${change.financialAccountId!}`)[0]!.node.createdAt)).toEqual(acceptances.map(() => utc(liveCreatedAt(step))));
  });
});
