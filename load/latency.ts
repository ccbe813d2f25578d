import * as hdr from 'hdr-histogram-js';

/** Latency percentiles of a set of requests, in milliseconds (recorded in microseconds). */
export interface LatencySummary {
  count: number;
  min: number;
  mean: number;
  p50: number;
  p90: number;
  p95: number;
  p99: number;
  p999: number;
  max: number;
}

// One hour in microseconds: a request slower than that is clamped, never dropped.
const HIGHEST_US = 3_600_000_000;

/** An HDR histogram of latencies recorded in microseconds (sub-millisecond resolution, 3 significant digits). */
export class LatencyHistogram {
  private readonly histogram = hdr.build({
    lowestDiscernibleValue: 1,
    highestTrackableValue: HIGHEST_US,
    numberOfSignificantValueDigits: 3,
    autoResize: false,
  });

  /** Records one latency given in milliseconds (fractions kept down to the microsecond). */
  recordMs(ms: number): void {
    const us = Math.round(ms * 1000);
    this.histogram.recordValue(Math.min(HIGHEST_US, Math.max(1, us)));
  }

  /** Number of recorded values. */
  get count(): number {
    return this.histogram.totalCount;
  }

  /** The latency at a percentile (0..100), in milliseconds. */
  percentileMs(percentile: number): number {
    return this.histogram.totalCount === 0 ? 0 : this.histogram.getValueAtPercentile(percentile) / 1000;
  }

  /** All the percentiles kgate reports. */
  summary(): LatencySummary {
    const h = this.histogram;
    if (h.totalCount === 0) return { count: 0, min: 0, mean: 0, p50: 0, p90: 0, p95: 0, p99: 0, p999: 0, max: 0 };
    const ms = (us: number) => Math.round(us) / 1000;
    return {
      count: h.totalCount,
      min: ms(h.minNonZeroValue),
      mean: ms(h.mean),
      p50: ms(h.getValueAtPercentile(50)),
      p90: ms(h.getValueAtPercentile(90)),
      p95: ms(h.getValueAtPercentile(95)),
      p99: ms(h.getValueAtPercentile(99)),
      p999: ms(h.getValueAtPercentile(99.9)),
      max: ms(h.getValueAtPercentile(100)),
    };
  }

  /** Adds every value recorded in another histogram (folds a per-second histogram into the run's). */
  add(other: LatencyHistogram): void {
    this.histogram.add(other.histogram);
  }

  /** Forgets every value (used for the per-second histogram of the timeline). */
  reset(): void {
    this.histogram.reset();
  }

  /** Frees the histogram's storage. */
  destroy(): void {
    this.histogram.destroy();
  }
}
