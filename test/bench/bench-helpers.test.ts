import { describe, expect, it } from '@jest/globals';
import { legendLayout, logTicks, niceScale } from '../../bench/lib/chart.ts';
import { formatSigned, markdownTable, renderReport } from '../../bench/lib/report.ts';
import { linearity, type GrowthPoint } from '../../bench/lib/growth.ts';
import { evaluateTargets, floorChecks } from '../../bench/lib/results.ts';
import type { BenchReport, CellResult, VariantFigure } from '../../bench/lib/results.ts';
import { groupCalls } from '../../bench/lib/sandbox-client.ts';
import { growthPercent, median, medianInterval, percentileOfSorted, SampleBuffer, summarize, windowMedian } from '../../bench/lib/stats.ts';
import { buildWorkloads, documentUpdateFields, graphqlValidator, checkEdges, TARGET_LABELS, TARGETS } from '../../bench/lib/workloads.ts';

describe('statistics', () => {
  it('takes nearest-rank percentiles', () => {
    const sorted = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
    expect([0, 50, 90, 99, 100].map((p) => percentileOfSorted(sorted, p))).toEqual([1, 5, 9, 10, 10]);
    expect(percentileOfSorted([], 50)).toBeNaN();
  });

  it('summarizes unsorted samples', () => {
    expect(summarize([0.4, 0.1, 0.3, 0.2])).toEqual({ count: 4, p50: 0.2, p90: 0.4, p99: 0.4, max: 0.4, mean: 0.25 });
  });

  it('takes medians of odd and even counts, ignoring missing values', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, Number.NaN, 2])).toBe(2.5);
    expect(median([])).toBeNaN();
  });

  it("bounds the median by the order statistics of the binomial's 95 % ranks", () => {
    const upTo = (count: number) => Array.from({ length: count }, (_, index) => count - index);
    // The ranks of the published tables: (6, 15) of 20, (40, 61) of 100.
    expect(medianInterval(upTo(20))).toEqual([6, 15]);
    expect(medianInterval(upTo(100))).toEqual([40, 61]);
    expect(medianInterval([7, Number.NaN])).toEqual([7, 7]);
    expect(medianInterval([])).toEqual([Number.NaN, Number.NaN]);
  });

  it('compares the start and the end of a series by window medians', () => {
    const rss = [100, 100, 101, 102, 110, 111, 112, 120, 121, 122];
    expect(windowMedian(rss, 0, 0.2)).toBe(100);
    expect(windowMedian(rss, 0.8, 1)).toBe(121.5);
    expect(growthPercent(100, 121.5)).toBe(21.5);
  });

  it('keeps every sample past its initial capacity', () => {
    const buffer = new SampleBuffer();
    for (let i = 0; i < 10_000; i += 1) buffer.push(i / 2);
    expect(buffer.length).toBe(10_000);
    expect(buffer.values()[9_999]).toBe(4_999.5);
  });
});

describe('platform calls per GraphQL request', () => {
  it('groups by request id and counts identical calls within one request', () => {
    const calls = [
      { method: 'GET', path: '/exceptions', query: 'page=0&size=20', requestId: 'r1' },
      { method: 'GET', path: '/exceptions', query: 'page=0&size=20', requestId: 'r2' },
      { method: 'GET', path: '/v1/acceptances', query: 'page=0&size=20', requestId: 'r2' },
      { method: 'GET', path: '/exceptions', query: 'page=0&size=20', requestId: 'r2' },
      { method: 'GET', path: '/exceptions', query: 'page=1&size=20', requestId: 'r2' },
      { method: 'GET', path: '/exceptions', query: 'page=0&size=20', requestId: 'other' },
    ];
    expect(groupCalls(calls, ['r1', 'r2', 'r3'])).toEqual({ callsPerRequest: [1, 4, 0], duplicates: 1, grouped: true });
    expect(groupCalls([{ method: 'GET', path: '/exceptions', query: '' }], ['r1'])).toEqual({ callsPerRequest: [0], duplicates: 0, grouped: false });
  });
});

