import { describe, expect, it } from '@jest/globals';
import { buildSchema, getOperationAST, parse } from 'graphql';
import { comparePaths, positionOf, responsePositions, type Position } from '../../src/execution/response-positions.ts';

const schema = buildSchema(`
  interface Node { id: ID! }
  type Cat implements Node { id: ID! name: String! tags: [String!] }
  type Dog implements Node { id: ID! name: String grid: [[String]!]! }
  union Pet = Cat | Dog
  type Query { pet: Pet! pets: [Pet!]! node: Node cat: Cat }
  type Mutation { adopt: Cat! }
`);

function positions(source: string, operationName?: string): Position {
  const document = parse(source);
  return responsePositions(schema, document, getOperationAST(document, operationName)!);
}

/** Each position as its key, with `!` when non-null, over the positions under it, keys in order. */
function shape(position: Position): Record<string, unknown> {
  const children = [...position.children].sort(([, a], [, b]) => a.order - b.order);
  return Object.fromEntries(children.map(([key, child]) => [`${key}${child.nonNull ? '!' : ''}`, shape(child)]));
}

describe('responsePositions', () => {
  it('gives every selected field its nullness and its document order under its parent', () => {
    const root = positions('{ cat { name id } node { id } renamed: cat { tags } }');
    expect(shape(root)).toEqual({ cat: { 'name!': {}, 'id!': {} }, node: { 'id!': {} }, renamed: { tags: { '#!': {} } } });
    expect([...root.children.values()].map((position) => position.order)).toEqual([0, 1, 2]);
    expect(root.nonNull).toBe(false);
  });

  it('goes down through lists, one # position per level', () => {
    const root = positions('{ pets { ... on Dog { grid } } }');
    expect(shape(root)).toEqual({ 'pets!': { '#!': { 'grid!': { '#!': { '#': {} } } } } });
    expect(positionOf(root, ['pets', 0, 'grid', 1])?.nonNull).toBe(true);
    expect(positionOf(root, ['pets', 0, 'grid', 1, 5])?.nonNull).toBe(false);
  });

  it('makes a key non-null only when it is on every possible type', () => {
    const root = positions('{ pet { ... on Cat { name id } ... on Dog { name id } } }');
    expect(shape(root)).toEqual({ 'pet!': { name: {}, 'id!': {} } });
  });

  it('reads fragment spreads, named fragments on an abstract type, and interface fields', () => {
    const source = `
      { pets { ...P } node { ...N } }
      fragment P on Pet { ... on Cat { name } }
      fragment N on Node { id ... on Dog { name } }
    `;
    expect(shape(positions(source))).toEqual({ 'pets!': { '#!': { 'name!': {} } }, node: { 'id!': {}, name: {} } });
  });

  it('does not spread a fragment within itself, nor one the document lacks', () => {
    const source = '{ cat { ...Loop ...Missing } } fragment Loop on Cat { id ...Loop }';
    expect(shape(positions(source))).toEqual({ cat: { 'id!': {} } });
  });

  it('takes a field the type lacks as nullable, and keeps the parent type for an unknown condition', () => {
    expect(shape(positions('{ cat { nope ... on Unknown { name } } }'))).toEqual({ cat: { nope: {}, 'name!': {} } });
  });

  it('starts at the operation root of the operation asked for', () => {
    expect(shape(positions('query Q { cat { id } } mutation M { adopt { name } }', 'M'))).toEqual({ 'adopt!': { 'name!': {} } });
  });

  it('has no positions for an operation the schema has no root for', () => {
    expect(shape(positions('subscription { cat { id } }'))).toEqual({});
  });
});

describe('positionOf', () => {
  const root = positions('{ pets { ... on Cat { name } } cat { id } }');

  it('follows response keys, and # for any list index', () => {
    expect(positionOf(root, [])).toBe(root);
    expect(positionOf(root, ['pets', 3, 'name'])?.nonNull).toBe(true);
    expect(positionOf(root, ['cat'])?.nonNull).toBe(false);
  });

  it('is undefined past the known positions', () => {
    expect(positionOf(root, ['cat', 'name'])).toBeUndefined();
    expect(positionOf(root, ['cat', 'id', 'deeper'])).toBeUndefined();
    expect(positionOf(root, [0])).toBeUndefined();
  });
});

describe('comparePaths', () => {
  const root = positions('{ b: cat { id name } a: pets { ... on Cat { name id } } }');

  it('orders keys by the document, not by name', () => {
    expect(comparePaths(root, ['b'], ['a'])).toBeLessThan(0);
    expect(comparePaths(root, ['a', 0, 'id'], ['a', 0, 'name'])).toBeGreaterThan(0);
    expect(comparePaths(root, ['b', 'id'], ['b', 'name'])).toBeLessThan(0);
  });

  it('orders list items by index before anything under them', () => {
    expect(comparePaths(root, ['a', 2, 'name'], ['a', 1, 'id'])).toBe(1);
    expect(comparePaths(root, ['a', 0, 'id'], ['a', 4, 'name'])).toBe(-4);
  });

  it('puts a path before the paths under it, and is zero for the same path', () => {
    expect(comparePaths(root, ['a'], ['a', 0])).toBe(-1);
    expect(comparePaths(root, ['a', 0, 'name'], ['a', 0])).toBe(1);
    expect(comparePaths(root, ['a', 1, 'id'], ['a', 1, 'id'])).toBe(0);
  });

  it('puts an unknown key after every known one', () => {
    expect(comparePaths(root, ['zzz'], ['a'])).toBeGreaterThan(0);
    expect(comparePaths(root, ['b'], ['zzz'])).toBeLessThan(0);
  });
});
