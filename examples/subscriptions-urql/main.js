// Subscribes to one document's changes with urql and prints each as it arrives: the document as it is
// now, then one line per change. urql's subscriptionExchange hands subscriptions to a transport of
// our choosing: graphql-sse, GraphQL over Server-Sent Events (one text/event-stream response per
// subscription), which the gateway serves on /graphql beside queries.
import { Client, fetchExchange, gql, subscriptionExchange } from '@urql/core';
import { createClient as createSseClient } from 'graphql-sse';

const url = process.env.GATEWAY_URL ?? 'http://127.0.0.1:4000/graphql';
const headers = { Authorization: `Bearer ${process.env.TOKEN ?? 'demo-token-acme'}` };
const documentId = process.env.DOCUMENT_ID ?? 'ba3e5b92-c904-4a64-b340-7664b789f76a';
/** Stop after this many events (unset: until Ctrl-C). */
const events = Number(process.env.EVENTS ?? Infinity);

const sse = createSseClient({ url, headers });
const client = new Client({
  url,
  fetchOptions: { headers },
  exchanges: [
    fetchExchange,
    subscriptionExchange({
      forwardSubscription(request) {
        const operation = { ...request, query: request.query ?? '' };
        return { subscribe: (sink) => ({ unsubscribe: sse.subscribe(operation, sink) }) };
      },
    }),
  ],
});

const DOCUMENT_FEED = gql`
  subscription DocumentFeed($id: ID!) {
    documentChanged(id: $id) { id status version name }
  }
`;

let received = 0;
const { unsubscribe } = client.subscription(DOCUMENT_FEED, { id: documentId }).subscribe(({ data, error }) => {
  if (error) {
    console.error(error.message);
    process.exitCode = 1;
    unsubscribe();
    sse.dispose();
    return;
  }
  const { id, status, version, name } = data.documentChanged;
  console.log(`documentChanged ${id} ${status} version ${version}: ${name}`);
  if (++received >= events) {
    unsubscribe();
    sse.dispose();
  }
});
