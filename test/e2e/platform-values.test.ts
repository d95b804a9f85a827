import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { testConfig } from '../../src/settings/config.ts';
import { createLogger } from '../../src/logger.ts';
import { startGateway, type Gateway } from '../../src/server.ts';
import { bearer, graphqlClient, type GraphQLClient } from '../support/graphql-client.ts';

// A scripted platform: answers the next request with what a test sets, and
// records what it received. Covers what the sandbox never sends (values the
// schema does not know yet) and what it does not record (request bodies).
interface Received {
  method: string;
  url: string;
  authorization?: string;
  body: string;
}

let platform: Server;
let gateway: Gateway;
let client: GraphQLClient;
let answer: { status: number; body: string } = { status: 200, body: '{}' };
const received: Received[] = [];

const readBody = async (req: IncomingMessage) => {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
};

beforeAll(async () => {
  platform = createServer(async (req, res) => {
    received.push({ method: req.method!, url: req.url!, authorization: req.headers.authorization, body: await readBody(req) });
    res.writeHead(answer.status, { 'content-type': 'application/json' }).end(answer.body);
  });
  await new Promise<void>((resolve) => platform.listen(0, '127.0.0.1', resolve));
  const { port } = platform.address() as AddressInfo;
  gateway = await startGateway(testConfig({ UPSTREAM_RETRY_LIMIT: '0' }), `http://127.0.0.1:${port}`, { logger: createLogger('silent') });
  client = graphqlClient(`${gateway.url}/graphql`, bearer('platform-token'));
});

afterAll(async () => {
  await gateway.close();
  await new Promise<void>((resolve) => gateway.server.close(() => resolve()));
  await new Promise<void>((resolve) => platform.close(() => resolve()));
});

/** The answer's body, with what the platform receives recorded afresh for the operation. */
async function gql(query: string, variables?: Record<string, unknown>) {
  received.length = 0;
  return (await client(query, variables)).body;
}

const batch = (status: string, actorType: string) => ({
  id: 'b-1',
  status,
  templateId: '7e000000-0000-4000-8000-000000000001',
  templateVersionId: '7e000000-0000-4000-8000-0000000000f1',
  createdBy: { id: 'u-1', type: actorType },
  createdAt: '2026-03-04T10:15:30.123+0000',
});

describe('values the schema does not know yet', () => {
  it('become UNKNOWN instead of failing the query', async () => {
    answer = { status: 200, body: JSON.stringify([batch('ARCHIVED', 'robot'), batch('ACTIVE', 'service-account')]) };
    const result = await gql('{ linxBatches(filter: { templateId: "7e000000-0000-4000-8000-000000000001", templateVersionId: "7e000000-0000-4000-8000-0000000000f1" }, first: 5) { nodes { status createdBy { id type } createdAt } totalCount } }');
    expect(result).toEqual({
      data: {
        linxBatches: {
          nodes: [
            { status: 'UNKNOWN', createdBy: { id: 'u-1', type: 'UNKNOWN' }, createdAt: '2026-03-04T10:15:30.123Z' },
            { status: 'ACTIVE', createdBy: { id: 'u-1', type: 'SERVICE_ACCOUNT' }, createdAt: '2026-03-04T10:15:30.123Z' },
          ],
          totalCount: null,
        },
      },
    });
    expect(received.map((r) => [r.method, r.url, r.authorization])).toEqual([
      ['GET', '/v2/linx/workflow-batches?page=1&size=6&templateId=7e000000-0000-4000-8000-000000000001&templateVersionId=7e000000-0000-4000-8000-0000000000f1', 'Bearer platform-token'],
    ]);
  });

  it('maps exception and document values both ways, unknown ones to UNKNOWN', async () => {
    answer = {
      status: 200,
      body: JSON.stringify({
        totalElements: 1,
        totalPages: 1,
        number: 0,
        numberOfElements: 1,
        hasNext: false,
        content: [{ id: 'e-1', category: 'PAYROLL', type: 'WIRE_RECALL', status: 'ESCALATED', entityId: 'x-1', createdBy: { type: 'internal', id: '' } }],
      }),
    };
    const result = await gql('{ exceptions(first: 1) { nodes { category type status entity { __typename } createdBy { id type } } } }');
    expect(result).toEqual({
      data: { exceptions: { nodes: [{ category: 'UNKNOWN', type: 'UNKNOWN', status: 'UNKNOWN', entity: null, createdBy: { id: null, type: 'INTERNAL' } }] } },
    });
  });

  it('answers a 200 that is not the promised JSON with UPSTREAM_ERROR, not a crash', async () => {
    answer = { status: 200, body: JSON.stringify({ content: 'not a list' }) };
    const result = await gql('{ exceptions(first: 1) { totalCount } }');
    expect(result.data).toEqual({ exceptions: null });
    expect(result.errors?.map((e) => [e.message, e.extensions.code])).toEqual([
      ['The platform answered with an unusable body (not the page the contract describes)', 'UPSTREAM_ERROR'],
    ]);
  });
});

describe('updateDocument request body', () => {
  it('sends only the contract fields, in platform spelling, once', async () => {
    answer = {
      status: 200,
      body: JSON.stringify({
        id: 'd0c00000-0000-4000-8000-000000000001',
        documentType: 'driving-license',
        name: 'DL',
        status: 'NEW',
        url: { value: 'http://files.example.test/d0c00000-0000-4000-8000-000000000001?sig=1', allowed: 'PUT', expiresIn: 600 },
      }),
    };
    const before = Date.now();
    const result = await gql(
      `mutation($input: UpdateDocumentInput!) { updateDocument(input: $input) {
        document { id documentType url { value } } uploadUrl { value allowed expiresIn expiresAt } userErrors { code } } }`,
      {
        input: {
          id: 'd0c00000-0000-4000-8000-000000000001',
          documentType: 'DRIVING_LICENSE',
          name: 'DL',
          number: 'D123',
          issuingCountryCode: 'US',
          issuingStateCode: 'CA',
          expiryDate: '2030-01-31',
          description: null,
          metadata: { source: 'app' },
        },
      },
    );
    const payload = (result.data as { updateDocument: { uploadUrl: { expiresAt: string }; document: unknown; userErrors: unknown[] } }).updateDocument;
    expect(payload.document).toEqual({ id: 'd0c00000-0000-4000-8000-000000000001', documentType: 'DRIVING_LICENSE', url: null });
    expect(payload.userErrors).toEqual([]);
    expect(payload.uploadUrl).toMatchObject({ value: 'http://files.example.test/d0c00000-0000-4000-8000-000000000001?sig=1', allowed: 'PUT', expiresIn: 600 });
    const expiresAt = Date.parse(payload.uploadUrl.expiresAt);
    expect(expiresAt).toBeGreaterThanOrEqual(before + 600_000);
    expect(expiresAt).toBeLessThanOrEqual(Date.now() + 600_000);
    expect(received).toHaveLength(1);
    expect([received[0]!.method, received[0]!.url]).toEqual(['PUT', '/v1/documents/d0c00000-0000-4000-8000-000000000001']);
    expect(JSON.parse(received[0]!.body)).toEqual({
      documentType: 'driving-license',
      name: 'DL',
      number: 'D123',
      issuingCountryCode: 'US',
      issuingStateCode: 'CA',
      expiryDate: '2030-01-31',
      metadata: { source: 'app' },
    });
  });
});
