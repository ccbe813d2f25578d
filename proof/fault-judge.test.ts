import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Failure } from '../contracts/failure.ts';
import type { TargetSummary, TestRecord } from '../reporting/summary.ts';
import {
  CASCADE_TIME_RATIO,
  type CatalogueFault,
  compareTable,
  judge,
  selectTests,
  sweepTargets,
  timeBound,
  timeRatio,
} from './fault-sweep.ts';
import { crossReaders } from './fault-table.ts';

const EVALUATE = 'GET /academic/v1.0/evaluate';
const CALCHISTOGRAM = 'GET /academic/v1.0/calchistogram';
const INTERPRET = 'GET /academic/v1.0/interpret';
const fault: CatalogueFault = {
  name: 'evaluate-year-as-string',
  group: 'academic',
  operations: ['evaluateGet', 'evaluatePost'],
  deviation: 'forbidden',
  description: '',
};
const finding = (over: Partial<Failure>): Failure => ({
  check: 'response-matches-spec',
  operation: EVALUATE,
  title: 't',
  received: 'r',
  documented: 'd',
  origin: 'fixture',
  ...over,
});
const record = (over: Partial<TestRecord>): TestRecord => ({
  project: 'clean',
  operation: EVALUATE,
  check: 'paging-is-consistent',
  status: 'passed',
  findings: [],
  reads: ['evaluateGet'],
  notes: [],
  durationMs: 100,
  ...over,
});
const summary = (failures: Failure[], matrix: TargetSummary['matrix'] = {}): TargetSummary => ({
  target: fault.name,
  verdict: failures.length ? 'fail' : 'pass',
  counts: { passed: 0, failed: failures.length, warned: 0, skipped: 0 },
  tests: { total: 1, durationMs: 100 },
  matrix,
  failures,
  warnings: [],
  skips: [],
  notes: [],
  tripped: [],
});
const cleanRun = { durationMs: 10_000, workers: 2 };

test('crossReaders names the cross-operation checks that read an operation', () => {
  const cells = crossReaders(['evaluateGet']).map((cell) => `${cell.check} on ${cell.operation}`);
  const cases = [
    { given: `histogram-agrees-with-evaluate on ${CALCHISTOGRAM}`, want: true },
    { given: `interpretations-are-evaluable on ${INTERPRET}`, want: true },
    { given: 'get-and-post-agree on POST /academic/v1.0/evaluate', want: true },
    { given: `paging-is-consistent on ${CALCHISTOGRAM}`, want: false },
  ];
  for (const { given, want } of cases) assert.equal(cells.includes(given), want, given);
});

test('a catch counts only on a touched operation, for the fault own reason', () => {
  const cases: { given: Failure[]; want: boolean }[] = [
    { given: [finding({})], want: true },
    // The right check on another operation proves nothing about this fault.
    { given: [finding({ operation: CALCHISTOGRAM })], want: false },
    // A check's own assertion relabelled as the fixture check, or kgate's error: not the fault's reason.
    { given: [finding({ origin: 'check' })], want: false },
    { given: [finding({ origin: 'error' })], want: false },
    // A missing expected field warns: it catches no forbidden fault of a `fail` check.
    { given: [finding({ level: 'warn' })], want: false },
  ];
  for (const { given, want } of cases) {
    const verdict = judge({ fault, summary: summary(given), clean: [], records: [], cleanRun });
    assert.equal(verdict.caught, want, JSON.stringify(given));
  }
});

test('a failed cell outside the touched operations and their readers is a cascade', () => {
  const matrix = {
    [EVALUATE]: { 'response-matches-spec': 'fail' as const },
    [CALCHISTOGRAM]: { 'histogram-agrees-with-evaluate': 'fail' as const, 'paging-is-consistent': 'fail' as const },
  };
  const verdict = judge({ fault, summary: summary([finding({})], matrix), clean: [], records: [], cleanRun });
  assert.deepEqual(verdict.cascade, [{ operation: CALCHISTOGRAM, check: 'paging-is-consistent' }]);
  assert.equal(verdict.caught, false, 'a cascading fault is not counted as caught');
});

