// `npm run federation`: a supergraph to try in one command. The platform sandbox, this gateway over
// it (subgraph "platform"), the example accounts subgraph (examples/accounts-subgraph/, subgraph
// "accounts"), composed with @theguild/federation-composition from each subgraph's `_service { sdl }`
// and served by Hive Gateway with demand control, as docs/federation.md's recipe does. Everything
// runs in this one process: SIGINT (Ctrl-C) or SIGTERM stops all of it and exits 0.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createGatewayRuntime } from '@graphql-hive/gateway';
import { composeServices } from '@theguild/federation-composition';
import { parse } from 'graphql';
import { accountsFromSandbox, startAccountsSubgraph } from '../examples/accounts-subgraph/accounts-subgraph.ts';
import { startSandbox } from '../sandbox/index.ts';
import { readCommandLine } from '../src/settings/command-line.ts';
import { loadConfig } from '../src/settings/config.ts';
import { createLogger } from '../src/logger.ts';
import { readSandboxSetting } from '../src/settings/sandbox-settings.ts';
import { startGateway } from '../src/server.ts';

/** The subgraph the caller's token is sent to; the router sends it to no other. */
const PLATFORM_SUBGRAPH = 'platform';

/**
 * A query that spans both subgraphs, each way: documents the accounts subgraph points at, fetched
 * here; exceptions here, with the name of the account each concerns from the accounts subgraph.
 */
const SPANNING_QUERY = '{ documentsToReview { name status } exceptions(first: 2) { nodes { category entity { ... on FinancialAccount { name } ... on CustomerAccount { name } ... on Transaction { name } } } } }';

/** A feed of the platform subgraph: the exceptions that change, as they change. */
const LIVE_SUBSCRIPTION = 'subscription { exceptionsChanged { cursor node { id status updatedAt } } }';

const { values } = readCommandLine(
  {
    options: {
      port: { type: 'string', default: '4100' },
      'max-cost': { type: 'string', default: '1000' },
    },
  },
  {
    command: 'npm run federation',
    summary: [
      'Starts a supergraph on loopback: the platform sandbox, this gateway over it (subgraph "platform"), the',
      'example accounts subgraph (examples/accounts-subgraph/, subgraph "accounts"), composed and served by',
      'Hive Gateway with demand control (docs/federation.md). Prints the router\'s URL and a query that spans',
      'both subgraphs. SIGINT (Ctrl-C) or SIGTERM stops everything and exits 0.',
    ].join('\n'),
    options: {
      port: { text: 'the router\'s port (0: a free one)', value: 'PORT' },
      'max-cost': { text: 'demand control: the largest estimated cost the router lets through', value: 'N' },
    },
    examples: ['npm run federation -- --port 4100 --max-cost 500'],
  },
);
const port = Number(values.port);
const maxCost = Number(values['max-cost']);
for (const [name, value, min] of [['--port', port, 0], ['--max-cost', maxCost, 1]] as const) {
  if (!Number.isInteger(value) || value < min || (name === '--port' && value > 65535)) {
    process.stderr.write(`npm run federation: ${name} must be a whole number${name === '--port' ? ' from 0 to 65535' : ' from 1'}, got "${name === '--port' ? values.port : values['max-cost']}"\n`);
    process.exit(2);
  }
}

/** A subgraph's SDL, as a router reads it. */
async function subgraphSdl(url: string): Promise<string> {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: '{ _service { sdl } }' }) });
  const { data } = (await response.json()) as { data: { _service: { sdl: string } } };
  return data._service.sdl;
}

// Its records change on their own, as under `npm start` (SANDBOX_LIVE, on unless set otherwise;
// SANDBOX_LIVE_INTERVAL_MS), so the subscription printed below shows a live feed.
const liveSetting = process.env.SANDBOX_LIVE;
const liveIntervalMs = readSandboxSetting('SANDBOX_LIVE_INTERVAL_MS', process.env.SANDBOX_LIVE_INTERVAL_MS);
const live = (liveSetting === undefined || liveSetting === '' || readSandboxSetting('SANDBOX_LIVE', liveSetting)) && liveIntervalMs > 0;
const sandbox = await startSandbox({ live, liveIntervalMs });
// The gateway's settings come from the environment, as `npm start` reads them; its own ports are free ones.
const config = loadConfig({ LOG_LEVEL: 'warn', ...process.env, PORT: '0', ADMIN_PORT: 'off', UPSTREAM_URL: sandbox.url });
const gateway = await startGateway(config, sandbox.url, { logger: createLogger(config.logLevel) });
const acme = sandbox.tokens[0]!;
const toReview = sandbox.store.documents(acme.businessAccountId).slice(0, 2).map((document) => document.id);
const accounts = await startAccountsSubgraph(accountsFromSandbox(sandbox, toReview));

const subgraphs = [
  { name: PLATFORM_SUBGRAPH, url: `${gateway.url}/graphql` },
  { name: 'accounts', url: accounts.url },
];
const composed = composeServices(await Promise.all(subgraphs.map(async ({ name, url }) => ({ name, url, typeDefs: parse(await subgraphSdl(url)) }))));
if (composed.errors) {
  process.stderr.write(`npm run federation: the subgraphs do not compose:\n${composed.errors.map((error) => `  ${error.message}`).join('\n')}\n`);
  process.exit(1);
}
const supergraph = composed.supergraphSdl;

const router = createGatewayRuntime({
  supergraph: () => supergraph,
  propagateHeaders: {
    fromClientToSubgraphs({ request, subgraphName }) {
      const authorization = request.headers.get('authorization');
      if (subgraphName === PLATFORM_SUBGRAPH && authorization) return { authorization };
    },
  },
  demandControl: { maxCost },
  logging: 'warn',
});
const server: Server = createServer(router);
await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}/graphql`;

let stopping = false;
async function stop(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  process.stdout.write(`${signal}: stopping Hive Gateway, the accounts subgraph, the gateway and the sandbox\n`);
  server.close();
  server.closeAllConnections();
  await router[Symbol.asyncDispose]();
  await accounts.stop();
  await gateway.close();
  await sandbox.close();
  process.exit(0);
}
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => void stop(signal));

const curl = (query: string, accept = '') => `curl -s${accept ? 'N' : ''} ${endpoint}${accept ? ` -H 'accept: ${accept}'` : ''} -H 'content-type: application/json' -H 'authorization: Bearer ${acme.token}' -d '${JSON.stringify({ query })}'`;
process.stdout.write(
  [
    `Supergraph ready at ${endpoint} (Hive Gateway; demand control: maxCost ${maxCost})`,
    `  subgraph platform: ${gateway.url}/graphql (this gateway, over the sandbox at ${sandbox.url})`,
    `  subgraph accounts: ${accounts.url} (examples/accounts-subgraph/)`,
    `A query that spans both subgraphs (demo token of ${acme.businessAccountName}):`,
    `  ${curl(SPANNING_QUERY)}`,
    `A subscription through the router (SSE to the client and to this subgraph; ${live ? `the sandbox changes records every ${liveIntervalMs / 1000} s` : `change a record: curl -X POST ${sandbox.url}/__sandbox/live/step`}):`,
    `  ${curl(LIVE_SUBSCRIPTION, 'text/event-stream')}`,
    'Ctrl-C stops everything.',
    '',
  ].join('\n'),
);
