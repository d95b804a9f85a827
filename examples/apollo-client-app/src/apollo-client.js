// src/apollo-client.js
import { ApolloClient, HttpLink, InMemoryCache } from '@apollo/client';
import { SetContextLink } from '@apollo/client/link/context';
import { PersistedQueryLink } from '@apollo/client/link/persisted-queries';
import { generatePersistedQueryIdsFromManifest } from '@apollo/persisted-query-lists';
import manifest from '../persisted-query-manifest.json' with { type: 'json' };

export function createApolloClient({ uri, getToken }) {
  const auth = new SetContextLink(async ({ headers }) => ({ headers: { ...headers, authorization: `Bearer ${await getToken()}` } }));
  // Ids from the manifest the gateway holds: an operation missing from it fails here, before any request.
  const persisted = new PersistedQueryLink(generatePersistedQueryIdsFromManifest({ loadManifest: () => manifest }));
  return new ApolloClient({ link: auth.concat(persisted).concat(new HttpLink({ uri })), cache: new InMemoryCache() });
}
