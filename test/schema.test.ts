import { describe, expect, it, jest } from '@jest/globals';
import { execute, parse, type GraphQLSchema } from 'graphql';

// buildSchema's last step is the areas' check; a spy over the real one sees that it checks the
// schema it is about to return (test/area-modules.test.ts and test/areas.test.ts test the check).
const areaModules = await import('../src/schema/area-modules.ts');
const checked: GraphQLSchema[] = [];
jest.unstable_mockModule('../src/schema/area-modules.ts', () => ({
  ...areaModules,
  checkAreaModules: (schema: GraphQLSchema) => {
    checked.push(schema);
    areaModules.checkAreaModules(schema);
  },
}));
const { buildSchema } = await import('../src/schema/schema.ts');

const schema = buildSchema();

const DOCUMENT = {
  id: 'd0c00000-0000-4000-8000-000000000001',
  name: 'Passport',
  documentType: 'driving-license',
  issuingDate: '2020-02-29',
  createdAt: '2026-03-04T10:15:30.123+0200',
  createdBy: { id: '', type: 'internal' },
};

/** A context whose document loader answers DOCUMENT for its id and notes every id it is asked. */
function context() {
  const loads: string[] = [];
  const load = async (id: string) => {
    loads.push(id);
    if (id !== 'd0c00000-0000-4000-8000-000000000001') throw new Error(`no document ${id}`);
    return DOCUMENT;
  };
  return { loads, ctx: { loaders: { document: { load } } } };
}

const ENTITIES = parse(`
  query ($representations: [_Any!]!) {
    _entities(representations: $representations) {
      __typename
      ... on Document { id name documentType issuingDate createdAt createdBy { id type } }
      ... on FinancialAccount { id }
    }
  }
`);

describe('buildSchema', () => {
  it("resolves a Document representation through the documents area's reference resolver, with its types' resolvers and the scalars", async () => {
    const { loads, ctx } = context();
    const result = await execute({ schema, document: ENTITIES, contextValue: ctx, variableValues: { representations: [{ __typename: 'Document', id: 'd0c00000-0000-4000-8000-000000000001' }] } });
    expect(result).toEqual({
      data: {
        _entities: [
          {
            __typename: 'Document',
            id: 'd0c00000-0000-4000-8000-000000000001',
            name: 'Passport',
            documentType: 'DRIVING_LICENSE',
            issuingDate: '2020-02-29',
            createdAt: '2026-03-04T08:15:30.123Z',
            createdBy: { id: null, type: 'INTERNAL' },
          },
        ],
      },
    });
    expect(loads).toEqual(['d0c00000-0000-4000-8000-000000000001']);
  });

  it('resolves a FinancialAccount representation to its id alone, with no platform call', async () => {
    const { loads, ctx } = context();
    const result = await execute({ schema, document: ENTITIES, contextValue: ctx, variableValues: { representations: [{ __typename: 'FinancialAccount', id: 'fa000000-0000-4000-8000-000000000001' }] } });
    expect(result).toEqual({ data: { _entities: [{ __typename: 'FinancialAccount', id: 'fa000000-0000-4000-8000-000000000001' }] } });
    expect(loads).toEqual([]);
  });

  it('refuses a malformed representation as BAD_USER_INPUT before resolving any entity', async () => {
    const { loads, ctx } = context();
    const representations = [{ __typename: 'Document', id: 'd0c00000-0000-4000-8000-000000000001' }, { __typename: 'Document' }];
    const result = await execute({ schema, document: ENTITIES, contextValue: ctx, variableValues: { representations } });
    expect(result.data).toBeNull();
    expect(result.errors?.map((error) => [error.message, error.extensions])).toEqual([
      ['representations[1]: Document needs its key field id as an ID', { code: 'BAD_USER_INPUT', argumentName: 'representations' }],
    ]);
    expect(loads).toEqual([]);
  });

  it("checks the schema it returns against the areas' code", () => {
    expect(checked).toEqual([schema]);
    expect(checked[0]).toBe(schema);
  });
});
