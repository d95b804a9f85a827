import { describe, expect, it, jest } from '@jest/globals';
import { parse, type OperationDefinitionNode } from 'graphql';
import { CallEstimator } from '../../src/budgets/estimate.ts';
import { buildSchema } from '../../src/schema/schema.ts';

// The estimate remembered by document and variables' shape (CallEstimator.estimateSent): the same
// answer as estimating afresh, computed once per shape, and never reused where the shape does not
// tell the price (the types of `_entities` representations).

const SIZES = { defaultSize: 20, maxSize: 100, upstreamPageSize: 50 };
const schema = buildSchema();

function operationOf(text: string) {
  const document = parse(text);
  return { document, operation: document.definitions[0] as OperationDefinitionNode };
}

describe('estimateSent', () => {
  const page = operationOf('query Page($n: Int, $after: String) { exceptions(first: $n, after: $after) { nodes { id } } }');

  it('prices each page size and offset as a fresh estimate does', () => {
    const estimator = new CallEstimator(schema, SIZES);
    const sent = (variables: Record<string, unknown>) => estimator.estimateSent('h1', page.document, page.operation, variables);
    // 20 rows: one platform page; 80 rows: two of 50; an offset may straddle one more.
    expect([sent({ n: 20 }), sent({ n: 80 }), sent({ n: 20, after: 'x' }), sent({}), sent({ n: 20 })]).toEqual([1, 2, 2, 1, 1]);
    const fresh = new CallEstimator(schema, SIZES);
    expect([{ n: 20 }, { n: 80 }, { n: 20, after: 'x' }, {}].map((variables) => fresh.estimate(page.document, page.operation, variables))).toEqual([1, 2, 2, 1]);
  });

  it('estimates a document once per shape of its variables', () => {
    const estimator = new CallEstimator(schema, SIZES);
    const estimate = jest.spyOn(estimator, 'estimate');
    for (const after of ['a', 'b', 'c']) estimator.estimateSent('h1', page.document, page.operation, { n: 80, after });
    estimator.estimateSent('h1', page.document, page.operation, { n: 81, after: 'd' });
    // Another document hash is another document, even with the same operation.
    estimator.estimateSent('h2', page.document, page.operation, { n: 80, after: 'a' });
    expect(estimate).toHaveBeenCalledTimes(3);
  });

  it('applies the operation defaults, as execution does', () => {
    const estimator = new CallEstimator(schema, SIZES);
    const defaulted = operationOf('query Page($n: Int = 100) { exceptions(first: $n) { nodes { id } } }');
    expect(estimator.estimateSent('h3', defaulted.document, defaulted.operation, {})).toBe(2);
    expect(estimator.estimateSent('h3', defaulted.document, defaulted.operation, { n: 10 })).toBe(1);
  });

  it('estimates a document asking _entities every time: the types of its representations set the price', () => {
    const estimator = new CallEstimator(schema, SIZES);
    const estimate = jest.spyOn(estimator, 'estimate');
    const entities = operationOf('query Entities($r: [_Any!]!) { _entities(representations: $r) { ... on Document { id } } }');
    const sent = (types: string[]) => estimator.estimateSent('h4', entities.document, entities.operation, { r: types.map((type, i) => ({ __typename: type, id: `x${i}` })) });
    // A Document costs one call, a FinancialAccount none: same length, other price.
    expect([sent(['Document', 'Document']), sent(['FinancialAccount', 'FinancialAccount']), sent(['Document', 'FinancialAccount'])]).toEqual([2, 0, 1]);
    expect(estimate).toHaveBeenCalledTimes(3);
  });

  it('estimates every time without a document hash', () => {
    const estimator = new CallEstimator(schema, SIZES);
    const estimate = jest.spyOn(estimator, 'estimate');
    estimator.estimateSent(undefined, page.document, page.operation, { n: 20 });
    estimator.estimateSent(undefined, page.document, page.operation, { n: 20 });
    expect(estimate).toHaveBeenCalledTimes(2);
  });
});

describe('the page plan of a connection', () => {
  const linx = operationOf('query Batches($filter: LinxBatchFilter!, $n: Int) { linxBatches(filter: $filter, first: $n) { pageInfo { hasNextPage } } }');
  const filter = { templateId: 't', templateVersionId: 'v' };

  it('counts the row after the window that answers hasNextPage on a list that may not report its length', () => {
    const estimator = new CallEstimator(schema, { defaultSize: 20, maxSize: 100, upstreamPageSize: 10 });
    expect([10, 20, 30, 50, 100].map((n) => estimator.estimate(linx.document, linx.operation, { filter, n }))).toEqual([2, 3, 4, 6, 11]);
    const wide = new CallEstimator(schema, { defaultSize: 20, maxSize: 100, upstreamPageSize: 100 });
    expect([99, 100].map((n) => wide.estimate(linx.document, linx.operation, { filter, n }))).toEqual([1, 2]);
  });

  it('prices each list at the page size the gateway learned for it, and again once that changes', () => {
    let generation = 1;
    const caps = new Map([['exceptions', 25], ['acceptances', 10]]);
    const lists = { pageSizeFor: (list: string, configured: number) => Math.min(configured, caps.get(list) ?? Infinity), get capsGeneration() { return generation; } };
    const estimator = new CallEstimator(schema, { defaultSize: 20, maxSize: 100, upstreamPageSize: 100 });
    const exceptions = operationOf('query E($n: Int) { exceptions(first: $n) { nodes { id } } }');
    const acceptances = operationOf('query A($n: Int) { documentAcceptances(financialAccountId: "f", first: $n) { nodes { id } } }');
    const count = operationOf('{ exceptions(first: 21) { totalCount } }');
    const sent = (op: ReturnType<typeof operationOf>, n?: number) => estimator.estimateSent(`h-${op.operation.name?.value}`, op.document, op.operation, n === undefined ? {} : { n }, lists);
    expect([sent(exceptions, 100), sent(exceptions, 25), sent(exceptions, 26), sent(acceptances, 100), sent(count)]).toEqual([4, 1, 2, 10, 1]);
    caps.set('exceptions', 10);
    generation++;
    expect([sent(exceptions, 100), sent(count)]).toEqual([10, 3]);
    // Without what the gateway learned: the configured size.
    expect(estimator.estimate(exceptions.document, exceptions.operation, { n: 100 })).toBe(1);
  });
});
