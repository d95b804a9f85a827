import { describe, expect, it } from '@jest/globals';
import { parse, type ExecutionArgs, type GraphQLFormattedError } from 'graphql';
import type { SubscribingContext } from '../../src/context.ts';
import { Streams } from '../../src/http/subscribe.ts';
import { buildSchema } from '../../src/schema/schema.ts';

const schema = buildSchema();
const FEED = 'subscription { exceptionsChanged { cursor node { id status } } }';

function streams(): Streams {
  return new Streams({ schema, formatError: (formatted: GraphQLFormattedError) => formatted });
}

/** A subscription's arguments as the executor keeps them for its events: `text` parsed, one token. */
const argsOf = (text: string, tokenKey = 'a', variables?: Record<string, unknown>): ExecutionArgs => ({
  schema,
  document: parse(text),
  variableValues: variables,
  contextValue: { subscriptions: { identity: { tokenKey } } } as unknown as SubscribingContext,
});

describe('the streams\' execution keys', () => {
  // Each event is executed once for all subscribers of one key: 400 texts differing by a comment would
  // otherwise be 400 executions of every event, each kept while any queue holds the event.
  it('are one for texts that differ only by comments and spacing, and differ by document, token and variables', () => {
    const keys = streams();
    const key = (args: ExecutionArgs) => keys.executionKey(args);
    const base = key(argsOf(FEED));
    expect(key(argsOf(`${FEED} # reader 1`))).toBe(base);
    expect(key(argsOf(`#reader 2\n${FEED.replace(' {', '  {\n')}`))).toBe(base);
    expect(new Set([base, key(argsOf(FEED.replace('status', 'updatedAt'))), key(argsOf(FEED, 'b')), key(argsOf(FEED, 'a', { after: 'x' }))]).size).toBe(4);
  });
});
