import type { RateStage } from './scenarios.ts';

/**
 * The intended send times of an open-model run: arrival k happens when the integral of the
 * piecewise-linear rate profile reaches k. Times are computed lazily, one per call, so a long soak
 * never holds its schedule in memory.
 */
export class ArrivalSchedule {
  /** Number of arrivals the profile plans in total. */
  readonly total: number;
  private readonly segments: { startMs: number; durationS: number; from: number; to: number; before: number }[] = [];
  private segment = 0;
  private index = 0;

  constructor(startRate: number, stages: RateStage[]) {
    let from = startRate;
    let before = 0;
    let startMs = 0;
    for (const stage of stages) {
      this.segments.push({ startMs, durationS: stage.durationS, from, to: stage.target, before });
      before += ((from + stage.target) / 2) * stage.durationS;
      startMs += stage.durationS * 1000;
      from = stage.target;
    }
    this.total = Math.floor(before + 1e-9);
  }

  /** Arrivals handed out so far. */
  get taken(): number {
    return this.index;
  }

  /** The intended offset in milliseconds from the start of the run of the next arrival, or undefined when done. */
  next(): number | undefined {
    if (this.index >= this.total) return undefined;
    const k = this.index;
    while (this.segment < this.segments.length) {
      const s = this.segments[this.segment]!;
      const inSegment = ((s.from + s.to) / 2) * s.durationS;
      const m = k - s.before;
      if (m < inSegment - 1e-9 || this.segment === this.segments.length - 1) {
        this.index++;
        return s.startMs + offsetWithin(s.from, s.to, s.durationS, m) * 1000;
      }
      this.segment++;
    }
    return undefined;
  }
}

// Solves from*t + (to - from) * t^2 / (2 * duration) = m for t in seconds; written in the form that
// stays stable when from and to are equal or from is zero.
function offsetWithin(from: number, to: number, durationS: number, m: number): number {
  if (m <= 0) return 0;
  const slope = (to - from) / durationS;
  const root = Math.sqrt(Math.max(0, from * from + 2 * slope * m));
  const denominator = from + root;
  return denominator > 0 ? (2 * m) / denominator : durationS;
}
