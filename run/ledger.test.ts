import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import type { Failure } from '../contracts/failure.ts';
import {
  coverageSummary,
  historyOf,
  type Ledger,
  LedgerError,
  readLedger,
  updatedLedger,
  windowOf,
  writeLedger,
} from './ledger.ts';

const dir = mkdtempSync(join(tmpdir(), 'kgate-ledger-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const TARGET = 'https://staging.example.org/api';
const SPEC = 'a'.repeat(64);

test('a ledger that is not JSON, not a ledger, of another target or another spec is refused naming the file and the rule, and left as it is', () => {
  const cases: { given: string; want: RegExp }[] = [
    { given: '{"kgateCoverageLedger": 1, "runs": [', want: /is not JSON/ },
    { given: '{"items": {}}', want: /is not a coverage ledger of this kgate/ },
    { given: '[]', want: /is not a coverage ledger of this kgate/ },
    {
      given: JSON.stringify({
        kgateCoverageLedger: 1,
        target: 'https://prod.example.org',
        specSha256: SPEC,
        runs: [],
        items: {},
      }),
      want: /belongs to another target \(https:\/\/prod\.example\.org\), this run judges https:\/\/staging/,
    },
    {
      given: JSON.stringify({
        kgateCoverageLedger: 1,
        target: TARGET,
        specSha256: 'b'.repeat(64),
        runs: [],
        items: {},
      }),
      want: /another version of the spec/,
    },
    {
      given: JSON.stringify({ kgateCoverageLedger: 2, target: TARGET, specSha256: SPEC, runs: [], items: {} }),
      want: /is not a coverage ledger of this kgate/,
    },
  ];
  for (const [i, { given, want }] of cases.entries()) {
    const file = join(dir, `bad-${i}.json`);
    writeFileSync(file, given);
    assert.throws(
      () => readLedger(file, TARGET, SPEC),
      (error: unknown) => error instanceof LedgerError && want.test(error.message) && error.message.includes(file),
      given,
    );
    assert.equal(readFileSync(file, 'utf8'), given, 'the file is left as it is');
  }
});

test('an absent ledger starts empty; a run adds its line and each item it judged, a failure with its replay', () => {
  const file = join(dir, 'ledger.json');
  const empty = readLedger(file, TARGET, SPEC);
  assert.deepEqual(empty, { kgateCoverageLedger: 1, target: TARGET, specSha256: SPEC, runs: [], items: {} });
  const failure: Failure = {
    check: 'no-server-error',
    operation: 'GET /academic/v1.0/evaluate',
    title: 'status 500 for a generated request',
    received: '',
    documented: '',
    seed: "1, evaluateGet expr:wide-or (1 item(s)): kgate fuzz --seed 1 --items 'input:evaluateGet:expr:wide-or'",
  };
  const first = updatedLedger(
    empty,
    { date: '2026-01-01T00:00:00.000Z', seed: 1, verdict: 'fail', items: 4 },
    new Set(['cell:evaluateGet:no-server-error', 'input:evaluateGet:expr:wide-or', 'input:evaluateGet:expr:deep']),
    new Map([['input:evaluateGet:expr:wide-or', failure]]),
    ['input:evaluateGet:model:other'],
  );
  writeLedger(file, first);
  assert.deepEqual(
    readdirSync(dir).filter((name) => name.includes('.tmp')),
    [],
    'written aside and renamed: nothing left beside it',
  );
  const read = readLedger(file, TARGET, SPEC);
  assert.equal(read.runs.length, 1);
  assert.deepEqual(read.items['input:evaluateGet:expr:wide-or'], {
    run: 1,
    date: '2026-01-01T00:00:00.000Z',
    seed: 1,
    verdict: 'fail',
    failed: {
      run: 1,
      date: '2026-01-01T00:00:00.000Z',
      seed: 1,
      title: 'no-server-error: status 500 for a generated request',
      replay: "kgate fuzz --seed 1 --items 'input:evaluateGet:expr:wide-or'",
    },
  });
  const second = updatedLedger(
    read,
    { date: '2026-01-02T00:00:00.000Z', seed: 1, verdict: 'pass', items: 4 },
    new Set(['input:evaluateGet:expr:wide-or']),
    new Map(),
  );
  assert.equal(second.items['input:evaluateGet:expr:wide-or']?.verdict, 'pass', 'judged again, passed');
  assert.equal(second.items['input:evaluateGet:expr:wide-or']?.failed?.run, 1, 'its last failure is kept');
  assert.deepEqual(second.refused, ['input:evaluateGet:model:other'], 'what the target refused is kept');
  const history = historyOf(second);
  assert.deepEqual(history.get('input:evaluateGet:expr:deep'), { runsAgo: 1 }, 'judged one run ago');
  assert.deepEqual(history.get('input:evaluateGet:expr:wide-or'), { runsAgo: 0 }, 'judged last run, passed');
  assert.deepEqual(historyOf(first).get('input:evaluateGet:expr:wide-or'), { runsAgo: 0, failed: true });
});

test('coverage reports what the run judged, what the window of runs judged, what was never judged, and each last failure', () => {
  const ledger: Ledger = {
    kgateCoverageLedger: 1,
    target: TARGET,
    specSha256: SPEC,
    runs: [1, 2, 3].map((run) => ({ run, date: `2026-01-0${run}`, seed: 1, verdict: 'pass', judged: 2, items: 4 })),
    items: {
      a: { run: 3, date: 'd3', seed: 1, verdict: 'pass' },
      b: { run: 2, date: 'd2', seed: 1, verdict: 'fail', failed: { run: 2, date: 'd2', seed: 1, title: 't' } },
      c: { run: 1, date: 'd1', seed: 1, verdict: 'pass' },
    },
  };
  const summary = coverageSummary(['a', 'b', 'c', 'd'], new Set(['a']), ['c', 'd'], {
    file: 'l.json',
    ledger,
    window: 2,
  });
  assert.equal(summary.items, 4);
  assert.equal(summary.judged, 1);
  assert.deepEqual(summary.notJudged, ['b', 'c', 'd']);
  assert.deepEqual(summary.notPlanned, ['c', 'd']);
  assert.deepEqual(summary.window, { runs: 2, judged: 2 }, 'a and b within the last two runs');
  assert.equal(summary.never, 1, 'd never judged');
  assert.deepEqual(summary.lastFailures, [{ item: 'b', run: 2, date: 'd2', seed: 1, title: 't' }]);
  assert.equal(windowOf(1000, 400), 3);
  assert.equal(windowOf(1000, 1000), 1);
});
