/**
 * The results chart as a self-contained SVG: latency (p50 bars, p99
 * whiskers) and saturation throughput, grouped by workload, one colour per
 * target (the design-card floor next to the gateway).
 */
import { cell } from './results.ts';
import type { BenchReport } from './results.ts';
import { TARGET_LABELS, TARGETS } from './workloads.ts';
import type { TargetName } from './workloads.ts';

const TARGET_COLOURS: Record<TargetName, string> = {
  rest: '#9a9a9a',
  bare: '#4e79a7',
  floor: '#b07aa1',
  gateway: '#f28e2b',
  peer: '#59a14f',
};

/** An axis top and tick step: step is 1, 2, 2.5 or 5 × 10^k and at most `maxTicks` steps reach the top. */
export function niceScale(max: number, maxTicks = 5): { top: number; step: number } {
  if (!(max > 0) || !Number.isFinite(max)) return { top: 1, step: 0.2 };
  const rough = max / maxTicks;
  const magnitude = 10 ** Math.floor(Math.log10(rough));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * magnitude).find((s) => s >= rough) ?? 10 * magnitude;
  return { top: Math.ceil(max / step - 1e-9) * step, step };
}

function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

function formatTick(value: number): string {
  if (value >= 1000) return `${(value / 1000).toFixed(value % 1000 === 0 ? 0 : 1)}k`;
  if (Number.isInteger(value)) return String(value);
  return value < 1 ? String(Number(value.toPrecision(2))) : value.toFixed(1);
}

interface Bar {
  group: string;
  target: TargetName;
  value: number;
  whisker?: number;
}

interface Panel {
  title: string;
  unit: string;
  bars: Bar[];
  /** Logarithmic axis: latencies span from tenths of a millisecond to hundreds. */
  log: boolean;
}

/** Decade ticks covering [min, max] on a log axis: 0.1, 1, 10, ... */
export function logTicks(min: number, max: number): number[] {
  const low = Math.floor(Math.log10(Math.max(min, 1e-3)));
  const high = Math.max(low + 1, Math.ceil(Math.log10(Math.max(max, 1e-3))));
  return Array.from({ length: high - low + 1 }, (_, i) => 10 ** (low + i));
}

/** Legend swatch, the gap after it and the gap after a label, px; label widths are estimated per character at 12 px. */
const LEGEND = { swatch: 14, label: 6, gap: 26, charWidth: 6.8, rowHeight: 20 } as const;

/**
 * Positions of legend entries left to right from `left`, a new row whenever the next entry would
 * pass `right`: the floor's label is long enough that five entries do not fit one row.
 */
export function legendLayout(labels: readonly string[], left: number, right: number): Array<{ x: number; row: number }> {
  const positions: Array<{ x: number; row: number }> = [];
  let x = left;
  let row = 0;
  for (const label of labels) {
    const width = LEGEND.swatch + LEGEND.label + Math.ceil(label.length * LEGEND.charWidth);
    if (x > left && x + width > right) {
      row += 1;
      x = left;
    }
    positions.push({ x, row });
    x += width + LEGEND.gap;
  }
  return positions;
}

const WIDTH = 960;
const PANEL_HEIGHT = 300;
const MARGIN = { left: 70, right: 20, top: 40, bottom: 40 };

function renderPanel(panel: Panel, groups: string[], offsetY: number): string {
  const parts: string[] = [];
  const plotW = WIDTH - MARGIN.left - MARGIN.right;
  const plotH = PANEL_HEIGHT - MARGIN.top - MARGIN.bottom;
  const x0 = MARGIN.left;
  const y0 = offsetY + MARGIN.top;
  const values = panel.bars.flatMap((b) => (b.whisker === undefined ? [b.value] : [b.value, b.whisker])).filter((v) => v > 0);
  let ticks: number[];
  let y: (v: number) => number;
  if (panel.log) {
    ticks = logTicks(Math.min(...values, 1), Math.max(...values, 1));
    const lo = Math.log10(ticks[0] as number);
    const hi = Math.log10(ticks[ticks.length - 1] as number);
    y = (v) => y0 + plotH - ((Math.log10(Math.max(v, 10 ** lo)) - lo) / (hi - lo)) * plotH;
  } else {
    const { top, step } = niceScale(Math.max(0, ...values));
    ticks = Array.from({ length: Math.round(top / step) + 1 }, (_, i) => i * step);
    y = (v) => y0 + plotH - (v / top) * plotH;
  }
  const base = y0 + plotH;

  parts.push(`<text x="${x0}" y="${offsetY + 24}" font-size="15" font-weight="bold">${escapeXml(panel.title)}</text>`);
  for (const v of ticks) {
    parts.push(`<line x1="${x0}" x2="${x0 + plotW}" y1="${y(v).toFixed(1)}" y2="${y(v).toFixed(1)}" stroke="#e3e3e3"/>`);
    parts.push(`<text x="${x0 - 8}" y="${(y(v) + 4).toFixed(1)}" font-size="11" text-anchor="end">${formatTick(v)}</text>`);
  }
  parts.push(`<text transform="translate(${x0 - 52},${y0 + plotH / 2}) rotate(-90)" font-size="11" text-anchor="middle">${escapeXml(panel.unit)}</text>`);

  const groupW = plotW / Math.max(1, groups.length);
  groups.forEach((group, gi) => {
    const bars = panel.bars.filter((b) => b.group === group);
    const barW = Math.min(34, (groupW * 0.8) / Math.max(1, TARGETS.length));
    const start = x0 + gi * groupW + (groupW - barW * bars.length) / 2;
    bars.forEach((bar, bi) => {
      const bx = start + bi * barW;
      const top = y(bar.value);
      parts.push(`<rect x="${bx.toFixed(1)}" y="${top.toFixed(1)}" width="${(barW - 3).toFixed(1)}" height="${Math.max(0, base - top).toFixed(1)}" fill="${TARGET_COLOURS[bar.target]}"><title>${escapeXml(`${TARGET_LABELS[bar.target]} ${group}: ${bar.value.toFixed(2)} ${panel.unit}`)}</title></rect>`);
      if (bar.whisker !== undefined) {
        const cx = bx + (barW - 3) / 2;
        parts.push(`<line x1="${cx.toFixed(1)}" x2="${cx.toFixed(1)}" y1="${top.toFixed(1)}" y2="${y(bar.whisker).toFixed(1)}" stroke="#333"/>`);
        parts.push(`<line x1="${(cx - 4).toFixed(1)}" x2="${(cx + 4).toFixed(1)}" y1="${y(bar.whisker).toFixed(1)}" y2="${y(bar.whisker).toFixed(1)}" stroke="#333"/>`);
      }
    });
    parts.push(`<text x="${(x0 + gi * groupW + groupW / 2).toFixed(1)}" y="${base + 18}" font-size="12" text-anchor="middle">${escapeXml(group)}</text>`);
  });
  parts.push(`<line x1="${x0}" x2="${x0 + plotW}" y1="${base}" y2="${base}" stroke="#555"/>`);
  return parts.join('\n');
}

