/**
 * How the gateway's cost grows with work: exception pages of growing size,
 * requests with more root fields, and more concurrent connections. Each case
 * is one saturation run per target; the report reads CPU per operation,
 * throughput and latency percentiles off each.
 */
import { checkEdges, checkRecords, field, graphqlCall, restCall, restValidator, graphqlValidator } from './workloads.ts';
import type { Fixtures, HttpCall, TargetName } from './workloads.ts';

const GROWTH_ROWS = [10, 50, 100] as const;
const GROWTH_ROOTS = [1, 3, 5] as const;
const GROWTH_CONCURRENCY = [1, 16, 64, 256] as const;
/** Connections of the rows and roots series: enough to saturate a 2-core machine. */
export const GROWTH_CONNECTIONS = 32;
/** Rows per root field in the roots series. */
export const ROOTS_PAGE_SIZE = 20;

export type GrowthSeries = 'rows' | 'roots' | 'concurrency';

export interface GrowthCase {
  series: GrowthSeries;
  /** Rows, root fields or connections. */
  x: number;
  connections: number;
  /** One call per measured target. */
  calls: Partial<Record<Extract<TargetName, 'bare' | 'gateway'>, HttpCall>>;
}

export interface GrowthPoint {
  series: GrowthSeries;
  x: number;
  target: TargetName;
  opsPerSecond: number;
  cpuUsPerOp?: number;
  p50Ms: number;
  p99Ms: number;
  failures: number;
}

const EXCEPTION_FIELDS = 'id status assignedTo { id firstName lastName email } notes { id title contentText }';
// Distinct orders give distinct platform queries, so no root is answered from another's fetch.
const ROOT_ORDERS = ['ID ASC', 'ID DESC', 'TYPE ASC', 'CATEGORY DESC', 'ENTITY_ID ASC'];

function exceptionsPage(f: Fixtures, rows: number): GrowthCase['calls'] {
  const path = `/exceptions?page=0&size=${rows}`;
  return {
    bare: restCall('exceptions', f.token, path, restValidator((v) => checkRecords(field(v, 'content'), rows, 'exceptions'))),
    gateway: graphqlCall('exceptions', f.token, 'BenchExceptionRows',
      `query BenchExceptionRows { exceptions(first: ${rows}) { edges { cursor node { ${EXCEPTION_FIELDS} } } pageInfo { hasNextPage endCursor } totalCount } }`,
      {}, graphqlValidator((d) => checkEdges(field(d, 'exceptions'), rows, 'exceptions'))),
  };
}

function rootFields(f: Fixtures, roots: number): GrowthCase['calls'] {
  const orders = ROOT_ORDERS.slice(0, roots);
  const selections = orders.map((order, i) => {
    const [orderField, direction] = order.split(' ');
    return `r${i}: exceptions(first: ${ROOTS_PAGE_SIZE}, orderBy: [{ field: ${orderField}, direction: ${direction} }]) { edges { node { ${EXCEPTION_FIELDS} } } totalCount }`;
  });
  return {
    gateway: graphqlCall('roots', f.token, 'BenchRoots', `query BenchRoots { ${selections.join(' ')} }`, {},
      graphqlValidator((d) => orders.map((_, i) => checkEdges(field(d, `r${i}`), ROOTS_PAGE_SIZE, `root ${i}`)).find((problem) => problem !== undefined))),
  };
}

export function buildGrowthCases(f: Fixtures): GrowthCase[] {
  return [
    ...GROWTH_ROWS.map((rows): GrowthCase => ({ series: 'rows', x: rows, connections: GROWTH_CONNECTIONS, calls: exceptionsPage(f, rows) })),
    ...GROWTH_ROOTS.map((roots): GrowthCase => ({ series: 'roots', x: roots, connections: GROWTH_CONNECTIONS, calls: rootFields(f, roots) })),
    ...GROWTH_CONCURRENCY.map((connections): GrowthCase => ({ series: 'concurrency', x: connections, connections, calls: exceptionsPage(f, ROOTS_PAGE_SIZE) })),
  ];
}

/**
 * Whether CPU per operation grows linearly with x: the cost of one more unit
 * over the upper half of the range is within `tolerance` of that over the
 * lower half. Undefined without three finite points.
 */
export function linearity(points: ReadonlyArray<{ x: number; y: number | undefined }>, tolerance = 0.35): { lowerSlope: number; upperSlope: number; linear: boolean } | undefined {
  if (points.length < 3) return undefined;
  const [a, b, c] = points as [{ x: number; y: number }, { x: number; y: number }, { x: number; y: number }];
  if (![a.y, b.y, c.y].every((y) => y !== undefined && Number.isFinite(y))) return undefined;
  const lowerSlope = (b.y - a.y) / (b.x - a.x);
  const upperSlope = (c.y - b.y) / (c.x - b.x);
  const scale = Math.max(Math.abs(lowerSlope), Math.abs(upperSlope), 1e-9);
  return { lowerSlope, upperSlope, linear: Math.abs(upperSlope - lowerSlope) / scale <= tolerance };
}
