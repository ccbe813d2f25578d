import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  agree,
  agreeWithNoise,
  CLIENT_NOTICEABLE,
  FLOAT32_EPSILON,
  learnedTolerance,
  numbersAgree,
  numericSpread,
  SCORE_TOLERANCE,
  TOLERANCE_STATEMENT,
  toleranceNote,
} from './tolerance.ts';

test('numericSpread reads how far the numbers of two same-shaped answers are apart', () => {
  const cases: { given: [unknown, unknown]; want: number | undefined }[] = [
    { given: [0.5, 0.5], want: 0 },
    { given: [0.5, 0.5000005], want: 0.0000005 },
    { given: [200.5, 202.5], want: 2 / 202.5 },
    { given: [{ a: [1, 0.25] }, { a: [1, 0.2500001] }], want: 0.0000001 },
    // Two integers that differ changed more than a rounding (a count, an estimate).
    { given: [200, 202], want: undefined },
    { given: [{ a: 1 }, { b: 1 }], want: undefined },
    { given: [[1, 2], [1]], want: undefined },
    { given: ['x', 'y'], want: undefined },
  ];
  for (const { given, want } of cases) {
    const spread = numericSpread(...given);
    if (want === undefined) assert.equal(spread, undefined, JSON.stringify(given));
    else assert.ok(spread !== undefined && Math.abs(spread - want) < 1e-15, `${JSON.stringify(given)}: ${spread}`);
  }
});

test('the floor is four single-precision epsilons: a score computed in float32 agrees with its double', () => {
  assert.equal(SCORE_TOLERANCE, 4 * FLOAT32_EPSILON);
  assert.ok(SCORE_TOLERANCE > 4.7e-7 && SCORE_TOLERANCE < 4.8e-7, `${SCORE_TOLERANCE}`);
  // Scores as a float32 computation gives them: the double rounded to float32, and moved by up to
  // three float32 units in its last place (a few roundings of a short computation).
  const ulp = (x: number) => 2 ** (Math.floor(Math.log2(Math.abs(x))) - 23);
  const scores = [0.61436052678568842, 0.999999, 0.5, 1e-7, 2.266e-7, 0.0312, -0.73, -15.301, 0.1 + 0.2];
  for (const score of scores)
    for (const ulps of [-3, -1, 0, 1, 3]) {
      const single = Math.fround(score) + ulps * ulp(score);
      assert.ok(numbersAgree(score, single), `${score} against its float32 ${single} (${ulps} ulp)`);
    }
  const cases: { given: [number, number]; want: boolean }[] = [
    { given: [0.61, 0.62], want: false },
    { given: [0.6, 0.600001], want: false },
    { given: [0.6, 0.6000002], want: true },
    { given: [-15.3, -15.300006], want: true },
    { given: [-15.3, -15.30003], want: false },
    // Integers are counts, years and ids: exact, however large.
    { given: [10_000_000, 10_000_001], want: false },
    { given: [2576924651, 2576924652], want: false },
    { given: [2013, 2013], want: true },
    // A score of 1 against its float32 neighbour below.
    { given: [1, 0.99999994], want: true },
  ];
  for (const { given, want } of cases) assert.equal(numbersAgree(...given), want, JSON.stringify(given));
  assert.equal(agree({ num_entities: 10_000_001, prob: 0.5 }, { prob: 0.50000002, num_entities: 10_000_001 }), true);
  assert.equal(agree({ num_entities: 10_000_001 }, { num_entities: 10_000_002 }), false, 'a count is exact');
});

test('learnedTolerance is 100 times the largest spread, between the floor and what a client notices: learning only widens', () => {
  assert.equal(learnedTolerance(0.5, 0.5, 0.5), SCORE_TOLERANCE, 'identical calls: the floor');
  assert.equal(learnedTolerance(0.5, 0.500000001, 0.5), SCORE_TOLERANCE, '1e-9 apart: 1e-7 is below the floor');
  assert.ok(Math.abs(learnedTolerance(0.5, 0.500000008, 0.5) - 8e-7) < 1e-12, '8e-9 apart: 8e-7');
  assert.equal(learnedTolerance(0.5, 0.51, 0.5), CLIENT_NOTICEABLE, 'a wobble a client sees: capped');
  assert.equal(learnedTolerance({ a: 1 }, { b: 1 }), SCORE_TOLERANCE, 'another shape teaches nothing');
});

test('agreeWithNoise repeats only answers that differ beyond the floor, and fails differences a client would notice', async () => {
  let repeats = 0;
  const repeat = (value: unknown) => async () => {
    repeats++;
    return value;
  };
  assert.deepEqual(await agreeWithNoise(0.6, Math.fround(0.6), repeat(0.6)), {
    agree: true,
    tolerance: SCORE_TOLERANCE,
    learned: false,
  });
  assert.equal(repeats, 0, 'no request spent on a float32 rounding, though identical repeats would teach nothing');
  const deterministic = await agreeWithNoise(0.6, 0.6000006, repeat(0.6));
  assert.equal(deterministic.agree, false, 'a deterministic target differing by 1e-6 fails');
  assert.equal(repeats, 2, 'two repeats');
  // The repeats are fixed, not drawn: drawn ones as close as 5e-9 apart teach less than 8e-7.
  const noise = [1e-8, 3e-9];
  const noisy = await agreeWithNoise(0.6, 0.6000005, async () => 0.6 + (noise.shift() ?? 0));
  assert.equal(noisy.agree, true, 'a target whose identical calls differ by 1e-8 passes a 8e-7 difference');
  assert.ok(noisy.learned && noisy.tolerance > SCORE_TOLERANCE && noisy.tolerance <= CLIENT_NOTICEABLE);
  assert.equal(
    (await agreeWithNoise(0.6, 0.62, async () => 0.6 + Math.random() * 0.01)).agree,
    false,
    'beyond 1e-6: fails',
  );
  assert.match(
    toleranceNote('GET /academic/v1.0/similarity', noisy),
    /similarity: answers differed beyond 4\.8e-7; scores compared within relative/,
  );
});

test('the summary statement names the floor, the cap and exact integers', () => {
  assert.equal(TOLERANCE_STATEMENT.relative, SCORE_TOLERANCE);
  assert.equal(TOLERANCE_STATEMENT.atMost, CLIENT_NOTICEABLE);
  assert.match(TOLERANCE_STATEMENT.text, /within relative 4\.8e-7 .*integers \(counts, years, ids\) exactly/);
});
