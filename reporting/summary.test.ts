import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Check } from '../contracts/checks/registry.ts';
import type { Failure } from '../contracts/failure.ts';
import { shortLabel } from '../page/html.ts';
import {
  NO_ANSWER_READ,
  notSelectedOf,
  renderMatrix,
  renderSummary,
  summarise,
  type TestRecord,
  targetText,
} from './summary.ts';

const CHECKS: Check[] = [
  {
    id: 'response-matches-spec',
    severity: 'fail',
    verifies: '',
    kind: 'fixture',
    appliesTo: () => true,
    run: async () => {},
  },
  { id: 'body-is-json', severity: 'fail', verifies: '', kind: 'fixture', appliesTo: () => true },
  {
    id: 'paging-is-consistent',
    severity: 'fail',
    verifies: '',
    kind: 'test',
    appliesTo: () => true,
    run: async () => {},
  },
  {
    id: 'histogram-ordered-by-count',
    severity: 'warn',
    verifies: '',
    kind: 'test',
    appliesTo: () => true,
    run: async () => {},
  },
];
const OP = 'GET /academic/v1.0/evaluate';
const OTHER = 'GET /academic/v1.0/interpret';
const finding = (check: string, over: Partial<Failure> = {}): Failure => ({
  check,
  operation: OP,
  title: 't',
  received: 'r',
  documented: 'd',
  ...over,
});
const record = (over: Partial<TestRecord>): TestRecord => ({
  project: 'conformance',
  operation: OP,
  check: 'paging-is-consistent',
  status: 'passed',
  findings: [],
  reads: [],
  notes: [],
  durationMs: 1,
  ...over,
});

test('summarise turns test records into matrix cells, each finding on its own cell', () => {
  const cases: { given: TestRecord[]; want: Record<string, Record<string, string>> }[] = [
    {
      given: [record({})],
      want: { [OP]: { 'response-matches-spec': 'pass', 'body-is-json': 'pass', 'paging-is-consistent': 'pass' } },
    },
    {
      given: [record({ status: 'failed', findings: [finding('paging-is-consistent')] })],
      want: { [OP]: { 'response-matches-spec': 'pass', 'body-is-json': 'pass', 'paging-is-consistent': 'fail' } },
    },
    {
      // A schema failure seen while paging fails the schema cell, not the paging one.
      given: [record({ findings: [finding('response-matches-spec', { origin: 'fixture' })] })],
      want: { [OP]: { 'response-matches-spec': 'fail', 'body-is-json': 'pass', 'paging-is-consistent': 'pass' } },
    },
    {
      // ...and one seen on another operation's answer fails that operation's cell only.
      given: [record({ findings: [finding('response-matches-spec', { operation: OTHER, origin: 'fixture' })] })],
      want: {
        [OP]: { 'response-matches-spec': 'pass', 'body-is-json': 'pass', 'paging-is-consistent': 'pass' },
        [OTHER]: { 'response-matches-spec': 'fail' },
      },
    },
    {
      given: [
        record({
          check: 'histogram-ordered-by-count',
          findings: [finding('histogram-ordered-by-count', { level: 'warn' })],
        }),
      ],
      want: {
        [OP]: { 'response-matches-spec': 'pass', 'body-is-json': 'pass', 'histogram-ordered-by-count': 'warn' },
      },
    },
    {
      given: [record({ status: 'skipped', skipReason: 'no key' })],
      want: { [OP]: { 'paging-is-consistent': 'skip' } },
    },
  ];
  for (const { given, want } of cases) {
    const [summary] = summarise(given, [OP, OTHER], CHECKS);
    assert.deepEqual(
      Object.fromEntries(Object.entries(summary!.matrix).filter(([, row]) => Object.keys(row).length > 0)),
      want,
      JSON.stringify(given),
    );
  }
});

