import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  agreeWithNoise,
  CLIENT_NOTICEABLE,
  learnedTolerance,
  numericSpread,
  SCORE_TOLERANCE,
  toleranceNote,
} from './tolerance.ts';

test('numericSpread reads how far the numbers of two same-shaped answers are apart', () => {
  const cases: { given: [unknown, unknown]; want: number | undefined }[] = [
    { given: [0.5, 0.5], want: 0 },
    { given: [0.5, 0.5000005], want: 0.0000005 },
    { given: [200, 202], want: 2 / 202 },
    { given: [{ a: [1, 0.25] }, { a: [1, 0.2500001] }], want: 0.0000001 },
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

test('learnedTolerance is 100 times the largest spread, between a double and what a client notices', () => {
  assert.equal(learnedTolerance(0.5, 0.5, 0.5), SCORE_TOLERANCE, 'identical calls: a double');
  assert.ok(Math.abs(learnedTolerance(0.5, 0.500000005, 0.5) - 5e-7) < 1e-12, '5e-9 apart: 5e-7');
  assert.equal(learnedTolerance(0.5, 0.51, 0.5), CLIENT_NOTICEABLE, 'a wobble a client sees: capped');
  assert.equal(learnedTolerance({ a: 1 }, { b: 1 }), SCORE_TOLERANCE, 'another shape teaches nothing');
});

test('agreeWithNoise repeats only answers that differ, and fails differences a client would notice', async () => {
  let repeats = 0;
  const repeat = (value: unknown) => async () => {
    repeats++;
    return value;
  };
  assert.deepEqual(await agreeWithNoise(0.6, 0.6 + 1e-12, repeat(0.6)), {
    agree: true,
    tolerance: SCORE_TOLERANCE,
    learned: false,
  });
  assert.equal(repeats, 0, 'no request spent on answers within a double');
  const deterministic = await agreeWithNoise(0.6, 0.6000001, repeat(0.6));
  assert.equal(deterministic.agree, false, 'a deterministic target differing by 1.7e-7 fails');
  assert.equal(repeats, 2, 'two repeats');
  const noisy = await agreeWithNoise(0.6, 0.6000001, async () => 0.6 + Math.random() * 1e-8 + 1e-9);
  assert.equal(noisy.agree, true, 'a target whose identical calls differ by 1e-8 passes a 1.7e-7 difference');
  assert.ok(noisy.learned && noisy.tolerance > 1e-7 && noisy.tolerance <= CLIENT_NOTICEABLE, `${noisy.tolerance}`);
  assert.equal(
    (await agreeWithNoise(0.6, 0.62, async () => 0.6 + Math.random() * 0.01)).agree,
    false,
    'beyond 1e-6: fails',
  );
  assert.match(
    toleranceNote('GET /academic/v1.0/similarity', noisy),
    /similarity: answers differed beyond 1e-9; scores compared within relative/,
  );
});
