// Latency statistics of a comparison: percentiles of each side, the ratio of the medians with a
// paired bootstrap confidence interval, and the regression rule (significant and above a threshold).
import { Random } from '../contracts/generative/random.ts';
import { LATENCY_NOISE } from '../reporting/envelope.ts';

/** When a slower candidate counts as a regression: slower by more than both of these. */
export interface RegressionThreshold {
  /** Relative slow-down of the median, in percent (default 10). */
  percent: number;
  /** Absolute slow-down of the median, in milliseconds (default 5). */
  ms: number;
}

/** The default threshold: 10 % and 5 ms (the envelope's noise rule too). */
export const DEFAULT_THRESHOLD: RegressionThreshold = { ...LATENCY_NOISE };

/** Resamples of the bootstrap. */
export const BOOTSTRAP_RESAMPLES = 2000;

/** Confidence level of the interval. */
export const CONFIDENCE = 0.95;

/** Percentiles of one side, in milliseconds. */
export interface SidePercentiles {
  count: number;
  p50: number;
  p95: number;
  p99: number;
}

/** The latency verdict of one operation. */
export interface LatencyVerdict {
  candidate: SidePercentiles;
  current: SidePercentiles;
  /** candidate p50 / current p50. */
  ratio: number;
  /** The CONFIDENCE interval of the ratio (paired bootstrap of the interleaved pairs). */
  interval: [number, number];
  /** Significant (the interval lies above 1) and slower by more than the threshold's percent and ms. */
  regression: boolean;
  /** Significant (the interval lies below 1) and faster by more than the threshold. */
  improvement: boolean;
}

/** The value at a percentile (0..100) of sorted values, by linear interpolation between ranks. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return 0;
  const rank = (p / 100) * (sorted.length - 1);
  const low = Math.floor(rank);
  const high = Math.ceil(rank);
  return sorted[low]! + (sorted[high]! - sorted[low]!) * (rank - low);
}

/** Percentiles of unsorted values. */
export function percentilesOf(values: readonly number[]): SidePercentiles {
  const sorted = [...values].sort((a, b) => a - b);
  const round = (ms: number) => Math.round(ms * 1000) / 1000;
  return {
    count: values.length,
    p50: round(percentile(sorted, 50)),
    p95: round(percentile(sorted, 95)),
    p99: round(percentile(sorted, 99)),
  };
}

function median(values: number[]): number {
  return percentile(
    values.sort((a, b) => a - b),
    50,
  );
}

/**
 * The CONFIDENCE interval of median(candidate) / median(current) by a paired bootstrap: pair j is
 * the candidate's and the current deployment's j-th sample, taken a moment apart, so a resample
 * keeps what the two sides saw of the machine and the network at the same moment together.
 */
export function bootstrapRatio(
  candidate: readonly number[],
  current: readonly number[],
  seed = 1,
  resamples = BOOTSTRAP_RESAMPLES,
): [number, number] {
  const n = Math.min(candidate.length, current.length);
  if (n === 0) return [Number.NaN, Number.NaN];
  const rng = new Random(seed);
  const next = () => rng.next();
  const ratios: number[] = new Array(resamples);
  const a: number[] = new Array(n);
  const b: number[] = new Array(n);
  for (let r = 0; r < resamples; r++) {
    for (let i = 0; i < n; i++) {
      const j = Math.floor(next() * n);
      a[i] = candidate[j]!;
      b[i] = current[j]!;
    }
    const mb = median(b);
    ratios[r] = mb > 0 ? median(a) / mb : Number.POSITIVE_INFINITY;
  }
  return confidenceInterval(ratios);
}

