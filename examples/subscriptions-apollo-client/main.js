// Subscribes to one document's changes with Apollo Client and prints each as it arrives: the document
// as it is now, then one line per change. HttpLink sends a subscription as a multipart HTTP request
// (`Accept: multipart/mixed;subscriptionSpec="1.0"`), which the gateway answers with one part per
// event: no WebSocket link is needed.
import { ApolloClient, HttpLink, InMemoryCache, gql } from '@apollo/client';

const documentId = process.env.DOCUMENT_ID ?? 'ba3e5b92-c904-4a64-b340-7664b789f76a';
/** Stop after this many events (unset: until Ctrl-C). */
const events = Number(process.env.EVENTS ?? Infinity);

const client = new ApolloClient({
  link: new HttpLink({
    uri: process.env.GATEWAY_URL ?? 'http://127.0.0.1:4000/graphql',
    headers: { Authorization: `Bearer ${process.env.TOKEN ?? 'demo-token-acme'}` },
  }),
  cache: new InMemoryCache(),
});

const DOCUMENT_FEED = gql`
  subscription DocumentFeed($id: ID!) {
    documentChanged(id: $id) { id status version name }
  }
`;

let received = 0;
const subscription = client.subscribe({ query: DOCUMENT_FEED, variables: { id: documentId } }).subscribe({
  next({ data, error }) {
    if (error) throw error;
    const { id, status, version, name } = data.documentChanged;
    console.log(`documentChanged ${id} ${status} version ${version}: ${name}`);
    // Unsubscribing aborts the request: the gateway ends the stream and its poll.
    if (++received >= events) subscription.unsubscribe();
  },
  error(error) {
    console.error(error.message);
    process.exitCode = 1;
  },
});
