// A small least-recently-used cache (a Map keeps insertion order; a hit re-inserts the key).

/** Least-recently-used cache bounded by entry count and by a total weight. */
export class LruCache<K, V> {
  private readonly map = new Map<K, { value: V; weight: number }>();
  private total = 0;

  constructor(
    private readonly maxEntries: number,
    private readonly maxWeight = Number.POSITIVE_INFINITY,
  ) {}

  /** The cached value, refreshed as most recently used. */
  get(key: K): V | undefined {
    const hit = this.map.get(key);
    if (!hit) return undefined;
    this.map.delete(key);
    this.map.set(key, hit);
    return hit.value;
  }

  /** Stores a value; values heavier than the whole budget are not stored. */
  set(key: K, value: V, weight = 1): void {
    if (weight > this.maxWeight) return;
    const old = this.map.get(key);
    if (old) {
      this.total -= old.weight;
      this.map.delete(key);
    }
    this.map.set(key, { value, weight });
    this.total += weight;
    for (const [oldest, entry] of this.map) {
      if (this.map.size <= this.maxEntries && this.total <= this.maxWeight) break;
      this.map.delete(oldest);
      this.total -= entry.weight;
    }
  }
}
