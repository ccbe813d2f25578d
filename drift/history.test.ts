import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import type { DriftFinding } from './findings.ts';
import {
  appendRun,
  checkTarget,
  EMBEDDED_TARGET,
  HistoryError,
  historyReport,
  historyStatus,
  historyTarget,
  parseHistory,
  readHistory,
} from './history.ts';
import { renderHistoryHtml, renderHistoryMarkdown, timelineText } from './history-report.ts';

const dir = mkdtempSync(join(tmpdir(), 'kgate-history-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const OPERATION = 'GET /urlpreview/v7.0/search';
const OTHER = 'GET /academic/v1.0/evaluate';

function finding(fingerprint: string, operation = OPERATION): DriftFinding {
  return {
    fingerprint,
    kind: 'undocumented-property',
    operationId: 'urlPreview',
    operation,
    status: 200,
    path: `$.${fingerprint}`,
    normalizedPath: `$.${fingerprint}`,
    message: 'property not in the spec',
    occurrences: 1,
    seenIn: 'case',
    known: false,
  };
}

/** A run on day `day` that saw the given fingerprints; `answered` operations default to both. */
function run(day: number, seen: string[], answered = [OPERATION, OTHER]) {
  return {
    startedAt: `2026-11-${String(day).padStart(2, '0')}T03:00:00.000Z`,
    findings: seen.map((id) => finding(id)),
    cases: answered.map((operation) => ({ name: 'c', operation, status: 200, issues: 0, durationMs: 1, curl: '' })),
  };
}

/** Appends runs to a fresh file and returns the file. */
function historyOf(name: string, runs: ReturnType<typeof run>[]): string {
  const file = join(dir, `${name}.jsonl`);
  runs.forEach((item, index) => {
    appendRun(file, readHistory(file), 'http://t', item, `run-${index + 1}`);
  });
  return file;
}

describe('drift history: states', () => {
  const CASES: Array<{ given: ReturnType<typeof run>[]; want: { state: string; since: number; timeline: string } }> = [
    { given: [run(1, []), run(2, ['a'])], want: { state: 'new', since: 2, timeline: '.#' } },
    { given: [run(1, ['a']), run(2, ['a']), run(3, ['a'])], want: { state: 'ongoing', since: 1, timeline: '###' } },
    { given: [run(1, []), run(2, ['a']), run(3, [])], want: { state: 'gone', since: 3, timeline: '.#.' } },
    { given: [run(1, ['a']), run(2, []), run(3, [])], want: { state: 'gone', since: 2, timeline: '#..' } },
    // Came back after being gone: flaky, not new again.
    { given: [run(1, ['a']), run(2, []), run(3, ['a'])], want: { state: 'flaky', since: 1, timeline: '#.#' } },
    {
      given: [run(1, ['a']), run(2, []), run(3, ['a']), run(4, [])],
      want: { state: 'flaky', since: 1, timeline: '#.#.' },
    },
    // A run that did not reach the operation neither ends nor breaks a streak.
    {
      given: [run(1, ['a']), run(2, [], [OTHER]), run(3, ['a'])],
      want: { state: 'ongoing', since: 1, timeline: '#?#' },
    },
    { given: [run(1, ['a']), run(2, [], [OTHER])], want: { state: 'ongoing', since: 1, timeline: '#?' } },
  ];
  CASES.forEach(({ given, want }, index) => {
    test(`case ${index + 1}: ${want.timeline} -> ${want.state}`, () => {
      const history = readHistory(historyOf(`states-${index}`, given))!;
      const [only] = historyStatus(history);
      assert.equal(only?.state, want.state);
      assert.equal(only?.since, given[want.since - 1]!.startedAt);
      assert.equal(timelineText(only!), want.timeline);
    });
  });

  test('first seen, last seen and times seen are written on every finding line and read back', () => {
    const file = historyOf('totals', [run(1, ['a']), run(2, ['a', 'b']), run(3, ['a'])]);
    const lines = readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    assert.equal(lines[0].kgateDriftHistory, 1);
    assert.equal(lines[0].target, 'http://t');
    const last = lines.filter((line) => line.type === 'finding' && line.fingerprint === 'a').at(-1);
    assert.deepEqual(
      { firstSeen: last.firstSeen, lastSeen: last.lastSeen, timesSeen: last.timesSeen, severity: last.severity },
      { firstSeen: '2026-11-01T03:00:00.000Z', lastSeen: '2026-11-03T03:00:00.000Z', timesSeen: 3, severity: 'minor' },
    );
    const report = historyReport(file, readHistory(file)!);
    assert.deepEqual(report.counts, { new: 0, ongoing: 1, gone: 1, flaky: 0 });
    const markdown = renderHistoryMarkdown(report);
    assert.match(markdown, /gone since 2026-11-03 03:00 UTC/);
    assert.match(markdown, /ongoing since 2026-11-01 03:00 UTC/);
    const page = renderHistoryHtml(report);
    assert.match(page, /GET \/urlpreview\/v7.0\/search 200/);
    assert.match(page, /<svg role="img" aria-label="seen in 3 of 3 runs: ### \(# seen, \. not seen, \? not checked\)"/);
    assert.match(page, /<svg role="img" aria-label="seen in 1 of 3 runs: \.#\./);
    assert.equal(
      /<link|\ssrc=|\shref="?https?:|url\(|@import/.test(page),
      false,
      'self-contained: nothing loaded from elsewhere',
    );
    assert.match(page, /@media print/);
  });

  test('--since judges over the whole history and shows only the runs from that time', () => {
    const file = historyOf('since', [run(1, ['a', 'old']), run(2, ['a']), run(3, ['a'])]);
    const report = historyReport(file, readHistory(file)!, [], '2026-11-02T00:00:00.000Z');
    assert.equal(report.runs.length, 2);
    assert.deepEqual(
      report.findings.map((item) => [item.fingerprint, item.state, timelineText(item)]),
      [
        ['a', 'ongoing', '##'],
        ['old', 'gone', '..'],
      ],
    );
  });
});

describe('drift history: bad input loses nothing', () => {
  test('a corrupt or truncated line is skipped and named; the next append keeps every other line', () => {
    const file = historyOf('corrupt', [run(1, ['a']), run(2, ['a', 'b'])]);
    const before = readFileSync(file, 'utf8').trim().split('\n');
    // Truncate the last line halfway, as an interrupted copy would.
    const last = before.at(-1)!;
    writeFileSync(file, `${[...before.slice(0, -1), last.slice(0, 20)].join('\n')}\n`);
    const read = readHistory(file)!;
    assert.deepEqual(
      read.problems.map((problem) => [problem.line, problem.reason]),
      [[before.length, 'not JSON (truncated or corrupt)']],
    );
    appendRun(file, read, 'http://t', run(3, ['a']), 'run-3');
    const after = readFileSync(file, 'utf8').trim().split('\n');
    assert.deepEqual(after.slice(0, before.length - 1), before.slice(0, -1), 'every valid line kept, verbatim');
    assert.equal(readHistory(file)!.problems.length, 0, 'the file is valid again');
    assert.match(readFileSync(`${file}.rejected`, 'utf8'), new RegExp(`line ${before.length}: not JSON`));
    assert.ok(readFileSync(`${file}.rejected`, 'utf8').includes(last.slice(0, 20)), 'the bad line is kept aside');
  });

  test('a corrupt run line loses its run nothing: the findings after it still count, on the run they name', () => {
    const file = historyOf('lost-run', [run(1, ['a']), run(2, ['a']), run(3, ['a'])]);
    const lines = readFileSync(file, 'utf8').trim().split('\n');
    const second = lines.findIndex((line) => line.includes('"type":"run"') && line.includes('run-2'));
    lines[second] = '{"type":"run","run":';
    writeFileSync(file, `${lines.join('\n')}\n`);
    const history = readHistory(file)!;
    assert.deepEqual(
      history.problems.map((problem) => problem.line),
      [second + 1],
    );
    assert.equal(history.runs.length, 3);
    const [only] = historyStatus(history);
    assert.deepEqual([only!.state, timelineText(only!), only!.timesSeen], ['ongoing', '###', 3]);
  });

  test('a line of the right JSON but the wrong shape is skipped too', () => {
    const history = parseHistory(
      [
        '{"kgateDriftHistory":1,"target":"http://t","createdAt":"2026-11-01T00:00:00Z"}',
        '{"type":"run","run":"r1","at":"2026-11-01T00:00:00Z","requests":1,"findings":0,"answered":[]}',
        '{"type":"finding","run":"r1"}',
        '{"type":"comment"}',
      ].join('\n'),
      'h.jsonl',
    )!;
    assert.deepEqual(
      history.problems.map((problem) => problem.line),
      [3, 4],
    );
    assert.equal(history.runs.length, 1);
  });

  const REFUSED: Array<{ given: string; want: RegExp }> = [
    { given: '{"not":"a history"}\n', want: /line 1 is not a kgate drift history header/ },
    { given: 'garbage\n', want: /line 1 is not a kgate drift history header/ },
    { given: '{"kgateDriftHistory":2,"target":"x"}\n', want: /version 2; this kgate reads version 1/ },
  ];
  for (const { given, want } of REFUSED) {
    test(`refused: ${given.trim()}`, () => {
      assert.throws(() => parseHistory(given, 'h.jsonl'), want);
    });
  }

  test('a history of another target is refused; the embedded server and URLs are named without keys or queries', () => {
    const file = historyOf('target', [run(1, [])]);
    assert.throws(
      () => checkTarget(readHistory(file), 'http://other', file),
      (error: unknown) =>
        error instanceof HistoryError &&
        /is the drift history of http:\/\/t, not of http:\/\/other/.test(error.message),
    );
    assert.doesNotThrow(() => checkTarget(readHistory(file), 'http://t', file));
    assert.equal(historyTarget(undefined), EMBEDDED_TARGET);
    assert.equal(
      historyTarget('https://user:pw@api.example.org/prefix/?subscription-key=abc'),
      'https://api.example.org/prefix',
    );
  });

  test('a missing or empty file is no history yet', () => {
    assert.equal(readHistory(join(dir, 'absent.jsonl')), undefined);
    writeFileSync(join(dir, 'empty.jsonl'), '');
    assert.equal(readHistory(join(dir, 'empty.jsonl')), undefined);
    assert.equal(existsSync(join(dir, 'absent.jsonl')), false);
  });
});

describe('drift history: changes', () => {
  /** A run that saw field `field` on the given operations (and answered both). */
  const seenOn = (day: number, field: string, operations: string[]) => ({
    ...run(day, []),
    findings: operations.map((operation) => ({
      ...finding(`${field}-${operation}`, operation),
      path: `$.${field}`,
      normalizedPath: `$.${field}`,
      cause: `cause-${field}`,
    })),
  });

  test('one field on every operation is one change, judged on its places merged', () => {
    const file = historyOf('changes', [
      seenOn(1, 'requestId', [OPERATION, OTHER]),
      seenOn(2, 'requestId', [OPERATION]),
      seenOn(3, 'requestId', [OTHER]),
    ]);
    const report = historyReport(file, readHistory(file)!);
    assert.equal(report.findings.length, 2, 'two findings, one per operation');
    assert.equal(report.changes.length, 1, 'one change');
    const [change] = report.changes;
    assert.equal(change!.places.length, 2);
    assert.equal(timelineText(change!), '###', 'seen by every run: some place showed it');
    assert.equal(change!.state, 'ongoing', 'never gone, although each place was gone once');
    assert.deepEqual(
      report.findings.map((item) => [item.operation, item.state]),
      [
        [OTHER, 'flaky'],
        [OPERATION, 'gone'],
      ],
      'each place alone came and went',
    );
    assert.deepEqual(report.changeCounts, { new: 0, ongoing: 1, gone: 0, flaky: 0 });
    const markdown = renderHistoryMarkdown(report);
    assert.equal(markdown.split('\n').filter((line) => line.includes('`$.requestId`')).length, 1, markdown);
    assert.match(markdown, /1 change \(0 new, 1 ongoing, 0 flaky, 0 gone\) at 2 places/);
  });

  test('lines written before causes existed group by kind and path', () => {
    const file = historyOf('old-lines', [seenOn(1, 'requestId', [OPERATION, OTHER])]);
    const lines = readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    writeFileSync(file, `${lines.map(({ cause: _cause, ...rest }) => JSON.stringify(rest)).join('\n')}\n`);
    const report = historyReport(file, readHistory(file)!);
    assert.equal(report.changes.length, 1);
    assert.equal(report.changes[0]!.places.length, 2);
  });
});