test('summarise counts cells, folds a finding seen by several tests into one, and lists tripped checks', () => {
  const schema = finding('response-matches-spec', { origin: 'fixture' });
  const cases = [
    {
      given: [record({})],
      want: { verdict: 'pass', failed: 0, warned: 0, tripped: [] as string[], seen: [] as number[] },
    },
    {
      given: [
        record({
          check: 'histogram-ordered-by-count',
          findings: [finding('histogram-ordered-by-count', { level: 'warn' })],
        }),
      ],
      want: { verdict: 'pass', failed: 0, warned: 1, tripped: ['histogram-ordered-by-count'], seen: [] },
    },
    {
      given: [record({ findings: [schema] }), record({ check: 'paging-respects-size', findings: [schema] })],
      want: { verdict: 'fail', failed: 1, warned: 0, tripped: ['response-matches-spec'], seen: [2] },
    },
    {
      // kgate's own errors fail the run but prove nothing about the target.
      given: [record({ status: 'failed', findings: [finding('paging-is-consistent', { origin: 'error' })] })],
      want: { verdict: 'fail', failed: 1, warned: 0, tripped: [], seen: [1] },
    },
  ];
  for (const { given, want } of cases) {
    const [summary] = summarise(given, [OP], CHECKS);
    assert.deepEqual(
      {
        verdict: summary!.verdict,
        failed: summary!.counts.failed,
        warned: summary!.counts.warned,
        tripped: summary!.tripped,
        seen: summary!.failures.map((failure) => failure.occurrences),
      },
      want,
      JSON.stringify(given),
    );
  }
});

test('a skip is reported only where nothing else filled its cell', () => {
  const [summary] = summarise(
    [
      record({ status: 'skipped', skipReason: 'no data' }),
      record({ check: 'response-matches-spec', status: 'skipped', skipReason: 'no data' }),
      record({ check: 'body-is-json', findings: [finding('response-matches-spec', { origin: 'fixture' })] }),
    ],
    [OP],
    CHECKS,
  );
  assert.deepEqual(
    summary!.skips.map((skip) => skip.check),
    ['paging-is-consistent'],
    'the schema cell is failed by a finding, not skipped',
  );
});

test('summarise keeps the rate-limit project with its target and sweep targets apart', () => {
  const given = [record({ project: 'conformance' }), record({ project: 'rate-limit' }), record({ project: 'hang' })];
  assert.deepEqual(
    summarise(given, [OP], CHECKS).map((summary) => summary.target),
    ['conformance', 'hang'],
  );
});

