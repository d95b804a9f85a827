import { describe, expect, it } from '@jest/globals';
import { buildSchema } from 'graphql';
import { acceptanceList } from '../src/acceptances/api.ts';
import { acceptanceResolvers } from '../src/acceptances/resolvers.ts';
import { AREA_MODULES, checkAreaModules } from '../src/schema/area-modules.ts';
import { documentResolvers } from '../src/documents/resolvers.ts';
import { exceptionList } from '../src/exceptions/api.ts';
import { exceptionResolvers } from '../src/exceptions/resolvers.ts';
import { federationResolvers } from '../src/federation/resolvers.ts';
import { linxBatchList } from '../src/linx/api.ts';
import { linxResolvers } from '../src/linx/resolvers.ts';

// test/areas.test.ts checks the areas against the real SDL; these tests give checkAreaModules small
// schemas written here, so each rule of what it refuses is seen on its own.

const DIRECTIVES = `
  directive @listSize(assumedSize: Int) on FIELD_DEFINITION
  directive @key(fields: String!, resolvable: Boolean = true) repeatable on OBJECT
  directive @shareable on OBJECT
`;
const LISTS = `
  type Query {
    documentAcceptances(first: Int): Int @listSize(assumedSize: 20)
    exceptions(first: Int): Int @listSize(assumedSize: 20)
    linxBatches(first: Int): Int @listSize(assumedSize: 20)
  }
`;
const ENTITIES = `
  type Document @key(fields: "id") { id: ID! }
  type FinancialAccount @key(fields: "id") { id: ID! }
  union _Entity = Document | FinancialAccount
`;
const schemaOf = (...parts: string[]) => buildSchema([DIRECTIVES, ...parts].join('\n'));
const PREFIX = "The areas' code (src/schema/area-modules.ts) does not match the schema: ";

describe('AREA_MODULES', () => {
  it("gives each area its resolvers, the lists its Query fields read and what resolving its entities costs", () => {
    expect(AREA_MODULES).toEqual({
      acceptances: { resolvers: acceptanceResolvers, queryLists: { documentAcceptances: acceptanceList }, entityCalls: { FinancialAccount: 0 } },
      documents: { resolvers: documentResolvers, entityCalls: { Document: 1 } },
      exceptions: { resolvers: exceptionResolvers, queryLists: { exceptions: exceptionList } },
      federation: { resolvers: federationResolvers },
      linx: { resolvers: linxResolvers, queryLists: { linxBatches: linxBatchList } },
    });
  });
});

describe('checkAreaModules', () => {
  it('accepts a schema whose list fields and entities are exactly those of the areas', () => {
    expect(() => checkAreaModules(schemaOf(LISTS, ENTITIES))).not.toThrow();
  });

  it('refuses a Query field with @listSize in no area, and names a listed field without @listSize as a leftover', () => {
    const lists = LISTS.replace('linxBatches(first: Int): Int @listSize(assumedSize: 20)', 'linxBatches(first: Int): Int\n moreBatches(first: Int): Int @listSize(assumedSize: 5)');
    expect(() => checkAreaModules(schemaOf(lists, ENTITIES))).toThrow(
      new Error(`${PREFIX}Query.moreBatches has @listSize but is in no area's queryLists; queryLists names linxBatches, which is not a Query field with @listSize`),
    );
  });

  it('counts a Query field as a list field by its @listSize alone, not by another directive', () => {
    const lists = LISTS.replace('type Query {', 'type Query {\n    oldBatches(first: Int): Int @deprecated(reason: "use linxBatches")');
    expect(() => checkAreaModules(schemaOf(lists, ENTITIES))).not.toThrow();
  });

  it('lists every mismatch, in the order lists then entities, in one refusal', () => {
    const entities = 'type Document @key(fields: "id") { id: ID! }\n type Invoice @key(fields: "id") { id: ID! }\n union _Entity = Document | Invoice';
    expect(() => checkAreaModules(schemaOf('type Query { exceptions(first: Int): Int @listSize(assumedSize: 20) }', entities))).toThrow(
      new Error(
        `${PREFIX}queryLists names documentAcceptances, which is not a Query field with @listSize; ` +
          'queryLists names linxBatches, which is not a Query field with @listSize; ' +
          "entity Invoice is in no area's entityCalls; " +
          'entityCalls names FinancialAccount, which is not an entity this subgraph resolves',
      ),
    );
  });

  it('takes a schema without entities as resolving none', () => {
    expect(() => checkAreaModules(schemaOf(LISTS))).toThrow(
      new Error(
        `${PREFIX}entityCalls names FinancialAccount, which is not an entity this subgraph resolves; entityCalls names Document, which is not an entity this subgraph resolves`,
      ),
    );
    // An _Entity that is not a union holds no entity either.
    expect(() => checkAreaModules(schemaOf(LISTS, 'type _Entity { id: ID }'))).toThrow('entityCalls names FinancialAccount, which is not an entity');
  });

  it('takes a schema without a Query type as having no list field', () => {
    expect(() => checkAreaModules(schemaOf('type Mutation { ping: Int }', ENTITIES))).toThrow(
      new Error(
        `${PREFIX}queryLists names documentAcceptances, which is not a Query field with @listSize; ` +
          'queryLists names exceptions, which is not a Query field with @listSize; ' +
          'queryLists names linxBatches, which is not a Query field with @listSize',
      ),
    );
  });

  it('reads an entity as resolved here when one of its keys, on the type or an extension, is not resolvable: false', () => {
    const entities = (document: string) => `${document}\n type FinancialAccount @key(fields: "id") { id: ID! }\n union _Entity = Document | FinancialAccount`;
    const accepted = [
      'type Document @key(fields: "id", resolvable: true) { id: ID! }',
      'type Document @key(fields: "id", resolvable: false) @key(fields: "number") { id: ID! number: String }',
      'type Document @key(fields: "id", resolvable: false) { id: ID! number: String }\n extend type Document @key(fields: "number")',
    ];
    for (const document of accepted) expect(() => checkAreaModules(schemaOf(LISTS, entities(document)))).not.toThrow();
  });

  it('leaves to other subgraphs an entity all of whose keys say resolvable: false, or that has no key', () => {
    const entities = (document: string) => `${document}\n type FinancialAccount @key(fields: "id") { id: ID! }\n union _Entity = Document | FinancialAccount`;
    const refusal = new Error(`${PREFIX}entityCalls names Document, which is not an entity this subgraph resolves`);
    const leftOut = [
      'type Document @key(fields: "id", resolvable: false) { id: ID! }',
      'type Document @key(fields: "id", resolvable: false) @key(fields: "number", resolvable: false) { id: ID! number: String }',
      'type Document @shareable { id: ID! }',
    ];
    for (const document of leftOut) expect(() => checkAreaModules(schemaOf(LISTS, entities(document)))).toThrow(refusal);
  });
});
