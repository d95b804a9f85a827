import { describe, expect, it } from '@jest/globals';
import { buildSchema, getOperationAST, parse } from 'graphql';
import { compileQuery, isCompiledQuery, type CompiledQuery } from 'graphql-jit';
import { compilePlan, notCompiledCost, type Jit } from '../../src/execution/compile-plan.ts';

const schema = buildSchema('type Item { id: ID! } type Query { item(id: ID!): Item items(first: Int): [Item] }');
const SOURCE = 'query One($id: ID!, $n: Int) { item(id: $id) { id } items(first: $n) { id } } query Two { items { id } }';
const KEY = 'doc-hash:One';
/** The property graphql-jit's `debug` option leaves the generated code in (src/execution/jit-generated-code.ts). */
const GENERATED_CODE = '__DO_NOT_USE_THIS_OR_YOU_WILL_BE_FIRED_compilation';

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
  it("plans the operation asked for with graphql-jit: its variables, the guarded ones, and no positions yet", () => {
    const document = parse(SOURCE);
    const { plan, cost } = compilePlan({ compileQuery, isCompiledQuery }, schema, document, 'One', KEY);
    expect(plan).not.toBeNull();
    expect(isCompiledQuery(plan!.query)).toBe(true);
    expect(plan!.variableDefinitions.map((definition) => definition.variable.name.value)).toEqual(['id', 'n']);
    expect(plan!.guarded).toEqual(['id']);
    expect(plan!.positions).toBeUndefined();
    expect(plan!.document).toBe(document);
    expect(plan!.operation).toBe(getOperationAST(document, 'One'));
    // The generated code is measured and dropped from the compiled query.
    expect(GENERATED_CODE in plan!.query).toBe(false);
    expect(cost).toBeGreaterThan(12 * 1024 + 72 * SOURCE.length);
  });

  it('runs the compiled query', () => {
    const document = parse('{ items { id } }');
    const { plan } = compilePlan({ compileQuery, isCompiledQuery }, schema, document, undefined, KEY);
    expect(plan!.variableDefinitions).toEqual([]);
    expect(plan!.query.query({ items: [{ id: 'i1' }] }, {}, {})).toEqual({ data: { items: [{ id: 'i1' }] } });
  });

  it('prices a compiled document at 12 kB, 8 bytes per generated character and 72 per document character', () => {
    const jit = fakeJit(() => ({ query: () => ({}), [GENERATED_CODE]: 'x'.repeat(1000) }));
    const { plan, cost } = compilePlan(jit, schema, parse(SOURCE), 'Two', KEY);
    expect(cost).toBe(12_288 + 8 * 1000 + 72 * SOURCE.length);
    expect(plan!.operation.name?.value).toBe('Two');
    expect(plan!.guarded).toEqual([]);
    expect(GENERATED_CODE in (plan!.query as CompiledQuery)).toBe(false);
    expect(jit.options).toEqual([{ debug: true }]);
  });

  it('prices the code at 512 bytes per document character when graphql-jit leaves none', () => {
    const { cost } = compilePlan(fakeJit(() => ({ query: () => ({}) })), schema, parse(SOURCE), 'One', KEY);
    expect(cost).toBe(12_288 + (512 + 72) * SOURCE.length);
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
