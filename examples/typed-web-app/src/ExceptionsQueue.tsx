import { useQuery, useSubscription } from '@apollo/client/react';
import type { Reference } from '@apollo/client';
import { ExceptionRow } from './ExceptionRow';
import { graphql } from './gql';

const PAGE_SIZE = 5;

/** A page of the queue, newest first; `after` is the Relay cursor of the page before. */
const ExceptionsQueueQuery = graphql(`
  query ExceptionsQueue($first: Int!, $after: String) {
    exceptions(first: $first, after: $after) {
      totalCount
      edges {
        cursor
        node {
          id
          createdAt
          ...ExceptionRow
        }
      }
      pageInfo {
        hasNextPage
        endCursor
      }
    }
  }
`);

/** Each exception that arrives or changes, as it happens (multipart HTTP, one part per change). */
const ExceptionsChangedSubscription = graphql(`
  subscription ExceptionsChanged {
    exceptionsChanged {
      cursor
      node {
        id
        createdAt
        ...ExceptionRow
      }
    }
  }
`);

interface StoredConnection {
  totalCount?: number | null;
  edges: { __typename: 'ExceptionEdge'; cursor: string; node: Reference }[];
}

export function ExceptionsQueue() {
  const { data, error, loading, fetchMore } = useQuery(ExceptionsQueueQuery, { variables: { first: PAGE_SIZE } });
  const live = useSubscription(ExceptionsChangedSubscription, {
    onData({ client, data: { data: changed } }) {
      if (!changed) return;
      // The cache already holds the exception's new fields (it is normalised by id), so a row on the page
      // changes by itself. A new exception, newer than the newest listed, goes on top of the queue.
      const { node } = changed.exceptionsChanged;
      client.cache.modify<{ exceptions: StoredConnection }>({
        fields: {
          exceptions(existing, { readField, toReference }) {
            const connection = existing as StoredConnection;
            if (connection.edges.some((edge) => readField('id', edge.node) === node.id)) return connection;
            const newest = connection.edges[0] && readField<string>('createdAt', connection.edges[0].node);
            if (newest && node.createdAt && node.createdAt < newest) return connection;
            const reference = toReference({ __typename: 'Exception', id: node.id });
            if (!reference) return connection;
            return { ...connection, totalCount: (connection.totalCount ?? 0) + 1, edges: [{ __typename: 'ExceptionEdge', cursor: changed.exceptionsChanged.cursor, node: reference }, ...connection.edges] };
          },
        },
      });
    },
  });

  if (error) return <p role="alert">Could not load the queue: {error.message}</p>;
  if (loading || !data?.exceptions) return <p>Loading…</p>;
  const { totalCount, edges, pageInfo } = data.exceptions;
  return (
    <section>
      <p id="summary">
        {edges.length} of {totalCount} exceptions{live.error ? ` (live updates stopped: ${live.error.message})` : ''}
      </p>
      <table>
        <thead>
          <tr><th>Id</th><th>Status</th><th>Category</th><th>Type</th><th>Description</th><th>Created</th></tr>
        </thead>
        <tbody>
          {edges.map((edge) => <ExceptionRow key={edge.node.id} exception={edge.node} />)}
        </tbody>
      </table>
      {pageInfo.hasNextPage && (
        <button type="button" onClick={() => void fetchMore({ variables: { after: pageInfo.endCursor } })}>
          Load more
        </button>
      )}
    </section>
  );
}
