import { describe, expect, it } from '@jest/globals';
import { PagingFacts, pagingFactsFor, type AnchorEvent } from '../../src/connections/paging-facts.ts';

describe('PagingFacts', () => {
  it("learns each list's page-size cap, lowered only, raised to the floor, and pages with it", () => {
    let now = 1_000;
    const facts = new PagingFacts({ ttlMs: 500, now: () => now });
    expect(facts.pageCap('exceptions')).toBeUndefined();
    expect(facts.pageSizeFor('exceptions', 100)).toBe(100);
    expect(facts.learnPageCap('exceptions', 50)).toBe(true);
    expect(facts.learnPageCap('exceptions', 60)).toBe(false);
    expect(facts.learnPageCap('exceptions', 50)).toBe(false);
    expect(facts.learnPageCap('linx', 3)).toBe(true);
    expect([facts.pageCap('exceptions'), facts.pageCap('linx')]).toEqual([50, 10]);
    expect([facts.pageSizeFor('exceptions', 100), facts.pageSizeFor('exceptions', 20), facts.pageSizeFor('documents', 100)]).toEqual([50, 20, 100]);
    expect(facts.pageCaps()).toEqual(new Map([['exceptions', 50], ['linx', 10]]));
    now += 500;
    expect(facts.pageCap('exceptions')).toBeUndefined();
    expect(facts.pageCaps()).toEqual(new Map());
  });

  it('tells every listener of each anchored cursor read, until it unsubscribes', () => {
    const facts = new PagingFacts();
    const first: AnchorEvent[] = [];
    const second: AnchorEvent[] = [];
    const stop = facts.observeAnchors((event) => first.push(event));
    facts.observeAnchors((event) => second.push(event));
    facts.recordAnchor({ list: 'exceptions', outcome: 'exact' });
    expect(stop()).toBe(true);
    facts.recordAnchor({ list: 'linx', outcome: 'moved' });
    expect(first).toEqual([{ list: 'exceptions', outcome: 'exact' }]);
    expect(second).toEqual([{ list: 'exceptions', outcome: 'exact' }, { list: 'linx', outcome: 'moved' }]);
  });
});

describe('pagingFactsFor', () => {
  it("is one PagingFacts per platform connection, another connection's its own", () => {
    const upstream = {};
    const facts = pagingFactsFor(upstream);
    expect(facts).toBeInstanceOf(PagingFacts);
    expect(pagingFactsFor(upstream)).toBe(facts);
    expect(pagingFactsFor({})).not.toBe(facts);
  });
});
