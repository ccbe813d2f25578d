const MAX_BUCKETS = 100_000;

/** A per-key token bucket: capacity = max(rate, 1), refilled at rate tokens per second. */
export class TokenBuckets {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();

  /** Takes one token for the key; returns 0 when allowed, else the whole seconds to wait (at least 1). */
  take(key: string, rate: number, now = performance.now()): number {
    if (!Number.isFinite(rate)) return 0;
    let bucket = this.buckets.get(key);
    if (!bucket) {
      // Keys are bounded by the key table, except under faults that skip auth: keep memory bounded there.
      if (this.buckets.size >= MAX_BUCKETS) this.buckets.clear();
      bucket = { tokens: Math.max(1, rate), at: now };
      this.buckets.set(key, bucket);
    }
    bucket.tokens = Math.min(Math.max(1, rate), bucket.tokens + ((now - bucket.at) / 1000) * rate);
    bucket.at = now;
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return 0;
    }
    return Math.max(1, Math.ceil((1 - bucket.tokens) / rate));
  }
}