export function renderChartSvg(report: BenchReport): string {
  const groups = report.workloads.map((w) => `(${w.id}) ${w.short}`);
  const latency: Bar[] = [];
  const throughput: Bar[] = [];
  report.workloads.forEach((w, i) => {
    const group = groups[i] as string;
    for (const target of TARGETS) {
      const c = cell(w, target);
      if (c?.latency && Number.isFinite(c.latency.p50Ms)) latency.push({ group, target, value: c.latency.p50Ms, whisker: c.latency.p99Ms });
      if (c?.throughput && Number.isFinite(c.throughput.opsPerSecond)) throughput.push({ group, target, value: c.throughput.opsPerSecond });
    }
  });
  // Cost growth: gateway (and bare proxy) CPU per operation by page size and root fields.
  const growthPoints = (report.growth ?? []).filter((p) => p.series !== 'concurrency' && p.cpuUsPerOp !== undefined && Number.isFinite(p.cpuUsPerOp));
  const growthGroups = [...new Set(growthPoints.map((p) => `${p.x} ${p.series === 'rows' ? 'rows' : p.x === 1 ? 'root' : 'roots'}`))];
  const growthBars: Bar[] = growthPoints.map((p) => ({ group: `${p.x} ${p.series === 'rows' ? 'rows' : p.x === 1 ? 'root' : 'roots'}`, target: p.target, value: p.cpuUsPerOp as number }));
  const panels = growthBars.length > 0 ? 3 : 2;
  const legendY = panels * PANEL_HEIGHT + 20;
  const positions = legendLayout(TARGETS.map((t) => TARGET_LABELS[t]), MARGIN.left, WIDTH - MARGIN.right);
  const legend = TARGETS.map((target, i) => {
    const { x, row } = positions[i] as { x: number; row: number };
    const y = legendY + row * LEGEND.rowHeight;
    return `<rect x="${x}" y="${y - 11}" width="${LEGEND.swatch}" height="${LEGEND.swatch}" fill="${TARGET_COLOURS[target]}"/><text x="${x + LEGEND.swatch + LEGEND.label}" y="${y}" font-size="12">${escapeXml(TARGET_LABELS[target])}</text>`;
  }).join('\n');
  const legendRows = Math.max(0, ...positions.map((p) => p.row)) + 1;
  const footerY = legendY + (legendRows - 1) * LEGEND.rowHeight + 24;
  const height = footerY + 16;
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" font-family="DejaVu Sans, Helvetica, Arial, sans-serif">`,
    `<rect width="100%" height="100%" fill="#ffffff"/>`,
    renderPanel({ title: `Latency at ${report.settings.latencyRate} req/s: bar p50, whisker p99 (log scale)`, unit: 'ms', bars: latency, log: true }, groups, 0),
    renderPanel({ title: 'Saturation throughput', unit: 'operations/s', bars: throughput, log: false }, groups, PANEL_HEIGHT),
    ...(panels === 3 ? [renderPanel({ title: 'Cost growth: CPU per operation at saturation', unit: 'µs', bars: growthBars, log: false }, growthGroups, 2 * PANEL_HEIGHT)] : []),
    legend,
    `<text x="${WIDTH - MARGIN.right}" y="${footerY}" font-size="10" text-anchor="end" fill="#666">${escapeXml(`${report.date} · ${report.machine.cpuModel} · ${report.settings.quick ? 'quick mode' : `median of ${report.settings.runs} runs`}`)}</text>`,
    '</svg>',
    '',
  ].join('\n');
}
