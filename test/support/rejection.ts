import { expect } from '@jest/globals';
import { GraphQLError } from 'graphql';

/** The GraphQLError a synchronous call throws; the test fails when it throws anything else or nothing. */
export function rejection(run: () => unknown): GraphQLError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(GraphQLError);
    return error as GraphQLError;
  }
  throw new Error('expected a rejection');
}
