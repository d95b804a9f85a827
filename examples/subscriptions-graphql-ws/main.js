// Subscribes to one document's changes over graphql-ws and prints each as it arrives: the document
// as it is now, then one line per change. Node 22 or newer: graphql-ws uses Node's global WebSocket.
import { createClient } from 'graphql-ws';

const gateway = new URL(process.env.GATEWAY_URL ?? 'http://127.0.0.1:4000/graphql');
gateway.protocol = gateway.protocol === 'https:' ? 'wss:' : 'ws:';
const documentId = process.env.DOCUMENT_ID ?? 'ba3e5b92-c904-4a64-b340-7664b789f76a';
/** Stop after this many events (unset: until Ctrl-C). */
const events = Number(process.env.EVENTS ?? Infinity);

const client = createClient({
  url: gateway.href,
  // The token travels in the connection's first message: a browser's WebSocket cannot set headers.
  connectionParams: { Authorization: `Bearer ${process.env.TOKEN ?? 'demo-token-acme'}` },
});

let received = 0;
const subscription = client.iterate({
  query: 'subscription DocumentFeed($id: ID!) { documentChanged(id: $id) { id status version name } }',
  variables: { id: documentId },
});
for await (const { data, errors } of subscription) {
  if (errors) throw new Error(errors.map((error) => error.message).join('; '));
  const { id, status, version, name } = data.documentChanged;
  console.log(`documentChanged ${id} ${status} version ${version}: ${name}`);
  if (++received >= events) break;
}
await client.dispose();
