import { ApolloClient, HttpLink, InMemoryCache } from '@apollo/client';
import { SetContextLink } from '@apollo/client/link/context';
import { PersistedQueryLink } from '@apollo/client/link/persisted-queries';
import { relayStylePagination } from '@apollo/client/utilities';
import type { DocumentNode } from 'graphql';

/** The id graphql-codegen gave a document (`sha256:<hex>`), the key of its text in src/gql/persisted-documents.json. */
function documentId(document: DocumentNode): string {
  const id = (document as DocumentNode & { __meta__?: { hash?: string } }).__meta__?.hash;
  if (id === undefined) throw new Error(`${document.loc?.source.body ?? 'a document'} was not built by graphql-codegen: it has no persisted id`);
  return id;
}

export function createApolloClient({ uri, getToken }: { uri: string; getToken: () => string | null }) {
  const auth = new SetContextLink(({ headers }) => ({ headers: { ...headers, authorization: `Bearer ${getToken() ?? ''}` } }));
  // Every operation goes out as its id alone (`extensions.persistedQuery.sha256Hash`), never its text:
  // the gateway runs only the documents of the manifest this same codegen run wrote.
  const persisted = new PersistedQueryLink({ generateHash: documentId });
  return new ApolloClient({
    // HttpLink sends a subscription as a multipart HTTP request and reads each event as a part: no other link.
    link: auth.concat(persisted).concat(new HttpLink({ uri })),
    cache: new InMemoryCache({
      typePolicies: {
        // One list per filter and order; fetchMore's pages (`after` a Relay cursor) are appended to it.
        Query: { fields: { exceptions: relayStylePagination(['filter', 'orderBy']) } },
      },
    }),
  });
}
