import { describe, expect, it } from '@jest/globals';
import { buildSchema, getOperationAST, parse } from 'graphql';
import { guardedVariables } from '../../src/execution/guarded-variables.ts';

const schema = buildSchema(`
  input Filter { status: String! tags: [String!] }
  type Item { id: ID! children(first: Int): [Item] }
  type Query {
    items(first: Int, ids: [ID!], filter: Filter): [Item]
    item(id: ID!): Item
  }
`);

function guarded(source: string, operationName?: string): string[] {
  const document = parse(source);
  return guardedVariables(schema, document, getOperationAST(document, operationName)!).sort();
}

describe('guardedVariables', () => {
  it('guards a variable standing for a whole non-null argument, not one for a nullable argument', () => {
    expect(guarded('query($n: Int, $id: ID!) { items(first: $n) { id } item(id: $id) { id } }')).toEqual(['id']);
  });

  it('guards every variable inside a list or input-object literal, however deep', () => {
    expect(guarded('query($a: ID!, $s: String!, $t: String!) { items(ids: [$a, "x"], filter: { status: $s, tags: [$t] }) { id } }')).toEqual(['a', 's', 't']);
  });

  it("guards the `if` of @skip and @include, which is non-null", () => {
    expect(guarded('query($x: Boolean = true, $y: Boolean) { items @skip(if: $x) { id @include(if: $y) } }')).toEqual(['x', 'y']);
  });

  it('guards a variable given to an argument the schema does not know', () => {
    expect(guarded('query($z: Int) { items(nope: $z) { id } }')).toEqual(['z']);
  });

  it('reads nested fields and the fragments the operation spreads, directly or through others', () => {
    const source = `
      query Q($n: Int, $id: ID!) { items { children(first: $n) { ...A } } }
      fragment A on Item { ...B }
      fragment B on Item { children(first: 1) @include(if: $id) { id } }
    `;
    expect(guarded(source)).toEqual(['id']);
  });

  it('does not read a fragment only another operation spreads', () => {
    const source = 'query Q { items { id } } query Other($o: ID!) { ...U } fragment U on Query { item(id: $o) { id } }';
    expect(guarded(source, 'Q')).toEqual([]);
    expect(guarded(source, 'Other')).toEqual(['o']);
  });

  it('lists a variable once however often it is guarded, and none for an operation without variables', () => {
    const document = parse('query($id: ID!) { a: item(id: $id) { id } b: item(id: $id) { id } items(ids: [$id]) { id } }');
    expect(guardedVariables(schema, document, getOperationAST(document)!)).toEqual(['id']);
    expect(guarded('{ items(first: 2, ids: ["a"]) { id } }')).toEqual([]);
  });

  it('survives a fragment that spreads itself', () => {
    expect(guarded('query($id: ID!) { ...F } fragment F on Query { item(id: $id) { id } ...F }')).toEqual(['id']);
  });
});
