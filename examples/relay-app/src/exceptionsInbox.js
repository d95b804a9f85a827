// The app's one operation: the newest exceptions of the caller's Business Account. relay-compiler
// finds it by its graphql tag (react-relay's at run time), names it after this module, gives it an id
// (the SHA-256 of its text) and writes that id and text to trusted-documents.json.
import { graphql } from 'react-relay';

export const exceptionsInboxQuery = graphql`
  query exceptionsInboxQuery($count: Int!) {
    exceptions(first: $count) {
      totalCount
      nodes {
        id
        status
      }
    }
  }
`;
