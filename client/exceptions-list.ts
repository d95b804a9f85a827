// Relay operations for an exceptions inbox: a paginated, refetchable fragment on
// Query and the query that renders it. `usePaginationFragment` loads more pages
// with `exceptionsListPaginationQuery`, which the compiler generates from
// @refetchable; @connection lets Relay merge the pages into one list.
import { graphql } from 'react-relay';

export const exceptionsListFragment = graphql`
  fragment exceptionsList_query on Query
  @refetchable(queryName: "exceptionsListPaginationQuery")
  @argumentDefinitions(
    count: { type: "Int", defaultValue: 20 }
    cursor: { type: "String" }
    filter: { type: "ExceptionFilter" }
    orderBy: { type: "[ExceptionOrder!]" }
  ) {
    exceptions(first: $count, after: $cursor, filter: $filter, orderBy: $orderBy)
    @connection(key: "exceptionsList_exceptions", filters: ["filter", "orderBy"]) {
      totalCount
      edges {
        node {
          id
          category
          type
          status
          description
          assignedTo {
            firstName
            lastName
          }
          entity {
            __typename
            ... on FinancialAccount {
              id
            }
            ... on CustomerAccount {
              id
            }
            ... on Transaction {
              id
            }
          }
          createdAt
        }
      }
    }
  }
`;

export const exceptionsListQuery = graphql`
  query exceptionsListQuery($filter: ExceptionFilter, $orderBy: [ExceptionOrder!]) {
    ...exceptionsList_query @arguments(filter: $filter, orderBy: $orderBy)
  }
`;
