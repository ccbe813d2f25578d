import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeThreshold, evaluateThresholds, type MeasuredFigures } from './thresholds.ts';

const LIMITS = { p95Ms: 250, p99Ms: 500, maxErrorRate: 0.01, minValidShare: 0.99 };
const GOOD: MeasuredFigures = { p95Ms: 100, p99Ms: 200, attempted: 1000, failed: 5, validated: 100, valid: 100 };

const cases: { name: string; given: Partial<MeasuredFigures>; want: Record<string, string> }[] = [
  {
    name: 'all within budget',
    given: {},
    want: { 'p95-latency': 'pass', 'p99-latency': 'pass', 'error-rate': 'pass', 'valid-share': 'pass' },
  },
  { name: 'p95 over', given: { p95Ms: 251 }, want: { 'p95-latency': 'fail' } },
  { name: 'p95 exactly at the limit', given: { p95Ms: 250 }, want: { 'p95-latency': 'pass' } },
  { name: 'p99 over', given: { p99Ms: 900 }, want: { 'p99-latency': 'fail', 'p95-latency': 'pass' } },
  { name: 'errors over 1 %', given: { failed: 11 }, want: { 'error-rate': 'fail' } },
  { name: 'errors exactly 1 %', given: { failed: 10 }, want: { 'error-rate': 'pass' } },
  { name: 'too many invalid responses', given: { valid: 98 }, want: { 'valid-share': 'fail' } },
  { name: 'nothing validated', given: { validated: 0, valid: 0 }, want: { 'valid-share': 'skipped' } },
  {
    name: 'nothing sent',
    given: { attempted: 0, failed: 0 },
    want: { 'p95-latency': 'skipped', 'error-rate': 'skipped' },
  },
];

for (const { name, given, want } of cases) {
  test(`thresholds: ${name}`, () => {
    const results = evaluateThresholds(LIMITS, { ...GOOD, ...given });
    assert.equal(results.length, 4);
    for (const [id, status] of Object.entries(want)) {
      assert.equal(results.find((r) => r.id === id)?.status, status, id);
    }
  });
}

test('a breached threshold is described with its rule and the measured value', () => {
  const [p95] = evaluateThresholds(LIMITS, { ...GOOD, p95Ms: 812.44 });
  assert.equal(describeThreshold(p95!), 'FAIL    p95 latency <= 250 ms: measured 812.4 ms');
  const errors = evaluateThresholds(LIMITS, { ...GOOD, failed: 125 })[2]!;
  assert.equal(describeThreshold(errors), 'FAIL    error rate <= 1 %: measured 12.5 %');
});