test('a baseline makes the failures it lists known; expired ones fail again; fixed and unjudged entries are reported', () => {
  const schema = finding('response-matches-spec', { origin: 'fixture', pointer: '/entities/4/prob' });
  const paging = finding('paging-is-consistent', { origin: 'check' });
  const entry = (check: string, over: object = {}) => ({ check, operation: OP, reason: `accepted ${check}`, ...over });
  const baseline = (entries: object[]) => ({
    file: 'kgate.baseline.json',
    today: '2026-11-23',
    baseline: { kgateConformanceBaseline: 1 as const, failures: entries as never[] },
  });
  const records = [
    record({ findings: [schema, paging] }),
    record({ operation: OTHER }),
    record({ operation: OTHER, check: 'histogram-ordered-by-count', status: 'skipped', skipReason: 'no data' }),
  ];
  const cases: {
    given: object[];
    want: { verdict: string; cells: string[]; known: number; failed: number; fixed: string[]; unjudged: string[] };
  }[] = [
    {
      given: [],
      want: { verdict: 'fail', cells: ['fail', 'fail'], known: 0, failed: 2, fixed: [], unjudged: [] },
    },
    {
      given: [entry('response-matches-spec', { pointer: '/entities/*/prob' }), entry('paging-is-consistent')],
      want: { verdict: 'pass', cells: ['known', 'known'], known: 2, failed: 0, fixed: [], unjudged: [] },
    },
    {
      // The pointer is part of the fingerprint: another field is another failure.
      given: [entry('response-matches-spec', { pointer: '/entities/*/Ti' }), entry('paging-is-consistent')],
      want: {
        verdict: 'fail',
        cells: ['fail', 'known'],
        known: 1,
        failed: 1,
        fixed: ['response-matches-spec'],
        unjudged: [],
      },
    },
    {
      given: [
        entry('response-matches-spec', { pointer: '/entities/*/prob', expires: '2026-11-22' }),
        entry('paging-is-consistent', { expires: '2026-11-23' }),
      ],
      want: { verdict: 'fail', cells: ['fail', 'known'], known: 1, failed: 1, fixed: [], unjudged: [] },
    },
    {
      given: [
        entry('response-matches-spec', { pointer: '/entities/*/prob' }),
        entry('paging-is-consistent'),
        entry('paging-is-consistent', { operation: OTHER }),
        entry('histogram-ordered-by-count', { operation: OTHER }),
        entry('paging-is-consistent', { operation: 'GET /answersearch/v7.0/search' }),
      ],
      want: {
        verdict: 'pass',
        cells: ['known', 'known'],
        known: 2,
        failed: 0,
        fixed: [`paging-is-consistent ${OTHER}`],
        unjudged: [`histogram-ordered-by-count ${OTHER}`, 'paging-is-consistent GET /answersearch/v7.0/search'],
      },
    },
  ];
  for (const { given, want } of cases) {
    const [summary] = summarise(records, [OP, OTHER], CHECKS, baseline(given));
    const got = {
      verdict: summary!.verdict,
      cells: [summary!.matrix[OP]!['response-matches-spec']!, summary!.matrix[OP]!['paging-is-consistent']!],
      known: summary!.counts.known!,
      failed: summary!.counts.failed,
      fixed: summary!.baseline!.fixed.map(
        (item) => `${item.check}${item.operation === OP ? '' : ` ${item.operation}`}`,
      ),
      unjudged: summary!.baseline!.unjudged.map((item) => `${item.check} ${item.operation}`),
    };
    assert.deepEqual(got, want, JSON.stringify(given));
  }
  const [expired] = summarise(
    records,
    [OP, OTHER],
    CHECKS,
    baseline([entry('paging-is-consistent', { expires: '2026-01-01' })]),
  );
  assert.deepEqual(
    expired!.failures.find((item) => item.check === 'paging-is-consistent')!.baseline,
    { reason: 'accepted paging-is-consistent', expires: '2026-01-01', expired: true },
    'an expired failure is a failure that says which entry expired',
  );
});

test('the summary of a run with a baseline shows known failures, fixed entries and the update', () => {
  const [target] = summarise(
    [record({ findings: [finding('paging-is-consistent')] }), record({ operation: OTHER })],
    [OP, OTHER],
    CHECKS,
    {
      file: 'gate/kgate.baseline.json',
      today: '2026-11-23',
      update: { added: 1, dropped: 0 },
      baseline: {
        kgateConformanceBaseline: 1,
        failures: [
          { check: 'paging-is-consistent', operation: OP, reason: 'ticket API-7' },
          { check: 'paging-is-consistent', operation: OTHER, reason: 'ticket API-8' },
        ],
      },
    },
  );
  const text = renderSummary(
    { verdict: 'pass', exitCode: 0, strict: false, durationMs: 1000, targets: [target!] },
    CHECKS,
  );
  for (const want of [
    /5 passed, 0 failed, 1 known \(baseline\)/,
    /\| `paging-is-consistent` \| known \| pass \|/,
    /Baseline gate\/kgate\.baseline\.json updated before judging: 1 failure\(s\) added/,
    /### Known failures \(listed in gate\/kgate\.baseline\.json/,
    /baseline: {3}known: ticket API-7/,
    /### Fixed \(in gate\/kgate\.baseline\.json, no longer failing/,
    /- `paging-is-consistent` on GET \/academic\/v1\.0\/interpret: ticket API-8/,
  ])
    assert.match(text, want);
});

test('renderMatrix draws checks as rows and operations as columns', () => {
  const given = {
    [OP]: { 'response-matches-spec': 'pass', 'paging-is-consistent': 'fail', 'histogram-ordered-by-count': 'warn' },
  } as const;
  const want = [
    '| check | evaluate GET |',
    '|---|:-:|',
    '| `response-matches-spec` | pass |',
    '| `body-is-json` | · |',
    '| `paging-is-consistent` | **FAIL** |',
    '| `histogram-ordered-by-count` (warn) | warn |',
  ].join('\n');
  assert.equal(renderMatrix(given, CHECKS), want);
});

