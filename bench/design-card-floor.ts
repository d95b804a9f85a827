/**
 * The design-card floor: the least a GraphQL gateway built from the design
 * card's libraries can cost on the benchmark's workloads. Apollo Server 5 with
 * its defaults (graphql-js execution, default caches) served from node:http,
 * and got with the bare proxy's pool settings; a schema of exactly what the
 * benchmark's gateway queries select; one platform call per root field, its
 * page mapped to a connection with offset cursors.
 *
 * Nothing else: no limits, logging, metrics, deadline, retries, loaders, error
 * mapping or keyset cursors. What the gateway costs beyond this is its own
 * code; a target this misses is out of reach of the libraries themselves.
 *
 *   POST /graphql   a JSON body → Apollo Server's executeHTTPGraphQLRequest
 *   GET /healthz    200 once listening
 *
 * Run: UPSTREAM_URL=http://127.0.0.1:4010 PORT=4040 node bench/design-card-floor.ts
 */
import type http from 'node:http';
import { ApolloServer, HeaderMap } from '@apollo/server';
import { ApolloServerPluginLandingPageDisabled } from '@apollo/server/plugin/disabled';
import { bareClient } from './lib/bare-client.ts';
import { runFromEnvironment, serveLoopback, type LoopbackServer } from './lib/loopback-server.ts';

export interface DesignCardFloorOptions {
  upstreamUrl: string;
  port?: number;
  host?: string;
}

export type DesignCardFloor = LoopbackServer;

interface FloorContext {
  authorization: string | undefined;
}

type PlatformRecord = Record<string, unknown>;

interface Page {
  rows: PlatformRecord[];
  /** totalElements of a page envelope; null for a bare array. */
  total: number | null;
  /** hasNext of a page envelope, when it has one. */
  hasNext: boolean | null;
}

/** The gateway's default page size when `first` is omitted. */
const DEFAULT_FIRST = 20;

// Field names and enum values as in schema/*.graphql, so that the gateway's benchmark queries run unchanged.
const typeDefs = /* GraphQL */ `
  type Query {
    exceptions(first: Int): ExceptionConnection
    documentAcceptances(financialAccountId: ID!, first: Int): DocumentAcceptanceConnection
    linxBatches(filter: LinxBatchFilter!, first: Int): LinxBatchConnection
    document(id: ID!): Document
  }

  type PageInfo {
    hasNextPage: Boolean!
    endCursor: String
  }

  enum ExceptionStatus { NEW IN_PROGRESS RESOLVED REOPENED }

  type ExceptionAssignee {
    id: ID
    firstName: String
    lastName: String
    email: String
  }

  type ExceptionNote {
    id: ID
    title: String
    contentText: String
  }

  type Exception {
    id: ID!
    status: ExceptionStatus
    assignedTo: ExceptionAssignee
    notes: ExceptionNote
  }

  type ExceptionEdge {
    cursor: String!
    node: Exception!
  }

  type ExceptionConnection {
    edges: [ExceptionEdge!]!
    pageInfo: PageInfo!
    totalCount: Int
  }

  type DocumentAcceptance {
    id: ID!
    accepted: Boolean
  }

  type DocumentAcceptanceEdge {
    cursor: String!
    node: DocumentAcceptance!
  }

  type DocumentAcceptanceConnection {
    edges: [DocumentAcceptanceEdge!]!
    pageInfo: PageInfo!
    totalCount: Int
  }

  input LinxBatchFilter {
    templateId: ID!
    templateVersionId: ID!
  }

  enum LinxBatchStatus { NEW QUEUED COMPLETED INVALID CANCELLING FAILED ACTIVE }

  type LinxBatch {
    id: ID!
    status: LinxBatchStatus
    templateDisplayName: String
    totalRequestsCount: Int
  }

  type LinxBatchEdge {
    cursor: String!
    node: LinxBatch!
  }

  type LinxBatchConnection {
    edges: [LinxBatchEdge!]!
    pageInfo: PageInfo!
    totalCount: Int
  }

  enum DocumentType { DRIVING_LICENSE PASSPORT FORMATION TAX OWNERSHIP OTHER }

  enum DocumentStatus { NEW UPLOADED INCOMPLETE SCANNED MALICIOUS }

  type Document {
    id: ID!
    name: String
    status: DocumentStatus
    documentType: DocumentType!
  }
`;

/** An opaque cursor for the row at `offset` of the list. */
export function offsetCursor(offset: number): string {
  return Buffer.from(String(offset)).toString('base64');
}

/** A page envelope `{ content, totalElements, hasNext }`, or a bare array (LinX may answer one). */
function readPage(body: unknown): Page {
  if (Array.isArray(body)) return { rows: body as PlatformRecord[], total: null, hasNext: null };
  const { content, totalElements, hasNext } = body as { content: PlatformRecord[]; totalElements?: unknown; hasNext?: unknown };
  return { rows: content, total: typeof totalElements === 'number' ? totalElements : null, hasNext: typeof hasNext === 'boolean' ? hasNext : null };
}

