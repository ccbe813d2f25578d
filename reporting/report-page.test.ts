import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { maskUrl, registerSecret } from '../config/redact.ts';
import { CHECKS } from '../contracts/checks/index.ts';
import { type Failure, NOT_RUN_DEADLINE } from '../contracts/failure.ts';
import { formatDuration, escapeHtml as htmlEscape } from '../page/html.ts';
import { renderPage as renderReportHtml } from '../page/page.ts';
import { compareFailures, conformancePage, previousRun } from './report-page.ts';
import type { RunSummary, TargetSummary } from './summary.ts';

const OP = 'GET /academic/v1.0/evaluate';
const POST = 'POST /academic/v1.0/evaluate';
const failure = (check: string, operation = OP, pointer?: string): Failure => ({
  check,
  operation,
  title: `${check} broke`,
  received: 'r',
  documented: 'd',
  ...(pointer !== undefined ? { pointer } : {}),
});

const target: TargetSummary = {
  target: 'conformance',
  verdict: 'fail',
  counts: { passed: 2, failed: 1, warned: 1, skipped: 1 },
  tests: { total: 5, durationMs: 10 },
  matrix: {
    [OP]: {
      'response-matches-spec': 'fail',
      'paging-is-consistent': 'pass',
      'orderby-is-honoured': 'skip',
      'request-is-echoed': 'warn',
    },
    [POST]: { 'response-matches-spec': 'pass' },
  },
  failures: [
    {
      ...failure('response-matches-spec', OP, '/entities/0/Y'),
      received: '/entities/0/Y must be integer <script>alert(1)</script>',
      curl: "curl -sS -H 'Ocp-Apim-Subscription-Key: ***' 'http://127.0.0.1:9/academic/v1.0/evaluate?expr=Y%3E1'",
      occurrences: 3,
      seed: 'seed: 7, evaluateGet case 3',
    },
  ],
  warnings: [{ ...failure('request-is-echoed'), level: 'warn' }],
  skips: [{ operation: OP, check: 'orderby-is-honoured', reason: 'fewer than two distinct years' }],
  notes: [],
  tripped: ['request-is-echoed', 'response-matches-spec'],
  operations: [{ operation: OP, requests: 12, p50Ms: 8.3, p95Ms: 95 }],
};
const run: RunSummary = {
  verdict: 'fail',
  exitCode: 1,
  baseUrl: 'http://127.0.0.1:9',
  strict: false,
  startedAt: '2026-11-24T05:40:12.345Z',
  durationMs: 6600,
  requests: 12,
  targets: [target],
};

test('htmlEscape, maskUrl and formatDuration', () => {
  const cases: { given: string; want: string; of: (text: string) => string }[] = [
    { of: htmlEscape, given: `<a href="x">&</a>`, want: '&lt;a href=&quot;x&quot;&gt;&amp;&lt;/a&gt;' },
    { of: htmlEscape, given: "curl -H 'Key: ***'", want: "curl -H 'Key: ***'" },
    { of: maskUrl, given: 'http://127.0.0.1:8080', want: 'http://127.0.0.1:8080' },
    { of: maskUrl, given: 'https://user:s3cret@api.example.org/v1', want: 'https://user:***@api.example.org/v1' },
    {
      of: maskUrl,
      given: 'https://api.example.org/p?subscription-key=abc&x=1',
      want: 'https://api.example.org/p?subscription-key=***&x=1',
    },
    { of: (ms) => formatDuration(Number(ms)), given: '6600', want: '6.6 s' },
    { of: (ms) => formatDuration(Number(ms)), given: '263000', want: '4 min 23 s' },
  ];
  for (const { of, given, want } of cases) assert.equal(of(given), want, given);
});

