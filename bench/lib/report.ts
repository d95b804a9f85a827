/** Renders a benchmark report as Markdown (bench/results.md). */
import { GROWTH_CONNECTIONS, linearity, ROOTS_PAGE_SIZE } from './growth.ts';
import type { GrowthPoint, GrowthSeries } from './growth.ts';
import { cell, evaluateTargets, floorChecks, GOALS, startupMedianMs, throughputRatio } from './results.ts';
import type { BenchReport, CallsDrawCostFigure, CellResult, FloorCheck, RateLimitCostFigure, SharedReadsFigure, WorkloadResult } from './results.ts';
import { median } from './stats.ts';
import { TARGET_LABELS, TARGETS } from './workloads.ts';

const DASH = '—';

/** A Markdown table; cells are escaped for pipes and line breaks. */
export function markdownTable(headers: string[], rows: string[][], align: Array<'l' | 'r'> = []): string {
  const escape = (text: string): string => text.replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');
  const rule = headers.map((_, i) => (align[i] === 'r' ? '---:' : '---'));
  return [headers, rule, ...rows].map((row, index) => `| ${(index === 1 ? row : row.map(escape)).join(' | ')} |`).join('\n');
}

function formatNumber(value: number | undefined, digits: number): string {
  return value === undefined || !Number.isFinite(value) ? DASH : value.toFixed(digits);
}

export function formatSigned(value: number | undefined, digits: number): string {
  if (value === undefined || !Number.isFinite(value)) return DASH;
  return `${value >= 0 ? '+' : '−'}${Math.abs(value).toFixed(digits)}`;
}

function verdict(pass: boolean | undefined): string {
  if (pass === undefined) return 'not measured';
  return pass ? '**pass**' : '**FAIL**';
}

function latencyRows(w: WorkloadResult): string[][] {
  const rest = cell(w, 'rest')?.latency;
  return TARGETS.flatMap((target) => {
    const c = cell(w, target);
    if (!c?.latency) return [];
    const l = c.latency;
    const added = target === 'rest' || !rest ? [DASH, DASH] : [formatSigned(l.p50Ms - rest.p50Ms, 2), formatSigned(l.p99Ms - rest.p99Ms, 2)];
    const runs = l.runs.map((r) => `${r.p50Ms.toFixed(2)}/${r.p99Ms.toFixed(2)}`).join(', ');
    return [[`(${w.id})`, TARGET_LABELS[target], formatNumber(l.p50Ms, 2), formatNumber(l.p99Ms, 2), ...added, runs]];
  });
}

function throughputCell(c: CellResult | undefined): string {
  return formatNumber(c?.throughput?.opsPerSecond, 0);
}

const SERIES_TITLES: Record<GrowthSeries, string> = {
  rows: `Exception page size (rows; assignee and note per row; ${GROWTH_CONNECTIONS} connections)`,
  roots: `Root fields in one request (each an exceptions page of ${ROOTS_PAGE_SIZE} with its own order; ${GROWTH_CONNECTIONS} connections)`,
  concurrency: `Connections (exceptions page of ${ROOTS_PAGE_SIZE}, closed loop)`,
};

function growthRows(points: GrowthPoint[], series: GrowthSeries): string[][] {
  const xs = [...new Set(points.filter((p) => p.series === series).map((p) => p.x))].sort((a, b) => a - b);
  return xs.map((x) => {
    const at = (target: GrowthPoint['target']) => points.find((p) => p.series === series && p.x === x && p.target === target);
    const gateway = at('gateway');
    const bare = at('bare');
    return [
      String(x),
      formatNumber(gateway?.cpuUsPerOp, 0),
      formatNumber(gateway?.opsPerSecond, 0),
      formatNumber(gateway?.p50Ms, 2),
      formatNumber(gateway?.p99Ms, 2),
      formatNumber(bare?.cpuUsPerOp, 0),
      formatNumber(bare?.opsPerSecond, 0),
      formatNumber(bare?.p50Ms, 2),
      formatNumber(bare?.p99Ms, 2),
    ];
  });
}

