import { describe, expect, it } from '@jest/globals';
import type { DocumentNode, GraphQLFormattedError } from 'graphql';
import type { SubscribingContext } from '../../src/context.ts';
import { SubscribePath, type Prepared } from '../../src/http/subscribe.ts';
import { buildSchema } from '../../src/schema.ts';

const schema = buildSchema();
const FEED = 'subscription { exceptionsChanged { cursor node { id status } } }';
const WRONG = 'subscription { exceptionsChanged { cursor node { id colour } } }';

function path(): SubscribePath {
  return new SubscribePath({
    schema,
    validationRules: [],
    context: () => ({}) as SubscribingContext,
    formatError: (formatted: GraphQLFormattedError) => formatted,
  });
}

const documentOf = (prepared: Prepared): DocumentNode => {
  if (!('args' in prepared)) throw new Error(`refused: ${JSON.stringify(prepared.refused)}`);
  return prepared.args.document;
};

describe('the subscribe path', () => {
  // Each open subscription keeps its document for its whole life: the subscribers of one screen share one.
  it('gives subscriptions of one text one parsed document, and each text its own', () => {
    const subscriptions = path();
    const first = documentOf(subscriptions.prepare({ query: FEED }, {}, 'sse'));
    const second = documentOf(subscriptions.prepare({ query: FEED }, {}, 'ws'));
    const other = documentOf(subscriptions.prepare({ query: `${FEED} ` }, {}, 'sse'));

    expect(second).toBe(first);
    expect(other).not.toBe(first);
    expect(other).toEqual(expect.objectContaining({ kind: 'Document' }));
  });

  it('refuses an invalid text each time it is sent, with the same validation error', () => {
    const subscriptions = path();
    const refusals = [subscriptions.prepare({ query: WRONG }, {}, 'sse'), subscriptions.prepare({ query: WRONG }, {}, 'multipart')];

    for (const refusal of refusals) {
      expect(refusal).toEqual({
        refused: {
          errors: [
            {
              message: 'Cannot query field "colour" on type "Exception".',
              locations: [{ line: 1, column: 53 }],
              extensions: { code: 'GRAPHQL_VALIDATION_FAILED' },
            },
          ],
        },
      });
    }
  });
});