test('a check --checks left out reads "not selected" where it applies, "does not apply" (·) where it does not', () => {
  const onlyEvaluate: Check = { ...CHECKS[2]!, id: 'paging-is-consistent', appliesTo: (op) => op.label === OP };
  const checks = [CHECKS[0]!, onlyEvaluate];
  const matrix = { [OP]: { 'response-matches-spec': 'pass' }, [OTHER]: { 'response-matches-spec': 'pass' } } as const;
  const targets = summarise([record({ check: 'response-matches-spec' })], [OP, OTHER], checks);
  assert.deepEqual(notSelectedOf(['response-matches-spec'], checks, targets), ['paging-is-consistent']);
  assert.equal(notSelectedOf(undefined, checks, targets), undefined, 'no --checks: nothing left out');
  assert.equal(
    renderMatrix(matrix, checks, ['paging-is-consistent']),
    [
      '| check | evaluate GET | interpret GET |',
      '|---|:-:|:-:|',
      '| `response-matches-spec` | pass | pass |',
      '| `paging-is-consistent` (not selected) | not selected | · |',
    ].join('\n'),
  );
});

test('targetText names the embedded reference server as such', () => {
  const cases = [
    { given: { baseUrl: 'https://api.example.org/api' }, want: 'https://api.example.org/api' },
    {
      given: { baseUrl: 'http://127.0.0.1:4000', embedded: true },
      want: "the embedded reference server at http://127.0.0.1:4000 (kgate's own stand-in, not a deployment)",
    },
    {
      given: { baseUrl: 'embedded reference server', embedded: true },
      want: "the embedded reference server (kgate's own stand-in, not a deployment)",
    },
    { given: {}, want: undefined },
  ];
  for (const { given, want } of cases) assert.equal(targetText(given), want, JSON.stringify(given));
});

test('shortLabel names operations compactly', () => {
  const cases = [
    { given: 'GET /academic/v1.0/evaluate', want: 'evaluate GET' },
    { given: 'POST /academic/v1.0/similarity', want: 'similarity POST' },
    { given: 'GET /answersearch/v7.0/search', want: 'answersearch GET' },
    { given: 'GET /urlpreview/v7.0/search', want: 'urlpreview GET' },
    { given: 'GET /eventknowledge/v1.0/events/{event_id}/documents', want: 'documents GET' },
  ];
  for (const { given, want } of cases) assert.equal(shortLabel(given), want);
});

test("a property's finding on another test's answer gives way to the check's own test's finding of the same defect", () => {
  const own = finding('paging-is-consistent', { title: 'page larger', pointer: '/entities/3', origin: 'check' });
  const property = (over: Partial<Failure> = {}) =>
    finding('paging-is-consistent', { title: 'page larger', pointer: '/entities', via: 'property', ...over });
  const cases: { given: string; findings: Failure[][]; want: string[] }[] = [
    { given: 'both: the test keeps its own', findings: [[own], [property()]], want: ['/entities/3'] },
    { given: 'the property alone', findings: [[], [property()]], want: ['/entities'] },
    {
      given: 'another title is another defect',
      findings: [[own], [property({ title: 'other' })]],
      want: ['/entities/3', '/entities'],
    },
    {
      given: "the same pointer: one finding, the test's",
      findings: [[property({ pointer: '/entities/3' })], [own]],
      want: ['/entities/3'],
    },
    {
      given: 'the same property finding from several tests is one',
      findings: [[property()], [property({ received: 'other answer' })]],
      want: ['/entities'],
    },
    {
      given: 'another operation is another defect',
      findings: [[own], [property({ operation: OTHER })]],
      want: ['/entities/3', '/entities'],
    },
  ];
  for (const { given, findings, want } of cases) {
    const [target] = summarise(
      findings.map((list, i) =>
        record({ check: i === 0 ? 'paging-is-consistent' : 'response-matches-spec', findings: list }),
      ),
      [OP, OTHER],
      CHECKS,
    );
    assert.deepEqual(
      target!.failures.map((failure) => failure.pointer),
      want,
      given,
    );
    assert.equal(target!.matrix[OP]!['paging-is-consistent'], 'fail', given);
    if (findings.some((list) => list.includes(own)))
      assert.ok(
        !target!.failures.some((failure) => failure.pointer === own.pointer && failure.via),
        `${given}: the test's finding is kept`,
      );
  }
});