/** One sentence per series: linear or not, from the measured figures. */
function growthVerdicts(points: GrowthPoint[]): string[] {
  const lines: string[] = [];
  const gatewaySeries = (series: GrowthSeries) => points.filter((p) => p.series === series && p.target === 'gateway').sort((a, b) => a.x - b.x);
  for (const [series, unit] of [['rows', 'row'], ['roots', 'root field']] as const) {
    const fit = linearity(gatewaySeries(series).map((p) => ({ x: p.x, y: p.cpuUsPerOp })));
    if (!fit) continue;
    lines.push(`- ${series === 'rows' ? 'Rows' : 'Root fields'}: each further ${unit} costs the gateway ${fit.lowerSlope.toFixed(1)} µs of CPU over the lower half of the range and ${fit.upperSlope.toFixed(1)} µs over the upper half: ${fit.linear ? 'linear (within 35 %)' : '**not linear** (the slopes differ by more than 35 %)'}.`);
  }
  const concurrency = gatewaySeries('concurrency');
  if (concurrency.length > 1) {
    const best = Math.max(...concurrency.map((p) => p.opsPerSecond));
    const last = concurrency[concurrency.length - 1] as GrowthPoint;
    const cliff = Number.isFinite(best) && last.opsPerSecond < 0.8 * best;
    lines.push(`- Concurrency: throughput at ${last.x} connections is ${((100 * last.opsPerSecond) / best).toFixed(0)} % of the best; ${cliff ? '**a cliff**: it falls by more than 20 %' : 'no cliff'}. Once the CPU is saturated, latency grows with the queue (connections ÷ throughput), as it must for any server.`);
  }
  return lines;
}

function runsOf(values: number[], digits: number): string {
  return values.map((v) => v.toFixed(digits)).join(', ');
}

/** Workload (f): the two gateways side by side, and what sharing changed. */
function sharedReadsSection(figure: SharedReadsFigure | undefined): string[] {
  if (!figure) return [];
  const out = ['## (f) One dashboard query from many connections at once: in-flight read sharing on and off', ''];
  out.push(`${figure.connections} connections send workload (c)'s three-area query with the same token, each the next as soon as its answer arrives, to two gateways of the same build started side by side, one with \`UPSTREAM_SHARE_READS=true\` (the default) and one with \`false\`, measured in alternation. Platform calls per GraphQL request are the sandbox's counters over the runs ÷ GraphQL requests sent.`, '');
  out.push(markdownTable(
    ['Gateway started with', 'Throughput (ops/s)', 'Platform calls per GraphQL request', 'Gateway CPU µs/op', 'Runs: ops/s', 'Runs: µs/op'],
    figure.variants.map((v) => [`\`${v.label}\``, formatNumber(v.opsPerSecond, 0), formatNumber(v.callsPerOp, 2), formatNumber(v.cpuUsPerOp, 0), runsOf(v.throughputRuns, 0), runsOf(v.cpuRuns, 0)]),
    ['l', 'r', 'r', 'r', 'l', 'l'],
  ), '');
  const [on, off] = figure.variants;
  if (on && off && Number.isFinite(on.opsPerSecond) && Number.isFinite(off.opsPerSecond) && off.opsPerSecond > 0) {
    out.push(`Sharing on ÷ off: throughput ${formatNumber(on.opsPerSecond / off.opsPerSecond, 2)}×, platform calls per request ${formatNumber((on.callsPerOp ?? Number.NaN) / (off.callsPerOp ?? Number.NaN), 2)}×.`, '');
  }
  return out;
}

/** The limiter's cost: CPU per request with it against the same gateway without it. */
export function renderRateLimitCost(figure: RateLimitCostFigure): string[] {
  return rateLimitSection(figure);
}

