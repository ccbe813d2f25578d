/** A 32-bit FNV-1a hash of a string, used to derive deterministic choices from request values. */
export function hash32(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** A deterministic generator of floats in [0, 1) (mulberry32), seeded by a 32-bit integer. */
export function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A small seeded pseudo-random generator (mulberry32): same seed, same sequence, on every machine. */
export class Random {
  private readonly float: () => number;

  constructor(seed: number) {
    this.float = mulberry32(seed);
  }

  /** A float in [0, 1). */
  next(): number {
    return this.float();
  }

  /** An integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  /** One element of a non-empty list. */
  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)]!;
  }

  /** True with the given probability. */
  chance(probability: number): boolean {
    return this.next() < probability;
  }

  /** `n` lower-case hex characters. */
  hex(n: number): string {
    let out = '';
    while (out.length < n)
      out += Math.floor(this.next() * 0x10000)
        .toString(16)
        .padStart(4, '0');
    return out.slice(0, n);
  }

  /** A version-4-shaped UUID string. */
  uuid(): string {
    const h = this.hex(32);
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${'89ab'[parseInt(h[16]!, 16) % 4]}${h.slice(17, 20)}-${h.slice(20, 32)}`;
  }
}

/** A generator seeded from the server seed and a string naming what is being generated. */
export function randomFor(seed: number, ...parts: (string | number)[]): Random {
  return new Random(hash32(`${seed}|${parts.join('|')}`));
}
