/**
 * Statistics for benchmark samples. Percentiles use the nearest-rank method
 * on exact samples (autocannon's own histogram rounds latencies to whole
 * milliseconds, too coarse for sub-millisecond differences).
 */

export interface LatencySummary {
  count: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  mean: number;
}

/** Nearest-rank percentile of values sorted ascending; NaN when there are none. */
export function percentileOfSorted(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  if (p <= 0) return sorted[0] as number;
  if (p >= 100) return sorted[sorted.length - 1] as number;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.max(0, rank - 1)] as number;
}

function sortedCopy(values: ArrayLike<number>): Float64Array {
  const copy = Float64Array.from(values as ArrayLike<number>);
  copy.sort();
  return copy;
}

export function percentile(values: ArrayLike<number>, p: number): number {
  return percentileOfSorted(sortedCopy(values), p);
}

/** Median; the mean of the two middle values for an even count; NaN when empty. */
export function median(values: readonly number[]): number {
  const finite = values.filter((v) => Number.isFinite(v));
  if (finite.length === 0) return Number.NaN;
  const sorted = sortedCopy(finite);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

/**
 * A 95 % interval of the median of `values` that assumes nothing of their distribution: the order
 * statistics whose ranks bound the median's with 95 % probability (a binomial of n trials of one
 * half, by its normal approximation: ranks n/2 − 0.98·√n and n/2 + 1 + 0.98·√n, rounded). It
 * narrows as 1/√n: it is the resolution of a median of n samples, where the interquartile range is
 * the spread of one sample.
 */
export function medianInterval(values: readonly number[]): [number, number] {
  const sorted = sortedCopy(values.filter((value) => Number.isFinite(value)));
  const count = sorted.length;
  if (count === 0) return [Number.NaN, Number.NaN];
  const half = (1.96 * Math.sqrt(count)) / 2;
  const lower = Math.min(count, Math.max(1, Math.round(count / 2 - half)));
  const upper = Math.max(1, Math.min(count, Math.round(count / 2 + 1 + half)));
  return [sorted[lower - 1] as number, sorted[upper - 1] as number];
}

export function summarize(values: ArrayLike<number>): LatencySummary {
  const sorted = sortedCopy(values);
  let sum = 0;
  for (const v of sorted) sum += v;
  return {
    count: sorted.length,
    p50: percentileOfSorted(sorted, 50),
    p90: percentileOfSorted(sorted, 90),
    p99: percentileOfSorted(sorted, 99),
    max: sorted.length === 0 ? Number.NaN : (sorted[sorted.length - 1] as number),
    mean: sorted.length === 0 ? Number.NaN : sum / sorted.length,
  };
}

/**
 * Median of the samples between two fractions of the series (0 = first,
 * 1 = last), taking at least one sample. Used to compare the start and the end
 * of a memory series without being fooled by a single garbage-collection spike.
 */
export function windowMedian(series: readonly number[], from: number, to: number): number {
  if (series.length === 0) return Number.NaN;
  const start = Math.min(series.length - 1, Math.floor(from * series.length));
  const end = Math.max(start + 1, Math.ceil(to * series.length));
  return median(series.slice(start, end));
}

/** Relative change from `before` to `after`, in percent. */
export function growthPercent(before: number, after: number): number {
  return ((after - before) / before) * 100;
}

/** A growable buffer of float samples that does not allocate per sample. */
export class SampleBuffer {
  #data = new Float64Array(4096);
  #length = 0;

  push(value: number): void {
    if (this.#length === this.#data.length) {
      const bigger = new Float64Array(this.#data.length * 2);
      bigger.set(this.#data);
      this.#data = bigger;
    }
    this.#data[this.#length++] = value;
  }

  get length(): number {
    return this.#length;
  }

  values(): Float64Array {
    return this.#data.subarray(0, this.#length);
  }
}