function rateLimitSection(figure: RateLimitCostFigure | undefined): string[] {
  if (!figure) return [];
  const out = ['## Cost of the per-caller budget', ''];
  out.push(`The cheapest request (\`{ __typename }\` with a token: no platform call) at a fixed ${figure.requestsPerSecond} requests/s over ${figure.connections} connections, to gateways of the same build started side by side without the limit, with it counted in memory and with it counted in Redis (a redis-server the harness starts on the load generator's CPU), measured in alternation. The limit is set so high that nothing is refused: every request pays for one check. The rate is below saturation and the same for each, so that each gateway does the same work per second but for the check. Added = CPU per request minus the gateway's without the limit; the redis-server's own CPU is in its own column.`, '');
  const base = figure.variants[0]?.cpuUsPerOp;
  out.push(markdownTable(
    ['Gateway started with', 'Gateway CPU µs/op', 'Added µs/op', 'Throughput (ops/s)', 'redis-server CPU µs/op', 'Store failures', 'Runs: µs/op'],
    figure.variants.map((v, index) => [
      `\`${v.label}\``,
      formatNumber(v.cpuUsPerOp, 1),
      index === 0 || base === undefined ? DASH : formatSigned(v.cpuUsPerOp - base, 1),
      formatNumber(v.opsPerSecond, 0),
      v.label.includes('REDIS_URL') ? formatNumber(v.storeCpuUsPerOp, 1) : DASH,
      v.counter === undefined ? DASH : String(v.counter),
      runsOf(v.cpuRuns, 1),
    ]),
    ['l', 'r', 'r', 'r', 'r', 'r', 'l'],
  ), '');
  const check = figure.check;
  if (check) {
    const redis = check.redisUs === undefined ? '' : `, and ${formatNumber(check.redisUs, 1)} µs with Redis (the gateway's side of it: encoding the script call, reading the answer; ${check.checks} checks, ${check.redisFallbacks ?? 0} of them counted in memory because Redis failed or was late)`;
    out.push(`The check alone (\`bench/rate-limit-check.ts\`: the gateway's handler, 32 checks at a time for 1 000 callers, in a process of its own): ${formatNumber(check.memoryUs, 1)} µs of CPU per check in memory (${check.memoryChecks} checks)${redis}.`, '');
  }
  out.push(...callsDrawSection(figure.calls));
  if (figure.skipped) out.push(figure.skipped, '');
  return out;
}

/** The per-call draw: the same variants on a request whose platform calls each draw from the bucket. */
function callsDrawSection(figure: CallsDrawCostFigure | undefined): string[] {
  if (!figure) return [];
  const out = ['### On a request with platform calls: the per-call draw', ''];
  out.push(`${figure.request}, at a fixed ${figure.requestsPerSecond} requests/s over ${figure.connections} connections, to the same three kinds of gateway (in-flight read sharing off, so that every request sends its own calls and each draws). With a budget, the operation's estimate is reserved in one take and each attempt sent draws one unit of it: what a budget adds here is the reservation, the draws and the refund. Added = CPU per request minus the gateway's without the limit; per call = Added ÷ platform calls per request.`, '');
  const base = figure.variants[0]?.cpuUsPerOp;
  out.push(markdownTable(
    ['Gateway started with', 'Gateway CPU µs/op', 'Added µs/op', 'Platform calls per request', 'Added µs per call', 'Throughput (ops/s)', 'redis-server CPU µs/op', 'Store failures', 'Runs: µs/op'],
    figure.variants.map((v, index) => {
      const added = index === 0 || base === undefined ? undefined : v.cpuUsPerOp - base;
      return [
        `\`${v.label}\``,
        formatNumber(v.cpuUsPerOp, 1),
        added === undefined ? DASH : formatSigned(added, 1),
        formatNumber(v.callsPerOp, 2),
        added === undefined || v.callsPerOp === undefined || v.callsPerOp === 0 ? DASH : formatSigned(added / v.callsPerOp, 1),
        formatNumber(v.opsPerSecond, 0),
        v.label.includes('REDIS_URL') ? formatNumber(v.storeCpuUsPerOp, 1) : DASH,
        v.counter === undefined ? DASH : String(v.counter),
        runsOf(v.cpuRuns, 1),
      ];
    }),
    ['l', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'l'],
  ), '');
  return out;
}

function cpuShare(c: CellResult | undefined): string {
  return c?.cpuShare === undefined ? DASH : `${(c.cpuShare * 100).toFixed(0)} %`;
}

/** Whether a target is within reach of the design card's libraries, as the floor shows. */
function reach(what: string, reachable: boolean | undefined): string {
  if (reachable === undefined) return `${what}: not measured`;
  return reachable ? `${what} reachable (the floor meets it)` : `${what} **out of reach** of these libraries (even the floor misses it)`;
}

function floorRows(checks: FloorCheck[]): string[][] {
  return checks.map((c) => [
    `(${c.workload})`,
    `${formatNumber(c.throughputVsBare, 2)} (≥ ${c.throughputGoal})`,
    `${formatNumber(c.cpuVsBare, 2)} (≤ ${c.cpuGoal})`,
    `${reach('Throughput', c.throughputReachable)}; ${reach('CPU', c.cpuReachable)}.`,
  ]);
}

function floorRssLine(report: BenchReport): string | undefined {
  const floor = report.memory.floor;
  if (!floor) return undefined;
  const peak = floor.saturationPeakMiB;
  const reachable = Number.isFinite(peak) ? peak <= GOALS.rssMiB : undefined;
  return `Peak RSS: the floor ${formatNumber(peak, 1)} MiB over the workloads' saturation runs (the gateway ${formatNumber(report.memory.workloadPeakMiB, 1)} MiB over the same runs), target ≤ ${GOALS.rssMiB} MiB: ${reach('RSS', reachable)}.`;
}