test('tests are selected by the operations they touch or read', () => {
  const clean = [
    record({}),
    record({ operation: INTERPRET, check: 'auth-required', reads: ['evaluateGet', 'interpretGet'] }),
    record({ operation: 'GET /eventknowledge/v1.0/hotevents', check: 'auth-required', reads: ['hotEvents'] }),
  ];
  assert.deepEqual(selectTests(fault, clean), [`${EVALUATE} paging-is-consistent`, `${INTERPRET} auth-required`]);
  assert.equal(selectTests({ ...fault, deviation: 'hostile' }, clean).length, 3, 'hostile faults get every test');
});

test('the time ratio adds what the selected tests took beyond their clean time, over the workers', () => {
  const clean = [record({}), record({ check: 'response-matches-spec' })];
  const cases = [
    { given: [record({}), record({ check: 'response-matches-spec' })], want: 1 },
    { given: [record({ durationMs: 2_100 }), record({ check: 'response-matches-spec' })], want: 1.1 },
    { given: [record({ durationMs: 20_100 })], want: 2 },
  ];
  for (const { given, want } of cases) assert.equal(timeRatio(clean, given, cleanRun).toFixed(3), want.toFixed(3));
});

test('the time bound is 3x a clean run, and one deadline more per operation for a fault judged at the hostile deadline', () => {
  assert.equal(timeBound(fault, cleanRun), CASCADE_TIME_RATIO, 'a forbidden fault: 3x');
  const slowBody: CatalogueFault = {
    name: 'slow-body',
    group: 'all',
    operations: ['evaluateGet', 'evaluatePost', 'interpretGet', 'interpretPost'],
    deviation: 'hostile',
    description: '',
  };
  // Four operations at 2 s each over two workers: 4 s beyond a clean run of 10 s.
  assert.equal(timeBound(slowBody, cleanRun).toFixed(3), (CASCADE_TIME_RATIO + 0.4).toFixed(3));
  const hang = { ...fault, name: 'hang', deviation: 'forbidden' as const };
  assert.equal(
    timeBound(hang, cleanRun).toFixed(3),
    (CASCADE_TIME_RATIO + 0.2).toFixed(3),
    'one that misses deadlines too',
  );
  assert.equal(timeBound(slowBody, { durationMs: 0, workers: 2 }), CASCADE_TIME_RATIO, 'no clean run: 3x');
});

test('compareTable finds unknown faults and entries that disagree with the catalogue', () => {
  const { unknown, mismatches } = compareTable([
    fault,
    { ...fault, name: 'evaluate-offset-off-by-one', operations: ['evaluateGet'] },
    { ...fault, name: 'no-such-fault' },
  ]);
  assert.deepEqual(unknown, ['no-such-fault']);
  assert.ok(
    mismatches.some((line) => line.startsWith('evaluate-offset-off-by-one: the catalogue says')),
    'operations differ',
  );
  assert.ok(
    mismatches.some((line) => line.includes('in the table but not in the catalogue')),
    'stale entries',
  );
});

test('an input-triggered fault is caught only when the generative phase catches it and the fixed battery alone passes it', () => {
  const wideOr: CatalogueFault = { ...fault, name: 'evaluate-wide-or-500' };
  const caught = summary([finding({ check: 'no-server-error', origin: 'check' })]);
  const cases = [
    { given: summary([]), want: true, why: 'the fixed battery passes' },
    { given: summary([finding({})]), want: false, why: 'the fixed battery already fails: not input-triggered' },
    { given: undefined, want: false, why: 'no fixed-battery run' },
  ];
  for (const { given, want, why } of cases) {
    const verdict = judge({ fault: wideOr, summary: caught, fixedBattery: given, clean: [], records: [], cleanRun });
    assert.equal(verdict.caught, want, why);
  }
});

