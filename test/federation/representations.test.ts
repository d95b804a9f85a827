import { describe, expect, it } from '@jest/globals';
import { buildSubgraphSchema } from '@apollo/subgraph';
import { buildSchema, execute, parse, type GraphQLSchema } from 'graphql';
import { checkRepresentations } from '../../src/federation/representations.ts';

const TYPE_DEFS = parse(`
  extend schema @link(url: "https://specs.apollo.dev/federation/v2.3", import: ["@key"])
  type Account @key(fields: "id") { id: ID! name: String }
  type Line @key(fields: "accountId number") @key(fields: "lineId") { accountId: ID! number: Int! lineId: ID! }
  type Nested @key(fields: "owner { id }") { owner: Account! }
  type Query { account: Account }
`);

/** Every representation the resolver was asked to resolve. */
let resolved: unknown[] = [];

function subgraph(): GraphQLSchema {
  const schema = buildSubgraphSchema([
    {
      typeDefs: TYPE_DEFS,
      resolvers: {
        Account: { __resolveReference: (reference: { id: string }) => (resolved.push(reference), { id: reference.id, name: `account ${reference.id}` }) },
        Line: { __resolveReference: (reference: Record<string, unknown>) => (resolved.push(reference), { accountId: 'a', number: 1, lineId: 'l' }) },
      } as never,
    },
  ]);
  checkRepresentations(schema);
  return schema;
}

const schema = subgraph();
const ENTITIES = parse('query($r: [_Any!]!) { _entities(representations: $r) { __typename ... on Account { name } } }');

async function entities(representations: unknown[]) {
  resolved = [];
  return JSON.parse(JSON.stringify(await execute({ schema, document: ENTITIES, variableValues: { r: representations } })));
}

/** The answer to a refused list: one BAD_USER_INPUT on `_entities`, and nothing resolved. */
function refusal(message: string) {
  return { data: null, errors: [{ message, locations: [{ line: 1, column: 23 }], path: ['_entities'], extensions: { code: 'BAD_USER_INPUT', argumentName: 'representations' } }] };
}

describe('checkRepresentations', () => {
  it('resolves well-formed representations, a key held as a string or an integer', async () => {
    expect(await entities([{ __typename: 'Account', id: 'a1' }, { __typename: 'Account', id: 7 }])).toEqual({
      data: { _entities: [{ __typename: 'Account', name: 'account a1' }, { __typename: 'Account', name: 'account 7' }] },
    });
  });

  it('takes any one of a type’s keys, compound keys whole', async () => {
    expect((await entities([{ __typename: 'Line', accountId: 'a', number: 3 }, { __typename: 'Line', lineId: 9 }])).errors).toBeUndefined();
    expect(resolved).toHaveLength(2);
  });

  it('refuses a value that is no object, naming its index, before resolving any', async () => {
    expect(await entities([{ __typename: 'Account', id: 'a1' }, 'a2'])).toEqual(refusal("representations[1] must be an object with __typename and the entity's key fields"));
    expect(await entities([[{ __typename: 'Account', id: 'a1' }]])).toEqual(refusal("representations[0] must be an object with __typename and the entity's key fields"));
    expect(resolved).toEqual([]);
  });

  it('refuses a representation without a string __typename', async () => {
    expect(await entities([{ id: 'a1' }])).toEqual(refusal('representations[0] has no __typename'));
    expect(await entities([{ __typename: 5, id: 'a1' }])).toEqual(refusal('representations[0] has no __typename'));
  });

  it('refuses a type that is no entity of the subgraph, quoting at most 64 characters of it', async () => {
    expect(await entities([{ __typename: 'Query' }])).toEqual(refusal('representations[0]: "Query" is not an entity type of this subgraph'));
    const long = `T${'x'.repeat(200)}`;
    expect(await entities([{ __typename: long, id: 'a' }])).toEqual(refusal(`representations[0]: "${long.slice(0, 64)}…" is not an entity type of this subgraph`));
  });

  it('refuses a representation without every field of one key as an ID, naming the keys', async () => {
    expect(await entities([{ __typename: 'Account' }])).toEqual(refusal('representations[0]: Account needs its key field id as an ID'));
    expect(await entities([{ __typename: 'Account', id: 1.5 }])).toEqual(refusal('representations[0]: Account needs its key field id as an ID'));
    expect(await entities([{ __typename: 'Account', id: null }])).toEqual(refusal('representations[0]: Account needs its key field id as an ID'));
    expect(await entities([{ __typename: 'Line', accountId: 'a' }])).toEqual(refusal('representations[0]: Line needs its key fields accountId number or lineId as an ID'));
    expect(resolved).toEqual([]);
  });

  // An entity whose keys are all nested has no flat key set: refused, not an internal error (every
  // key of schema/ is flat today).
  it('refuses a representation of an entity whose only key is nested as BAD_USER_INPUT', async () => {
    const answer = await entities([{ __typename: 'Nested', owner: { id: 'a' } }]);
    expect(answer.errors.map((error: { extensions: { code: string } }) => error.extensions.code)).toEqual(['BAD_USER_INPUT']);
  });

  it('leaves a schema without _entities as it is', () => {
    const plain = buildSchema('type Query { a: Int }');
    expect(() => checkRepresentations(plain)).not.toThrow();
    expect(plain.getQueryType()!.getFields()._entities).toBeUndefined();
  });
});
