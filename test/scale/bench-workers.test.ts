import { describe, expect, it } from '@jest/globals';
import { renderReport } from '../../bench/lib/report.ts';
import type { BenchReport } from '../../bench/lib/results.ts';
import { describeWorkers, type WorkersFigure } from '../../bench/lib/workers.ts';

// The benchmark's Workers line, as printed and as written into bench/results.md.

const figure: WorkersFigure = {
  workload: 'c',
  connections: 32,
  results: [
    { workers: 1, opsPerSecond: 800, runs: [790, 800, 820], failures: 0 },
    { workers: 2, opsPerSecond: 1240, runs: [1240, 1200, 1300], failures: 3 },
  ],
};

const report: BenchReport = {
  command: 'npm run bench',
  date: '2026-11-24T06:00:00.000Z',
  elapsedS: 600,
  revision: 'abc1234',
  machine: { cpuModel: 'Test CPU', cores: 2, memoryGiB: 4, os: 'Linux', node: 'v24.21.0' },
  loadAverage: { start: [0.1, 0.2, 0.3], end: [1, 1, 1] },
  versions: [],
  settings: { quick: false, runs: 3, warmupS: 1, latencyS: 3, latencyRate: 200, latencyConnections: 1, saturationS: 3, saturationConnections: 32, soakS: 60, pinned: true },
  fixtures: [],
  startupMs: [500],
  workloads: [],
  memory: { idleMiB: 90, saturationPeakMiB: 140 },
  notes: [],
};

describe('the Workers line of the benchmark', () => {
  it('prints both throughputs and their ratio', () => {
    expect(describeWorkers(figure)).toBe('WORKERS=2 1240 ops/s against WORKERS=1 800 ops/s (×1.55)');
  });

  it('writes a Workers section with each run and the ratio, and lists its failures', () => {
    const markdown = renderReport({ ...report, workers: figure });
    const section = markdown.slice(markdown.indexOf('## Workers'), markdown.indexOf('## Failures'));
    expect(section).toContain('workload (c) at 32 connections');
    expect(section).toContain('The load generator and the sandbox run on the same CPUs as the workers');
    expect(section).toMatch(/\| +1 \| +800 \| +790, 800, 820 \| +0 \| +1\.00 \|/);
    expect(section).toMatch(/\| +2 \| +1240 \| +1240, 1200, 1300 \| +3 \| +1\.55 \|/);
    expect(markdown).toContain('- Workers: 3 failed responses with WORKERS=2');
  });

  it('leaves the section out of a report made without it', () => {
    expect(renderReport(report)).not.toContain('## Workers');
  });
});
