// The subscription, as relay-compiler reads it: `npm run relay` compiles it into
// src/__generated__/documentFeedSubscription.graphql.js, which main.js imports. A bundler with
// babel-plugin-relay would replace this graphql`` tag with that import; plain Node has no such
// step, so main.js imports the artifact itself and this file is never run.
import { graphql } from 'relay-runtime';

export const documentFeed = graphql`
  subscription documentFeedSubscription($id: ID!) {
    documentChanged(id: $id) {
      id
      status
      version
      name
    }
  }
`;
