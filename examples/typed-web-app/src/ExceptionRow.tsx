import { type FragmentType, getFragmentData, graphql } from './gql';

/** What a row shows. The queue's query spreads it; fragment masking hides these fields from the queue itself. */
export const ExceptionRowFragment = graphql(`
  fragment ExceptionRow on Exception {
    id
    status
    category
    type
    description
    createdAt
  }
`);

export function ExceptionRow(props: { exception: FragmentType<typeof ExceptionRowFragment> }) {
  const exception = getFragmentData(ExceptionRowFragment, props.exception);
  return (
    <tr data-id={exception.id}>
      <td>{exception.id}</td>
      <td>{exception.status}</td>
      <td>{exception.category}</td>
      <td>{exception.type}</td>
      <td>{exception.description}</td>
      {/* DateTime is typed string: the ISO 8601 instant the gateway sends. */}
      <td><time dateTime={exception.createdAt ?? undefined}>{exception.createdAt}</time></td>
    </tr>
  );
}
