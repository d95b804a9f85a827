// Relay operations for the LinX batches of one template version: a paginated,
// refetchable fragment on Query (the filter is required by the schema, so it is
// a required fragment argument) and the query that renders it.
import { graphql } from 'react-relay';

export const linxBatchesListFragment = graphql`
  fragment linxBatchesList_query on Query
  @refetchable(queryName: "linxBatchesListPaginationQuery")
  @argumentDefinitions(
    count: { type: "Int", defaultValue: 20 }
    cursor: { type: "String" }
    filter: { type: "LinxBatchFilter!" }
  ) {
    linxBatches(filter: $filter, first: $count, after: $cursor)
    @connection(key: "linxBatchesList_linxBatches", filters: ["filter"]) {
      totalCount
      edges {
        node {
          id
          status
          templateDisplayName
          templateVersion
          totalRequestsCount
          completedRequestsCount
          failedRequestsCount
          createdAt
        }
      }
    }
  }
`;

export const linxBatchesListQuery = graphql`
  query linxBatchesListQuery($filter: LinxBatchFilter!) {
    ...linxBatchesList_query @arguments(filter: $filter)
  }
`;