test('the page of a failing run: banner, counts, cells linking to their details, findings as the terminal shows them', () => {
  const html = renderReportHtml(conformancePage(run, CHECKS));
  assert.match(html, /<title>kgate conformance: FAIL · http:\/\/127\.0\.0\.1:9<\/title>/);
  assert.match(html, /<span class="word">FAIL<\/span>/);
  for (const [name, value] of [
    ['passed', 2],
    ['failed', 1],
    ['warnings', 1],
    ['skipped', 1],
  ] as const)
    assert.match(html, new RegExp(`data-count="${name}"><b>${value}</b>`), name);
  assert.ok(!html.includes('data-count="known"'), 'no known chip without a baseline');
  const link = (state: string) => new RegExp(`<td class="${state}"><a href="#([^"]+)"`).exec(html)?.[1];
  assert.equal(link('fail'), 'f1', 'a failed cell links to its failure');
  assert.match(html, /<article class="finding fail" id="f1">/);
  assert.equal(link('warn'), 'f2', 'a warned cell links to its warning');
  const skip = link('skip')!;
  assert.match(
    html,
    new RegExp(`<li id="${skip}">orderby-is-honoured on evaluate GET: fewer than two distinct years</li>`),
  );
  assert.equal(link('pass'), 'check-response-matches-spec', 'a passed cell links to what its check verifies');
  assert.match(html, /<div id="check-response-matches-spec">/);
  assert.ok(html.includes('&lt;script&gt;alert(1)&lt;/script&gt;'), 'a received body is escaped');
  assert.ok(!html.includes('<script>alert(1)'), 'and never runs');
  assert.ok(html.includes(`<pre id="f1-curl">curl -sS -H 'Ocp-Apim-Subscription-Key: ***'`), 'the curl line, masked');
  for (const label of ['received', 'documented', 'at', 'seed']) assert.ok(html.includes(`<dt>${label}</dt>`), label);
  assert.match(html, /\(seen by 3 tests\)/);
  assert.match(
    html,
    /<th scope="row">GET \/academic\/v1\.0\/evaluate<\/th><td class="num">12<\/td><td class="num">8\.3 ms<\/td><td class="num">95 ms<\/td>/,
  );
  assert.match(html, /@media print/);
  assert.doesNotMatch(html, /<link|src=|@import|url\(/, 'nothing loaded from anywhere');
});

test("the origin line: a run's time limit is not kgate failing, an exception is", () => {
  const failures: Failure[] = [
    { ...failure('paging-is-consistent'), title: NOT_RUN_DEADLINE, origin: 'error' },
    { ...failure('response-matches-spec', POST), title: 'TypeError: x is undefined', origin: 'error' },
  ];
  const html = renderReportHtml(conformancePage({ ...run, targets: [{ ...target, failures }] }, CHECKS));
  const origins = [...html.matchAll(/<dt>origin<\/dt>\s*<dd>([^<]*)<\/dd>/g)].map((match) => match[1]);
  assert.deepEqual(origins, [
    'not run: the run reached its time limit (--max-duration)',
    'kgate itself (not the target)',
  ]);
});

test('the page redacts a registered key wherever the model carries it', () => {
  registerSecret('page-test-key-9f2b7c41');
  const leaky: RunSummary = {
    ...run,
    targets: [{ ...target, notes: ['the target echoed page-test-key-9f2b7c41 in an error'] }],
  };
  const html = renderReportHtml(conformancePage(leaky, CHECKS));
  assert.ok(!html.includes('page-test-key-9f2b7c41'));
  assert.ok(html.includes('the target echoed *** in an error'));
});

test('compareFailures: new ones, fixed ones (or not judged), and the ones still there', () => {
  const cellNow = (item: Failure) => (item.check === 'orderby-is-honoured' ? 'skip' : 'pass') as 'skip' | 'pass';
  const cases: {
    given: { now: Failure[]; before: Failure[] };
    want: { added: string[]; fixed: string[]; still: number };
  }[] = [
    { given: { now: [], before: [] }, want: { added: [], fixed: [], still: 0 } },
    {
      given: {
        now: [failure('response-matches-spec', OP, '/entities/3/Y')],
        before: [failure('response-matches-spec', OP, '/entities/0/Y')],
      },
      want: { added: [], fixed: [], still: 1 },
    },
    {
      given: {
        now: [failure('paging-is-consistent')],
        before: [failure('auth-required'), failure('orderby-is-honoured')],
      },
      want: {
        added: [`[paging-is-consistent] ${OP}: paging-is-consistent broke`],
        fixed: [
          `[auth-required] ${OP}: auth-required broke`,
          `[orderby-is-honoured] ${OP}: orderby-is-honoured broke (not judged in this run: the check did not run or was skipped)`,
        ],
        still: 0,
      },
    },
  ];
  for (const { given, want } of cases) {
    const got = compareFailures(given.now, given.before, cellNow);
    assert.deepEqual(
      { added: got.added.map((item) => item.text), fixed: got.fixed.map((item) => item.text), still: got.still },
      want,
    );
  }
});

const base = mkdtempSync(join(tmpdir(), 'kgate-previous-'));
after(() => rmSync(base, { recursive: true, force: true }));

test('previousRun: the newest earlier run folder with a summary, nothing else', () => {
  const write = (name: string, summary?: object) => {
    mkdirSync(join(base, name), { recursive: true });
    if (summary) writeFileSync(join(base, name, 'summary.json'), JSON.stringify(summary));
    return join(base, name);
  };
  const first = write('20261124-050000-000-aaaa', { verdict: 'pass' });
  write('20261124-051000-000-bbbb'); // interrupted: no summary
  write('not-a-run', { verdict: 'fail' });
  const current = write('20261124-052000-000-cccc');
  write('20261124-053000-000-dddd', { verdict: 'fail' }); // later: never the previous one
  assert.equal(previousRun(current, 'summary.json')?.dir, first);
  assert.equal(previousRun(first, 'summary.json'), undefined, 'the first run has none');
  assert.equal(previousRun(join(base, 'not-a-run'), 'summary.json'), undefined, 'a --report-dir of its own has none');
  // With `finished`, a run stopped before its verdict is passed over for the one before it.
  const stopped = write('20261124-051500-000-eeee', { verdict: 'error', error: { kind: 'target' } });
  assert.equal(previousRun(current, 'summary.json')?.dir, stopped);
  const finished = (summary: unknown): summary is { verdict: string } =>
    (summary as { verdict?: string }).verdict !== 'error';
  assert.equal(previousRun(current, 'summary.json', finished)?.dir, first);
  const page = conformancePage(run, CHECKS, {
    dir: first,
    summary: { ...run, verdict: 'pass', targets: [{ ...target, failures: [] }] },
  });
  assert.equal(page.changes?.added.length, 1);
  assert.equal(page.changes?.previous.href, '../20261124-050000-000-aaaa/report.html');
});

test('the page of a run with a baseline: known failures, the known chip, expired, fixed and unjudged entries', () => {
  const known = {
    ...failure('orderby-is-honoured'),
    baseline: { reason: 'orderby lands in 4.2', expires: '2026-12-31' },
  };
  const withBaseline: TargetSummary = {
    ...target,
    counts: { ...target.counts, known: 1 },
    matrix: { [OP]: { ...target.matrix[OP], 'orderby-is-honoured': 'known' } },
    known: [known],
    baseline: {
      file: 'kgate.baseline.json',
      entries: 3,
      expired: 0,
      fixed: [{ check: 'auth-required', operation: OP, reason: 'was open' }],
      unjudged: [{ check: 'paging-is-consistent', operation: POST, reason: 'offset bug' }],
    },
  };
  const html = renderReportHtml(conformancePage({ ...run, targets: [withBaseline] }, CHECKS));
  assert.match(html, /data-count="known"><b>1<\/b>/);
  assert.match(html, /<td class="known"><a href="#(f\d+)"/);
  assert.match(html, /<article class="finding known" id="f\d+">/);
  assert.ok(html.includes('<dt>baseline</dt><dd>known until 2026-12-31: orderby lands in 4.2</dd>'));
  assert.ok(html.includes('fixed (remove it): [auth-required] GET /academic/v1.0/evaluate: was open'));
  assert.ok(html.includes('not judged: [paging-is-consistent] POST /academic/v1.0/evaluate: offset bug'));
  assert.match(html, /3 entries: 1 known, 0 expired \(failing again\), 1 fixed, 1 not judged in this run\./);
});

test('a run of several targets (a fault sweep): the headline counts failed targets, the details are the first failing one', () => {
  const clean: TargetSummary = {
    ...target,
    target: 'clean',
    verdict: 'pass',
    counts: { ...target.counts, failed: 0 },
    failures: [],
  };
  const fault: TargetSummary = { ...target, target: 'evaluate-year-as-string' };
  const page = conformancePage({ ...run, targets: [clean, fault] }, CHECKS);
  assert.equal(page.headline, '1 of 2 targets failed');
  assert.equal(page.matrix!.title, 'Operation x check: evaluate-year-as-string');
  assert.deepEqual(
    page.sections.find((section) => section.id === 'targets')!.items!.map((item) => item.text.split(':')[0]),
    ['clean', 'evaluate-year-as-string'],
  );
  const empty = conformancePage({ ...run, targets: [] }, CHECKS);
  assert.equal(empty.verdict, 'fail');
  assert.match(empty.headline, /failed without a failed cell/, 'a FAIL banner never reads as nothing failed');
});
