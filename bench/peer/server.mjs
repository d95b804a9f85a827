// The comparison gateway: GraphQL Hive Gateway serving the supergraph that
// GraphQL Mesh composed from openapi/platform.yaml (see mesh.config.mjs).
// Configured the way one would run it in production: no GraphiQL, no landing
// page, errors-only logging, one process (no forks) so that it is measured on
// the same single core as the gateway under test.
//
// Env: UPSTREAM_URL (platform base URL, read by the supergraph's transport
// location at execution time), PORT (default 4100), HOST (default 127.0.0.1).
import { createServer } from 'node:http';
import { fileURLToPath } from 'node:url';
import { createGatewayRuntime } from '@graphql-hive/gateway';

if (!process.env.UPSTREAM_URL) {
  console.error('UPSTREAM_URL is required');
  process.exit(1);
}
const port = Number(process.env.PORT ?? 4100);
const host = process.env.HOST ?? '127.0.0.1';

const gateway = createGatewayRuntime({
  supergraph: fileURLToPath(new URL('./supergraph.graphql', import.meta.url)),
  graphiql: false,
  landingPage: false,
  logging: 'error',
  propagateHeaders: {
    // The platform authorises per caller, and the request id lets the sandbox
    // group upstream calls by GraphQL request.
    fromClientToSubgraphs: ({ request }) => ({
      authorization: request.headers.get('authorization'),
      'x-request-id': request.headers.get('x-request-id'),
    }),
  },
});

const server = createServer(gateway);
server.listen(port, host, () => {
  console.log(`peer gateway listening on http://${host}:${port}/graphql (upstream ${process.env.UPSTREAM_URL})`);
});

const stop = () => {
  server.close();
  // Idle keep-alive sockets would otherwise hold the process open.
  server.closeAllConnections();
  void gateway.dispose().finally(() => process.exit(0));
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
