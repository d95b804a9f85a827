// Reads the first two pages of the caller's exceptions through the gateway, sending ids only, and
// prints each page's rows: GATEWAY_URL=http://127.0.0.1:4000/graphql TOKEN=demo-token-acme npm start
import { createApolloClient } from './src/apollo-client.js';
import { OPEN_EXCEPTIONS } from './src/open-exceptions.js';

const client = createApolloClient({ uri: process.env.GATEWAY_URL ?? 'http://127.0.0.1:4000/graphql', getToken: async () => process.env.TOKEN });
let after = null;
for (let page = 1; page <= 2; page++) {
  const { data } = await client.query({ query: OPEN_EXCEPTIONS, variables: { first: 3, after }, fetchPolicy: 'no-cache' });
  const { totalCount, nodes, pageInfo } = data.exceptions;
  console.log(`page ${page} of ${totalCount} exceptions: ${nodes.map((node) => `${node.id} ${node.status}`).join(', ')}`);
  if (!pageInfo.hasNextPage) break;
  after = pageInfo.endCursor;
}
