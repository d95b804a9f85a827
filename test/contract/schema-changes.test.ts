import { describe, expect, it } from '@jest/globals';
import { breaking, compare, describeChanges, SNAPSHOTS } from '../../scripts/schema-changes.ts';

const [api, subgraph] = SNAPSHOTS as [(typeof SNAPSHOTS)[number], (typeof SNAPSHOTS)[number]];

// The current API schema with one edit applied: what a change to schema/*.graphql would produce.
function edited(sdl: string, from: string, to: string): string {
  expect(sdl).toContain(from);
  return sdl.replace(from, to);
}

describe('schema change check', () => {
  it('finds nothing when the schema is the snapshot', async () => {
    const sdl = api.current();
    expect(await compare(api, sdl, sdl)).toEqual({ current: true, changes: [] });
  });

  it('calls a lost field a breaking change', async () => {
    const before = api.current();
    const after = edited(before, '  """Name of the external provider."""\n  provider: String\n', '');
    const { current, changes } = await compare(api, before, after);
    expect(current).toBe(false);
    expect(describeChanges(changes)).toEqual(["BREAKING     Field 'provider' was removed from object type 'Document'"]);
    expect(breaking(changes)).toHaveLength(1);
  });

  it('calls a new nullable field a non-breaking change, which still needs the snapshot updated', async () => {
    const before = subgraph.current();
    const after = edited(before, '  provider: String\n', '  provider: String\n  providerUrl: String\n');
    const { current, changes } = await compare(subgraph, before, after);
    expect(current).toBe(false);
    expect(describeChanges(changes)).toEqual(["NON_BREAKING Field 'providerUrl' was added to object type 'Document'"]);
    expect(breaking(changes)).toEqual([]);
  });

  it('calls a new required input field a breaking change', async () => {
    const before = api.current();
    const after = edited(before, 'input UpdateDocumentInput {\n', 'input UpdateDocumentInput {\n  reason: String!\n');
    const { changes } = await compare(api, before, after);
    expect(describeChanges(changes)).toEqual(["BREAKING     Input field 'reason' of type 'String!' was added to input object type 'UpdateDocumentInput'"]);
  });

  it('tells a layout-only difference from a change a client can see', async () => {
    const before = subgraph.current();
    const after = `${before}\n`;
    expect(await compare(subgraph, before, after)).toEqual({ current: false, changes: [] });
  });
});
