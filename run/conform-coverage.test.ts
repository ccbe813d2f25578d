// test-runner: long (budgeted and paced conform runs through the CLI, a ledger kept over runs)
// The coverage plan through the real CLI against the reference server on loopback: a budget too
// small refused before anything is sent, --max-requests held at the target, a paced time budget
// fitted at a scaled-down rate, every item judged once without a budget, and a ledger that rotates
// the items over runs (input-triggered faults of a sample caught within three runs), refused when
// damaged or foreign and never overwritten then.
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

test('a budget too small for the cells only their own tests judge is refused before any request, naming the smallest', async () => {
  arrivals = 0;
  const { code, stderr, result } = await conform(['--max-requests', '40']);
  assert.equal(code, 2, stderr);
  assert.match(stderr, /cannot hold the \d+ tests of the cells only their own tests judge \(auth-required/);
  const smallest = Number(/the smallest budget that would: --max-requests (\d+)/.exec(stderr)?.[1]);
  assert.ok(smallest > 40, stderr);
  assert.equal(arrivals, 0, 'nothing was sent');
  // With --json, the one object names the option and the rule.
  const { error } = result as unknown as { error: { kind: string; option: string; rule: string } };
  assert.deepEqual(
    [error.kind, error.option, error.rule],
    ['usage', '--max-requests', 'holds the cells only their own tests judge'],
  );
});

test('--max-requests is never exceeded at the target, the preflight and test data included; what did not fit is not judged in this run', async () => {
  arrivals = 0;
  const { code, result, stderr, reportDir } = await conform(['--max-requests', '220']);
  assert.equal(code, 0, stderr);
  assert.ok(arrivals <= 220, `the target received ${arrivals} requests`);
  const announced = Number(/about (\d+) requests \(per key: KGATE_KEY (\d+)/.exec(stderr)?.[1]);
  assert.ok(
    Math.abs(result!.requests! - announced) <= announced * 0.1,
    `announced ${announced}, sent ${result!.requests}`,
  );
  assert.match(stderr, /KGATE_KEY_UNSUBSCRIBED \d+, KGATE_KEY_EXHAUSTED \d+/, 'the requests of each key');
  const coverage = result!.coverage!;
  assert.ok(coverage.notPlanned.length > 0 && coverage.judged < coverage.items, 'the budget left items out');
  // A cell the plan left out may still be judged, by a property on another request's answer; one not
  // judged is never passed.
  const cells = coverage.notJudged.filter((item) => item.startsWith('cell:'));
  assert.ok(cells.length > 0, 'some cells were not judged');
  const matrix = result!.targets[0]!.matrix;
  for (const cell of cells) {
    const [, operationId, check] = cell.split(':');
    const label = getOperation(operationId!)!.label;
    assert.notEqual(matrix[label]?.[check!], 'pass', `${cell} not judged is never passed`);
  }
  assert.ok(
    result!.targets[0]!.skips.some((skip) => skip.reason.startsWith('not judged in this run')),
    'the cells left out are skipped with that reason',
  );
  const markdown = readFileSync(join(reportDir, 'summary.md'), 'utf8');
  assert.match(markdown, /### Coverage/);
  assert.match(markdown, /not judged in this run: the budget left them out/);
  assert.match(readFileSync(join(reportDir, 'report.html'), 'utf8'), /Coverage/);
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

/** Input-triggered faults of three groups (a sample: the bench judges every one). */
const SAMPLE = ['calchistogram-right-to-left-500', 'hotevents-century-year-500', 'answersearch-emoji-500'];

test('a budgeted gate with a ledger judges first what it never judged: input-triggered faults of a sample are caught within three runs', async () => {
  for (const fault of SAMPLE) {
    const ledger = join(dir, `ledger-${fault}.json`);
    let caughtIn: number | undefined;
    const never: number[] = [];
    for (let run = 1; run <= 3 && caughtIn === undefined; run++) {
      const { code, result, stderr } = await conform(
        // About what a 10-minute budget holds at the real service's published limits (539 requests).
        ['--max-requests', '540', '--ledger', ledger],
        `${server.url}/faults/${fault}`,
      );
      assert.ok(code === 0 || code === 1, stderr);
      never.push(result!.coverage!.never!);
      if (result!.targets[0]!.failures.some((failure) => failure.check === 'no-server-error')) caughtIn = run;
    }
    assert.ok(
      caughtIn !== undefined,
      `${fault} caught within three runs of the ledger (never judged: ${never.join(', ')})`,
    );
    assert.ok(
      never.every((count, i) => i === 0 || count < never[i - 1]!),
      `the ledger rotates: ${never.join(', ')}`,
    );
    const kept = JSON.parse(readFileSync(ledger, 'utf8')) as Ledger;
    assert.equal(kept.runs.length, caughtIn);
    const failed = Object.entries(kept.items).filter(([, entry]) => entry.verdict === 'fail');
    assert.ok(failed.length > 0, `${fault}: the ledger names what failed`);
    assert.ok(
      failed.some(([, entry]) => /^kgate fuzz --base-url \S+ --seed 1 --items /.test(entry.failed?.replay ?? '')),
      'a finding replays from its seed and items',
    );
  }
  assert.ok(!existsSync(join(dir, 'ledger-unused.json')));
});
