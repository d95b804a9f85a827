import { describe, expect, it } from '@jest/globals';
import { buildSchema, Kind, parse, type FieldNode, type GraphQLObjectType, type OperationDefinitionNode } from 'graphql';
import { collectFields, possibleObjectTypes, representationTypenames, rootType, subSelections } from '../../src/hardening/selection-walk.ts';

const schema = buildSchema(`
  interface Node { id: ID! }
  type Cat implements Node { id: ID! name: String lives: Int }
  type Dog implements Node { id: ID! name: String barks: Boolean }
  union Pet = Cat | Dog
  scalar _Any
  type Query { pet: Pet node: Node cat: Cat _entities(representations: [_Any!]!): [Node]! }
  type Mutation { rename(name: String): Cat }
`);
const cat = schema.getType('Cat') as GraphQLObjectType;
const dog = schema.getType('Dog') as GraphQLObjectType;
const query = schema.getQueryType()!;

function operationOf(source: string) {
  const document = parse(source);
  const operation = document.definitions.find((definition): definition is OperationDefinitionNode => definition.kind === Kind.OPERATION_DEFINITION)!;
  return { document, operation };
}

/** The response keys collected on `type`, each with the field names of its nodes. */
function collected(source: string, type: GraphQLObjectType, path: string[] = []): Record<string, string[]> {
  const { document, operation } = operationOf(source);
  let sets = [operation.selectionSet];
  for (const key of path) sets = subSelections(collectFields(schema, document, query, sets).get(key)!);
  const fields = collectFields(schema, document, type, sets);
  return Object.fromEntries([...fields].map(([key, nodes]) => [key, nodes.map((node) => node.name.value)]));
}

/** The first `_entities` field of a document. */
function entitiesField(source: string): FieldNode {
  const { operation } = operationOf(source);
  return operation.selectionSet.selections[0] as FieldNode;
}

describe('rootType', () => {
  it('is Query for a query, Mutation for a mutation, undefined for a subscription', () => {
    expect(rootType(schema, operationOf('{ cat { id } }').operation)).toBe(query);
    expect(rootType(schema, operationOf('mutation { rename { id } }').operation)).toBe(schema.getMutationType());
    expect(rootType(schema, operationOf('subscription { cat { id } }').operation)).toBeUndefined();
  });

  it('is undefined for a mutation on a schema without one', () => {
    const queryOnly = buildSchema('type Query { a: Int }');
    expect(rootType(queryOnly, operationOf('mutation { a }').operation)).toBeUndefined();
  });
});

describe('possibleObjectTypes', () => {
  it('is the type itself for an object, the members for a union or interface, none for a scalar', () => {
    expect(possibleObjectTypes(schema, cat)).toEqual([cat]);
    expect(possibleObjectTypes(schema, schema.getType('Pet')!)).toEqual([cat, dog]);
    expect(possibleObjectTypes(schema, schema.getType('Node')!)).toEqual([cat, dog]);
    expect(possibleObjectTypes(schema, schema.getType('String')!)).toEqual([]);
  });
});

