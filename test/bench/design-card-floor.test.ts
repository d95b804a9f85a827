import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { startDesignCardFloor, type DesignCardFloor } from '../../bench/design-card-floor.ts';
import { discoverFixtures } from '../../bench/lib/sandbox-client.ts';
import { buildWorkloads, type Fixtures, type HttpCall, type Workload } from '../../bench/lib/workloads.ts';
import { startSandbox, type Sandbox } from '../../sandbox/index.ts';
import { bearer, postGraphQL } from '../support/graphql-client.ts';

// The floor over an in-process sandbox, driven with the benchmark's own fixtures and calls (the
// gateway's queries): every answer must pass the benchmark's validators, and the ones checked
// field by field must equal the sandbox's records as the gateway's schema spells them.

const TOKEN = 'demo-token-acme';

let sandbox: Sandbox;
let floor: DesignCardFloor;
let fixtures: Fixtures;
let workloads: Workload[];

beforeAll(async () => {
  sandbox = await startSandbox();
  floor = await startDesignCardFloor({ upstreamUrl: sandbox.url });
  ({ fixtures } = await discoverFixtures(sandbox.url, TOKEN));
  workloads = buildWorkloads(fixtures);
});
afterAll(async () => {
  await floor?.close();
  await sandbox?.close();
});
beforeEach(() => {
  sandbox.setLinxEnvelope(false);
  sandbox.resetRequests();
});

async function send(call: HttpCall): Promise<{ status: number; text: string }> {
  const response = await fetch(floor.url + call.path, { method: call.method, headers: call.headers, ...(call.body === undefined ? {} : { body: call.body }) });
  return { status: response.status, text: await response.text() };
}

function floorCall(id: string): HttpCall {
  const plan = workloads.find((w) => w.id === id)?.plans.floor;
  if (!plan) throw new Error(`no floor plan for (${id})`);
  return plan.calls[0] as HttpCall;
}

async function platform<T>(path: string): Promise<T> {
  const response = await fetch(sandbox.url + path, { headers: { authorization: `Bearer ${TOKEN}` } });
  return (await response.json()) as T;
}

const cursor = (offset: number): string => Buffer.from(String(offset)).toString('base64');

describe('the design-card floor', () => {
  it('answers the gateway\'s query of every read workload so that the benchmark\'s validators accept it', async () => {
    const verdicts = [];
    for (const workload of workloads.filter((w) => w.plans.floor)) {
      const call = floorCall(workload.id);
      const { status, text } = await send(call);
      verdicts.push([workload.id, status, call.validate(status, text) ?? 'valid']);
    }
    expect(verdicts).toEqual([['a', 200, 'valid'], ['b', 200, 'valid'], ['c', 200, 'valid'], ['d', 200, 'valid']]);
  });

  it('answers (d) with the document in the schema\'s spellings', async () => {
    const { status, text } = await send(floorCall('d'));
    expect(status).toBe(200);
    expect(JSON.parse(text)).toEqual({ data: { document: { id: fixtures.document.id, name: 'Passport', status: 'NEW', documentType: 'PASSPORT' } } });
    expect(sandbox.requests.map((r) => `${r.method} ${r.path}`)).toEqual([`GET /v1/documents/${fixtures.document.id}`]);
  });

  it('answers (a) with the first page of exceptions as a connection, from one platform call', async () => {
    type Person = { id: string; firstName: string; lastName: string; email: string };
    type Note = { id: string; title: string; contentText: string };
    const page = await platform<{ totalElements: number; content: Array<{ id: string; status: string; assignedTo?: Person; notes?: Note }> }>('/exceptions?page=0&size=20');
    sandbox.resetRequests();
    const { status, text } = await send(floorCall('a'));
    expect(status).toBe(200);
    expect(page.content).toHaveLength(20);
    expect(JSON.parse(text)).toEqual({
      data: {
        exceptions: {
          edges: page.content.map((record, offset) => ({
            cursor: cursor(offset),
            node: {
              id: record.id,
              status: record.status,
              assignedTo: record.assignedTo ? { id: record.assignedTo.id, firstName: record.assignedTo.firstName, lastName: record.assignedTo.lastName, email: record.assignedTo.email } : null,
              notes: record.notes ? { id: record.notes.id, title: record.notes.title, contentText: record.notes.contentText } : null,
            },
          })),
          pageInfo: { hasNextPage: true, endCursor: 'MTk=' },
          totalCount: page.totalElements,
        },
      },
    });
    expect(sandbox.requests.map((r) => `${r.method} ${r.path}?${r.query} ${r.authorization}`)).toEqual([`GET /exceptions?page=0&size=20 Bearer ${TOKEN}`]);
  });

  it('reads the three areas of (c) with one platform call each', async () => {
    await send(floorCall('c'));
    const template = `templateId=${fixtures.templateId}&templateVersionId=${fixtures.templateVersionId}`;
    expect(sandbox.requests.map((r) => `${r.path}?${r.query}`).sort()).toEqual([
      '/exceptions?page=0&size=20',
      `/v1/acceptances?financialAccountId=${fixtures.financialAccountId}&page=0&size=20`,
      // One row beyond the page: a bare array carries no totals to tell whether there is a next page.
      `/v2/linx/workflow-batches?${template}&page=1&size=21`,
    ]);
  });

  it('pages LinX from a bare array and from a page envelope alike', async () => {
    const query = 'query Linx($templateId: ID!, $templateVersionId: ID!) { linxBatches(filter: { templateId: $templateId, templateVersionId: $templateVersionId }, first: 20) { edges { node { id } } pageInfo { hasNextPage endCursor } totalCount } }';
    const variables = { templateId: fixtures.templateId, templateVersionId: fixtures.templateVersionId };
    type Batches = { linxBatches: { edges: Array<{ node: { id: string } }>; pageInfo: { hasNextPage: boolean; endCursor: string | null }; totalCount: number | null } };
    const ask = async () => (await postGraphQL<Batches>(`${floor.url}/graphql`, { query, variables }, bearer(TOKEN))).body as { data: Batches };
    const scope = `/v2/linx/workflow-batches?templateId=${fixtures.templateId}&templateVersionId=${fixtures.templateVersionId}&page=1&size=1000`;
    const all = await platform<Array<{ id: string }>>(scope);
    // More than a page, so that hasNextPage comes from the row beyond it (bare array) or the total (envelope).
    expect(all.length).toBeGreaterThan(20);
    const expected = { edges: all.slice(0, 20).map(({ id }) => ({ node: { id } })), pageInfo: { hasNextPage: all.length > 20, endCursor: cursor(Math.min(all.length, 20) - 1) } };

    expect((await ask()).data.linxBatches).toEqual({ ...expected, totalCount: null });
    sandbox.setLinxEnvelope(true);
    expect((await ask()).data.linxBatches).toEqual({ ...expected, totalCount: all.length });
  });
});
