// hive-gateway.mjs
import { createServer } from 'node:http';
import { createGatewayRuntime } from '@graphql-hive/gateway';

const gateway = createGatewayRuntime({
  supergraph: 'supergraph.graphql',
  propagateHeaders: {
    fromClientToSubgraphs({ request, subgraphName }) {
      const authorization = request.headers.get('authorization');
      if (subgraphName === 'platform' && authorization) return { authorization };
    },
  },
  // Prices each operation from the subgraphs' @listSize and @cost before planning it.
  demandControl: { maxCost: 1000 },
});
const server = createServer(gateway).listen(Number(process.env.PORT ?? 4100), () => console.log(`Supergraph ready at http://localhost:${server.address().port}/graphql`));
// Hive Gateway disposes of itself on SIGINT and SIGTERM but leaves the HTTP server to its owner:
// without this line the process keeps running after either signal.
for (const signal of ['SIGINT', 'SIGTERM']) process.once(signal, () => server.close(() => process.exit(0)).closeAllConnections());
