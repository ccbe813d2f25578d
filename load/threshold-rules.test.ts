import assert from 'node:assert/strict';
import { test } from 'node:test';
import { OPERATION_IDS } from '../openapi/spec.ts';
import {
  budgetRules,
  k6Thresholds,
  mergeRules,
  parseThreshold,
  ruleId,
  type ThresholdRule,
  ThresholdSyntaxError,
} from './threshold-rules.ts';

const read: { given: string; want: Partial<ThresholdRule> }[] = [
  {
    given: 'evaluateGet: p(95)<300ms',
    want: {
      scope: 'evaluateGet',
      measure: 'latency',
      percentile: 95,
      comparator: '<',
      limit: 300,
      text: 'evaluateGet: p(95)<300ms',
    },
  },
  { given: '*: p(99)<1s', want: { scope: '*', percentile: 99, limit: 1000, expression: 'p(99)<1s' } },
  {
    given: 'p(99.9) <= 1.5s',
    want: { scope: '*', percentile: 99.9, comparator: '<=', limit: 1500, expression: 'p(99.9)<=1.5s' },
  },
  { given: '  interpretGet :avg<20ms ', want: { scope: 'interpretGet', aggregation: 'avg', limit: 20 } },
  { given: 'hotEvents: med<=5ms', want: { aggregation: 'med', percentile: 50 } },
  { given: 'hotEvents: min>=0ms', want: { aggregation: 'min', percentile: 0, comparator: '>=' } },
  { given: 'hotEvents: max<2s', want: { aggregation: 'max', percentile: 100, limit: 2000 } },
  { given: '*: error_rate<1%', want: { measure: 'error_rate', limit: 0.01, comparator: '<' } },
  { given: '*: valid_share>99%', want: { measure: 'valid_share', limit: 0.99, comparator: '>' } },
  { given: 'urlPreview: error_rate<=0.5%', want: { scope: 'urlPreview', limit: 0.005 } },
  { given: 'valid_share>=100%', want: { limit: 1 } },
];

for (const { given, want } of read) {
  test(`a threshold is read: '${given}'`, () => {
    const rule = parseThreshold(given, OPERATION_IDS);
    for (const [key, value] of Object.entries(want)) assert.deepEqual(rule[key as keyof ThresholdRule], value, key);
  });
}

const refused: { given: string; want: RegExp }[] = [
  { given: 'evaluateGet: p(95)<300', want: /a bare number has no unit: write 300ms or 300s/ },
  { given: 'error_rate<0.01', want: /a share takes %: write 0\.01%/ },
  { given: 'error_rate<1ms', want: /a share of requests: its value is in %, not ms/ },
  { given: 'p(95)<5%', want: /is a latency: its value is in ms or s, not %/ },
  { given: 'p(0)<5ms', want: /the percentile must be a number above 0 and at most 100/ },
  { given: 'p(101)<5ms', want: /the percentile must be/ },
  { given: 'p(x)<5ms', want: /the percentile must be/ },
  { given: 'p95<300ms', want: /unknown measure 'p95'/ },
  { given: 'rate<0.01', want: /'rate' is k6's measure of a metric; here write error_rate .* or valid_share/ },
  { given: 'p(95)==300ms', want: /the comparison '==' is not one of <, <=, >, >=/ },
  { given: 'p(95)!=300ms', want: /the comparison '!=' is not one of/ },
  { given: 'p(95) 300ms', want: /no comparison after p\(95\)/ },
  { given: 'p(95)<', want: /no value after p\(95\)</ },
  { given: 'p(95)<fast', want: /'fast' is not a number with its unit \(ms or s/ },
  { given: 'p(95)<2h', want: /'2h' is not a number with its unit/ },
  { given: 'p(95)<3601s', want: /above 1h/ },
  { given: 'valid_share>101%', want: /a share is at most 100%/ },
  {
    given: 'evaluate: p(95)<300ms',
    want: /unknown operation 'evaluate' \(an operation id: interpretGet, .*; or \* for every operation\)/,
  },
  { given: 'http_req_duration: p(95)<300ms', want: /'http_req_duration' is a k6 metric: name an operation id/ },
  { given: '', want: /an empty threshold/ },
  { given: 'evaluateGet:', want: /an empty threshold/ },
];

for (const { given, want } of refused) {
  test(`a malformed threshold is refused with the rule: '${given}'`, () => {
    assert.throws(
      () => parseThreshold(given, OPERATION_IDS),
      (error: unknown) => error instanceof ThresholdSyntaxError && want.test(error.message),
    );
  });
}

test("the scenario's budget as rules, with the ids the reports have always used", () => {
  const rules = budgetRules({ p95Ms: 250, p99Ms: 500, maxErrorRate: 0.01, minValidShare: 0.99 });
  assert.deepEqual(
    rules.map((rule) => [ruleId(rule), rule.text]),
    [
      ['p95-latency', '*: p(95)<=250ms'],
      ['p99-latency', '*: p(99)<=500ms'],
      ['error-rate', '*: error_rate<=1%'],
      ['valid-share', '*: valid_share>=99%'],
    ],
  );
  assert.equal(ruleId(parseThreshold('evaluateGet: p(95)<1s')), 'evaluateGet:p95-latency');
  assert.equal(ruleId(parseThreshold('evaluateGet: avg<1s')), 'evaluateGet:avg-latency');
});

test("a team's rule replaces the scenario's for the same operation and measure, and joins the others", () => {
  const scenario = budgetRules({ p95Ms: 250, p99Ms: 500, maxErrorRate: 0.01, minValidShare: 0.99 });
  const file = [parseThreshold('*: p(99)<1s'), parseThreshold('evaluateGet: p(95)<300ms')];
  const cli = [parseThreshold('evaluateGet: p(95)<200ms'), parseThreshold('*: error_rate<0.5%')];
  assert.deepEqual(
    mergeRules(scenario, file, cli).map((rule) => rule.text),
    ['*: p(95)<=250ms', '*: valid_share>=99%', '*: p(99)<1s', 'evaluateGet: p(95)<200ms', '*: error_rate<0.5%'],
  );
  // med is p(50): the same measure.
  assert.deepEqual(
    mergeRules([parseThreshold('p(50)<1s')], [parseThreshold('med<2s')]).map((rule) => rule.text),
    ['*: med<2s'],
  );
});

test("k6's thresholds come from the same rules: per operation on the requests tagged with it", () => {
  const rules = [
    ...budgetRules({ p95Ms: 250, p99Ms: 500, maxErrorRate: 0.01, minValidShare: 0.99 }),
    parseThreshold('evaluateGet: p(95)<300ms'),
    parseThreshold('evaluateGet: error_rate<2%'),
    parseThreshold('evaluateGet: valid_share>99.5%'),
    parseThreshold('interpretGet: avg<1s'),
  ];
  assert.deepEqual(k6Thresholds(rules, 1500), {
    http_req_duration: ['p(95)<=250', 'p(99)<=500'],
    http_req_failed: ['rate<=0.01'],
    dropped_iterations: ['count<=15'],
    checks: ['rate>=0.99'],
    'http_req_duration{name:evaluateGet}': ['p(95)<300'],
    'http_req_failed{name:evaluateGet}': ['rate<0.02'],
    'checks{operation:evaluateGet}': ['rate>0.995'],
    'http_req_duration{name:interpretGet}': ['avg<1000'],
  });
  assert.deepEqual(k6Thresholds([parseThreshold('error_rate<1%')], 1550).dropped_iterations, ['count<16']);
});