test('an input-triggered fault gets a second project without the generative tests; a hang gets the short deadline', () => {
  const clean = [
    record({ check: 'paging-is-consistent' }),
    record({ check: 'no-server-error' }),
    record({ check: 'positive-input-accepted' }),
    record({ check: 'rate-limit-signalled', reads: ['evaluateGet'] }),
  ];
  const [generated, fixed] = sweepTargets('http://x', { ...fault, name: 'evaluate-wide-or-500' }, clean);
  assert.equal(generated?.tests?.length, 4, 'every test with the generative phase');
  assert.equal(generated?.rateLimit, true, 'the target runs its rate-limit test');
  assert.deepEqual(fixed?.tests, [`${EVALUATE} paging-is-consistent`], 'the fixed battery alone, no rate-limit burst');
  assert.equal(fixed?.rateLimit, false, 'the twin, sharing the fault prefix and its buckets, bursts nothing');
  assert.equal(fixed?.generate, false, 'no generative tests registered');
  const [hang] = sweepTargets(
    'http://x',
    { ...fault, name: 'calchistogram-date-range-hang', operations: ['evaluateGet'] },
    clean,
  );
  assert.equal(hang?.timeoutMs, 2_000, 'a hanging fault is judged with the short deadline');
  assert.equal(sweepTargets('http://x', fault, clean).length, 1, 'other faults: one project');
  const only = sweepTargets('http://x', { ...fault, name: 'evaluate-large-page-attributes-ignored' }, clean);
  assert.deepEqual(
    only.map((target) => [target.name, target.generate, target.tests]),
    [
      [
        'evaluate-large-page-attributes-ignored',
        false,
        [`${EVALUATE} paging-is-consistent`, `${EVALUATE} rate-limit-signalled`],
      ],
    ],
    'a fault only the fixed battery triggers: one project, the fixed battery alone, its rate-limit test kept (no twin)',
  );
});

test('a fault of one promise is caught only when no other check sees it, on any operation', () => {
  const only: CatalogueFault = {
    ...fault,
    name: 'calchistogram-last-attribute-dropped',
    operations: ['calchistogramGet', 'calchistogramPost'],
  };
  const own = finding({ check: 'attributes-are-honoured', operation: CALCHISTOGRAM, origin: 'check' });
  const cases: {
    given: { failures: Failure[]; matrix: TargetSummary['matrix'] };
    want: { caught: boolean; others: string[] };
  }[] = [
    {
      given: { failures: [own], matrix: { [CALCHISTOGRAM]: { 'attributes-are-honoured': 'fail' } } },
      want: { caught: true, others: [] },
    },
    {
      // Another check of the same operation sees it too: not the promise's alone.
      given: {
        failures: [own, finding({ check: 'paging-is-consistent', operation: CALCHISTOGRAM, origin: 'check' })],
        matrix: { [CALCHISTOGRAM]: { 'attributes-are-honoured': 'fail', 'paging-is-consistent': 'fail' } },
      },
      want: { caught: false, others: ['paging-is-consistent'] },
    },
    {
      // A cross-operation reader that fails is allowed for other faults, not for a fault of one promise.
      given: {
        failures: [own],
        matrix: {
          [CALCHISTOGRAM]: { 'attributes-are-honoured': 'fail' },
          [INTERPRET]: { 'interpretations-are-evaluable': 'fail' },
        },
      },
      want: { caught: false, others: ['interpretations-are-evaluable'] },
    },
  ];
  for (const { given, want } of cases) {
    const verdict = judge({
      fault: only,
      summary: summary(given.failures, given.matrix),
      clean: [],
      records: [],
      cleanRun,
    });
    assert.deepEqual({ caught: verdict.caught, others: verdict.others }, want, JSON.stringify(given.matrix));
  }
});

test('a legitimate variation passes only with no failure, no warning and no error of kgate', () => {
  const variation: CatalogueFault = { ...fault, name: 'json-number-forms', deviation: 'legitimate', operations: [] };
  const warned = { ...summary([]), warnings: [finding({ level: 'warn' })] };
  const cases: { given: TargetSummary | undefined; want: boolean }[] = [
    { given: summary([]), want: true },
    { given: summary([finding({})]), want: false },
    { given: warned, want: false },
    { given: summary([finding({ origin: 'error' })]), want: false },
    { given: undefined, want: false },
  ];
  for (const { given, want } of cases) {
    const verdict = judge({ fault: variation, summary: given, clean: [], records: [], cleanRun });
    assert.equal(verdict.caught, want, JSON.stringify(given?.failures ?? 'no run'));
  }
  const [target] = sweepTargets('http://x', variation, [record({})]);
  assert.equal(target?.baseUrl, 'http://x/variations/json-number-forms', 'served under /variations');
});
