import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LatencyHistogram } from './latency.ts';

const cases = [
  { given: [0.25, 0.25, 0.25, 0.25], want: { p50: 0.25, p99: 0.25 } },
  { given: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10], want: { p50: 5, p99: 10 } },
  { given: [0.123, 12.345, 1234.5], want: { p50: 12.345, p99: 1234.5 } },
];

for (const { given, want } of cases) {
  test(`latencies ${given.join(', ')} ms have p50 ${want.p50} and p99 ${want.p99} within 0.1 %`, () => {
    const histogram = new LatencyHistogram();
    for (const ms of given) histogram.recordMs(ms);
    const summary = histogram.summary();
    assert.equal(summary.count, given.length);
    assert.ok(Math.abs(summary.p50 - want.p50) <= want.p50 * 0.001 + 0.001, `p50 ${summary.p50}`);
    assert.ok(Math.abs(summary.p99 - want.p99) <= want.p99 * 0.001 + 0.001, `p99 ${summary.p99}`);
    assert.ok(summary.max >= summary.p99 && summary.min <= summary.p50);
    histogram.destroy();
  });
}

test('a million values take constant memory and keep microsecond resolution', () => {
  const histogram = new LatencyHistogram();
  for (let i = 0; i < 1_000_000; i++) histogram.recordMs(0.5 + (i % 1000) / 1000);
  const summary = histogram.summary();
  assert.equal(summary.count, 1_000_000);
  assert.ok(Math.abs(summary.p50 - 1) < 0.002, `p50 ${summary.p50}`);
  histogram.reset();
  assert.equal(histogram.count, 0);
});
