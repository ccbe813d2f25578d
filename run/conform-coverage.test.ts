// test-runner: long (budgeted and paced conform runs through the CLI, a ledger kept over runs)
// The coverage plan through the real CLI against the reference server on loopback: only a budget
// too small for one judged answer refused before anything is sent, --max-requests held at the target
// from a few dozen up with figures that add up in every report, a paced time budget fitted at a
// scaled-down rate, every item judged once without a budget, a ledger at --max-requests 100 that
// judges every item within 9 runs and 1.4x one unbudgeted run (input-triggered faults of a sample
// caught within its cycle), refused when damaged or foreign and never overwritten then.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { getOperation } from '../openapi/spec.ts';
import { type ReferenceServer, startReferenceServer } from '../reference/index.ts';
import type { RunSummary } from '../reporting/summary.ts';
import { type ArrivalsProxy, startArrivalsProxy } from '../scripts/arrivals-proxy.ts';
import { runKgate } from '../scripts/run-process.ts';
import type { Ledger } from './ledger.ts';

let server: ReferenceServer;
let proxy: ArrivalsProxy;
let dir: string;
let arrivals = 0;
before(async () => {
  server = await startReferenceServer({ quiet: true });
  proxy = await startArrivalsProxy(server.url, () => {
    arrivals++;
  });
  dir = mkdtempSync(join(tmpdir(), 'kgate-coverage-'));
});
after(async () => {
  proxy.close();
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

let runs = 0;
/** Runs `kgate conform --json` against `target` (default: the proxy before the clean server). */
async function conform(
  args: string[],
  target = proxy.url,
): Promise<{ code: number | null; result?: RunSummary; stderr: string; reportDir: string }> {
  const reportDir = join(dir, `run-${++runs}`);
  const { code, stdout, stderr } = await runKgate(
    ['conform', '--base-url', target, '--report-dir', reportDir, '--json', ...args],
    {
      cwd: dir,
      env: {
        KGATE_BASE_URL: '',
        KGATE_CONFORM_OPTIONS: '',
        GITHUB_STEP_SUMMARY: '',
        KGATE_KEY: server.keys.full,
        KGATE_KEY_UNSUBSCRIBED: server.keys.academicOnly,
        KGATE_KEY_UNSUBSCRIBED_COVERS: 'academic',
        KGATE_KEY_EXHAUSTED: server.keys.exhausted,
      },
    },
  );
  let result: RunSummary | undefined;
  try {
    result = JSON.parse(stdout) as RunSummary;
  } catch {
    // A run that stops without its object says why on stderr.
  }
  return { code, result, stderr, reportDir };
}

test('only a budget too small for one judged answer is refused, before any request, naming the smallest', async () => {
  arrivals = 0;
  const { code, stderr, result } = await conform(['--max-requests', '4']);
  assert.equal(code, 2, stderr);
  assert.match(stderr, /cannot hold one judged answer/);
  const smallest = Number(/the smallest budget that would: --max-requests (\d+)/.exec(stderr)?.[1]);
  assert.ok(smallest > 4 && smallest <= 10, stderr);
  assert.equal(arrivals, 0, 'nothing was sent');
  // With --json, the one object names the option and the rule.
  const { error } = result as unknown as { error: { kind: string; option: string; rule: string } };
  assert.deepEqual([error.kind, error.option, error.rule], ['usage', '--max-requests', 'holds one judged answer']);
});

test('--max-requests 60 with every key gives a verdict and sends at most 60; every report adds up', async () => {
  arrivals = 0;
  const { code, result, stderr, reportDir } = await conform(['--max-requests', '60']);
  assert.equal(code, 0, stderr);
  assert.ok(arrivals <= 60, `the target received ${arrivals} requests`);
  assert.equal(result!.verdict, 'pass');
  const announced = Number(/about (\d+) requests \(per key: KGATE_KEY (\d+)/.exec(stderr)?.[1]);
  assert.ok(
    Math.abs(arrivals - announced) <= announced * 0.1,
    `announced ${announced}, the target received ${arrivals} (the preflight included)`,
  );
  assert.match(stderr, /no key or a wrong one \d+/, "each group's auth cells judged");
  const coverage = result!.coverage!;
  assert.ok(coverage.judged > 0 && coverage.notJudged.length > 0, 'the budget judged some items and left others');
  assert.equal(coverage.judged + coverage.notJudged.length, coverage.items, 'judged and not judged make the total');
  // A cell the plan left out may still be judged, by a property on another request's answer; one not
  // judged is never passed.
  const matrix = result!.targets[0]!.matrix;
  for (const cell of coverage.notJudged.filter((item) => item.startsWith('cell:'))) {
    const [, operationId, check] = cell.split(':');
    assert.notEqual(matrix[getOperation(operationId!)!.label]?.[check!], 'pass', `${cell} not judged is never passed`);
  }
  assert.ok(
    result!.targets[0]!.skips.some((skip) => skip.reason.startsWith('not judged in this run')),
    'the cells left out are skipped with that reason',
  );
  // The same figures in summary.md (its per-operation rows summing to the headline) and on the page.
  const headline = `${coverage.judged} of ${coverage.items} items judged in this run, ${coverage.notJudged.length} not judged in this run`;
  const markdown = readFileSync(join(reportDir, 'summary.md'), 'utf8');
  assert.ok(markdown.includes(headline), `summary.md says: ${headline}`);
  const prefix = 'Not judged in this run, per operation: ';
  const line = markdown.split('\n').find((text) => text.startsWith(prefix)) ?? '';
  const rows = line
    .slice(prefix.length, line.indexOf(' (each item'))
    .split(', ')
    .reduce((sum, entry) => sum + Number(/^\S+ (\d+)/.exec(entry)?.[1]), 0);
  assert.equal(rows, coverage.notJudged.length, `per-operation rows sum to the headline: ${line}`);
  assert.ok(readFileSync(join(reportDir, 'report.html'), 'utf8').includes(headline), 'the page says the same');
});

test('with --checks the announcement is within 10 % of what is sent, budgeted or not', async () => {
  for (const args of [
    ['--checks', 'response-matches-spec'],
    ['--checks', 'paging-is-consistent'],
    ['--checks', 'auth-required,no-server-error'],
    ['--checks', 'paging-is-consistent', '--max-requests', '100'],
  ]) {
    arrivals = 0;
    const { code, stderr } = await conform(args);
    assert.equal(code, 0, stderr);
    // The unbudgeted line counts the run's own requests; the plan's, the key preflight's too.
    const range = /will send about (\d+)(?: to (\d+))? requests/.exec(stderr);
    const planned = Number(/plan for the budget .*?about (\d+) requests/.exec(stderr)?.[1]);
    const sent = range ? arrivals - 4 : arrivals;
    const [low, high] = range ? [Number(range[1]), Number(range[2] ?? range[1])] : [planned, planned];
    assert.ok(sent >= low * 0.9 && sent <= high * 1.1, `${args.join(' ')}: announced ${low} to ${high}, sent ${sent}`);
  }
});

test('a paced time budget, scaled down, is fitted: the run ends within it and sends what it announced', async () => {
  const { code, result, stderr } = await conform([
    '--max-rps',
    '40',
    '--max-rps-by-path',
    '/academic/v1.0/calchistogram=4',
    '--max-duration',
    '30s',
    '--grep',
    'calchistogram|evaluate',
  ]);
  assert.equal(code, 0, stderr);
  assert.match(stderr, /plan for the budget \(--max-duration 30 s\): \d+ of \d+ items judged in this run/);
  const announced = Number(/about (\d+) requests/.exec(stderr)?.[1]);
  assert.ok(
    Math.abs(result!.requests! - announced) <= announced * 0.1,
    `announced ${announced}, sent ${result!.requests}`,
  );
  assert.ok(result!.durationMs < 30_000, `ended within the budget: ${result!.durationMs} ms`);
  assert.ok(
    result!.targets[0]!.failures.every((failure) => !/not run/.test(failure.title)),
    'nothing cut short by the deadline',
  );
});

test('without a budget every item of the selection is judged once', async () => {
  const { code, result, stderr } = await conform(['--grep', 'hotevents']);
  assert.equal(code, 0, stderr);
  const coverage = result!.coverage!;
  assert.deepEqual(coverage.notJudged, [], 'every cell and input item of hot events judged');
  assert.equal(coverage.judged, coverage.items);
});

test('a damaged or foreign ledger is refused naming the file and the rule, exit 2, and left as it is', async () => {
  const damaged = join(dir, 'damaged.json');
  writeFileSync(damaged, '{"kgateCoverageLedger": 1, "runs": [');
  const first = await conform(['--ledger', damaged]);
  assert.equal(first.code, 2);
  assert.match(first.stderr, new RegExp(`ledger ${damaged} is not JSON`));
  assert.equal(readFileSync(damaged, 'utf8'), '{"kgateCoverageLedger": 1, "runs": [', 'never overwritten');
  const { error } = first.result as unknown as { error: { option: string; file: string; rule: string } };
  assert.deepEqual([error.option, error.file, error.rule], ['--ledger', damaged, 'is JSON']);
  const foreign = join(dir, 'foreign.json');
  const text = JSON.stringify({
    kgateCoverageLedger: 1,
    target: 'https://other.example.org',
    specSha256: 'x',
    runs: [],
    items: {},
  });
  writeFileSync(foreign, text);
  const second = await conform(['--ledger', foreign]);
  assert.equal(second.code, 2);
  assert.match(second.stderr, /belongs to another target \(https:\/\/other\.example\.org\)/);
  assert.equal(
    (second.result as unknown as { error: { rule: string } }).error.rule,
    'belongs to the target of the run',
  );
  assert.equal(readFileSync(foreign, 'utf8'), text);
});

test('a ledger at --max-requests 100 judges every item within 9 runs, at most 1.4x one unbudgeted run, and says so plainly', async () => {
  arrivals = 0;
  const whole = await conform([]);
  assert.equal(whole.code, 0, whole.stderr);
  const unbudgeted = arrivals;
  const ledger = join(dir, 'ledger-100.json');
  let sent = 0;
  let runs = 0;
  let cycle: number | undefined;
  let coverage: RunSummary['coverage'];
  while (runs < 9) {
    arrivals = 0;
    const { code, result, stderr } = await conform(['--max-requests', '100', '--ledger', ledger]);
    assert.equal(code, 0, stderr);
    runs++;
    sent += arrivals;
    assert.ok(arrivals <= 100, `run ${runs}: ${arrivals} requests`);
    // The first lines name the ledger, its runs so far and what this run sends first.
    assert.match(
      stderr,
      runs === 1
        ? /ledger \S+: a new ledger, no runs yet; this run sends first \d+ never judged/
        : new RegExp(`ledger \\S+: ${runs - 1} runs? so far; this run sends first`),
    );
    cycle ??= Number(/at this budget a full cycle takes about (\d+) runs/.exec(stderr)?.[1]);
    coverage = result!.coverage!;
    assert.equal(coverage.ledger?.runs, runs);
    if (coverage.never === 0) break;
    assert.equal(coverage.ledger?.allWithin, undefined, 'no claim that every item was judged before it is so');
  }
  assert.equal(coverage!.never, 0, `every item judged within ${runs} runs`);
  assert.equal(coverage!.ledger?.judged, coverage!.items);
  assert.ok((coverage!.ledger?.allWithin ?? 99) <= runs, 'every item at least once in the last runs, as said');
  assert.ok(
    sent <= 1.4 * unbudgeted,
    `${sent} requests in ${runs} runs: ${(sent / unbudgeted).toFixed(2)}x one unbudgeted run (${unbudgeted})`,
  );
  assert.ok(Math.abs(runs - (cycle ?? 0)) <= 1, `announced a cycle of about ${cycle} runs; it took ${runs}`);
  const kept = JSON.parse(readFileSync(ledger, 'utf8')) as Ledger;
  assert.ok(
    Object.values(kept.items).every((entry) => entry.cost !== undefined),
    'the ledger keeps what judging each item cost',
  );
  assert.ok(
    kept.runs.every((run) => (run.requests ?? 0) > 0 && (run.requests ?? 0) <= 100),
    'and what each run sent',
  );
});

test('--quota N/month: the announcement says what the month holds, and the runs of a ledger stay within it', async () => {
  const ledger = join(dir, 'ledger-quota.json');
  const quota = 160;
  let sent = 0;
  arrivals = 0;
  const first = await conform(['--quota', `${quota}/month`, '--max-requests', '100', '--ledger', ledger]);
  assert.equal(first.code, 0, first.stderr);
  sent += arrivals;
  assert.ok(arrivals <= 100, 'no more than --max-requests');
  const holds =
    /quota 160\/month: the month holds about (\d+) verdicts? of this run's size \(about (\d+) requests\)/.exec(
      first.stderr,
    );
  assert.ok(holds, first.stderr);
  assert.equal(Number(holds[1]), Math.floor(quota / Number(holds[2])), 'the verdicts of this size the month holds');
  assert.match(
    first.stderr,
    /at one run per push a full cycle \(about \d+ runs\) takes (about [\d.]+ days|a day or less)/,
  );
  // The second run has what the month has left: the quota less what the first sent.
  arrivals = 0;
  const second = await conform(['--quota', `${quota}/month`, '--max-requests', '100', '--ledger', ledger]);
  assert.equal(second.code, 0, second.stderr);
  assert.match(
    second.stderr,
    new RegExp(`--quota 160/month: ${quota - sent} left this month \\(${sent} sent by the ledger's runs\\)`),
  );
  assert.ok(arrivals <= quota - sent, `the second run sent ${arrivals} of the ${quota - sent} left`);
  sent += arrivals;
  // Once what is left holds no judged answer, the run is refused before it sends anything.
  arrivals = 0;
  const third = await conform(['--quota', `${quota}/month`, '--ledger', ledger]);
  if (quota - sent < 5) {
    assert.equal(third.code, 2, third.stderr);
    assert.match(third.stderr, /the month's quota .* cannot hold one judged answer/);
    assert.equal(arrivals, 0);
  } else assert.ok(arrivals <= quota - sent, `the third run sent ${arrivals} of the ${quota - sent} left`);
  const kept = JSON.parse(readFileSync(ledger, 'utf8')) as Ledger;
  assert.ok(
    kept.runs.reduce((sum, run) => sum + (run.requests ?? 0), 0) <= quota,
    'the month never went over its quota',
  );
});

/** Input-triggered faults of three groups (a sample: the bench judges every one). */
const SAMPLE = ['calchistogram-right-to-left-500', 'hotevents-century-year-500', 'answersearch-emoji-500'];

test('at --max-requests 100 a ledger catches input-triggered faults of a sample within its cycle, and judges a failure again next run', async () => {
  for (const fault of SAMPLE) {
    const ledger = join(dir, `ledger-${fault}.json`);
    let caughtIn: number | undefined;
    let cycle = 9;
    for (let run = 1; run <= cycle && caughtIn === undefined; run++) {
      const { code, result, stderr } = await conform(
        ['--max-requests', '100', '--ledger', ledger],
        `${server.url}/faults/${fault}`,
      );
      assert.ok(code === 0 || code === 1, stderr);
      if (run === 1) cycle = Number(/a full cycle takes about (\d+) runs/.exec(stderr)?.[1] ?? 9);
      if (result!.targets[0]!.failures.some((failure) => failure.check === 'no-server-error')) caughtIn = run;
    }
    assert.ok(caughtIn !== undefined, `${fault} caught within the cycle of ${cycle} runs`);
    const kept = JSON.parse(readFileSync(ledger, 'utf8')) as Ledger;
    const failed = Object.entries(kept.items).filter(([, entry]) => entry.verdict === 'fail');
    assert.ok(failed.length > 0, `${fault}: the ledger names what failed`);
    assert.ok(
      failed.some(([, entry]) => /^kgate fuzz --base-url \S+ --seed 1 --items /.test(entry.failed?.replay ?? '')),
      'a finding replays from its seed and items',
    );
    // The next run sends what failed first, and fails again.
    const again = await conform(['--max-requests', '100', '--ledger', ledger], `${server.url}/faults/${fault}`);
    assert.match(again.stderr, /this run sends first \d+ items? that failed the last time judged/);
    assert.ok(
      again.result!.targets[0]!.failures.some((failure) => failure.check === 'no-server-error'),
      `${fault}: judged again, and failing again`,
    );
  }
  assert.ok(!existsSync(join(dir, 'ledger-unused.json')));
});
