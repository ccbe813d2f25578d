// How far two numbers of two answers may differ and still be the same answer. Replicas round the
// same score differently in its last digits; some deployments wobble more between identical calls
// (single-precision scores, sums in another order). The tolerance starts at the rounding of a
// double and, where two answers differ by more, is learned from a repeat of the same request: the
// spread identical calls show, bounded by what a client could notice.

/** Deep equality of two JSON values, numbers within a relative tolerance (rounding of the same score). */
export function agree(a: unknown, b: unknown, tolerance = SCORE_TOLERANCE): boolean {
  if (typeof a === 'number' && typeof b === 'number')
    return a === b || Math.abs(a - b) <= tolerance * Math.max(1, Math.abs(a), Math.abs(b));
  if (Array.isArray(a) || Array.isArray(b))
    return (
      Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((v, i) => agree(v, b[i], tolerance))
    );
  if (a !== null && b !== null && typeof a === 'object' && typeof b === 'object') {
    const ka = Object.keys(a).sort();
    const kb = Object.keys(b).sort();
    return (
      ka.join('\u0000') === kb.join('\u0000') &&
      ka.every((k) => agree((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], tolerance))
    );
  }
  return a === b;
}

/** Two answers agree within this relative difference without further ado: a double's last digits. */
export const SCORE_TOLERANCE = 1e-9;

/**
 * The most a score may wobble between identical calls and still count as the same: a relative
 * 1e-6, the seventh significant digit. Scores are shown with a few digits and ordered by value;
 * single-precision arithmetic (about 6e-8) stays well inside, a change a client would see (a
 * similarity of 0.61 becoming 0.62, two results swapping places) stays far outside.
 */
export const CLIENT_NOTICEABLE = 1e-6;

/**
 * How far beyond the spread of three identical calls a difference may go. Three draws of a noise
 * show its range only roughly (the spread of three uniform draws is below a hundredth of the range
 * once in three thousand), so the factor is generous: the bound that matters is CLIENT_NOTICEABLE.
 */
export const NOISE_FACTOR = 100;

/**
 * The largest relative difference between the numbers at the same place of two JSON values that
 * are otherwise equal; undefined when they differ in anything but numbers (a repeat that changed
 * shape teaches nothing about rounding).
 */
export function numericSpread(a: unknown, b: unknown): number | undefined {
  if (typeof a === 'number' && typeof b === 'number')
    return a === b ? 0 : Math.abs(a - b) / Math.max(1, Math.abs(a), Math.abs(b));
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return undefined;
    let most = 0;
    for (let i = 0; i < a.length; i++) {
      const spread = numericSpread(a[i], b[i]);
      if (spread === undefined) return undefined;
      most = Math.max(most, spread);
    }
    return most;
  }
  if (a !== null && b !== null && typeof a === 'object' && typeof b === 'object') {
    const keys = Object.keys(a);
    if (keys.length !== Object.keys(b).length) return undefined;
    let most = 0;
    for (const key of keys) {
      if (!Object.hasOwn(b, key)) return undefined;
      const spread = numericSpread((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]);
      if (spread === undefined) return undefined;
      most = Math.max(most, spread);
    }
    return most;
  }
  return a === b ? 0 : undefined;
}

/**
 * The tolerance identical calls teach: NOISE_FACTOR times the largest spread between any two of
 * them, between SCORE_TOLERANCE and CLIENT_NOTICEABLE. Answers that differ in anything but numbers
 * teach nothing (SCORE_TOLERANCE).
 */
export function learnedTolerance(...answers: unknown[]): number {
  let most = 0;
  for (let i = 0; i < answers.length; i++)
    for (let j = i + 1; j < answers.length; j++) {
      const spread = numericSpread(answers[i], answers[j]);
      if (spread === undefined) return SCORE_TOLERANCE;
      most = Math.max(most, spread);
    }
  return Math.min(CLIENT_NOTICEABLE, Math.max(SCORE_TOLERANCE, NOISE_FACTOR * most));
}

/** What comparing two answers found, and the tolerance it used. */
export interface Agreement {
  agree: boolean;
  /** The relative tolerance the numbers were compared within. */
  tolerance: number;
  /** True when the tolerance was learned from a repeat (the answers differed beyond SCORE_TOLERANCE). */
  learned: boolean;
}

/**
 * Whether two answers agree. Within SCORE_TOLERANCE they do at once (no request spent); otherwise
 * the request behind `a` is sent twice more (`repeat`, undefined when no usable answer came) and
 * the two are compared within the tolerance the three identical calls teach.
 */
export async function agreeWithNoise(
  a: unknown,
  b: unknown,
  repeat: () => Promise<unknown | undefined>,
): Promise<Agreement> {
  if (agree(a, b, SCORE_TOLERANCE)) return { agree: true, tolerance: SCORE_TOLERANCE, learned: false };
  const first = await repeat();
  const second = first === undefined ? undefined : await repeat();
  const tolerance = second === undefined ? SCORE_TOLERANCE : learnedTolerance(a, first, second);
  return { agree: agree(a, b, tolerance), tolerance, learned: true };
}

/** A tolerance as a finding or note says it: `relative 1e-9`, `relative 3.2e-7 (learned from a repeat)`. */
export function describeTolerance(agreement: Pick<Agreement, 'tolerance' | 'learned'>): string {
  return `relative ${agreement.tolerance.toPrecision(2).replace(/\.0+e/, 'e')}${agreement.learned ? ' (learned from two repeats of the same request)' : ''}`;
}

/** The summary's note for a tolerance learned on an operation: what identical calls showed, and what was allowed. */
export function toleranceNote(operation: string, agreement: Pick<Agreement, 'tolerance'>): string {
  const capped = agreement.tolerance >= CLIENT_NOTICEABLE;
  return `${operation}: answers differed beyond ${SCORE_TOLERANCE}; scores compared within relative ${agreement.tolerance.toPrecision(2)} (${NOISE_FACTOR} x the spread of three identical calls, at least ${SCORE_TOLERANCE}, at most ${CLIENT_NOTICEABLE}${capped ? ', what a client could not notice' : ''})`;
}