describe('collectFields', () => {
  it('merges fields by response key, in document order, an alias being its own key', () => {
    expect(collected('{ cat { id } node { id } cat { name } other: cat { id } }', query)).toEqual({ cat: ['cat', 'cat'], node: ['node'], other: ['cat'] });
  });

  it('visits an inline fragment only where its condition applies to the object type', () => {
    const source = '{ pet { ... on Cat { lives } ... on Dog { barks } ... on Node { id } ... { name } } }';
    expect(collected(source, cat, ['pet'])).toEqual({ lives: ['lives'], id: ['id'], name: ['name'] });
    expect(collected(source, dog, ['pet'])).toEqual({ barks: ['barks'], id: ['id'], name: ['name'] });
  });

  it('visits a fragment spread where its condition applies, and a named fragment once per collection', () => {
    const source = `
      { pet { ...C ...D ...C ...N } }
      fragment C on Cat { lives }
      fragment D on Dog { barks }
      fragment N on Pet { ... on Cat { name } }
    `;
    expect(collected(source, cat, ['pet'])).toEqual({ lives: ['lives'], name: ['name'] });
    expect(collected(source, dog, ['pet'])).toEqual({ barks: ['barks'] });
  });

  it('skips a spread of a fragment the document lacks, or of a condition the schema lacks', () => {
    expect(collected('{ cat { ...Missing id ... on Nothing { name } } }', cat, ['cat'])).toEqual({ id: ['id'] });
    expect(collected('{ cat { ...F id } } fragment F on Nothing { name }', cat, ['cat'])).toEqual({ id: ['id'] });
  });

  it('merges the selections of every node of one key', () => {
    expect(collected('{ cat { id } cat { name ... on Cat { name lives } } }', cat, ['cat'])).toEqual({ id: ['id'], name: ['name', 'name'], lives: ['lives'] });
  });

  it('does not read @skip or @include: a walk never counts less than execution', () => {
    expect(collected('{ cat @skip(if: true) { id } node @include(if: false) { id } }', query)).toEqual({ cat: ['cat'], node: ['node'] });
  });
});

describe('subSelections', () => {
  it('is the selection set of every node that has one', () => {
    const { document, operation } = operationOf('{ cat { id } cat { name } }');
    const nodes = collectFields(schema, document, query, [operation.selectionSet]).get('cat')!;
    expect(subSelections(nodes)).toEqual([nodes[0]!.selectionSet, nodes[1]!.selectionSet]);
    const leaf = collectFields(schema, document, cat, subSelections(nodes)).get('id')!;
    expect(subSelections(leaf)).toEqual([]);
  });
});

describe('representationTypenames', () => {
  it('reads the __typename of each literal object of a list, undefined where it is not a string', () => {
    const field = entitiesField('{ _entities(representations: [{ __typename: "Cat", id: "1" }, { id: "2" }, { __typename: 3 }, "x"]) { id } }');
    expect(representationTypenames(field, {})).toEqual(['Cat', undefined, undefined, undefined]);
  });

  it('reads a single object literal as a list of one', () => {
    expect(representationTypenames(entitiesField('{ _entities(representations: { __typename: "Dog" }) { id } }'), {})).toEqual(['Dog']);
  });

  it('reads a __typename held in a variable', () => {
    const field = entitiesField('query($t: String) { _entities(representations: [{ __typename: $t }, { __typename: $u }]) { id } }');
    expect(representationTypenames(field, { t: 'Cat', u: 7 })).toEqual(['Cat', undefined]);
  });

  it('reads a variable holding a list, one object, null, or nothing', () => {
    const field = entitiesField('query($r: [_Any!]!) { _entities(representations: $r) { id } }');
    expect(representationTypenames(field, { r: [{ __typename: 'Cat' }, { __typename: 'Dog' }, null, 'x'] })).toEqual(['Cat', 'Dog', undefined, undefined]);
    expect(representationTypenames(field, { r: { __typename: 'Dog' } })).toEqual(['Dog']);
    expect(representationTypenames(field, { r: null })).toEqual([]);
    expect(representationTypenames(field, {})).toEqual([]);
  });

  it('reads list items held in variables', () => {
    const field = entitiesField('query($a: _Any!, $b: _Any!) { _entities(representations: [$a, $b, $c]) { id } }');
    expect(representationTypenames(field, { a: { __typename: 'Cat' }, b: { id: '1' } })).toEqual(['Cat', undefined, undefined]);
  });

  it('does not take an inherited property for a variable that was sent', () => {
    const field = entitiesField('{ _entities(representations: $constructor) { id } }');
    expect(representationTypenames(field, {})).toEqual([]);
  });

  it('is empty without the argument, or with null', () => {
    expect(representationTypenames(entitiesField('{ _entities { id } }'), {})).toEqual([]);
    expect(representationTypenames(entitiesField('{ _entities(representations: null) { id } }'), {})).toEqual([]);
  });
});