/** The first `first` rows of a page fetched from offset 0, as a connection. */
function connection(page: Page, first: number) {
  const rows = page.rows.length > first ? page.rows.slice(0, first) : page.rows;
  const edges = rows.map((node, offset) => ({ cursor: offsetCursor(offset), node }));
  const hasNextPage = page.rows.length > first || (page.hasNext ?? (page.total !== null && page.total > rows.length));
  return { edges, pageInfo: { hasNextPage, endCursor: edges.length > 0 ? (edges[edges.length - 1] as { cursor: string }).cursor : null }, totalCount: page.total };
}

export async function startDesignCardFloor(options: DesignCardFloorOptions): Promise<DesignCardFloor> {
  const base = options.upstreamUrl.replace(/\/+$/, '');
  const client = bareClient();

  const get = async (path: string, ctx: FloorContext): Promise<unknown> => {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (ctx.authorization !== undefined) headers.authorization = ctx.authorization;
    const response = await client(base + path, { headers });
    if (response.statusCode < 200 || response.statusCode >= 300) throw new Error(`the platform answered ${response.statusCode} to GET ${path}`);
    return JSON.parse(response.body) as unknown;
  };

  const list = async (path: string, ctx: FloorContext, first: number) => connection(readPage(await get(path, ctx)), first);
  const size = (first: number | null | undefined): number => first ?? DEFAULT_FIRST;

  const resolvers = {
    Query: {
      exceptions: (_: unknown, args: { first?: number | null }, ctx: FloorContext) => list(`/exceptions?page=0&size=${size(args.first)}`, ctx, size(args.first)),
      documentAcceptances: (_: unknown, args: { financialAccountId: string; first?: number | null }, ctx: FloorContext) =>
        list(`/v1/acceptances?financialAccountId=${encodeURIComponent(args.financialAccountId)}&page=0&size=${size(args.first)}`, ctx, size(args.first)),
      // One-based pages; a bare array has no totals, so the page is one row longer to tell hasNextPage, as the gateway asks.
      linxBatches: (_: unknown, args: { filter: { templateId: string; templateVersionId: string }; first?: number | null }, ctx: FloorContext) =>
        list(
          `/v2/linx/workflow-batches?templateId=${encodeURIComponent(args.filter.templateId)}&templateVersionId=${encodeURIComponent(args.filter.templateVersionId)}&page=1&size=${size(args.first) + 1}`,
          ctx,
          size(args.first),
        ),
      document: (_: unknown, args: { id: string }, ctx: FloorContext) => get(`/v1/documents/${encodeURIComponent(args.id)}`, ctx),
    },
    // The platform's spellings as the enum's internal values: graphql-js serialises them to the schema's.
    DocumentType: { DRIVING_LICENSE: 'driving-license', PASSPORT: 'passport', FORMATION: 'formation', TAX: 'tax', OWNERSHIP: 'ownership', OTHER: 'other' },
  };

  const apollo = new ApolloServer<FloorContext>({
    typeDefs,
    resolvers,
    plugins: [ApolloServerPluginLandingPageDisabled()],
    // Signals are the caller's to handle: the runnable main below, or a test that starts the floor in-process.
    stopOnTerminationSignals: false,
  });
  await apollo.start();

  const reply = (res: http.ServerResponse, status: number, body: string): void => {
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  };

  const readBody = (req: http.IncomingMessage): Promise<string> =>
    new Promise((resolve, reject) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.once('end', () => resolve(chunks.length === 1 ? (chunks[0] as Buffer).toString('utf8') : Buffer.concat(chunks).toString('utf8')));
      req.once('error', reject);
    });

  const handle = async (req: http.IncomingMessage, res: http.ServerResponse): Promise<void> => {
    const url = req.url ?? '/';
    if (req.method === 'GET' && url === '/healthz') return reply(res, 200, '{"status":"ok"}');
    const query = url.indexOf('?');
    if (req.method !== 'POST' || (query < 0 ? url : url.slice(0, query)) !== '/graphql') return reply(res, 404, '{"message":"POST /graphql or GET /healthz"}');
    let body: unknown;
    try {
      body = JSON.parse(await readBody(req)) as unknown;
    } catch {
      return reply(res, 400, '{"message":"the body is not JSON"}');
    }
    const headers = new HeaderMap();
    for (const key in req.headers) {
      const value = req.headers[key];
      if (value !== undefined) headers.set(key, Array.isArray(value) ? value.join(', ') : value);
    }
    const response = await apollo.executeHTTPGraphQLRequest({
      httpGraphQLRequest: { method: 'POST', headers, search: query < 0 ? '' : url.slice(query), body },
      context: () => Promise.resolve({ authorization: req.headers.authorization }),
    });
    for (const [key, value] of response.headers) res.setHeader(key, value);
    res.statusCode = response.status ?? 200;
    if (response.body.kind === 'complete') {
      res.setHeader('content-length', Buffer.byteLength(response.body.string));
      res.end(response.body.string);
      return;
    }
    for await (const chunk of response.body.asyncIterator) res.write(chunk);
    res.end();
  };

  const server = await serveLoopback(handle, { port: options.port, host: options.host, failureStatus: 500 });
  return {
    url: server.url,
    close: async () => {
      await server.close();
      await apollo.stop();
    },
  };
}

if (import.meta.main) await runFromEnvironment('design-card floor', 4040, startDesignCardFloor);
