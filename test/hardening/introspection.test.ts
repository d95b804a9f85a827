import { describe, expect, it } from '@jest/globals';
import { buildSchema, parse, validate } from 'graphql';
import { noIntrospection } from '../../src/hardening/introspection.ts';

const schema = buildSchema('type Item { id: ID } type Query { item: Item }');
const MESSAGE = 'GraphQL introspection is not allowed: the query contained __schema or __type. Set INTROSPECTION=true on the gateway to allow it.';

const refusals = (source: string) => validate(schema, parse(source), [noIntrospection]).map((error) => ({ message: error.message, locations: error.locations, extensions: error.extensions }));

describe('noIntrospection', () => {
  it('refuses __schema and __type, naming the variable that allows them, at each field', () => {
    expect(refusals('{ __schema { queryType { name } } item { id } __type(name: "Item") { name } }')).toEqual([
      { message: MESSAGE, locations: [{ line: 1, column: 3 }], extensions: { validationErrorCode: 'INTROSPECTION_DISABLED' } },
      { message: MESSAGE, locations: [{ line: 1, column: 47 }], extensions: { validationErrorCode: 'INTROSPECTION_DISABLED' } },
    ]);
  });

  it('finds them under an alias and inside fragments', () => {
    expect(refusals('{ s: __schema { types { name } } ...F } fragment F on Query { __type(name: "Query") { name } }')).toHaveLength(2);
  });

  it('allows __typename, which clients need, and ordinary fields', () => {
    expect(refusals('{ __typename item { __typename id } }')).toEqual([]);
  });
});
