import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { LatencySummary } from './latency.ts';
import { budgetRules, parseThreshold } from './threshold-rules.ts';
import {
  describeThreshold,
  evaluateThresholds,
  extraPercentiles,
  type MeasuredFigures,
  type ScopeFigures,
  type SourcedRule,
} from './thresholds.ts';

const BUDGET = budgetRules({ p95Ms: 250, p99Ms: 500, maxErrorRate: 0.01, minValidShare: 0.99 }).map(
  (rule): SourcedRule => ({ ...rule, source: 'scenario' }),
);

function latency(p95: number, p99: number, more: Partial<LatencySummary> = {}): LatencySummary {
  return { count: 1000, min: 1, mean: 40, p50: 30, p90: 80, p95, p99, p999: p99, max: p99 + 10, ...more };
}

const GOOD: ScopeFigures = { latencyMs: latency(100, 200), attempted: 1000, failed: 5, validated: 100, valid: 100 };

const cases: { name: string; given: Partial<ScopeFigures>; want: Record<string, string> }[] = [
  {
    name: 'all within budget',
    given: {},
    want: { 'p95-latency': 'pass', 'p99-latency': 'pass', 'error-rate': 'pass', 'valid-share': 'pass' },
  },
  { name: 'p95 over', given: { latencyMs: latency(251, 300) }, want: { 'p95-latency': 'fail' } },
  { name: 'p95 exactly at the limit', given: { latencyMs: latency(250, 300) }, want: { 'p95-latency': 'pass' } },
  {
    name: 'p99 over',
    given: { latencyMs: latency(100, 900) },
    want: { 'p99-latency': 'fail', 'p95-latency': 'pass' },
  },
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
    const results = evaluateThresholds(BUDGET, { overall: { ...GOOD, ...given }, operations: {} });
    assert.equal(results.length, 4);
    for (const [id, status] of Object.entries(want)) {
      assert.equal(results.find((r) => r.id === id)?.status, status, id);
    }
  });
}

/** Every operation fast and clean, evaluateGet slower and failing more. */
const PER_OPERATION: MeasuredFigures = {
  overall: { ...GOOD, latencyMs: latency(90, 180, { p50: 20 }) },
  operations: {
    evaluateGet: {
      latencyMs: latency(320, 400, { p50: 250, mean: 260, min: 200, max: 450, percentiles: { '97.5': 360 } }),
      attempted: 200,
      failed: 4,
      validated: 10,
      valid: 9,
    },
    interpretGet: { latencyMs: latency(40, 60), attempted: 700, failed: 0, validated: 0, valid: 0 },
  },
};

const rule = (text: string): SourcedRule => ({ ...parseThreshold(text), source: '--threshold' });

const perOperation: { given: string; want: string }[] = [
  { given: 'evaluateGet: p(95)<300ms', want: 'fail' },
  { given: 'evaluateGet: p(95)<1s', want: 'pass' },
  { given: 'interpretGet: p(95)<300ms', want: 'pass' },
  { given: 'evaluateGet: med<=250ms', want: 'pass' },
  { given: 'evaluateGet: avg<250ms', want: 'fail' },
  { given: 'evaluateGet: min>=200ms', want: 'pass' },
  { given: 'evaluateGet: max<0.45s', want: 'fail' },
  { given: 'evaluateGet: p(97.5)<350ms', want: 'fail' },
  { given: 'evaluateGet: error_rate<2%', want: 'fail' },
  { given: 'evaluateGet: error_rate<=2%', want: 'pass' },
  { given: 'interpretGet: error_rate<0.1%', want: 'pass' },
  { given: 'evaluateGet: valid_share>=90%', want: 'pass' },
  { given: 'evaluateGet: valid_share>90%', want: 'fail' },
  { given: 'interpretGet: valid_share>99%', want: 'skipped' },
  { given: 'hotEvents: p(95)<300ms', want: 'skipped' },
  { given: '*: p(95)<100ms', want: 'pass' },
  { given: 'p(50)<10ms', want: 'fail' },
];

for (const { given, want } of perOperation) {
  test(`a threshold of one operation judges it alone: '${given}' is ${want === 'skipped' ? 'not judged' : want === 'pass' ? 'met' : 'breached'}`, () => {
    const [result] = evaluateThresholds([rule(given)], PER_OPERATION);
    assert.equal(result!.status, want, JSON.stringify(result));
  });
}

test('a skipped threshold says why: an operation the mix does not send', () => {
  const [result] = evaluateThresholds([rule('hotEvents: p(95)<300ms')], PER_OPERATION);
  assert.equal(result!.reason, 'no hotEvents request was sent (the mix has none)');
});

test('each verdict line names the operation, the rule and the measured value', () => {
  const [p95] = evaluateThresholds([rule('evaluateGet: p(95)<300ms')], PER_OPERATION);
  assert.equal(describeThreshold(p95!), 'FAIL    evaluateGet p(95)<300ms: measured 320.0 ms');
  const [all] = evaluateThresholds(BUDGET, { overall: { ...GOOD, latencyMs: latency(812.44, 900) }, operations: {} });
  assert.equal(describeThreshold(all!), 'FAIL    every operation p(95)<=250ms: measured 812.4 ms');
  const errors = evaluateThresholds(BUDGET, { overall: { ...GOOD, failed: 125 }, operations: {} })[2]!;
  assert.equal(describeThreshold(errors), 'FAIL    every operation error_rate<=1%: measured 12.5 %');
  const [skipped] = evaluateThresholds([rule('hotEvents: avg<1s')], PER_OPERATION);
  assert.equal(
    describeThreshold(skipped!),
    'SKIPPED hotEvents avg<1s: not judged (no hotEvents request was sent (the mix has none))',
  );
});

test('the percentiles a run must measure beyond its usual ones are those the rules name', () => {
  assert.deepEqual(
    extraPercentiles([rule('p(97.5)<1s'), rule('evaluateGet: p(95)<1s'), rule('p(99.99)<2s'), rule('avg<1s')]),
    [97.5, 99.99],
  );
});
