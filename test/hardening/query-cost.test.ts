import { describe, expect, it } from '@jest/globals';
import { buildSchema, Kind, parse, type DocumentNode, type OperationDefinitionNode } from 'graphql';
import { armorCost, BACKWARD_WALK_COST, BACKWARD_WALK_RECORDS, backwardWalks, representationCount, type PageSizes } from '../../src/hardening/query-cost.ts';

// linxBatches is the one Query field of WALKING_FIELDS (src/schema/area-modules.ts): its list may answer without its length.
const schema = buildSchema(`
  type Item { id: ID }
  type ItemConnection { nodes: [Item] }
  type Cat { id: ID name: String }
  union _Entity = Cat
  scalar _Any
  type Query {
    items(first: Int, last: Int, after: String, before: String): ItemConnection
    linxBatches(first: Int, last: Int, after: String, before: String): ItemConnection
    _entities(representations: [_Any!]!): [_Entity]!
    cat: Cat
  }
  type Mutation { linxBatches(last: Int): ItemConnection }
`);
const SIZES: PageSizes = { defaultSize: 10, maxSize: 100 };

function parsed(source: string): { document: DocumentNode; operations: OperationDefinitionNode[] } {
  const document = parse(source);
  return { document, operations: document.definitions.filter((definition): definition is OperationDefinitionNode => definition.kind === Kind.OPERATION_DEFINITION) };
}

function cost(source: string, variables: Record<string, unknown> = {}, sizes: PageSizes = SIZES): number {
  const { document, operations } = parsed(source);
  return armorCost(schema, document, operations[0]!, variables, sizes);
}

function walks(source: string, variables: Record<string, unknown> = {}): number {
  const { document, operations } = parsed(source);
  return backwardWalks(schema, operations[0]!, document, variables);
}

function representations(source: string, variables: Record<string, unknown> = {}): number {
  const { document, operations } = parsed(source);
  return representationCount(schema, operations[0]!, document, variables);
}

// armor's cost: a leaf 1; an object (2 + 1.5 × its children) × its page size. `nodes { id }` is 2 + 1.5 = 3.5,
// so a connection selecting it is (2 + 1.5 × 3.5) × size = 7.25 × size.
const NODES = 'nodes { id }';

describe('the walk constants', () => {
  it('price a walk at two per record it may read', () => {
    expect(BACKWARD_WALK_RECORDS).toBe(10_000);
    expect(BACKWARD_WALK_COST).toBe(20_000);
  });
});

describe('armorCost', () => {
  it('multiplies a connection by its literal first or last', () => {
    expect(cost(`{ items(first: 3) { ${NODES} } }`)).toBe(21.75);
    expect(cost(`{ items(last: 2, after: "c") { ${NODES} } }`)).toBe(14.5);
    expect(cost('{ cat { name } }')).toBe(3.5);
  });

  it('takes the default size for a connection without first or last', () => {
    expect(cost(`{ items { ${NODES} } }`)).toBe(72.5);
    expect(cost(`{ items { ${NODES} } }`, {}, { defaultSize: 4, maxSize: 100 })).toBe(29);
  });

  it('caps a size over the largest at the largest', () => {
    expect(cost(`{ items(first: 1000) { ${NODES} } }`)).toBe(725);
  });

  it('reads a size from its variable, or from the default when the variable is missing or not an integer', () => {
    const source = `query($n: Int) { items(first: $n) { ${NODES} } }`;
    expect(cost(source, { n: 4 })).toBe(29);
    expect(cost(source, { n: 500 })).toBe(725);
    expect(cost(source, {})).toBe(72.5);
    expect(cost(source, { n: 2.5 })).toBe(72.5);
    expect(cost(source, { n: '4' })).toBe(72.5);
  });

  it('counts a size of zero or below as one page of one (armor never multiplies by less than one)', () => {
    expect(cost(`query($n: Int) { items(first: $n) { ${NODES} } }`, { n: -3 })).toBe(7.25);
    expect(cost(`{ items(first: 0) { ${NODES} } }`)).toBe(7.25);
  });

  it('adds up every root field, each connection with its own size', () => {
    expect(cost(`{ a: items(first: 2) { ${NODES} } b: items { ${NODES} } cat { name } }`)).toBe(14.5 + 72.5 + 3.5);
  });

  it('multiplies _entities by its number of representations', () => {
    // The inline fragment is flattened into _entities: (2 + (2 + 1.5 × 1)) × representations.
    const selection = '{ ... on Cat { name } }';
    expect(cost(`{ _entities(representations: [{ __typename: "Cat" }, { __typename: "Cat" }, { __typename: "Cat" }]) ${selection} }`)).toBe(16.5);
    expect(cost(`query($r: [_Any!]!) { _entities(representations: $r) ${selection} }`, { r: Array.from({ length: 5 }, () => ({ __typename: 'Cat' })) })).toBe(27.5);
    expect(cost(`query($r: [_Any!]!) { _entities(representations: $r) ${selection} }`, { r: [] })).toBe(5.5);
  });

  it('is the cost of the operation asked for, and the costliest for one not in the document', () => {
    const { document, operations } = parsed(`query A { cat { name } } query B { items(first: 2) { ${NODES} } } query C { cat { id } }`);
    expect(operations.map((operation) => armorCost(schema, document, operation, {}, SIZES))).toEqual([3.5, 14.5, 3.5]);
    const stranger = parsed('query A { cat { name } }').operations[0]!;
    expect(armorCost(schema, document, stranger, {}, SIZES)).toBe(14.5);
  });

  it('keeps the costs of one validation apart from the next', () => {
    expect(cost(`{ items(first: 3) { ${NODES} } }`)).toBe(21.75);
    expect(cost('{ cat { name } }')).toBe(3.5);
  });
});

