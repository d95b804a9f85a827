import { describe, expect, it } from '@jest/globals';
import { breaking, compare, describeChanges, SNAPSHOTS, type SchemaSnapshot } from '../../scripts/schema-changes.ts';

const [api, subgraph] = SNAPSHOTS as [SchemaSnapshot, SchemaSnapshot];

/** Compares the current SDL with itself after one edit: what a change to schema/*.graphql would produce. */
async function afterEdit(snapshot: SchemaSnapshot, from: string, to: string) {
  const before = snapshot.current();
  expect(before.split(from)).toHaveLength(2);
  const { current, changes } = await compare(snapshot, before, before.replace(from, to));
  return { current, changes: describeChanges(changes), breaking: breaking(changes).length };
}

describe('schema change check', () => {
  it('finds nothing when the schema is the snapshot', async () => {
    const sdl = api.current();
    expect(await compare(api, sdl, sdl)).toEqual({ current: true, changes: [] });
  });

  it.each([
    ['a lost field: breaking', api, '  """Name of the external provider."""\n  provider: String\n', '', [
      "BREAKING     Field 'provider' was removed from object type 'Document'",
    ]],
    ['a new nullable field: not breaking, but the snapshot must still be updated', subgraph, '  provider: String\n', '  provider: String\n  providerUrl: String\n', [
      "NON_BREAKING Field 'providerUrl' was added to object type 'Document'",
    ]],
    ['a new required input field: breaking', api, 'input UpdateDocumentInput {\n', 'input UpdateDocumentInput {\n  reason: String!\n', [
      "BREAKING     Input field 'reason' of type 'String!' was added to input object type 'UpdateDocumentInput'",
    ]],
    // The API schema does not show @key; without it other subgraphs can no longer resolve the entity.
    ['a lost @key in the subgraph SDL: breaking', subgraph, 'type Document @key(fields: "id")', 'type Document', [
      "BREAKING     Member 'Document' was removed from Union type '_Entity'",
      "DANGEROUS    Directive 'key' was removed from object 'Document'",
    ]],
  ])('names %s', async (_, snapshot, from, to, expected) => {
    expect(await afterEdit(snapshot, from, to)).toEqual({
      current: false,
      changes: expected,
      breaking: expected.filter((line) => line.startsWith('BREAKING')).length,
    });
  });

  it('tells a layout-only difference from a change a client can see', async () => {
    const before = subgraph.current();
    expect(await compare(subgraph, before, `${before}\n`)).toEqual({ current: false, changes: [] });
  });
});
