import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CHECKS } from '../contracts/checks/index.ts';
import type { Failure } from '../contracts/failure.ts';
import { applyOverride, checksOfRun, severityOf } from './severity.ts';
import { renderMatrix, summarise, type TestRecord } from './summary.ts';

const OP = 'GET /academic/v1.0/evaluate';
const finding = (check: string, over: Partial<Failure> = {}): Failure => ({
  check,
  operation: OP,
  title: 't',
  received: 'r',
  documented: 'd',
  ...over,
});

test('applyOverride turns failures of a check set to warn into warnings, unless --strict', () => {
  const overrides = { 'response-matches-spec': 'warn', 'content-type-is-json': 'fail' } as const;
  const cases: { given: { finding: Failure; strict: boolean }; want: Failure['level'] }[] = [
    { given: { finding: finding('response-matches-spec'), strict: false }, want: 'warn' },
    { given: { finding: finding('response-matches-spec'), strict: true }, want: undefined },
    { given: { finding: finding('response-matches-spec', { origin: 'error' }), strict: false }, want: undefined },
    { given: { finding: finding('content-type-is-json'), strict: false }, want: undefined },
    { given: { finding: finding('content-type-is-json', { level: 'warn' }), strict: false }, want: 'warn' },
    { given: { finding: finding('body-is-json'), strict: false }, want: undefined },
  ];
  for (const { given, want } of cases) {
    assert.equal(applyOverride(given.finding, overrides, given.strict).level, want, JSON.stringify(given));
  }
});

test('severityOf prefers the override; checksOfRun drops excluded (and off) checks and shows the override', () => {
  const echo = CHECKS.find((check) => check.id === 'request-is-echoed')!;
  const hex = CHECKS.find((check) => check.id === 'event-ids-are-32-hex')!;
  assert.equal(severityOf(echo, { 'request-is-echoed': 'warn' }), 'warn', 'a fail check set to warn');
  assert.equal(severityOf(hex, { 'event-ids-are-32-hex': 'fail' }), 'fail', 'a warn check set to fail');
  assert.equal(severityOf(hex, undefined), 'warn', 'no override: the built-in severity');
  const run = checksOfRun(CHECKS, {
    severity: { 'request-is-echoed': 'warn', 'event-ids-are-32-hex': 'fail' },
    excludeChecks: ['rate-limit-signalled'],
  });
  assert.equal(run.length, CHECKS.length - 1, 'the excluded check is not in the reports');
  assert.equal(run.find((check) => check.id === 'request-is-echoed')!.severity, 'warn', 'override shown');
  assert.equal(CHECKS.find((check) => check.id === 'request-is-echoed')!.severity, 'fail', 'the registry is untouched');
});

test('a warn override acts on the matrix like a built-in warn check: the cell warns, the gate passes unless --strict', () => {
  const record = (findings: Failure[]): TestRecord => ({
    project: 'conformance',
    operation: OP,
    check: 'request-is-echoed',
    status: 'passed',
    findings,
    reads: [],
    notes: [],
    durationMs: 1,
  });
  const overrides = { 'request-is-echoed': 'warn' } as const;
  const cases: { given: { strict: boolean }; want: { cell: string; verdict: string } }[] = [
    { given: { strict: false }, want: { cell: 'warn', verdict: 'pass' } },
    { given: { strict: true }, want: { cell: 'fail', verdict: 'fail' } },
  ];
  for (const { given, want } of cases) {
    // What runCheck records for a failed check of severity `warn`, and for a fixture finding of it.
    const level = severityOf({ id: 'request-is-echoed', severity: 'fail' }, overrides) === 'warn' && !given.strict;
    const own = finding('request-is-echoed', { level: level ? 'warn' : 'fail', origin: 'check' });
    const checks = checksOfRun(CHECKS, { severity: overrides });
    const [summary] = summarise([record([applyOverride(own, overrides, given.strict)])], [OP], checks);
    assert.deepEqual(
      { cell: summary!.matrix[OP]!['request-is-echoed'], verdict: summary!.verdict },
      want,
      JSON.stringify(given),
    );
    assert.match(renderMatrix(summary!.matrix, checks), /\| `request-is-echoed` \(warn\) \|/, 'the row says warn');
  }
});
