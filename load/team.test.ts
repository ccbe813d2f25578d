// test-runner: long (thirteen load runs through the CLI against the reference server and its slowed evaluate)
// A team's own terms, through the CLI against the reference server and its fault catalogue's
// `evaluate-slow-40ms` (GET evaluate answered 40 ms late, everything else as fast as ever): its
// thresholds per operation, its recorded traffic as the mix, and the run compared with an earlier
// one. The fault's 40 ms is the margin every latency judgement here has: a rule at 40 ms holds for
// a clean operation unless the machine stalls its median that long.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { SLOW_MS } from '../reference/faults/release.ts';
import { type ReferenceServer, startReferenceServer } from '../reference/index.ts';
import { type RecordingFront, startRecordingFront } from '../scripts/recording-front.ts';
import { type ProcessResult, RUN_ALONE_ENV, runKgate } from '../scripts/run-process.ts';
import type { LoadSummary } from './report.ts';

let server: ReferenceServer;
let dir: string;
const slowed = () => `${server.url}/faults/evaluate-slow-40ms`;

before(async () => {
  server = await startReferenceServer({ quiet: true });
  dir = mkdtempSync(join(tmpdir(), 'kgate-load-team-'));
});
after(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A steady run scaled down, through the CLI from `cwd`, every answer unvalidated (the rules here are latency's). */
function load(args: string[], cwd = dir): Promise<ProcessResult> {
  return runKgate(['load', 'steady', '--validate-share', '0', '--json', ...args], {
    cwd,
    env: { ...RUN_ALONE_ENV, KGATE_KEY: server.keys.full, CI: '1' },
    timeoutMs: 90_000,
  });
}

function summaryOf(run: ProcessResult): LoadSummary & { exitCode: number } {
  try {
    return JSON.parse(run.stdout) as LoadSummary & { exitCode: number };
  } catch {
    throw new Error(`no JSON summary: ${run.stdout}\n${run.stderr}`);
  }
}

describe("the team's thresholds, per operation", () => {
  const rules = [
    `evaluateGet: p(50)<${SLOW_MS}ms`,
    'evaluateGet: p(95)<10s',
    `evaluatePost: p(50)<${SLOW_MS}ms`,
    `interpretGet: p(50)<${SLOW_MS}ms`,
    `hotEvents: p(50)<${SLOW_MS}ms`,
  ];
  const args = (target: string) => [
    '--max-rps',
    '40',
    '--duration',
    '3s',
    '--base-url',
    target,
    ...rules.flatMap((rule) => ['--threshold', rule]),
  ];

  test('against a slowed GET evaluate: its tight rule fails, alone; its loose one and the other operations pass', async () => {
    const run = await load([...args(slowed()), '--report-dir', join(dir, 'slowed-rules')]);
    const summary = summaryOf(run);
    assert.equal(run.code, 1, run.stderr);
    assert.deepEqual(
      summary.verdicts.filter((v) => v.status === 'fail').map((v) => v.rule),
      [`evaluateGet: p(50)<${SLOW_MS}ms`],
      JSON.stringify(summary.verdicts),
    );
    const loose = summary.verdicts.find((v) => v.rule === 'evaluateGet: p(95)<10s')!;
    assert.equal(loose.status, 'pass');
    assert.ok(loose.actual! >= SLOW_MS, `GET evaluate was slowed: p95 ${loose.actual} ms`);
    for (const rule of rules.slice(2))
      assert.equal(summary.verdicts.find((v) => v.rule === rule)?.status, 'pass', rule);
    assert.deepEqual(
      summary.thresholds.filter((t) => t.source === '--threshold').map((t) => t.rule),
      rules,
      'the rules given, in summary.json',
    );
    // The terminal line of the breach names the operation, the rule and what was measured.
    const human = await runKgate(
      ['load', 'steady', '--validate-share', '0', ...args(slowed()), '--report-dir', join(dir, 'slowed-human')],
      { cwd: dir, env: { ...RUN_ALONE_ENV, KGATE_KEY: server.keys.full, CI: '1' }, timeoutMs: 90_000 },
    );
    assert.equal(human.code, 1);
    assert.match(human.stdout, new RegExp(`^FAIL {4}evaluateGet p\\(50\\)<${SLOW_MS}ms: measured \\d+\\.\\d ms$`, 'm'));
    assert.match(human.stdout, /^PASS {4}evaluatePost p\(50\)<40ms: measured/m);
    assert.match(human.stdout, /kgate load steady: FAIL: 1 of 9 thresholds breached/);
    assert.match(
      readFileSync(join(dir, 'slowed-human', 'report.html'), 'utf8'),
      /evaluateGet<\/td><td>p\(50\)&lt;40ms<\/td>/,
      'the page names the operation and the rule',
    );
  });

  test('against the clean server every rule passes', async () => {
    const run = await load([...args(server.url), '--report-dir', join(dir, 'clean-rules')]);
    const summary = summaryOf(run);
    assert.equal(run.code, 0, JSON.stringify(summary.verdicts.filter((v) => v.status === 'fail')));
    assert.equal(
      summary.verdicts.filter((v) => v.status === 'pass').length,
      8,
      'all but the valid share (nothing validated)',
    );
  });

  test('a malformed rule is refused before anything is sent, naming the option and the rule', async () => {
    const run = await load(['--threshold', 'evaluateGet: p(95)<300', '--base-url', server.url]);
    assert.equal(run.code, 2);
    const stop = JSON.parse(run.stdout) as { error: { option: string; rule: string; message: string } };
    assert.equal(stop.error.option, '--threshold');
    assert.match(stop.error.message, /a bare number has no unit: write 300ms or 300s/);
  });

  test("the configuration file's load.thresholds are read, and --threshold replaces one of the same operation and measure", async () => {
    const config = join(dir, 'team.config.json');
    writeFileSync(
      config,
      JSON.stringify({ load: { thresholds: { evaluateGet: `p(50)<${SLOW_MS}ms`, '*': ['p(99)<10s'] } } }),
    );
    const run = await load([
      '--max-rps',
      '20',
      '--duration',
      '2s',
      '--base-url',
      slowed(),
      '--config',
      config,
      '--threshold',
      'evaluateGet: p(50)<10s',
      '--report-dir',
      join(dir, 'config-rules'),
    ]);
    const summary = summaryOf(run);
    assert.equal(run.code, 0, run.stderr);
    assert.deepEqual(summary.thresholds, [
      { rule: '*: p(95)<=250ms', source: 'scenario' },
      { rule: '*: error_rate<=1%', source: 'scenario' },
      { rule: '*: valid_share>=99%', source: 'scenario' },
      { rule: '*: p(99)<10s', source: 'configuration file' },
      { rule: 'evaluateGet: p(50)<10s', source: '--threshold' },
    ]);
    writeFileSync(config, JSON.stringify({ load: { thresholds: { evaluateGet: 'p(50)<40' } } }));
    const bad = await load(['--base-url', server.url, '--config', config]);
    assert.equal(bad.code, 2);
    assert.match(
      (JSON.parse(bad.stdout) as { error: { message: string } }).error.message,
      /key 'load\.thresholds\.evaluateGet' must hold thresholds in k6's syntax.*got 'p\(50\)<40' \(a bare number has no unit/,
    );
  });
});

describe('against an earlier run', () => {
  /** The same steady run, written under `cwd`'s reports/load/ (so that `latest` finds it). */
  const steady = (target: string, extra: string[] = []) =>
    load(['--max-rps', '100', '--duration', '5s', '--base-url', target, ...extra], join(dir, 'history'));
  let first: LoadSummary & { reportDir?: string };

  before(async () => {
    mkdirSync(join(dir, 'history'));
    const run = await steady(server.url);
    first = summaryOf(run) as typeof first;
    assert.equal(run.code, 0, run.stderr);
  });

  test('five more runs of the clean server, each against the one before with its own seed: no regression', async () => {
    for (let seed = 1; seed <= 5; seed++) {
      const run = await steady(server.url, ['--against-run', 'latest', '--seed', String(seed)]);
      const summary = summaryOf(run);
      const against = summary.against!;
      assert.ok(against, `seed ${seed}: compared`);
      assert.deepEqual(
        against.regressed,
        [],
        `seed ${seed}: ${JSON.stringify(against.operations.filter((op) => op.regression))}`,
      );
      assert.equal(run.code, 0, `seed ${seed}: ${run.stderr}`);
      assert.equal(against.statistics.seed, seed);
      assert.ok(against.operations.filter((op) => !op.notJudged).length >= 8, 'most operations judged');
    }
  });

  test('a run of the slowed server against the first names GET evaluate and no other operation', async () => {
    const reports = readdirSync(join(dir, 'history', 'reports', 'load'));
    assert.ok(reports.includes(first.runId), `the first run's folder is kept: ${reports.join(', ')}`);
    const firstDir = join(dir, 'history', 'reports', 'load', first.runId);
    const run = await steady(slowed(), ['--against-run', firstDir]);
    const summary = summaryOf(run);
    assert.equal(run.code, 1, run.stderr);
    assert.deepEqual(summary.against!.regressed, ['evaluateGet']);
    const evaluate = summary.against!.operations.find((op) => op.operationId === 'evaluateGet')!;
    // About 110 GET evaluates a run: enough for a p95 (5 beyond it), not for a p99 (shown, not judged).
    assert.deepEqual(
      evaluate.latency.map((l) => [l.stat, l.regression, l.notJudged !== undefined]),
      [
        ['p50', true, false],
        ['p95', true, false],
        ['p99', false, true],
      ],
    );
    const p50 = evaluate.latency[0]!;
    assert.ok(p50.current - p50.previous >= SLOW_MS * 0.9, `p50 ${p50.previous} -> ${p50.current} ms`);
    assert.ok(p50.interval[0] > 1, `interval ${p50.interval}`);
    assert.equal(summary.against!.previous.runId, first.runId);
    assert.match(run.stderr, /regressed against run \S+: evaluateGet$/m);
    const page = readFileSync(join((summary as unknown as { reportDir: string }).reportDir, 'report.html'), 'utf8');
    assert.match(page, /id="against-chart"/, 'the chart on the page');
    assert.equal((page.match(/data-flagged="true"/g) ?? []).length, 2, "evaluateGet's p50 and p95 flagged");
  });

  test('an earlier run that cannot be compared with stops the run before any load', async () => {
    const run = await load(['--against-run', join(dir, 'nowhere'), '--base-url', server.url]);
    assert.equal(run.code, 2);
    const stop = JSON.parse(run.stdout) as { error: { option: string; message: string } };
    assert.equal(stop.error.option, '--against-run');
    assert.match(stop.error.message, /no such folder/);
    const none = await load(['--against-run', 'latest', '--base-url', server.url], mkdtempSync(join(dir, 'empty-')));
    assert.equal(none.code, 2);
    assert.match(none.stdout, /no earlier run of the steady scenario in reports\/load\//);
  });
});

describe('the team traffic, from a HAR of 1,000 recorded requests', () => {
  const RECORDED_KEY = 'har0recorded0key0that0must0never0leave0the0file';
  /** The recorded traffic: operation, its share, and the inputs people typed. */
  const TRAFFIC = [
    {
      op: 'interpretGet',
      share: 0.55,
      make: (i: number) =>
        `/academic/v1.0/interpret?query=${encodeURIComponent(['papers by jaime teevan', 'latent semantic', 'information retrieval 2012', 'search engines', 'web mining'][i % 5]!)}&complete=1&count=5`,
    },
    {
      op: 'evaluateGet',
      share: 0.25,
      make: (i: number) =>
        `/academic/v1.0/evaluate?expr=${encodeURIComponent(`Composite(AA.AuN=='jaime teevan')`)}&count=${5 + (i % 4)}&attributes=Id,Ti,Y`,
    },
    {
      op: 'calchistogramGet',
      share: 0.08,
      make: () => `/academic/v1.0/calchistogram?expr=${encodeURIComponent('Y=[2010,2012]')}&attributes=Y`,
    },
    { op: 'evaluatePost', share: 0.05, make: () => '/academic/v1.0/evaluate' },
    {
      op: 'hotEvents',
      share: 0.04,
      make: (i: number) => `/eventknowledge/v1.0/hotevents?date=2024-03-0${1 + (i % 8)}`,
    },
    {
      op: 'eventDocuments',
      share: 0.03,
      make: () => '/eventknowledge/v1.0/events/0123456789abcdef0123456789abcdef/documents?$top=5',
    },
  ];
  let front: RecordingFront;
  let har: string;

  before(async () => {
    front = await startRecordingFront(server.url);
    const entries = TRAFFIC.flatMap(({ op, share, make }) =>
      Array.from({ length: Math.round(share * 1000) }, (_, i) => {
        const post = op === 'evaluatePost';
        // Every other request carries the key in the query, as some clients send it.
        const path = make(i);
        const url = `https://api.example.org/prefix${path}${i % 2 === 0 && !post ? `&subscription-key=${RECORDED_KEY}` : ''}`;
        return {
          request: {
            method: post ? 'POST' : 'GET',
            url,
            headers: [
              { name: 'Ocp-Apim-Subscription-Key', value: RECORDED_KEY },
              { name: 'Cookie', value: `session=${RECORDED_KEY}` },
            ],
            ...(post
              ? {
                  postData: {
                    mimeType: 'application/x-www-form-urlencoded',
                    text: `expr=${encodeURIComponent("Composite(F.FN=='machine learning')")}&count=3&subscription-key=${RECORDED_KEY}`,
                  },
                }
              : {}),
          },
          response: { status: 200, headers: [], content: { mimeType: 'application/json', text: '{}' } },
        };
      }),
    );
    assert.equal(entries.length, 1000);
    har = join(dir, 'traffic.har');
    writeFileSync(har, JSON.stringify({ log: { version: '1.2', entries } }));
  });
  after(() => front?.close());

  test('the operation shares sent are the recorded ones within 5 points; the inputs are the recorded ones; the recorded key is never read or written', async () => {
    const reports = join(dir, 'har-run');
    const run = await load([
      '--max-rps',
      '100',
      '--duration',
      '4s',
      '--mix-from',
      har,
      '--base-url',
      front.url,
      '--report-dir',
      reports,
    ]);
    const summary = summaryOf(run);
    assert.equal(summary.mix.origin.kind, 'har');
    assert.deepEqual(
      [summary.mix.origin.entries, summary.mix.origin.used, summary.mix.origin.refused, summary.mix.origin.unmatched],
      [1000, 1000, 0, 0],
    );
    for (const { op, share } of TRAFFIC) {
      const item = summary.mix.comparison.operations.find((o) => o.operationId === op)!;
      assert.ok(Math.abs(item.asked - share) < 1e-9, `${op}: asked ${item.asked}, recorded ${share}`);
      assert.ok(Math.abs(item.sent - share) <= 0.05, `${op}: sent ${item.sent}, recorded ${share}`);
    }
    assert.ok(summary.mix.comparison.largestGapPoints <= 5);
    assert.equal(summary.result.statuses['200'], summary.result.sent, `every request answered 200: ${run.stderr}`);
    // What reached the front: the run's own key, the recorded inputs.
    assert.ok(front.seen.length >= 300, `${front.seen.length} requests reached the front`);
    assert.ok(front.seen.every((seen) => seen.headers['ocp-apim-subscription-key'] === server.keys.full));
    assert.ok(
      front.seen.every((seen) => !seen.headers.cookie),
      'no recorded header is sent',
    );
    const queries = new Set(
      front.seen
        .filter((seen) => seen.target.includes('/interpret?'))
        .map((seen) => new URL(seen.target, 'http://x').searchParams.get('query')),
    );
    assert.ok(queries.size >= 4, `interpret's recorded queries drawn: ${[...queries].join(', ')}`);
    for (const query of queries)
      assert.ok(
        [
          'papers by jaime teevan',
          'latent semantic',
          'information retrieval 2012',
          'search engines',
          'web mining',
        ].includes(query!),
        String(query),
      );
    const everything = [
      run.stdout,
      run.stderr,
      ...front.seen.map((seen) => JSON.stringify(seen)),
      ...readdirSync(reports).map((file) => readFileSync(join(reports, file), 'utf8')),
    ];
    assert.ok(existsSync(join(reports, 'latency-samples.json')));
    assert.deepEqual(
      everything.filter((text) => text.includes(RECORDED_KEY)).map((text) => text.slice(0, 120)),
      [],
      'the recorded key is in no request, output or report',
    );
  });
});
