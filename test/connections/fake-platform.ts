import type { FetchPage, PageRequest, PageResult } from '../../src/connections/index.ts';

export interface Row {
  id: string;
}

export type Shape = 'envelope' | 'bare';

export interface FakePlatformOptions {
  pageBase: 0 | 1;
  shape: Shape;
  /** Largest size the endpoint accepts; a larger request fails the test. */
  maxPageSize: number;
}

export function rows(count: number): Row[] {
  return Array.from({ length: count }, (_, index) => ({ id: `r${index}` }));
}

/**
 * An in-memory list endpoint that pages like the platform: page-numbered in its own base, answering
 * a page envelope (reduced to items + totalElements) or a bare array. It records every request and
 * rejects requests the real platform would not understand.
 */
export class FakePlatform {
  readonly requests: PageRequest[] = [];
  records: Row[];
  readonly #options: FakePlatformOptions;

  constructor(records: Row[], options: FakePlatformOptions) {
    this.records = records;
    this.#options = options;
  }

  readonly fetchPage: FetchPage<Row> = async (request) => {
    this.requests.push({ ...request });
    const { page, size } = request;
    const { pageBase, maxPageSize, shape } = this.#options;
    if (!Number.isInteger(page) || page < pageBase) throw new Error(`page ${page} is below the endpoint's first page ${pageBase}`);
    if (!Number.isInteger(size) || size < 1 || size > maxPageSize) throw new Error(`size ${size} is outside 1..${maxPageSize}`);
    const from = (page - pageBase) * size;
    const result: PageResult<Row> = {
      items: this.records.slice(from, from + size),
      total: shape === 'envelope' ? this.records.length : null,
    };
    return result;
  };

  /** Requests made since the last call, then forgets them. */
  take(): PageRequest[] {
    return this.requests.splice(0);
  }
}
