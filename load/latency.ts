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
  /** Further percentiles a threshold asked for, by percentile (`"97.5"`). */
  percentiles?: Record<string, number>;
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

  /** All the percentiles kgate reports, and the `extra` ones a threshold asked for. */
  summary(extra: readonly number[] = []): LatencySummary {
    const h = this.histogram;
    const ms = (us: number) => Math.round(us) / 1000;
    const percentiles =
      extra.length === 0
        ? {}
        : {
            percentiles: Object.fromEntries(
              extra.map((p) => [String(p), h.totalCount === 0 ? 0 : ms(h.getValueAtPercentile(p))]),
            ),
          };
    if (h.totalCount === 0)
      return { count: 0, min: 0, mean: 0, p50: 0, p90: 0, p95: 0, p99: 0, p999: 0, max: 0, ...percentiles };
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
      ...percentiles,
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

/** Latencies a reservoir keeps per operation: enough for the tails, bounded whatever the run's length. */
export const RESERVOIR_SIZE = 2048;

/** A reservoir's contents: how many latencies it saw, and those it kept with the time each was recorded. */
export interface LatencySamples {
  /** Latencies recorded in all (the reservoir keeps at most RESERVOIR_SIZE of them). */
  seen: number;
  /** Milliseconds since the run's start, when each kept latency was recorded. */
  atMs: number[];
  /** The kept latencies, in microseconds. */
  latencyUs: number[];
}

/**
 * A uniform sample of at most `size` latencies, each with the time it was recorded (Vitter's
 * algorithm R): what a later run is compared with (`--against-run`), in memory that does not grow
 * with the number of requests.
 */
export class LatencyReservoir {
  private readonly atMs: Uint32Array;
  private readonly us: Uint32Array;
  private seen = 0;

  constructor(readonly size = RESERVOIR_SIZE) {
    this.atMs = new Uint32Array(size);
    this.us = new Uint32Array(size);
  }

  /** Offers one latency (milliseconds) recorded `atMs` milliseconds after the start. */
  record(atMs: number, ms: number): void {
    const slot = this.seen < this.size ? this.seen : Math.floor(Math.random() * (this.seen + 1));
    this.seen++;
    if (slot >= this.size) return;
    this.atMs[slot] = Math.max(0, Math.round(atMs));
    this.us[slot] = Math.min(HIGHEST_US, Math.max(1, Math.round(ms * 1000)));
  }

  /** What the reservoir holds, as plain arrays. */
  samples(): LatencySamples {
    const kept = Math.min(this.seen, this.size);
    return {
      seen: this.seen,
      atMs: Array.from(this.atMs.subarray(0, kept)),
      latencyUs: Array.from(this.us.subarray(0, kept)),
    };
  }
}