test("a property check's skip turns into a pass only where its invariant judged an answer carrying what it reads", () => {
  const skipped = record({ check: 'request-is-echoed', status: 'skipped', skipReason: 'no data' });
  const cases: { given: string; records: TestRecord[]; cell: string; reason?: string }[] = [
    {
      given: 'judged by another test',
      records: [skipped, record({ check: 'paging-is-consistent', judged: [`request-is-echoed ${OP}`] })],
      cell: 'pass',
    },
    {
      given: 'judged on another operation only',
      records: [skipped, record({ check: 'paging-is-consistent', judged: [`request-is-echoed ${OTHER}`] })],
      cell: 'skip',
      reason: `no data${NO_ANSWER_READ}`,
    },
    { given: 'never judged', records: [skipped], cell: 'skip', reason: `no data${NO_ANSWER_READ}` },
  ];
  const checks: Check[] = [...CHECKS, { ...CHECKS[2]!, id: 'request-is-echoed' }];
  for (const { given, records, cell, reason } of cases) {
    const [target] = summarise(records, [OP, OTHER], checks);
    assert.equal(target!.matrix[OP]!['request-is-echoed'], cell, given);
    assert.deepEqual(
      target!.skips.map((skip) => skip.reason),
      reason ? [reason] : [],
      given,
    );
  }
});

test('a test not run (its operation given up on) fails its own cell, marks no fixture check passed, trips nothing and is never known', () => {
  const notRun = finding('paging-is-consistent', { origin: 'not-run', title: 'not run: given up' });
  const records = [record({ status: 'failed', findings: [notRun] }), record({ operation: OTHER })];
  const baseline = {
    file: 'kgate.baseline.json',
    today: '2026-11-23',
    baseline: {
      kgateConformanceBaseline: 1 as const,
      failures: [{ check: 'paging-is-consistent', operation: OP, reason: 'accepted' }] as never[],
    },
  };
  for (const given of [undefined, baseline]) {
    const [target] = summarise(records, [OP, OTHER], CHECKS, given);
    assert.equal(target!.verdict, 'fail', 'a test not run fails the gate, with or without a baseline');
    assert.equal(target!.matrix[OP]!['paging-is-consistent'], 'fail');
    assert.equal(target!.matrix[OP]!['response-matches-spec'], undefined, 'nothing of evaluate was judged');
    assert.equal(target!.matrix[OTHER]!['response-matches-spec'], 'pass');
    assert.deepEqual(target!.tripped, [], 'a test not run catches nothing');
  }
});

test('summary.md lists the tests not run as one entry per cause, grouped by operation, after the failures that name the cause', () => {
  const cause = 'kgate gave up on evaluate GET: it timed out';
  const notRun = (check: string) =>
    finding(check, {
      origin: 'not-run',
      title: 'not run: given up',
      received: `${cause}, so this test did not judge it`,
    });
  const records = [
    record({ check: 'responds-within-timeout', status: 'failed', findings: [finding('responds-within-timeout')] }),
    record({ status: 'failed', findings: [notRun('paging-is-consistent')] }),
    record({ check: 'paging-respects-size', status: 'failed', findings: [notRun('paging-respects-size')] }),
  ];
  const [target] = summarise(records, [OP], CHECKS);
  const text = renderSummary(
    { verdict: 'fail', exitCode: 1, strict: false, durationMs: 1000, targets: [target!] },
    CHECKS,
  );
  assert.match(text, /### Failures \(1\)\n\n```\n\[responds-within-timeout\]/, 'the cause, as a failure of its own');
  assert.ok(
    text.includes(
      `### Not run: given up (2 cells, each failing the gate)\n\n\`\`\`\n${cause}\n  ${shortLabel(OP)}: paging-is-consistent, paging-respects-size\n\`\`\``,
    ),
    text,
  );
  assert.equal(text.split('not run: given up').length - 1, 0, 'no block per test not run');
});