function failureLines(report: BenchReport): string[] {
  const lines: string[] = [];
  for (const w of report.workloads) {
    for (const c of w.cells) {
      if (c.failures === 0) continue;
      const reasons = c.failureReasons.map(([reason, count]) => `${count}× ${reason}`).join('; ');
      lines.push(`- (${w.id}) ${TARGET_LABELS[c.target]}: ${c.failures} failed of ${c.failures + c.validResponses} — ${reasons}`);
    }
  }
  for (const [what, variants] of [
    ['(f)', report.sharedReads?.variants ?? []],
    ['Rate limiter', report.rateLimitCost?.variants ?? []],
    ['Per-call draw', report.rateLimitCost?.calls?.variants ?? []],
  ] as const) {
    for (const v of variants) {
      if (v.failures === 0) continue;
      const reasons = v.failureReasons.map(([reason, count]) => `${count}× ${reason}`).join('; ');
      lines.push(`- ${what} ${v.label}: ${v.failures} failed of ${v.failures + v.validResponses} — ${reasons}`);
    }
  }
  const soak = report.memory.soak;
  if (soak && soak.failures > 0) {
    lines.push(`- Soak: ${soak.failures} failed responses — ${soak.failureReasons.map(([reason, count]) => `${count}× ${reason}`).join('; ')}`);
  }
  for (const r of report.workers?.results ?? []) {
    if (r.failures > 0) lines.push(`- Workers: ${r.failures} failed responses with WORKERS=${r.workers}`);
  }
  return lines;
}