describe('response validation', () => {
  const twoEdges = graphqlValidator((data) => checkEdges((data as { exceptions: unknown }).exceptions, 2, 'exceptions'));

  it('accepts exactly the expected edges and rejects a 200 that carries errors', () => {
    expect(twoEdges(200, '{"data":{"exceptions":{"edges":[{"node":{"id":"a"}},{"node":{"id":"b"}}]}}}')).toBeUndefined();
    expect(twoEdges(200, '{"data":{"exceptions":{"edges":[{"node":{"id":"a"}}]}}}')).toBe('exceptions: 1 records, expected 2');
    expect(twoEdges(200, '{"data":{"exceptions":null},"errors":[{"message":"Platform unavailable","extensions":{"code":"UPSTREAM_ERROR"}}]}'))
      .toBe('HTTP 200, GraphQL error: Platform unavailable (UPSTREAM_ERROR)');
    expect(twoEdges(502, '<html>')).toBe('HTTP 502, not JSON: <html>');
  });

  it('measures the floor with the gateway\'s own calls, for every workload but the mutation', () => {
    const workloads = buildWorkloads({
      token: 't',
      financialAccountId: 'fa',
      templateId: 'tt',
      templateVersionId: 'tv',
      document: { id: 'doc', documentType: 'passport' },
      expected: { exceptions: 20, acceptances: 20, linx: 20 },
    });
    expect(workloads.map((w) => [w.id, w.plans.floor === undefined ? 'none' : w.plans.floor === w.plans.gateway ? 'gateway plan' : 'own plan'])).toEqual([
      ['a', 'gateway plan'],
      ['b', 'gateway plan'],
      ['c', 'gateway plan'],
      ['d', 'gateway plan'],
      ['e', 'none'],
    ]);
  });

  it('fills the fields each document type requires', () => {
    expect(documentUpdateFields('driving-license')).toEqual({ name: 'Benchmark identity document', number: 'X1234567', issuingCountryCode: 'US', expiryDate: '2034-12-31', issuingStateCode: 'CA' });
    expect(documentUpdateFields('tax')).toEqual({ name: 'Benchmark identity document', description: 'Updated by the benchmark' });
  });
});