describe('backwardWalks', () => {
  it('counts last without before on a walking field, once per response key', () => {
    expect(walks(`{ linxBatches(last: 1) { ${NODES} } }`)).toBe(1);
    expect(walks(`{ a: linxBatches(last: 1) { ${NODES} } b: linxBatches(last: 2) { ${NODES} } a: linxBatches(last: 1) { nodes { id } } }`)).toBe(2);
  });

  it('does not count last with before, first, a null last, or a field whose list reports its length', () => {
    expect(walks(`{ linxBatches(last: 1, before: "c") { ${NODES} } }`)).toBe(0);
    expect(walks(`{ linxBatches(first: 1) { ${NODES} } }`)).toBe(0);
    expect(walks(`{ linxBatches(last: null) { ${NODES} } }`)).toBe(0);
    expect(walks(`{ items(last: 1) { ${NODES} } }`)).toBe(0);
  });

  it('reads last and before from variables', () => {
    const source = `query($n: Int, $b: String) { linxBatches(last: $n, before: $b) { ${NODES} } }`;
    expect(walks(source, { n: 3 })).toBe(1);
    expect(walks(source, { n: 3, b: null })).toBe(1);
    expect(walks(source, { n: 3, b: 'c' })).toBe(0);
    expect(walks(source, {})).toBe(0);
  });

  it('finds walks in inline fragments and fragment spreads on Query', () => {
    expect(walks(`{ ... on Query { a: linxBatches(last: 1) { ${NODES} } } ...F } fragment F on Query { b: linxBatches(last: 1) { ${NODES} } }`)).toBe(2);
  });

  it('counts none in a mutation', () => {
    expect(walks(`mutation { linxBatches(last: 1) { ${NODES} } }`)).toBe(0);
  });
});

describe('representationCount', () => {
  it('adds the representations of every _entities response key', () => {
    const source = `query($r: [_Any!]!) {
      a: _entities(representations: [{ __typename: "Cat" }, { id: "2" }]) { __typename }
      b: _entities(representations: $r) { __typename }
      ... on Query { c: _entities(representations: { __typename: "Cat" }) { __typename } }
    }`;
    expect(representations(source, { r: [{}, {}, {}] })).toBe(6);
  });

  it('counts one key once, and nothing in a mutation or without _entities', () => {
    expect(representations('{ _entities(representations: [{ id: 1 }]) { __typename } _entities(representations: [{ id: 1 }]) { __typename } }')).toBe(1);
    expect(representations('mutation { linxBatches { nodes { id } } }')).toBe(0);
    expect(representations('{ cat { id } }')).toBe(0);
  });
});
