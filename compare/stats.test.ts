import assert from 'node:assert/strict';
import { test } from 'node:test';
import { bootstrapRatio, judgeLatency, percentile, percentilesOf } from './stats.ts';

/** Latencies around `median` with a long tail, deterministic. */
function sample(n: number, median: number, seed: number): number[] {
  let state = seed;
  const next = () => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state / 2 ** 31;
  };
  return Array.from({ length: n }, () => median * (0.7 + 0.6 * next()) + (next() < 0.05 ? 20 * next() : 0));
}

test('percentile interpolates between ranks', () => {
  const cases = [
    { given: { values: [], p: 50 }, want: 0 },
    { given: { values: [5], p: 99 }, want: 5 },
    { given: { values: [1, 2, 3, 4], p: 50 }, want: 2.5 },
    { given: { values: [1, 2, 3, 4, 5], p: 100 }, want: 5 },
  ];
  for (const { given, want } of cases) assert.equal(percentile(given.values, given.p), want, JSON.stringify(given));
  assert.deepEqual(percentilesOf([3, 1, 2]), { count: 3, p50: 2, p95: 2.9, p99: 2.98 });
});

test('the bootstrap interval holds the ratio and is the same for the same seed', () => {
  const a = sample(40, 10, 1);
  const b = sample(40, 10, 2);
  const [low, high] = bootstrapRatio(a, b, 7);
  assert.ok(low < 1 && high > 1, `identical distributions: [${low}, ${high}] holds 1`);
  assert.deepEqual(bootstrapRatio(a, b, 7), [low, high], 'same seed, same interval');
  const [slowLow] = bootstrapRatio(sample(40, 50, 3), b, 7);
  assert.ok(slowLow > 3, `five times slower: lower bound ${slowLow}`);
});

test('a regression is significant and beyond both thresholds', () => {
  const threshold = { percent: 10, ms: 5 };
  const cases = [
    { name: 'alike', given: [sample(40, 10, 1), sample(40, 10, 2)], want: [false, false] },
    { name: '40 ms slower', given: [sample(40, 50, 3), sample(40, 10, 2)], want: [true, false] },
    { name: 'twice as slow but only 1 ms', given: [sample(40, 2, 4), sample(40, 1, 5)], want: [false, false] },
    { name: '6 ms slower but only 3 %', given: [sample(40, 206, 6), sample(40, 200, 7)], want: [false, false] },
    { name: '40 ms faster', given: [sample(40, 10, 2), sample(40, 50, 3)], want: [false, true] },
  ];
  for (const { name, given, want } of cases) {
    const verdict = judgeLatency(given[0]!, given[1]!, threshold, 1);
    assert.deepEqual([verdict.regression, verdict.improvement], want, `${name}: ${JSON.stringify(verdict)}`);
  }
});
