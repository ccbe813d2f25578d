import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import type { Failure } from '../contracts/failure.ts';
import { ROOT, runProcess } from '../scripts/run-process.ts';
import {
  costsOf,
  coverageSummary,
  historyOf,
  judgedShareOf,
  type Ledger,
  LedgerError,
  mergeIntoLedgerFile,
  readLedger,
  sentInMonth,
  updatedLedger,
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

test('what a quota that ran out kept a run from judging is kept as cut short until a run judges it, and sent first', () => {
  const empty = readLedger(join(dir, 'absent.json'), TARGET, SPEC);
  const run = (date: string) => ({ date, seed: 1, verdict: 'pass' as const, items: 4 });
  const cut = updatedLedger(
    empty,
    run('2026-03-01T00:00:00.000Z'),
    new Set(['input:evaluateGet:expr:deep']),
    new Map(),
    [],
    new Map(),
    ['input:evaluateGet:expr:wide-or', 'cell:hotEvents:no-server-error'],
  );
  assert.deepEqual(cut.cutShort, ['cell:hotEvents:no-server-error', 'input:evaluateGet:expr:wide-or']);
  assert.deepEqual(historyOf(cut).get('input:evaluateGet:expr:wide-or'), { cutShort: true }, 'never judged, cut short');
  // The next run judges one of them: the other stays cut short; a run that judges both clears it.
  const next = updatedLedger(
    cut,
    run('2026-03-02T00:00:00.000Z'),
    new Set(['input:evaluateGet:expr:wide-or']),
    new Map(),
  );
  assert.deepEqual(next.cutShort, ['cell:hotEvents:no-server-error']);
  assert.deepEqual(historyOf(next).get('input:evaluateGet:expr:wide-or'), { runsAgo: 0 });
  const done = updatedLedger(
    next,
    run('2026-03-03T00:00:00.000Z'),
    new Set(['cell:hotEvents:no-server-error']),
    new Map(),
  );
  assert.equal(done.cutShort, undefined, 'nothing cut short is left');
});

test('coverage reports what the run judged and not (adding up to every item), what the ledger judged since it began, and each last failure', () => {
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
  // b was planned and skipped; c and d were left out by the budget; c was judged anyway.
  const summary = coverageSummary(['a', 'b', 'c', 'd'], new Set(['a', 'c']), ['c', 'd'], { file: 'l.json', ledger });
  assert.equal(summary.items, 4);
  assert.equal(summary.judged, 2);
  assert.deepEqual(summary.notJudged, ['b', 'd']);
  assert.equal(summary.judged + summary.notJudged.length, summary.items, 'judged and not judged make every item');
  assert.deepEqual(summary.notPlanned, ['d'], 'of those not judged, what the budget left out');
  assert.deepEqual(summary.ledger, { file: 'l.json', runs: 3, judged: 3 }, 'a, b and c since the ledger began');
  assert.equal(summary.never, 1, 'd never judged');
  assert.deepEqual(summary.lastFailures, [{ item: 'b', run: 2, date: 'd2', seed: 1, title: 't' }]);
  // Once every item was judged, the fewest last runs that judged every item.
  const all = coverageSummary(['a', 'b', 'c'], new Set(['a']), [], { file: 'l.json', ledger });
  assert.equal(all.ledger?.allWithin, 3, 'c was last judged 3 runs ago');
  assert.equal(summary.ledger?.allWithin, undefined, 'said only once it is so');
});

test('a run merges into the ledger as it is when the run ends: two runs ending together both land', async () => {
  const file = join(dir, 'merged.json');
  const run = (date: string) => ({ date, seed: 1, verdict: 'pass' as const, items: 2, planned: 2, requests: 50 });
  // Two runs that read the same empty ledger at their start, merging one after the other.
  const merge = (item: string, date: string) =>
    mergeIntoLedgerFile(file, TARGET, SPEC, (ledger) =>
      updatedLedger(ledger, run(date), new Set([item]), new Map(), [], new Map([[item, 2.5]])),
    );
  await Promise.all([
    Promise.resolve().then(() => merge('x', '2026-02-01')),
    Promise.resolve().then(() => merge('y', '2026-02-02')),
  ]);
  const kept = readLedger(file, TARGET, SPEC);
  assert.deepEqual(
    kept.runs.map((entry) => entry.run),
    [1, 2],
    'both runs kept, numbered in the order they merged',
  );
  assert.deepEqual(Object.keys(kept.items).sort(), ['x', 'y']);
  assert.equal(kept.items.x?.cost, 2.5, 'what judging it cost');
  assert.equal(sentInMonth(kept, new Date('2026-02-20T00:00:00Z')), 100, "the month's requests");
  assert.equal(sentInMonth(kept, new Date('2026-03-01T00:00:00Z')), 0, 'a new month starts at none');
  assert.equal(judgedShareOf(kept), 0.5, 'one of the two items each run planned was judged');
  // A month's requests are counted apart from the runs, of which only the last 100 are kept.
  let many = kept;
  for (let i = 0; i < 120; i++) many = updatedLedger(many, run('2026-02-10'), new Set(), new Map());
  assert.equal(many.runs.length, 100);
  assert.equal(sentInMonth(many, new Date('2026-02-20T00:00:00Z')), 100 + 120 * 50, 'every run of the month counted');
  // A file damaged meanwhile is left as it is: the merge is refused.
  writeFileSync(file, '{"kgateCoverageLedger": 1, "runs": [');
  assert.throws(() => merge('z', '2026-02-03'), LedgerError);
  assert.equal(readFileSync(file, 'utf8'), '{"kgateCoverageLedger": 1, "runs": [', 'never overwritten');
});

test('runs in processes of their own merging into one ledger at once all land in it', async () => {
  const file = join(dir, 'concurrent.json');
  const merges = 40;
  // Each process merges one run at a time, as a run's reporter does when it ends; both start at the
  // same moment, once loaded.
  const startAt = Date.now() + 3_000;
  const script = `
    const { mergeIntoLedgerFile, updatedLedger } = await import(${JSON.stringify(new URL('./ledger.ts', import.meta.url).href)});
    while (Date.now() < ${startAt});
    for (let i = 0; i < ${merges}; i++)
      mergeIntoLedgerFile(${JSON.stringify(file)}, ${JSON.stringify(TARGET)}, ${JSON.stringify(SPEC)}, (ledger) =>
        updatedLedger(ledger, { date: new Date().toISOString(), seed: 1, verdict: 'pass', items: 1 }, new Set([process.argv[1] + i]), new Map()));
  `;
  const results = await Promise.all(
    ['p', 'q'].map((name) =>
      runProcess(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script, name], { cwd: ROOT }),
    ),
  );
  for (const result of results) assert.equal(result.code, 0, result.stderr);
  const kept = readLedger(file, TARGET, SPEC);
  assert.equal(kept.runs.length, 2 * merges, 'every run of both processes kept');
  assert.deepEqual(
    kept.runs.map((entry) => entry.run),
    Array.from({ length: 2 * merges }, (_, i) => i + 1),
    'numbered one after another',
  );
  assert.equal(Object.keys(kept.items).length, 2 * merges, "every run's item kept");
});

test("what judging an item cost: each test's requests shared among what it judged, the cheapest share kept", () => {
  const record = (check: string, items: string[], test: number) =>
    ({
      operation: 'GET /academic/v1.0/evaluate',
      check,
      status: 'passed',
      findings: [],
      items,
      requests: { test, discovery: 0, data: [] },
    }) as unknown as Parameters<typeof costsOf>[0][number];
  const costs = costsOf([
    record('no-server-error', ['input:a', 'input:b', 'input:c'], 5),
    record('auth-required', ['input:a'], 3),
  ]);
  assert.equal(costs.get('input:b'), 5 / 4, 'five requests over three items and the cell');
  assert.equal(costs.get('input:a'), 5 / 4, 'the cheaper of the two tests that judged it');
  assert.equal(costs.get('cell:evaluateGet:auth-required'), 1.5);
});
