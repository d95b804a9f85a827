// The app's operation: a page of the caller's exceptions, newest first.
import { gql } from '@apollo/client';

export const OPEN_EXCEPTIONS = gql`
  query OpenExceptions($first: Int!, $after: String) {
    exceptions(first: $first, after: $after) {
      totalCount
      nodes { id status }
      pageInfo { hasNextPage endCursor }
    }
  }
`;
