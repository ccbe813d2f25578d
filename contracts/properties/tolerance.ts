// How far two numbers of two answers may differ and still be the same answer. A deployment computes
// its scores (prob, logprob, the similarity value) in floating point, and two replicas, two methods
// or two builds of one deployment may compute them in single precision, in double precision, or in
// another order: the same score then differs in its seventh or eighth significant digit, however
// deterministic each of them is. So scores agree within a floor of a few single-precision epsilons
// whatever a repeat shows; where two answers differ by more, the spread of identical calls may widen
// it (learning only widens), up to what a client could notice. Integers (counts, years, ids) are no
// computed scores: they agree exactly.

/** The single-precision (float32) machine epsilon, 2^-23: the gap between 1 and the next float32. */
export const FLOAT32_EPSILON = 2 ** -23;

/**
 * The floor of the relative tolerance between two scores: four float32 epsilons (about 4.8e-7).
 * Rounding a double to float32 moves it by at most half an epsilon (2^-24, about 6e-8); a score
 * computed in float32 through a handful of operations (a cosine: a dot product, two norms, a square
 * root, a division; a probability: a product and a normalization) carries a few such roundings, and
 * two float32 computations in different orders (two replicas) may sit on both sides of the exact
 * value. Four epsilons cover that; a change a client would see (0.61 becoming 0.62, two results
 * swapping places) is five orders of magnitude beyond it.
 */
export const SCORE_TOLERANCE = 4 * FLOAT32_EPSILON;

/**
 * The most a tolerance learned from repeats may reach: a relative 1e-6, the seventh significant
 * digit. Scores are shown with a few digits and ordered by value; a wobble beyond this is one a
 * client could notice.
 */
export const CLIENT_NOTICEABLE = 1e-6;

/** Deep equality of two JSON values: integers exactly, other numbers within a relative tolerance (rounding of the same score). */
export function agree(a: unknown, b: unknown, tolerance = SCORE_TOLERANCE): boolean {
  if (typeof a === 'number' && typeof b === 'number') return numbersAgree(a, b, tolerance);
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

/**
 * Whether two numbers are the same: two integers exactly (a count, a year, an id is no rounded
 * score; a score that is an integer, such as a similarity of 1, is exact in any precision), else
 * within `tolerance` relative to the larger of them, and absolute below 1 (a probability of 2e-7
 * in float32 differs from its double by 1e-14, nothing a client sees).
 */
export function numbersAgree(a: number, b: number, tolerance = SCORE_TOLERANCE): boolean {
  if (a === b) return true;
  if (Number.isInteger(a) && Number.isInteger(b)) return false;
  return Math.abs(a - b) <= tolerance * Math.max(1, Math.abs(a), Math.abs(b));
}

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
  if (typeof a === 'number' && typeof b === 'number') {
    if (a === b) return 0;
    // Two integers that differ changed more than a rounding: nothing to learn from.
    if (Number.isInteger(a) && Number.isInteger(b)) return undefined;
    return Math.abs(a - b) / Math.max(1, Math.abs(a), Math.abs(b));
  }
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

/** A relative tolerance as the reports write it: two significant digits, `4.8e-7`, `1e-6`. */
export function formatTolerance(tolerance: number): string {
  return Number(tolerance.toPrecision(2)).toExponential();
}

/** A tolerance as a finding or note says it: `relative 4.8e-7`, `relative 1e-6 (learned from two repeats of the same request)`. */
export function describeTolerance(agreement: Pick<Agreement, 'tolerance' | 'learned'>): string {
  return `relative ${formatTolerance(agreement.tolerance)}${agreement.learned ? ' (learned from two repeats of the same request)' : ''}`;
}

/** The summary's note for a tolerance learned on an operation: what identical calls showed, and what was allowed. */
export function toleranceNote(operation: string, agreement: Pick<Agreement, 'tolerance'>): string {
  const capped = agreement.tolerance >= CLIENT_NOTICEABLE;
  return `${operation}: answers differed beyond ${formatTolerance(SCORE_TOLERANCE)}; scores compared within relative ${formatTolerance(agreement.tolerance)} (${NOISE_FACTOR} x the spread of three identical calls, at least ${formatTolerance(SCORE_TOLERANCE)}, at most ${formatTolerance(CLIENT_NOTICEABLE)}${capped ? ', what a client could not notice' : ''})`;
}

/** How a run compared numbers, as its summary states it (summary.json `tolerance`). */
export interface ToleranceStatement {
  /** The relative tolerance scores agree within whatever repeats show (the floor). */
  relative: number;
  /** The most a tolerance learned from repeats may reach. */
  atMost: number;
  /** Integers (counts, years, ids) are compared exactly. */
  integers: 'exact';
  /** The same in words. */
  text: string;
}

/** What every run's summary says about how it compared numbers. */
export const TOLERANCE_STATEMENT: ToleranceStatement = {
  relative: SCORE_TOLERANCE,
  atMost: CLIENT_NOTICEABLE,
  integers: 'exact',
  text: `scores a target computes (prob, logprob, the similarity value) agree between methods, pages, replicas and repeats within relative ${formatTolerance(SCORE_TOLERANCE)} (four single-precision epsilons), wider only where repeats of the same request vary more (at most ${formatTolerance(CLIENT_NOTICEABLE)}, named under Notes); integers (counts, years, ids) exactly`,
};