describe('report rendering', () => {
  it('renders Markdown tables with escaped cells and right-aligned columns', () => {
    expect(markdownTable(['Figure', 'Value'], [['a|b', '1.00'], ['line\nbreak', '2']], ['l', 'r'])).toBe(
      '| Figure | Value |\n| --- | ---: |\n| a\\|b | 1.00 |\n| line break | 2 |',
    );
    expect(formatSigned(-0.5, 2)).toBe('−0.50');
    expect(formatSigned(1.234, 1)).toBe('+1.2');
  });

  it('picks readable axis steps', () => {
    expect(niceScale(7.3)).toEqual({ top: 8, step: 2 });
    expect(niceScale(1234)).toEqual({ top: 1250, step: 250 });
    expect(niceScale(0)).toEqual({ top: 1, step: 0.2 });
    expect(logTicks(0.18, 210)).toEqual([0.1, 1, 10, 100, 1000]);
    expect(logTicks(1, 1)).toEqual([1, 10]);
  });

  it('wraps the chart legend onto a second row when the labels do not fit one', () => {
    // Widths: 14 px swatch + 6 px + ceil(6.8 px per character), then a 26 px gap.
    expect(legendLayout(['Direct REST', 'Bare proxy'], 70, 940)).toEqual([{ x: 70, row: 0 }, { x: 191, row: 0 }]);
    expect(legendLayout(TARGETS.map((t) => TARGET_LABELS[t]), 70, 940)).toEqual([
      { x: 70, row: 0 },
      { x: 191, row: 0 },
      { x: 305, row: 0 },
      { x: 712, row: 0 },
      { x: 70, row: 1 },
    ]);
  });

  const cellOf = (target: CellResult['target'], p50Ms: number, p99Ms: number, opsPerSecond: number, cpuUsPerOp?: number): CellResult => ({
    target,
    latency: { p50Ms, p99Ms, runs: [{ p50Ms, p99Ms, samples: 600 }] },
    throughput: { opsPerSecond, runs: [opsPerSecond] },
    ...(cpuUsPerOp === undefined ? {} : { cpuUsPerOp }),
    validResponses: 1000,
    failures: 0,
    failureReasons: [],
  });

  const report: BenchReport = {
    command: 'npm run bench -- --quick',
    date: '2026-11-20T12:00:00.000Z',
    elapsedS: 55,
    revision: 'abc1234',
    machine: { cpuModel: 'Test CPU', cores: 2, memoryGiB: 4, os: 'Linux', node: 'v24.21.0' },
    loadAverage: { start: [0.1, 0.2, 0.3], end: [1, 1, 1] },
    versions: [['Load generator', 'autocannon 9.0.0']],
    settings: { quick: true, runs: 1, warmupS: 0.3, latencyS: 0.6, latencyRate: 200, latencyConnections: 1, saturationS: 0.8, saturationConnections: 32, soakS: 3, pinned: true },
    fixtures: [],
    startupMs: [900, 1200, 800],
    workloads: [
      {
        id: 'a',
        title: 'Exceptions page',
        short: 'exceptions',
        simpleConnection: true,
        cells: [cellOf('rest', 0.3, 0.9, 4000), cellOf('bare', 0.6, 1.5, 3000), cellOf('gateway', 1.1, 4.0, 1900, 350), cellOf('peer', 2.5, 9, 900)],
        upstream: [{ target: 'gateway', callsPerOpUnderLoad: 1, probe: { requests: 10, callsPerRequest: Array(10).fill(1), duplicates: 0, grouped: true, totalCalls: 10 } }],
      },
    ],
    memory: { idleMiB: 90, saturationPeakMiB: 151, soak: { seconds: 3, workload: 'c', startMiB: 100, endMiB: 104, peakMiB: 110, growthPct: 4, opsPerSecond: 1500, failures: 0, failureReasons: [] } },
    notes: [],
  };

  it('judges every target on the figures', () => {
    expect(evaluateTargets(report).map((c) => [c.name, c.measured, c.pass])).toEqual([
      // Added latency is judged against the bare proxy's own (0.30 / 0.60 ms): +0.50 meets ≤ +0.5 ms, +2.50 misses ≤ +2 ms.
      ["(a) added latency p50 over the bare proxy's", '0.80 ms (bare 0.30 ms)', true],
      ["(a) added latency p99 over the bare proxy's", '3.10 ms (bare 0.60 ms)', false],
      ['(a) throughput vs bare proxy', '0.63×', true],
      ['(a) throughput vs peer', '2.11×', true],
      // The bare proxy's CPU is not in the figures: the ratio cannot be judged.
      ["(a) gateway CPU per operation ÷ bare proxy's", 'not measured (350 µs)', undefined],
      ['Gateway RSS at saturation (peak)', '151.0 MiB', false],
      ['Gateway RSS growth over a 3 s soak', '4.0 %', true],
      ['Gateway start-up (spawn → /healthz 200)', '900 ms', false],
      ['Duplicate upstream calls within a GraphQL request', '0', true],
      ['Failed responses (errors, wrong data, non-2xx)', '0', true],
    ]);
  });

  it('judges the several-areas read against its own throughput goal and the CPU against the bare proxy', () => {
    const composite: BenchReport = {
      ...report,
      workloads: [{ ...report.workloads[0]!, id: 'c', composite: true, cells: [cellOf('rest', 0.3, 0.9, 4000), cellOf('bare', 0.6, 1.5, 3000, 200), cellOf('gateway', 1.1, 4.0, 2600, 290), cellOf('peer', 2.5, 9, 900)] }],
    };
    const checks = evaluateTargets(composite).map((c) => [c.name, c.goal, c.measured, c.pass]);
    expect(checks).toContainEqual(['(c) throughput vs bare proxy', '≥ 0.9×', '0.87×', false]);
    expect(checks).toContainEqual(["(c) gateway CPU per operation ÷ bare proxy's", '≤ 1.5×', '1.45× (290 µs)', true]);
  });

  it('writes the cost-growth tables and says which series grow linearly', () => {
    const growth: GrowthPoint[] = [
      ...[[10, 400], [50, 800], [100, 1300]].map(([x, cpu]) => ({ series: 'rows' as const, x: x!, target: 'gateway' as const, opsPerSecond: 1e6 / cpu!, cpuUsPerOp: cpu!, p50Ms: 1, p99Ms: 2, failures: 0 })),
      ...[[1, 400], [3, 800], [5, 2400]].map(([x, cpu]) => ({ series: 'roots' as const, x: x!, target: 'gateway' as const, opsPerSecond: 1e6 / cpu!, cpuUsPerOp: cpu!, p50Ms: 1, p99Ms: 2, failures: 0 })),
      ...[[1, 900], [16, 1000], [64, 1000], [256, 500]].map(([x, ops]) => ({ series: 'concurrency' as const, x: x!, target: 'gateway' as const, opsPerSecond: ops!, cpuUsPerOp: 1000, p50Ms: x! / 10, p99Ms: x! / 5, failures: 0 })),
    ];
    const markdown = renderReport({ ...report, growth });
    expect(markdown).toContain('| 50 | 800 | 1250 | 1.00 | 2.00 | — | — | — | — |');
    expect(markdown).toContain('- Rows: each further row costs the gateway 10.0 µs of CPU over the lower half of the range and 10.0 µs over the upper half: linear (within 35 %).');
    expect(markdown).toContain('**not linear**');
    expect(markdown).toContain('throughput at 256 connections is 50 % of the best; **a cliff**');
    expect(linearity([{ x: 1, y: 1 }, { x: 2, y: undefined }, { x: 3, y: 3 }])).toBeUndefined();
  });

  it('writes (f) and the rate limiter\'s cost side by side, and counts their failures', () => {
    const variant = (label: string, ops: number[], cpu: number[], extra: Partial<VariantFigure> = {}): VariantFigure => ({
      label, opsPerSecond: median(ops), throughputRuns: ops, cpuUsPerOp: median(cpu), cpuRuns: cpu, validResponses: 1000, failures: 0, failureReasons: [], ...extra,
    });
    const markdown = renderReport({
      ...report,
      sharedReads: {
        connections: 50,
        variants: [
          variant('UPSTREAM_SHARE_READS=true', [1200, 1100, 1300], [700, 720, 710], { callsPerOp: 0.5 }),
          variant('UPSTREAM_SHARE_READS=false', [600, 500, 550], [1400, 1500, 1450], { callsPerOp: 3 }),
        ],
      },
      rateLimitCost: {
        connections: 32,
        requestsPerSecond: 1000,
        check: { checks: 20000, memoryChecks: 100000, memoryUs: 1.66, redisUs: 7.02, redisFallbacks: 0 },
        variants: [
          variant('no RATE_LIMIT_PER_SECOND', [5000], [200]),
          variant('RATE_LIMIT_PER_SECOND=1000000 (in memory)', [4900], [204.5], { counter: 0 }),
          variant('RATE_LIMIT_PER_SECOND=1000000, REDIS_URL', [4000], [240.25], { counter: 3, storeCpuUsPerOp: 12.5, failures: 2, failureReasons: [['ping: HTTP 429', 2]] }),
        ],
        calls: {
          request: 'The dashboard query (three platform calls)',
          connections: 32,
          requestsPerSecond: 300,
          variants: [
            variant('no RATE_LIMIT_PER_SECOND', [300], [900], { callsPerOp: 3 }),
            variant('RATE_LIMIT_PER_SECOND=1000000 (in memory)', [300], [915], { callsPerOp: 3, counter: 0 }),
            variant('RATE_LIMIT_PER_SECOND=1000000, REDIS_URL', [290], [990], { callsPerOp: 3, counter: 0, storeCpuUsPerOp: 40, failures: 1, failureReasons: [['overview: HTTP 500', 1]] }),
          ],
        },
      },
    });
    expect(markdown).toContain('| `UPSTREAM_SHARE_READS=true` | 1200 | 0.50 | 710 | 1200, 1100, 1300 | 700, 720, 710 |');
    expect(markdown).toContain('| `UPSTREAM_SHARE_READS=false` | 550 | 3.00 | 1450 | 600, 500, 550 | 1400, 1500, 1450 |');
    expect(markdown).toContain('Sharing on ÷ off: throughput 2.18×, platform calls per request 0.17×.');
    expect(markdown).toContain('The cheapest request (`{ __typename }` with a token: no platform call) at a fixed 1000 requests/s over 32 connections');
    expect(markdown).toContain('| `no RATE_LIMIT_PER_SECOND` | 200.0 | — | 5000 | — | — | 200.0 |');
    expect(markdown).toContain('| `RATE_LIMIT_PER_SECOND=1000000 (in memory)` | 204.5 | +4.5 | 4900 | — | 0 | 204.5 |');
    expect(markdown).toContain('| `RATE_LIMIT_PER_SECOND=1000000, REDIS_URL` | 240.3 | +40.3 | 4000 | 12.5 | 3 | 240.3 |');
    expect(markdown).toContain("The check alone (`bench/rate-limit-check.ts`: the gateway's handler, 32 checks at a time for 1 000 callers, in a process of its own): 1.7 µs of CPU per check in memory (100000 checks), and 7.0 µs with Redis (the gateway's side of it: encoding the script call, reading the answer; 20000 checks, 0 of them counted in memory because Redis failed or was late).");
    expect(markdown).toContain('- Rate limiter RATE_LIMIT_PER_SECOND=1000000, REDIS_URL: 2 failed of 1002 — 2× ping: HTTP 429');
    expect(markdown).toContain('The dashboard query (three platform calls), at a fixed 300 requests/s over 32 connections');
    expect(markdown).toContain('| `no RATE_LIMIT_PER_SECOND` | 900.0 | — | 3.00 | — | 300 | — | — | 900.0 |');
    expect(markdown).toContain('| `RATE_LIMIT_PER_SECOND=1000000 (in memory)` | 915.0 | +15.0 | 3.00 | +5.0 | 300 | — | 0 | 915.0 |');
    expect(markdown).toContain('| `RATE_LIMIT_PER_SECOND=1000000, REDIS_URL` | 990.0 | +90.0 | 3.00 | +30.0 | 290 | 40.0 | 0 | 990.0 |');
    expect(markdown).toContain('- Per-call draw RATE_LIMIT_PER_SECOND=1000000, REDIS_URL: 1 failed of 1001 — 1× overview: HTTP 500');
    expect(markdown).toContain('| Failed responses (errors, wrong data, non-2xx) | 0 | 3 | **FAIL** |');
  });

  it('writes the verdicts and the latency rows into the report', () => {
    const markdown = renderReport(report);
    expect(markdown).toContain('| Gateway RSS at saturation (peak) | ≤ 150 MiB | 151.0 MiB | **FAIL** |');
    expect(markdown).toContain('| (a) | Gateway | 1.10 | 4.00 | +0.80 | +3.10 | 1.10/4.00 |');
    expect(markdown).toContain('| (a) Exceptions page | 4000 | 3000 | — | 1900 | 900 | 0.63 | 2.11 | — | — |');
    expect(markdown).not.toContain('## Design-card floor');
  });

  describe('the design-card floor', () => {
    const withFloor = (cpu: { bare: number; floor: number; gateway: number }, ops: { bare: number; floor: number; gateway: number }, composite = false): BenchReport => ({
      ...report,
      workloads: [{
        ...report.workloads[0]!,
        id: composite ? 'c' : 'a',
        ...(composite ? { composite: true } : {}),
        cells: [
          cellOf('rest', 0.3, 0.9, 4000),
          { ...cellOf('bare', 0.6, 1.5, ops.bare, cpu.bare), cpuShare: 0.98 },
          { ...cellOf('floor', 0.8, 2.5, ops.floor, cpu.floor), cpuShare: 0.995 },
          { ...cellOf('gateway', 1.1, 4.0, ops.gateway, cpu.gateway), cpuShare: 1 },
          cellOf('peer', 2.5, 9, 900),
        ],
      }],
      memory: { ...report.memory, workloadPeakMiB: 140, floor: { idleMiB: 61.25, saturationPeakMiB: 120 } },
      floorStartupMs: [310, 290, 330],
    });

    it('judges which of the gateway\'s targets the floor itself reaches', () => {
      expect(floorChecks(withFloor({ bare: 200, floor: 280, gateway: 700 }, { bare: 3000, floor: 2100, gateway: 900 }))).toEqual([
        { workload: 'a', throughputVsBare: 0.7, throughputGoal: 0.6, throughputReachable: true, cpuVsBare: 1.4, cpuGoal: 1.5, cpuReachable: true },
      ]);
      // The several-areas read has the higher throughput goal: 0.8× reaches 0.6 but not 0.9.
      expect(floorChecks(withFloor({ bare: 200, floor: 400, gateway: 700 }, { bare: 3000, floor: 2400, gateway: 900 }, true))).toEqual([
        { workload: 'c', throughputVsBare: 0.8, throughputGoal: 0.9, throughputReachable: false, cpuVsBare: 2, cpuGoal: 1.5, cpuReachable: false },
      ]);
      expect(floorChecks(report)).toEqual([]);
    });

    it('leaves the floor out of the targets, which are the gateway\'s', () => {
      const checks = evaluateTargets(withFloor({ bare: 200, floor: 280, gateway: 700 }, { bare: 3000, floor: 2100, gateway: 900 }));
      expect(checks.map((c) => c.name).filter((name) => /floor/i.test(name))).toEqual([]);
      expect(checks).toContainEqual({ name: '(a) throughput vs bare proxy', goal: '≥ 0.6×', measured: '0.30×', pass: false });
    });

    it('reports the floor\'s throughput, CPU, reach, memory and start-up', () => {
      const markdown = renderReport(withFloor({ bare: 200, floor: 400, gateway: 700 }, { bare: 3000, floor: 2400, gateway: 900 }, true));
      expect(markdown).toContain('| (c) Exceptions page | 4000 | 3000 | 2400 | 900 | 900 | 0.30 | 1.00 | 0.80 | 0.38 |');
      expect(markdown).toContain('| (c) | 200 | 400 | 700 | — | 100 % | 100 % | — |');
      expect(markdown).toContain('| (c) | Design-card floor (Apollo Server + got, nothing else) | 0.80 | 2.50 | +0.50 | +1.60 | 0.80/2.50 |');
      expect(markdown).toContain('| (c) | 0.80 (≥ 0.9) | 2.00 (≤ 1.5) | Throughput **out of reach** of these libraries (even the floor misses it); CPU **out of reach** of these libraries (even the floor misses it). |');
      expect(markdown).toContain('Peak RSS: the floor 120.0 MiB over the workloads\' saturation runs (the gateway 140.0 MiB over the same runs), target ≤ 150 MiB: RSS reachable (the floor meets it).');
      expect(markdown).toContain('| Floor RSS right after start-up | 61.3 MiB |');
      expect(markdown).toContain('| Floor RSS, peak during the workloads\' saturation runs | 120.0 MiB (gateway over the same runs: 140.0 MiB) |');
      expect(markdown).toContain('| Floor start-up, spawn → /healthz 200 | 310 ms (median of 310, 290, 330 ms) |');
      // The floor's table follows the targets table.
      expect(markdown.indexOf('## Design-card floor')).toBeGreaterThan(markdown.indexOf('## Targets'));
      expect(markdown.indexOf('## Design-card floor')).toBeLessThan(markdown.indexOf('## Machine and software'));
    });
  });
});
