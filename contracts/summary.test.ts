import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Check } from './checks/registry.ts';
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
const failure = (check: string) => ({ check, operation: OP, title: 't', received: 'r', documented: 'd' });
const record = (over: Partial<TestRecord>): TestRecord => ({
  project: 'conformance',
  operation: OP,
  check: 'paging-is-consistent',
  status: 'passed',
  durationMs: 1,
  ...over,
});

test('summarise turns test records into matrix cells', () => {
  const cases: { given: TestRecord[]; want: Record<string, string> }[] = [
    {
      given: [record({})],
      want: { 'response-matches-spec': 'pass', 'body-is-json': 'pass', 'paging-is-consistent': 'pass' },
    },
    {
      given: [record({ status: 'failed', failure: failure('paging-is-consistent') })],
      want: { 'response-matches-spec': 'pass', 'body-is-json': 'pass', 'paging-is-consistent': 'fail' },
    },
    {
      given: [record({ status: 'failed', failure: failure('body-is-json') })],
      want: { 'response-matches-spec': 'pass', 'body-is-json': 'fail', 'paging-is-consistent': 'fail' },
    },
    {
      given: [record({ check: 'histogram-ordered-by-count', warning: failure('histogram-ordered-by-count') })],
      want: { 'response-matches-spec': 'pass', 'body-is-json': 'pass', 'histogram-ordered-by-count': 'warn' },
    },
    { given: [record({ status: 'skipped', skipReason: 'no key' })], want: { 'paging-is-consistent': 'skip' } },
  ];
  for (const { given, want } of cases) {
    const [summary] = summarise(given, [OP], CHECKS);
    assert.deepEqual(summary!.matrix[OP], want);
  }
});

test('summarise counts outcomes, gives the verdict and lists tripped checks', () => {
  const cases = [
    { given: [record({})], want: { verdict: 'pass', failed: 0, warned: 0, tripped: [] as string[] } },
    {
      given: [record({ check: 'histogram-ordered-by-count', warning: failure('histogram-ordered-by-count') })],
      want: { verdict: 'pass', failed: 0, warned: 1, tripped: ['histogram-ordered-by-count'] },
    },
    {
      given: [record({ status: 'failed', failure: failure('body-is-json') }), record({})],
      want: { verdict: 'fail', failed: 1, warned: 0, tripped: ['body-is-json'] },
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
      },
      want,
    );
  }
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
