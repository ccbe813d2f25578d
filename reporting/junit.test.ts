import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CHECKS } from '../contracts/checks/index.ts';
import { renderJunit, xmlEscape } from './junit.ts';
import type { RunSummary, TargetSummary } from './summary.ts';

const OP = 'GET /academic/v1.0/evaluate';
const target: TargetSummary = {
  target: 'conformance',
  verdict: 'fail',
  counts: { passed: 1, failed: 1, warned: 1, skipped: 1 },
  tests: { total: 4, durationMs: 10 },
  matrix: {
    [OP]: {
      'response-matches-spec': 'fail',
      'paging-is-consistent': 'pass',
      'orderby-is-honoured': 'skip',
      'request-is-echoed': 'warn',
    },
  },
  failures: [
    {
      check: 'response-matches-spec',
      operation: OP,
      title: 'status 200 body does not match the spec',
      received: '/entities/0/prob must be number <&>',
      documented: 'd',
      occurrences: 3,
    },
  ],
  warnings: [
    { check: 'request-is-echoed', operation: OP, title: 'query echoed normalized', received: 'r', documented: 'd' },
  ],
  skips: [{ operation: OP, check: 'orderby-is-honoured', reason: 'fewer than two distinct years' }],
  notes: [],
  tripped: ['request-is-echoed', 'response-matches-spec'],
};
const run: RunSummary = { verdict: 'fail', exitCode: 1, strict: false, durationMs: 1234, targets: [target] };

test('junit has one case per matrix cell, failing exactly the failed cells', () => {
  const xml = renderJunit(run, CHECKS);
  const cases = [
    { given: 'tests="4" failures="1" skipped="1"', want: true },
    { given: '<testcase classname="GET /academic/v1.0/evaluate" name="paging-is-consistent"></testcase>', want: true },
    { given: '<failure message="status 200 body does not match the spec">', want: true },
    { given: '(seen by 3 tests)', want: true },
    { given: '<skipped message="fewer than two distinct years"/>', want: true },
    { given: 'warning (fails under --strict)', want: true },
    { given: 'must be number &lt;&amp;&gt;', want: true },
    { given: 'must be number <&>', want: false },
  ];
  for (const { given, want } of cases) assert.equal(xml.includes(given), want, `${given} in ${xml}`);
});

test('a known failure is a skipped case carrying the baseline reason, never a failure', () => {
  const known = {
    check: 'paging-is-consistent',
    operation: OP,
    title: 'consecutive pages overlap',
    received: 'r',
    documented: 'd',
    baseline: { reason: 'gateway pages by 1, ticket API-9' },
  };
  const xml = renderJunit(
    {
      ...run,
      verdict: 'pass',
      exitCode: 0,
      targets: [
        {
          ...target,
          verdict: 'pass',
          matrix: { [OP]: { 'paging-is-consistent': 'known' } },
          failures: [],
          known: [known],
        },
      ],
    },
    CHECKS,
  );
  const cases = [
    { given: 'tests="1" failures="0" skipped="1"', want: true },
    { given: '<skipped message="known failure (baseline): gateway pages by 1, ticket API-9">', want: true },
    { given: '[paging-is-consistent] GET /academic/v1.0/evaluate: consecutive pages overlap', want: true },
    { given: '<failure', want: false },
  ];
  for (const { given, want } of cases) assert.equal(xml.includes(given), want, `${given} in ${xml}`);
});

test('xmlEscape escapes markup and drops characters XML cannot hold', () => {
  const cases = [
    { given: 'a<b>&"c"', want: 'a&lt;b&gt;&amp;&quot;c&quot;' },
    { given: 'bell\u0007end', want: 'bellend' },
    { given: 'tab\tand\nnewline', want: 'tab\tand\nnewline' },
  ];
  for (const { given, want } of cases) assert.equal(xmlEscape(given), want);
});
