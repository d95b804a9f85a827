/**
 * What the benchmark asks of the sandbox: its seeded ids (checked against the
 * platform API with the demo token) and its request log, to count the
 * platform calls a GraphQL request caused.
 */
import type { LiveChange } from '../../sandbox/data/live.ts';
import { PAGE_SIZE } from './workloads.ts';
import type { Fixtures } from './workloads.ts';

interface FixtureAccount {
  token: string;
  businessAccountId: string;
  businessAccountName: string;
  financialAccounts: string[];
  linxTemplates: Array<{ templateId: string; versions: Array<{ templateVersionId: string; displayName: string }> }>;
  documents: Array<{ id: string; documentType: string; status: string }>;
}

export interface RecordedCall {
  method: string;
  path: string;
  query: string;
  requestId?: string;
  /** Epoch ms at arrival. */
  at?: number;
}

async function getJson<T>(url: string, token?: string): Promise<T> {
  const response = await fetch(url, { headers: token ? { authorization: `Bearer ${token}` } : {} });
  const text = await response.text();
  if (!response.ok) throw new Error(`GET ${url} answered ${response.status}: ${text.slice(0, 200)}`);
  return JSON.parse(text) as T;
}

async function countPage(url: string, token: string): Promise<number> {
  const body = await getJson<unknown>(url, token);
  if (Array.isArray(body)) return body.length;
  const content = (body as { content?: unknown }).content;
  if (!Array.isArray(content)) throw new Error(`GET ${url}: neither a list nor a page`);
  return content.length;
}

/** Orders document types by how much of the update path they exercise. */
const DOCUMENT_PREFERENCE = ['passport', 'driving-license', 'other', 'formation', 'tax', 'ownership'];

/**
 * Picks the data the workloads address: the demo account, and within it the
 * Financial Account and LinX template version with the fullest first pages
 * (read through the platform API with the account's token), and a document
 * of the type whose update carries the most fields.
 */
/** The sandbox's demo accounts, each with its token and seeded ids. */
export async function fixtureAccounts(sandboxUrl: string): Promise<FixtureAccount[]> {
  return (await getJson<{ businessAccounts: FixtureAccount[] }>(`${sandboxUrl}/__sandbox/fixtures`)).businessAccounts;
}

export async function discoverFixtures(sandboxUrl: string, preferredToken: string): Promise<{ fixtures: Fixtures; description: string[] }> {
  const businessAccounts = await fixtureAccounts(sandboxUrl);
  const account = businessAccounts.find((a) => a.token === preferredToken) ?? businessAccounts[0];
  if (!account) throw new Error('the sandbox has no business accounts');
  const token = account.token;

  const exceptions = await countPage(`${sandboxUrl}/exceptions?page=0&size=${PAGE_SIZE}`, token);

  let best: { financialAccountId: string; count: number } | undefined;
  for (const financialAccountId of account.financialAccounts) {
    const count = await countPage(`${sandboxUrl}/v1/acceptances?financialAccountId=${encodeURIComponent(financialAccountId)}&page=0&size=${PAGE_SIZE}`, token);
    if (!best || count > best.count) best = { financialAccountId, count };
    if (count >= PAGE_SIZE) break;
  }
  if (!best) throw new Error('the demo account has no financial accounts');

  let linx: { templateId: string; templateVersionId: string; name: string; count: number } | undefined;
  search: for (const template of account.linxTemplates) {
    for (const version of template.versions) {
      const count = await countPage(
        `${sandboxUrl}/v2/linx/workflow-batches?templateId=${encodeURIComponent(template.templateId)}&templateVersionId=${encodeURIComponent(version.templateVersionId)}&page=1&size=${PAGE_SIZE}`,
        token,
      );
      if (!linx || count > linx.count) linx = { templateId: template.templateId, templateVersionId: version.templateVersionId, name: version.displayName, count };
      if (count >= PAGE_SIZE) break search;
    }
  }
  if (!linx) throw new Error('the demo account has no LinX templates');

  const rank = (type: string): number => {
    const index = DOCUMENT_PREFERENCE.indexOf(type);
    return index === -1 ? DOCUMENT_PREFERENCE.length : index;
  };
  const document = [...account.documents].sort((a, b) => rank(a.documentType) - rank(b.documentType))[0];
  if (!document) throw new Error('the demo account has no documents');

  for (const [area, count] of [['exceptions', exceptions], ['acceptances', best.count], ['LinX batches', linx.count]] as const) {
    if (count === 0) throw new Error(`the demo account has no ${area} to page through`);
  }

  return {
    fixtures: {
      token,
      financialAccountId: best.financialAccountId,
      templateId: linx.templateId,
      templateVersionId: linx.templateVersionId,
      document: { id: document.id, documentType: document.documentType },
      expected: { exceptions, acceptances: best.count, linx: linx.count },
    },
    description: [
      `account "${account.businessAccountName}" (token ${token})`,
      `first pages of ${PAGE_SIZE}: ${exceptions} exceptions, ${best.count} acceptances of Financial Account ${best.financialAccountId}, ${linx.count} LinX batches of "${linx.name}" (template ${linx.templateId}, version ${linx.templateVersionId})`,
      `document ${document.id} (${document.documentType}, ${document.status})`,
    ],
  };
}

export async function resetRequestLog(sandboxUrl: string): Promise<void> {
  const response = await fetch(`${sandboxUrl}/__sandbox/requests`, { method: 'DELETE' });
  await response.arrayBuffer();
  if (!response.ok) throw new Error(`DELETE /__sandbox/requests answered ${response.status}`);
}

export async function requestTotal(sandboxUrl: string): Promise<number> {
  return (await getJson<{ total: number }>(`${sandboxUrl}/__sandbox/requests`)).total;
}

/** One live step of the sandbox now (`POST /__sandbox/live/step`): the records it changed. */
export async function liveStep(sandboxUrl: string): Promise<LiveChange[]> {
  const response = await fetch(`${sandboxUrl}/__sandbox/live/step`, { method: 'POST' });
  const text = await response.text();
  if (!response.ok) throw new Error(`POST /__sandbox/live/step answered ${response.status}: ${text.slice(0, 200)}`);
  return (JSON.parse(text) as { changes: LiveChange[] }).changes;
}

export async function recordedCalls(sandboxUrl: string): Promise<RecordedCall[]> {
  return (await getJson<{ requests?: RecordedCall[] }>(`${sandboxUrl}/__sandbox/requests?detail=1`)).requests ?? [];
}

/**
 * Groups platform calls by the x-request-id of the GraphQL request that
 * caused them: calls per request, and duplicates (an identical method + path +
 * query a second time within one request).
 */
export function groupCalls(calls: RecordedCall[], requestIds: string[]): { callsPerRequest: number[]; duplicates: number; grouped: boolean } {
  const wanted = new Set(requestIds);
  const byRequest = new Map<string, RecordedCall[]>(requestIds.map((id) => [id, []]));
  for (const call of calls) if (call.requestId !== undefined && wanted.has(call.requestId)) byRequest.get(call.requestId)?.push(call);
  const grouped = [...byRequest.values()].some((list) => list.length > 0);
  let duplicates = 0;
  for (const list of byRequest.values()) {
    const seen = new Set<string>();
    for (const call of list) {
      const key = `${call.method} ${call.path}?${call.query}`;
      if (seen.has(key)) duplicates += 1;
      seen.add(key);
    }
  }
  return { callsPerRequest: [...byRequest.values()].map((list) => list.length), duplicates, grouped };
}
