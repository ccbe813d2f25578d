import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { TokenBuckets } from './rate-limit.ts';

describe('TokenBuckets', () => {
  const cases: { given: { rate: number; at: number[] }; want: number[] }[] = [
    { given: { rate: 2, at: [0, 0, 0] }, want: [0, 0, 1] },
    { given: { rate: 2, at: [0, 0, 500, 500] }, want: [0, 0, 0, 1] },
    { given: { rate: 1, at: [0, 0, 999, 1000] }, want: [0, 1, 1, 0] },
    { given: { rate: 0.25, at: [0, 0, 3999, 4000] }, want: [0, 4, 1, 0] },
    { given: { rate: 100, at: Array(101).fill(0) }, want: [...Array(100).fill(0), 1] },
    { given: { rate: Infinity, at: [0, 0, 0] }, want: [0, 0, 0] },
  ];
  for (const { given, want } of cases) {
    test(`rate ${given.rate} at ${given.at.length > 6 ? `${given.at.length} x 0` : given.at.join(',')} ms -> waits ${want.length > 6 ? '100 x 0, 1' : want.join(',')}`, () => {
      const buckets = new TokenBuckets();
      assert.deepEqual(
        given.at.map((ms) => buckets.take('k', given.rate, ms)),
        want,
      );
    });
  }

  test('keys have separate buckets', () => {
    const buckets = new TokenBuckets();
    assert.deepEqual([buckets.take('a', 1, 0), buckets.take('b', 1, 0), buckets.take('a', 1, 0)], [0, 0, 1]);
  });
});
