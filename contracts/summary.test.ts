import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Check } from './checks/registry.ts';
import type { Failure } from './failure.ts';
import { renderMatrix, shortLabel, summarise, type TestRecord } from './summary.ts';

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
