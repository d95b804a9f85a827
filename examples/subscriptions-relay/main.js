// Subscribes to one document's changes with Relay and prints each as it arrives: the document as it
// is now, then one line per change. The network layer's subscribe function hands Relay's
// subscriptions to graphql-sse (GraphQL over Server-Sent Events), which the gateway serves on /graphql.
import { createClient } from 'graphql-sse';
import { Environment, Network, Observable, RecordSource, Store, requestSubscription } from 'relay-runtime';
import documentFeed from './src/__generated__/documentFeedSubscription.graphql.js';

const url = process.env.GATEWAY_URL ?? 'http://127.0.0.1:4000/graphql';
const headers = { Authorization: `Bearer ${process.env.TOKEN ?? 'demo-token-acme'}` };
const documentId = process.env.DOCUMENT_ID ?? 'ba3e5b92-c904-4a64-b340-7664b789f76a';
/** Stop after this many events (unset: until Ctrl-C). */
const events = Number(process.env.EVENTS ?? Infinity);

const sse = createClient({ url, headers });

/** Queries and mutations: one POST each. */
async function fetchFn(operation, variables) {
  const response = await fetch(url, {
    method: 'POST',
    headers: { ...headers, 'Content-Type': 'application/json' },
    body: JSON.stringify({ query: operation.text, variables }),
  });
  return response.json();
}

/** Subscriptions: one SSE stream each, its events handed to Relay as they come. */
function subscribeFn(operation, variables) {
  return Observable.create((sink) => sse.subscribe({ operationName: operation.name, query: operation.text, variables }, sink));
}

const environment = new Environment({ network: Network.create(fetchFn, subscribeFn), store: new Store(new RecordSource()) });

let received = 0;
const subscription = requestSubscription(environment, {
  subscription: documentFeed,
  variables: { id: documentId },
  onNext(response) {
    const { id, status, version, name } = response.documentChanged;
    console.log(`documentChanged ${id} ${status} version ${version}: ${name}`);
    if (++received >= events) {
      subscription.dispose();
      sse.dispose();
    }
  },
  onError(error) {
    console.error(error.message);
    process.exitCode = 1;
    sse.dispose();
  },
});
