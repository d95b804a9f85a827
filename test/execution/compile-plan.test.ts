import { describe, expect, it } from '@jest/globals';
import { buildSchema, parse } from 'graphql';
import { compileQuery, isCompiledQuery } from 'graphql-jit';
import { compilePlan, notCompiledCost, type Jit } from '../../src/execution/compile-plan.ts';

const schema = buildSchema('type Item { id: ID! } type Query { item(id: ID!): Item items(first: Int): [Item] }');
const SOURCE = 'query One($id: ID!, $n: Int) { item(id: $id) { id } items(first: $n) { id } } query Two { items { id } }';
const KEY = 'doc-hash:One';

/** A jit whose compileQuery answers `outcome` (or throws it), recording the options it was given. */
function fakeJit(outcome: () => unknown): Jit & { options: unknown[] } {
  const options: unknown[] = [];
  return {
    options,
    compileQuery: ((_schema: unknown, _document: unknown, _name: unknown, given: unknown) => (options.push(given), outcome())) as unknown as Jit['compileQuery'],
    isCompiledQuery: ((value: object) => 'query' in value) as Jit['isCompiledQuery'],
  };
}

describe('notCompiledCost', () => {
  it('is the key twice and 128 bytes', () => {
    expect(notCompiledCost('')).toBe(128);
    expect(notCompiledCost('abcd')).toBe(136);
  });
});

describe('compilePlan', () => {
  it('plans the operation asked for with graphql-jit: its variables and the guarded ones', () => {
    const document = parse(SOURCE);
    const { plan, cost } = compilePlan({ compileQuery, isCompiledQuery }, schema, document, 'One', KEY);
    expect(plan).not.toBeNull();
    expect(isCompiledQuery(plan!.query)).toBe(true);
    expect(plan!.variableDefinitions.map((definition) => definition.variable.name.value)).toEqual(['id', 'n']);
    expect(plan!.guarded).toEqual(['id']);
    expect(Object.keys(plan!).sort()).toEqual(['guarded', 'query', 'variableDefinitions']);
    expect(cost).toBe(4_096 + 768 * SOURCE.length);
  });

  it('runs the compiled query', () => {
    const document = parse('{ items { id } }');
    const { plan } = compilePlan({ compileQuery, isCompiledQuery }, schema, document, undefined, KEY);
    expect(plan!.variableDefinitions).toEqual([]);
    expect(plan!.query.query({ items: [{ id: 'i1' }] }, {}, {})).toEqual({ data: { items: [{ id: 'i1' }] } });
  });

  it('prices a compiled document from its text alone: 4 KiB and 768 bytes per character, whatever jit generated', () => {
    const jit = fakeJit(() => ({ query: () => ({}) }));
    const { plan, cost } = compilePlan(jit, schema, parse(SOURCE), 'Two', KEY);
    expect(cost).toBe(4_096 + 768 * SOURCE.length);
    expect(plan!.guarded).toEqual([]);
    expect(plan!.variableDefinitions).toEqual([]);
    // Compiled with graphql-jit's default options: no private debug output is asked for.
    expect(jit.options).toEqual([undefined]);
    expect(compilePlan(jit, schema, parse('{ t: __typename }'), undefined, KEY).cost).toBe(4_096 + 768 * 17);
  });

  it('has no plan, and the cost of a bare entry, when graphql-jit throws or answers errors', () => {
    const throwing = fakeJit(() => {
      throw new Error('unsupported');
    });
    expect(compilePlan(throwing, schema, parse(SOURCE), 'One', KEY)).toEqual({ plan: null, cost: notCompiledCost(KEY) });
    expect(compilePlan(fakeJit(() => ({ errors: [new Error('no')] })), schema, parse(SOURCE), 'One', KEY)).toEqual({ plan: null, cost: notCompiledCost(KEY) });
    // graphql-jit's own answer for an operation the document lacks.
    expect(compilePlan({ compileQuery, isCompiledQuery }, schema, parse(SOURCE), 'Three', KEY)).toEqual({ plan: null, cost: notCompiledCost(KEY) });
  });

  it('has no plan when the operation cannot be found, even if graphql-jit compiled something', () => {
    expect(compilePlan(fakeJit(() => ({ query: () => ({}) })), schema, parse(SOURCE), 'Three', KEY)).toEqual({ plan: null, cost: notCompiledCost(KEY) });
    expect(compilePlan(fakeJit(() => ({ query: () => ({}) })), schema, parse(SOURCE), undefined, KEY)).toEqual({ plan: null, cost: notCompiledCost(KEY) });
  });
});
