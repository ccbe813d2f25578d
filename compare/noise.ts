// Noise learned from the current deployment: the pointers whose values vary between two identical
// calls. A difference between candidate and current at such a pointer is the current deployment's
// own variation, not a change of the release, unless a number moves well beyond what it moved by.
import { type Diff, normalizePointer, relativeDifference } from './structural.ts';

/** How far beyond the variation seen between identical calls a number may move before it counts. */
export const NUMERIC_NOISE_FACTOR = 3;

/** What varied at one pointer of one operation between identical calls. */
export interface NoisyPointer {
  /** `GET /path`. */
  operation: string;
  /** Normalised pointer (array positions as `*`; '' for the status or the whole body). */
  pointer: string;
  /** True when only numbers varied, by at most `spread` (relative). */
  numeric: boolean;
  /** Largest relative difference of the numbers seen (0 when not numeric). */
  spread: number;
  /** Largest absolute difference of the numbers seen (0 when not numeric). */
  absolute: number;
  /** Identical pairs of calls that showed it. */
  seen: number;
}

function numericPair(diff: Diff): boolean {
  return diff.kind === 'value' && typeof diff.candidate === 'number' && typeof diff.current === 'number';
}

/** The pointers learned to vary, by operation; filters differences that stay within them. */
export class NoiseModel {
  private readonly byOperation = new Map<string, Map<string, NoisyPointer>>();

  /** Learns from the differences between two identical calls to the current deployment. */
  learn(operation: string, diffs: readonly Diff[]): void {
    let pointers = this.byOperation.get(operation);
    if (!pointers) {
      pointers = new Map();
      this.byOperation.set(operation, pointers);
    }
    const seenNow = new Set<string>();
    for (const diff of diffs) {
      // A repeat that got no answer says nothing about how the answers vary.
      if (diff.kind === 'transport') continue;
      const pointer = normalizePointer(diff.pointer);
      const entry = pointers.get(pointer) ?? { operation, pointer, numeric: true, spread: 0, absolute: 0, seen: 0 };
      if (numericPair(diff)) {
        const [a, b] = [diff.candidate as number, diff.current as number];
        entry.spread = Math.max(entry.spread, relativeDifference(a, b));
        entry.absolute = Math.max(entry.absolute, Math.abs(a - b));
      } else entry.numeric = false;
      if (!seenNow.has(pointer)) entry.seen++;
      seenNow.add(pointer);
      pointers.set(pointer, entry);
    }
  }

  /** True when some pointer of the operation has varied between identical calls. */
  isNoisy(operation: string): boolean {
    return (this.byOperation.get(operation)?.size ?? 0) > 0;
  }

  /**
   * True when a candidate-vs-current difference is within the learned noise: at or below a pointer
   * whose values vary as a whole (strings, structure, status), or a number at a numeric pointer
   * moved by at most NUMERIC_NOISE_FACTOR times what it moved between identical calls, relatively
   * (a score of any size) or absolutely (a count jittering in its last digit, whatever its size).
   */
  explains(operation: string, diff: Diff): boolean {
    const pointers = this.byOperation.get(operation);
    if (!pointers) return false;
    const pointer = normalizePointer(diff.pointer);
    const exact = pointers.get(pointer);
    if (exact?.numeric && numericPair(diff)) {
      const [a, b] = [diff.candidate as number, diff.current as number];
      return (
        relativeDifference(a, b) <= NUMERIC_NOISE_FACTOR * exact.spread ||
        Math.abs(a - b) <= NUMERIC_NOISE_FACTOR * exact.absolute
      );
    }
    // A pointer that varies as a whole covers everything below it; a varying status (pointer '')
    // covers status differences only, never the bodies of answers with equal statuses.
    for (const entry of pointers.values()) {
      if (entry.numeric) continue;
      if (pointer === entry.pointer || (entry.pointer !== '' && pointer.startsWith(`${entry.pointer}/`))) return true;
    }
    return false;
  }

  /** Every pointer learned, by operation then pointer. */
  list(): NoisyPointer[] {
    return [...this.byOperation.values()]
      .flatMap((pointers) => [...pointers.values()])
      .sort((a, b) => a.operation.localeCompare(b.operation) || a.pointer.localeCompare(b.pointer));
  }
}
