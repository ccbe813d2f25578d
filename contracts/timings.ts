// Requests and latencies per operation, as the gate saw them: a small, mergeable histogram per
// operation, so that a test, a worker, a run and several shards of a run add up by merging.

/** Ratio between the bounds of two neighbouring latency buckets: percentiles are within 2 %. */
const BUCKET_RATIO = 1.02;
const LOG_RATIO = Math.log(BUCKET_RATIO);

/** The requests sent to one operation and their latencies (bucket index -> count). */
export interface OperationTiming {
  requests: number;
  /** Sparse histogram: `ceil(log(ms) / log(1.02))` -> requests (index 0 holds everything up to 1 ms). */
  buckets: Record<string, number>;
}

/** Operation label (`GET /academic/v1.0/evaluate`) -> its requests and latencies. */
export type OperationTimings = Record<string, OperationTiming>;

/** One row of the per-operation table of the reports. */
export interface OperationStat {
  operation: string;
  /** Requests sent to the operation (tests, discovery, generated requests, probes, retries). */
  requests: number;
  /** Median latency in milliseconds: from sending to the complete answer (or to the transport failure). */
  p50Ms: number;
  /** 95th percentile latency in milliseconds. */
  p95Ms: number;
}

/** The bucket a latency falls into. */
export function bucketOf(ms: number): number {
  return ms <= 1 ? 0 : Math.ceil(Math.log(ms) / LOG_RATIO);
}

/** The upper bound of a bucket, in milliseconds. */
export function bucketBound(bucket: number): number {
  return bucket <= 0 ? 1 : BUCKET_RATIO ** bucket;
}

/** Counts one request to `operation` that took `ms` milliseconds. */
export function recordTiming(timings: OperationTimings, operation: string, ms: number): void {
  const timing = timings[operation] ?? { requests: 0, buckets: {} };
  timings[operation] = timing;
  timing.requests++;
  const bucket = String(bucketOf(ms));
  timing.buckets[bucket] = (timing.buckets[bucket] ?? 0) + 1;
}

/** Adds `from` into `into` (returns `into`). */
export function mergeTimings(into: OperationTimings, from: OperationTimings | undefined): OperationTimings {
  for (const [operation, timing] of Object.entries(from ?? {})) {
    const target = into[operation] ?? { requests: 0, buckets: {} };
    into[operation] = target;
    target.requests += timing.requests;
    for (const [bucket, count] of Object.entries(timing.buckets))
      target.buckets[bucket] = (target.buckets[bucket] ?? 0) + count;
  }
  return into;
}

/** The latency below which a share `p` (0..1) of the requests answered, in milliseconds (rounded to 0.1 ms). */
export function percentileMs(timing: OperationTiming, p: number): number {
  const entries = Object.entries(timing.buckets)
    .map(([bucket, count]) => [Number(bucket), count] as const)
    .sort(([a], [b]) => a - b);
  const total = entries.reduce((sum, [, count]) => sum + count, 0);
  if (total === 0) return 0;
  const rank = Math.max(1, Math.ceil(p * total));
  let seen = 0;
  for (const [bucket, count] of entries) {
    seen += count;
    if (seen >= rank) return Math.round(bucketBound(bucket) * 10) / 10;
  }
  return Math.round(bucketBound(entries.at(-1)![0]) * 10) / 10;
}

/** The per-operation table: requests, p50 and p95, in the order of `operations` (others after, by label). */
export function operationStats(timings: OperationTimings, operations: readonly string[] = []): OperationStat[] {
  const order = [
    ...operations,
    ...Object.keys(timings)
      .filter((op) => !operations.includes(op))
      .sort(),
  ];
  return order
    .filter((operation) => (timings[operation]?.requests ?? 0) > 0)
    .map((operation) => {
      const timing = timings[operation]!;
      return {
        operation,
        requests: timing.requests,
        p50Ms: percentileMs(timing, 0.5),
        p95Ms: percentileMs(timing, 0.95),
      };
    });
}