export function renderReport(report: BenchReport): string {
  const s = report.settings;
  const m = report.machine;
  const out: string[] = [];
  out.push('# Gateway benchmark results', '');
  out.push(`Command: \`${report.command}\`  `);
  out.push(`Date: ${report.date} · revision ${report.revision} · run took ${report.elapsedS.toFixed(0)} s${s.quick ? ' · **quick mode** (1 run, short durations: indicative only)' : ''}`, '');
  out.push('![Latency and throughput per target](results.png)', '');

  out.push('## Targets', '');
  out.push(markdownTable(['Figure', 'Target', 'Measured', 'Result'], evaluateTargets(report).map((c) => [c.name, c.goal, c.measured, verdict(c.pass)])), '');

  const floor = floorChecks(report);
  if (floor.length > 0) {
    out.push('## Design-card floor', '');
    out.push(`The floor (\`bench/design-card-floor.ts\`) is the least a gateway built from the design card's libraries can cost: Apollo Server's defaults over node:http, got, one platform call per root field and nothing else. A target it misses is out of reach of those libraries, whatever the gateway's own code does; the gap between it and the gateway is the gateway's own cost.`, '');
    out.push(markdownTable(['Workload', 'Floor ÷ bare proxy, throughput (gateway goal)', 'Floor ÷ bare proxy, CPU per operation (gateway goal)', 'For the gateway\'s target'], floorRows(floor), ['l', 'r', 'r', 'l']), '');
    const rss = floorRssLine(report);
    if (rss) out.push(rss, '');
  }

  out.push('## Machine and software', '');
  out.push(markdownTable(['Item', 'Value'], [
    ['CPU', `${m.cpuModel}, ${m.cores} cores`],
    ['Memory', `${m.memoryGiB.toFixed(1)} GiB`],
    ['OS', m.os],
    ['Load average (1/5/15 min), start → end', `${report.loadAverage.start.map((v) => v.toFixed(2)).join(' ')} → ${report.loadAverage.end.map((v) => v.toFixed(2)).join(' ')}`],
    ['Node', m.node],
    ...report.versions,
  ]), '');

  out.push('## Settings', '');
  out.push(markdownTable(['Setting', 'Value'], [
    ['Runs per figure (median reported)', String(s.runs)],
    ['Warm-up per target and workload', `${s.warmupS} s at saturation`],
    ['Latency runs', `${s.latencyS} s at ${s.latencyRate} req/s over ${s.latencyConnections} connection(s)`],
    ['Saturation runs', `${s.saturationS} s with ${s.saturationConnections} connections`],
    ['Soak', `${s.soakS} s at saturation (the 10-minute figure needs \`--soak-seconds 600\`)`],
    ['CPU pinning', s.pinned ? 'load generator and sandbox on CPU 0, systems under test on CPU 1 (taskset)' : 'none (taskset missing or a single CPU)'],
  ]), '');
  if (report.fixtures.length > 0) out.push(`Data: ${report.fixtures.join('; ')}.`, '');

  out.push('## Latency at a fixed rate below saturation (ms)', '');
  out.push('Added = target minus direct REST. For (c), direct REST is the slowest of the three calls a client would make in parallel (per percentile).', '');
  out.push(markdownTable(['Workload', 'Target', 'p50', 'p99', 'Added p50', 'Added p99', 'Runs (p50/p99)'],
    report.workloads.flatMap(latencyRows), ['l', 'l', 'r', 'r', 'r', 'r', 'l']), '');

  out.push('## Saturation throughput (operations/s)', '');
  out.push('For (c) one operation is the three-area read: one GraphQL request, one bare-proxy batch request, or three direct REST calls.', '');
  out.push(markdownTable(
    ['Workload', ...TARGETS.map((t) => TARGET_LABELS[t]), 'Gateway ÷ bare proxy', 'Gateway ÷ peer', 'Floor ÷ bare proxy', 'Gateway ÷ floor'],
    report.workloads.map((w) => [
      `(${w.id}) ${w.title}`,
      ...TARGETS.map((t) => throughputCell(cell(w, t))),
      formatNumber(throughputRatio(w, 'bare'), 2),
      formatNumber(throughputRatio(w, 'peer'), 2),
      formatNumber(throughputRatio(w, 'bare', 'floor'), 2),
      formatNumber(throughputRatio(w, 'floor'), 2),
    ]),
    ['l', ...TARGETS.map((): 'r' => 'r'), 'r', 'r', 'r', 'r'],
  ), '');

  out.push('## CPU per operation at saturation (µs of the process under test)', '');
  out.push('From utime + stime in /proc/<pid>/stat before and after each run, divided by the valid responses. The share column is the fraction of one CPU the process used; well below 100 % means the load generator or the sandbox, not the target, was the bottleneck.', '');
  out.push(markdownTable(
    ['Workload', 'Bare proxy', 'Floor', 'Gateway', 'Peer', 'Floor CPU share', 'Gateway CPU share', 'Peer CPU share'],
    report.workloads.map((w) => [
      `(${w.id})`,
      formatNumber(cell(w, 'bare')?.cpuUsPerOp, 0),
      formatNumber(cell(w, 'floor')?.cpuUsPerOp, 0),
      formatNumber(cell(w, 'gateway')?.cpuUsPerOp, 0),
      formatNumber(cell(w, 'peer')?.cpuUsPerOp, 0),
      cpuShare(cell(w, 'floor')),
      cpuShare(cell(w, 'gateway')),
      cpuShare(cell(w, 'peer')),
    ]),
    ['l', 'r', 'r', 'r', 'r', 'r', 'r', 'r'],
  ), '');

  out.push('## Platform calls per GraphQL request', '');
  out.push('Under load: the sandbox\'s request counters over the saturation runs ÷ GraphQL requests sent. Probe: sequential requests with distinct `x-request-id`s, the sandbox\'s request log grouped by that id; a duplicate is the same method + path + query twice within one request.', '');
  out.push(markdownTable(
    ['Workload', 'Target', 'Under load', 'Probe: calls per request', 'Duplicates'],
    report.workloads.flatMap((w) => w.upstream.map((u) => [
      `(${w.id})`,
      TARGET_LABELS[u.target],
      formatNumber(u.callsPerOpUnderLoad, 2),
      u.probe.grouped ? [...new Set(u.probe.callsPerRequest)].sort((a, b) => a - b).join(' or ') : `${formatNumber(u.probe.totalCalls / u.probe.requests, 2)} (ids not forwarded: average)`,
      u.probe.grouped ? String(u.probe.duplicates) : DASH,
    ])),
    ['l', 'l', 'r', 'r', 'r'],
  ), '');

  out.push(...sharedReadsSection(report.sharedReads), ...rateLimitSection(report.rateLimitCost));

  if (report.growth && report.growth.length > 0) {
    out.push('## How cost grows with work', '');
    out.push('One saturation run per case and target (CPU per operation from /proc as above; latency over every response of the run). The bare proxy fetches the same platform page; it has no equivalent of several root fields.', '');
    for (const series of ['rows', 'roots', 'concurrency'] as const) {
      const rows = growthRows(report.growth, series);
      if (rows.length === 0) continue;
      out.push(`### ${SERIES_TITLES[series]}`, '');
      out.push(markdownTable(['x', 'Gateway µs/op', 'Gateway ops/s', 'Gateway p50 ms', 'Gateway p99 ms', 'Bare µs/op', 'Bare ops/s', 'Bare p50 ms', 'Bare p99 ms'], rows, ['r', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r']), '');
    }
    out.push(...growthVerdicts(report.growth), '');
  }

  out.push('## Memory and start-up', '');
  const soak = report.memory.soak;
  const startup = startupMedianMs(report);
  out.push(markdownTable(['Figure', 'Value'], [
    ['Gateway RSS right after start-up', `${formatNumber(report.memory.idleMiB, 1)} MiB`],
    ['Gateway RSS, peak during saturation runs', `${formatNumber(report.memory.saturationPeakMiB, 1)} MiB (target ≤ ${GOALS.rssMiB} MiB)`],
    ...(soak
      ? [
          [`Soak`, `${soak.seconds} s of workload (${soak.workload}) at saturation, ${formatNumber(soak.opsPerSecond, 0)} ops/s, ${soak.failures} failures`],
          ['RSS at soak start → end (median of first and last fifth)', `${formatNumber(soak.startMiB, 1)} → ${formatNumber(soak.endMiB, 1)} MiB (${formatSigned(soak.growthPct, 1)} %), peak ${formatNumber(soak.peakMiB, 1)} MiB`],
        ]
      : []),
    ['Gateway start-up, spawn → /healthz 200', `${formatNumber(startup, 0)} ms (median of ${report.startupMs.map((v) => v.toFixed(0)).join(', ')} ms)`],
    ...(report.memory.floor
      ? [
          ['Floor RSS right after start-up', `${formatNumber(report.memory.floor.idleMiB, 1)} MiB`],
          ['Floor RSS, peak during the workloads\' saturation runs', `${formatNumber(report.memory.floor.saturationPeakMiB, 1)} MiB (gateway over the same runs: ${formatNumber(report.memory.workloadPeakMiB, 1)} MiB)`],
        ]
      : []),
    ...(report.floorStartupMs && report.floorStartupMs.length > 0
      ? [['Floor start-up, spawn → /healthz 200', `${formatNumber(median(report.floorStartupMs), 0)} ms (median of ${report.floorStartupMs.map((v) => v.toFixed(0)).join(', ')} ms)`]]
      : []),
  ]), '');

  if (report.workers) {
    const w = report.workers;
    out.push('## Workers', '');
    out.push(`Saturation throughput of workload (${w.workload}) at ${w.connections} connections, the gateway started with \`WORKERS=1\` and with \`WORKERS=2\` in this run, both unpinned and measured in alternation. The load generator and the sandbox run on the same CPUs as the workers, so on a two-CPU machine this is what a second worker gains with the clients and the platform beside it, not scaling on dedicated cores.`, '');
    const one = w.results[0]?.opsPerSecond;
    out.push(markdownTable(['WORKERS', 'Throughput (ops/s, median)', 'Runs', 'Failures', '÷ WORKERS=1'], w.results.map((r) => [
      String(r.workers),
      formatNumber(r.opsPerSecond, 0),
      r.runs.map((v) => v.toFixed(0)).join(', '),
      String(r.failures),
      one ? formatNumber(r.opsPerSecond / one, 2) : '–',
    ]), ['r', 'r', 'r', 'r', 'r']), '');
  }

  out.push('## Failures', '');
  const failures = failureLines(report);
  out.push(...(failures.length === 0 ? ['None: every response was validated (status, no GraphQL `errors`, exact record count, ids) and all passed.'] : failures), '');

  if (report.notes.length > 0) {
    out.push('## Notes', '');
    out.push(...report.notes.map((note) => `- ${note}`), '');
  }
  return `${out.join('\n').trimEnd()}\n`;
}

/** A judged figure of a run: its name, whether it passed, and what was measured. */
export type Check = readonly [name: string, ok: boolean, detail: string];

/** Each check's PASS or FAIL line, then the verdict line; the process exits 1 when one failed. */
export function verdictLines(checks: readonly Check[]): string[] {
  const passed = checks.every(([, ok]) => ok);
  process.exitCode = passed ? 0 : 1;
  return [...checks.map(([name, ok, detail]) => `  ${ok ? 'PASS' : 'FAIL'} ${name}: ${detail}`), `Verdict: ${passed ? 'PASS' : 'FAIL'}`];
}
