// supergraph-gateway.mjs
import { readFileSync } from 'node:fs';
import { ApolloGateway, RemoteGraphQLDataSource } from '@apollo/gateway';
import { ApolloServer } from '@apollo/server';
import { startStandaloneServer } from '@apollo/server/standalone';

const PLATFORM_SUBGRAPH = 'platform';

const gateway = new ApolloGateway({
  supergraphSdl: readFileSync('supergraph.graphql', 'utf8'),
  buildService: ({ name, url }) =>
    new RemoteGraphQLDataSource({
      url,
      willSendRequest({ request, context }) {
        if (name === PLATFORM_SUBGRAPH && context.authorization) request.http.headers.set('authorization', context.authorization);
      },
    }),
});
const server = new ApolloServer({ gateway });
const { url } = await startStandaloneServer(server, {
  listen: { port: Number(process.env.PORT ?? 4100) },
  context: async ({ req }) => ({ authorization: req.headers.authorization }),
});
console.log(`Supergraph ready at ${url}`);
