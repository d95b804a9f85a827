import { describe, expect, it } from '@jest/globals';
import type { ParsedArgs, Settings } from '../../src/connections/paging-arguments.ts';
import { boundedWindow, neededRange, windowArgs } from '../../src/connections/window.ts';

const settings = (totals: 'always' | 'sometimes', defaultSize = 10) => ({ defaultSize, totals }) as Settings;
const args = (first: number | null, last: number | null) => ({ first, last, after: null, before: null }) as ParsedArgs;

describe('windowArgs', () => {
  it('starts after the after position, at 0 without one, and keeps before, first and last', () => {
    expect(windowArgs(args(5, null), null, null)).toEqual({ start: 0, before: null, first: 5, last: null });
    expect(windowArgs(args(null, 3), 7, 20)).toEqual({ start: 8, before: 20, first: null, last: 3 });
    expect(windowArgs(args(null, null), 0, 0)).toEqual({ start: 1, before: 0, first: null, last: null });
  });
});

describe('boundedWindow', () => {
  it('takes first records from the start, the default size without first or last', () => {
    expect(boundedWindow({ start: 4, before: null, first: 3, last: null }, settings('always'))).toEqual({ start: 4, end: 7 });
    expect(boundedWindow({ start: 4, before: null, first: 0, last: null }, settings('always'))).toEqual({ start: 4, end: 4 });
    expect(boundedWindow({ start: 4, before: null, first: null, last: null }, settings('always', 6))).toEqual({ start: 4, end: 10 });
  });

  it('stops at before, and takes the last records before it', () => {
    expect(boundedWindow({ start: 4, before: 6, first: 3, last: null }, settings('always'))).toEqual({ start: 4, end: 6 });
    expect(boundedWindow({ start: 4, before: 9, first: 3, last: null }, settings('always'))).toEqual({ start: 4, end: 7 });
    expect(boundedWindow({ start: 0, before: 9, first: null, last: 3 }, settings('always'))).toEqual({ start: 6, end: 9 });
    expect(boundedWindow({ start: 7, before: 9, first: null, last: 3 }, settings('always'))).toEqual({ start: 7, end: 9 });
    expect(boundedWindow({ start: 0, before: 2, first: null, last: 3 }, settings('always'))).toEqual({ start: 0, end: 2 });
  });

  it('is empty at the start when before is at or ahead of it', () => {
    expect(boundedWindow({ start: 5, before: 5, first: 3, last: null }, settings('always'))).toEqual({ start: 5, end: 5 });
    expect(boundedWindow({ start: 5, before: 2, first: 3, last: null }, settings('always'))).toEqual({ start: 5, end: 5 });
    expect(boundedWindow({ start: 5, before: 2, first: null, last: 3 }, settings('always'))).toEqual({ start: 5, end: 5 });
  });
});

describe('neededRange', () => {
  it('is the window itself with totals', () => {
    expect(neededRange({ start: 3, end: 8 }, settings('always'))).toEqual({ from: 3, to: 8 });
  });

  it('reaches one row past the window when a total may not come', () => {
    expect(neededRange({ start: 3, end: 8 }, settings('sometimes'))).toEqual({ from: 3, to: 9 });
  });

  it('reads one row for an empty window, and the row before it when a total may not come', () => {
    expect(neededRange({ start: 3, end: 3 }, settings('always'))).toEqual({ from: 3, to: 4 });
    expect(neededRange({ start: 3, end: 3 }, settings('sometimes'))).toEqual({ from: 2, to: 4 });
    expect(neededRange({ start: 0, end: 0 }, settings('sometimes'))).toEqual({ from: 0, to: 1 });
  });
});