/** Judges one operation's interleaved samples (milliseconds, pair j on both sides taken together). */
export function judgeLatency(
  candidate: readonly number[],
  current: readonly number[],
  threshold: RegressionThreshold = DEFAULT_THRESHOLD,
  seed = 1,
): LatencyVerdict {
  const c = percentilesOf(candidate);
  const u = percentilesOf(current);
  const medC = percentile(
    [...candidate].sort((x, y) => x - y),
    50,
  );
  const medU = percentile(
    [...current].sort((x, y) => x - y),
    50,
  );
  const ratio = medU > 0 ? medC / medU : Number.NaN;
  const interval = bootstrapRatio(candidate, current, seed);
  const round = (value: number) => Math.round(value * 1000) / 1000;
  const beyond = (slower: number, faster: number) => exceedsThreshold(slower, faster, threshold);
  return {
    candidate: c,
    current: u,
    ratio: round(ratio),
    interval: [round(interval[0]), round(interval[1])],
    regression: interval[0] > 1 && beyond(medC, medU),
    improvement: interval[1] < 1 && beyond(medU, medC),
  };
}

/** Whether `slower` is slower than `faster` by more than both the threshold's percent and its milliseconds. */
export function exceedsThreshold(slower: number, faster: number, threshold: RegressionThreshold): boolean {
  return slower - faster > threshold.ms && slower > faster * (1 + threshold.percent / 100);
}

/**
 * The value at percentile `p` of the multiset holding `counts[k]` copies of `sorted[k]` (`total` in
 * all), interpolated between ranks as `percentile` does; NaN when it is empty. What a bootstrap
 * resample's percentile is, without sorting the resample.
 */
export function percentileOfCounts(
  sorted: ArrayLike<number>,
  counts: ArrayLike<number>,
  total: number,
  p: number,
): number {
  if (total === 0) return Number.NaN;
  const rank = (p / 100) * (total - 1);
  const low = Math.floor(rank);
  const high = Math.ceil(rank);
  let seen = 0;
  let lowValue = Number.NaN;
  for (let k = 0; k < sorted.length; k++) {
    seen += counts[k]!;
    if (Number.isNaN(lowValue) && low < seen) lowValue = sorted[k]!;
    if (high < seen) return lowValue + (sorted[k]! - lowValue) * (rank - low);
  }
  return lowValue;
}

/** The CONFIDENCE interval of bootstrap values (the finite ones), or [NaN, NaN] when none is. */
export function confidenceInterval(values: ArrayLike<number>): [number, number] {
  const finite = Array.from(values)
    .filter((value) => !Number.isNaN(value))
    .sort((a, b) => a - b);
  if (finite.length === 0) return [Number.NaN, Number.NaN];
  const tail = (1 - CONFIDENCE) / 2;
  return [percentile(finite, tail * 100), percentile(finite, (1 - tail) * 100)];
}

/** The two-sided normal quantile of CONFIDENCE (0.95). */
const Z = 1.959964;

/** The Wilson score interval of a share `x` of `n` at CONFIDENCE. */
export function wilsonInterval(x: number, n: number): [number, number] {
  if (n === 0) return [0, 1];
  const p = x / n;
  const z2 = Z * Z;
  const centre = (p + z2 / (2 * n)) / (1 + z2 / n);
  const half = (Z * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n))) / (1 + z2 / n);
  return [Math.max(0, centre - half), Math.min(1, centre + half)];
}

/**
 * The CONFIDENCE interval of the difference of two shares (candidate's `x1` of `n1` minus the current
 * one's `x2` of `n2`) by Newcombe's hybrid score method: sound for shares near 0, as error rates are.
 */
export function shareDifferenceInterval(x1: number, n1: number, x2: number, n2: number): [number, number] {
  const p1 = n1 === 0 ? 0 : x1 / n1;
  const p2 = n2 === 0 ? 0 : x2 / n2;
  const [l1, u1] = wilsonInterval(x1, n1);
  const [l2, u2] = wilsonInterval(x2, n2);
  const d = p1 - p2;
  return [d - Math.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2), d + Math.sqrt((u1 - p1) ** 2 + (p2 - l2) ** 2)];
}
