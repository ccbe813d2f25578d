import assert from 'node:assert/strict';
import { test } from 'node:test';
import { mergeTimings, type OperationTimings, operationStats, percentileMs, recordTiming } from './timings.ts';

const OP = 'GET /academic/v1.0/evaluate';

test('percentiles come within 2 % of the exact latency', () => {
  const cases: { given: number[]; want: { p50: number; p95: number } }[] = [
    { given: [10], want: { p50: 10, p95: 10 } },
    { given: Array.from({ length: 100 }, (_, i) => i + 1), want: { p50: 50, p95: 95 } },
    { given: [0.2, 0.4, 0.9], want: { p50: 1, p95: 1 } },
    { given: [...Array(19).fill(5), 2000], want: { p50: 5, p95: 5 } },
    { given: [...Array(18).fill(5), 2000, 2000], want: { p50: 5, p95: 2000 } },
  ];
  for (const { given, want } of cases) {
    const timings: OperationTimings = {};
    for (const ms of given) recordTiming(timings, OP, ms);
    const timing = timings[OP]!;
    assert.equal(timing.requests, given.length);
    for (const [p, expected] of [
      [0.5, want.p50],
      [0.95, want.p95],
    ] as const) {
      const got = percentileMs(timing, p);
      assert.ok(
        got >= expected && got <= expected * 1.02 + 0.1,
        `p${p * 100} of ${given.length}: ${got} vs ${expected}`,
      );
    }
  }
});

test('timings merge: tests, workers and shards add up', () => {
  const a: OperationTimings = {};
  const b: OperationTimings = {};
  for (let i = 1; i <= 50; i++) recordTiming(a, OP, i);
  for (let i = 51; i <= 100; i++) recordTiming(b, OP, i);
  recordTiming(b, 'GET /eventknowledge/v1.0/hotevents', 7);
  const all = mergeTimings(mergeTimings({}, a), b);
  assert.deepEqual(
    operationStats(all, [OP]).map((row) => [row.operation, row.requests]),
    [
      [OP, 100],
      ['GET /eventknowledge/v1.0/hotevents', 1],
    ],
  );
  const p95 = operationStats(all)[0]!.p95Ms;
  assert.ok(p95 >= 95 && p95 <= 97, String(p95));
  assert.deepEqual(operationStats({}), [], 'no requests, no rows');
});
