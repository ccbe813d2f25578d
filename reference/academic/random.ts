// Stateless hashing for the corpus: the same seed gives the same corpus on every machine.

/** Mixes two integers into a well-spread unsigned 32-bit hash (stateless, for per-item attributes). */
export function hash32(a: number, b = 0): number {
  let h = Math.imul((a | 0) ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(b | 0, 0xc2b2ae35);
  h ^= h >>> 16;
  h = Math.imul(h, 0x7feb352d);
  h ^= h >>> 15;
  h = Math.imul(h, 0x846ca68b);
  h ^= h >>> 16;
  return h >>> 0;
}
