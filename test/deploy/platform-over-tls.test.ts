import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { startSandbox, type Sandbox } from '../../sandbox/index.ts';
import { startProductionGateway, type ProductionGateway } from '../support/gateway-process.ts';
import { bearer, postGraphQL } from '../support/graphql-client.ts';

// docs/platform-access.md, tried: the platform behind TLS with a certificate of a private CA, under a
// base path, as a company's API gateway often serves it. Here a TLS front (a certificate for
// localhost signed by a CA made with openssl) forwards /platform/* to the embedded sandbox. The
// gateway process trusts the CA through Node's NODE_EXTRA_CA_CERTS and keeps the base path of
// UPSTREAM_URL in every call.

/** The embedded sandbox's exceptions of demo-token-acme. */
const ACME_EXCEPTIONS = 300;
const BASE_PATH = '/platform';

let folder: string;
let sandbox: Sandbox;
let front: https.Server;
let frontOrigin: string;
/** The paths the TLS front received, as sent. */
const received: string[] = [];
let gateway: ProductionGateway | undefined;

const openssl = (...args: string[]) => execFileSync('openssl', args, { cwd: folder, stdio: ['ignore', 'pipe', 'pipe'] });

beforeAll(async () => {
  folder = mkdtempSync(join(tmpdir(), 'platform-tls-'));
  openssl('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '2', '-subj', '/CN=Test private CA');
  openssl('req', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'platform.key', '-out', 'platform.csr', '-subj', '/CN=localhost');
  writeFileSync(join(folder, 'platform.ext'), 'subjectAltName=DNS:localhost,IP:127.0.0.1\n');
  openssl('x509', '-req', '-in', 'platform.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'platform.pem', '-days', '2', '-extfile', 'platform.ext');
  sandbox = await startSandbox();
  const upstream = new URL(sandbox.url);
  front = https.createServer({ key: readFileSync(join(folder, 'platform.key')), cert: readFileSync(join(folder, 'platform.pem')) }, (request, response) => {
    received.push(request.url ?? '');
    if (!request.url?.startsWith(`${BASE_PATH}/`)) {
      response.writeHead(404, { 'content-type': 'application/json' }).end('{"message":"not under the base path"}');
      return;
    }
    const forwarded = http.request({ host: upstream.hostname, port: upstream.port, method: request.method, path: request.url.slice(BASE_PATH.length), headers: request.headers }, (answer) => {
      response.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(response);
    });
    request.pipe(forwarded);
  });
  await new Promise<void>((resolve) => front.listen(0, '127.0.0.1', resolve));
  frontOrigin = `https://localhost:${(front.address() as AddressInfo).port}`;
}, 60_000);

afterEach(async () => {
  await gateway?.process.stop();
  gateway = undefined;
  received.length = 0;
});

afterAll(async () => {
  front?.close();
  await sandbox?.close();
  if (folder) rmSync(folder, { recursive: true, force: true });
});

const query = { query: '{ exceptions(first: 1) { totalCount } }' };

describe('the platform over TLS with a private CA, under a base path', () => {
  it('is reached with NODE_EXTRA_CA_CERTS, every call keeping the base path', async () => {
    gateway = await startProductionGateway({ UPSTREAM_URL: `${frontOrigin}${BASE_PATH}/`, NODE_EXTRA_CA_CERTS: join(folder, 'ca.pem') });
    const answer = await postGraphQL(`${gateway.origin}/graphql`, query, bearer('demo-token-acme'));
    expect(answer).toEqual({ status: 200, body: { data: { exceptions: { totalCount: ACME_EXCEPTIONS } } } });
    expect(received).toEqual([`${BASE_PATH}/exceptions?page=0&size=1`]);
  }, 60_000);

  it('is refused without the CA: the certificate is not trusted, and no call reaches the platform', async () => {
    gateway = await startProductionGateway({ UPSTREAM_URL: `${frontOrigin}${BASE_PATH}` });
    const answer = await postGraphQL(`${gateway.origin}/graphql`, query, bearer('demo-token-acme'));
    const body = answer.body as unknown as { errors: { extensions: { requestId: string } }[] };
    expect(answer).toEqual({
      status: 200,
      body: {
        data: { exceptions: null },
        errors: [{
          message: 'The platform could not be reached (UNABLE_TO_VERIFY_LEAF_SIGNATURE)',
          locations: [{ line: 1, column: 3 }],
          path: ['exceptions'],
          extensions: { code: 'UPSTREAM_ERROR', requestId: body.errors[0]!.extensions.requestId },
        }],
      },
    });
    expect(received).toEqual([]);
  }, 60_000);
});
