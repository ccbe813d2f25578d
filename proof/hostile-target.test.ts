// test-runner: long (eighteen conform runs against hostile targets)
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { NOT_RUN_GIVEN_UP } from '../contracts/api.ts';
import { getCheck } from '../contracts/checks/index.ts';
import { getOperation } from '../openapi/spec.ts';
import { type ReferenceServer, startReferenceServer } from '../reference/index.ts';
import { watchMemory } from '../scripts/process-memory.ts';
import { ROOT, referenceKeyEnv, runKgate } from '../scripts/run-process.ts';
import { type HostileBehaviour, startHostileTarget } from './hostile-target.ts';

// kgate conform against a target whose evaluate misbehaves while every other operation is the
// reference server's: each behaviour must end in exit 1, a failure named on evaluate and nowhere
// else, with no process of kgate above 400 MB and no stack trace, in bounded time (twice a clean run
// plus one deadline is the target, measured by `npm run bench -- hostile` beside a busy core; here
// with a second deadline of margin for a shared machine). A short deadline keeps the runs short;
// the fixed battery alone (--generate 0) is judged, the generative phase sends more of the same
// requests.

const REPORT_DIR = 'reports/hostile-target-test';
const TIMEOUT_MS = 2_000;
const MEMORY_LIMIT = 400 * 1024 * 1024;
const EVALUATE = ['GET /academic/v1.0/evaluate', 'POST /academic/v1.0/evaluate'];

interface Failure {
  check: string;
  operation: string;
  title: string;
  received?: string;
  origin?: string;
}
interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
  peakProcess: number;
  peakTree: number;
  summary?: {
    verdict: string;
    targets: {
      failures: Failure[];
      warnings: Failure[];
      skips: { operation: string; check: string; reason: string }[];
      matrix: Record<string, Record<string, string>>;
    }[];
  };
}

let reference: ReferenceServer;
let cleanMs = 0;

/** Runs kgate conform against a hostile target, measuring its wall time and memory. */
async function conformAgainst(
  behaviour: HostileBehaviour,
  extra: string[] = [],
  options: {
    delayMs?: number;
    dir?: string;
    generate?: boolean;
    terminal?: boolean;
    stepSummary?: string;
    path?: string;
  } = {},
): Promise<Run> {
  const target = await startHostileTarget({
    upstream: reference.url,
    behaviour,
    delayMs: options.delayMs,
    path: options.path,
  });
  const dir = options.dir ?? `${REPORT_DIR}/${behaviour}`;
  let watch: ReturnType<typeof watchMemory> | undefined;
  const started = performance.now();
  try {
    const result = await runKgate(
      [
        'conform',
        '--base-url',
        target.url,
        '--timeout',
        `${TIMEOUT_MS}ms`,
        ...(options.generate ? [] : ['--generate', '0']),
        ...(options.terminal ? [] : ['--json']),
        ...extra,
      ],
      {
        env: {
          KGATE_BASE_URL: '',
          GITHUB_STEP_SUMMARY: options.stepSummary ?? '',
          ...referenceKeyEnv(reference.keys),
          KGATE_CONFORM_OPTIONS: JSON.stringify({ reportDir: dir }),
        },
        timeoutMs: 240_000,
        onSpawn: (pid) => {
          watch = watchMemory(pid);
        },
      },
    );
    const ms = performance.now() - started;
    const memory = watch!.stop();
    let summary: Run['summary'];
    try {
      summary = JSON.parse(options.terminal ? readFileSync(join(ROOT, dir, 'summary.json'), 'utf8') : result.stdout);
    } catch {
      summary = undefined;
    }
    return { ...result, ms, ...memory, summary };
  } finally {
    await target.close();
  }
}

/**
 * The time bound: twice a clean run plus two deadlines. It sits between the right behaviour (a clean
 * run, plus a deadline or SLOW_OPERATION_LIMIT slow answers per worker before evaluate is given up)
 * and the wrong one's least (every evaluate test waiting out its deadline: tens of seconds), with
 * room for a loaded machine, where the slow answers' fixed waits no longer overlap the rest.
 */
const boundMs = () => 2 * cleanMs + 2 * TIMEOUT_MS;

/**
 * The machine these tests run on is shared: a run that misses the time bound is compared again with
 * a clean run measured right then, the slower of the two clean runs counting.
 */
async function withinTimeBound(run: Run): Promise<boolean> {
  if (run.ms <= boundMs()) return true;
  cleanMs = Math.max(cleanMs, (await conformAgainst('none')).ms);
  return run.ms <= boundMs();
}

/** The assertions every hostile behaviour must meet. */
async function assertBounded(run: Run, behaviour: string, want: RegExp): Promise<void> {
  const detail = `${behaviour}: exit ${run.code}, ${Math.round(run.ms)} ms (clean ${Math.round(cleanMs)} ms), peak ${Math.round(run.peakProcess / 2 ** 20)} MB per process, ${Math.round(run.peakTree / 2 ** 20)} MB tree\n${run.stderr.slice(-2000)}`;
  console.error(detail.split('\n')[0]);
  assert.equal(run.code, 1, detail);
  assert.ok(run.summary, `${detail}\nstdout is one JSON object`);
  const failures = [...run.summary.targets[0]!.failures, ...run.summary.targets[0]!.warnings];
  const onEvaluate = failures.filter((failure) => EVALUATE.includes(failure.operation));
  assert.ok(
    onEvaluate.some((failure) => want.test(`${failure.check}: ${failure.title}`)),
    `${detail}\nwant ${want} on evaluate, got ${JSON.stringify(onEvaluate)}`,
  );
  const elsewhere = run.summary.targets[0]!.failures.filter((failure) => !EVALUATE.includes(failure.operation));
  assert.deepEqual(elsewhere, [], `${detail}\nno failure on any other operation`);
  assert.ok(await withinTimeBound(run), `${detail}\nat most twice a clean run plus two deadlines`);
  assert.ok(run.peakProcess < MEMORY_LIMIT, `${detail}\nno kgate process above 400 MB`);
  assert.doesNotMatch(`${run.stdout}\n${run.stderr}`, /\n\s+at .+:\d+:\d+\)?\n/, `${detail}\nno stack trace`);
}

before(async () => {
  reference = await startReferenceServer({ quiet: true });
  const clean = await conformAgainst('none');
  assert.equal(clean.code, 0, `the clean proxy passes: ${clean.stderr.slice(-2000)}`);
  cleanMs = clean.ms;
});
after(async () => {
  await reference.close();
  rmSync(join(ROOT, REPORT_DIR), { recursive: true, force: true });
});

describe('kgate conform against a target whose evaluate misbehaves', () => {
  const cases: { given: HostileBehaviour; want: RegExp; extra?: string[]; delayMs?: number }[] = [
    { given: 'deep-nesting', want: /^body-within-size-cap: response body nested deeper than the limit/ },
    {
      // Three quarters of the deadline is the default budget: 1.8 s of 2 s must be named. A warning by
      // default; the configuration file's severity makes it fail the gate here.
      given: 'slow-answer',
      want: /^latency-within-budget: answer took longer than the latency budget/,
      delayMs: TIMEOUT_MS * 0.9,
      extra: ['--config', 'proof/hostile-target.config.json'],
    },
    // The hangs: every one of them is met first by the search for test data (evaluate's papers).
    { given: 'trickle', want: /^responds-within-timeout/ },
    { given: 'endless-body', want: /^responds-within-timeout/ },
    { given: 'interim-forever', want: /^responds-within-timeout/ },
    { given: 'headers-byte-by-byte', want: /^responds-within-timeout/ },
    { given: 'silent', want: /^responds-within-timeout/ },
    { given: 'short-content-length', want: /^responds-within-timeout/ },
    { given: 'huge-body', want: /^body-within-size-cap/ },
    { given: 'gzip-bomb', want: /^(body-is-json|body-within-size-cap)/ },
    { given: 'reset', want: /^connection-completes/ },
    { given: 'invalid-utf8', want: /^body-is-json/ },
    { given: 'huge-headers', want: /^connection-completes/ },
    { given: 'redirect-loop', want: /^(response-matches-spec|body-is-json)/ },
    { given: 'html-login', want: /^(content-type-is-json|body-is-json)/ },
    { given: 'many-entities', want: /^(body-within-size-cap|response-matches-spec)/ },
    // An object of a million keys and a million-entry array (8 MB and 3 MB, under the size cap):
    // refused before parsing, so that reading them holds up no other operation's deadline.
    { given: 'many-keys', want: /^body-within-size-cap: response body holds an object wider than the limit/ },
    { given: 'long-array', want: /^body-within-size-cap: response body holds more arrays and objects than the limit/ },
  ];
  for (const { given, want, extra, delayMs } of cases) {
    test(`${given}: exit 1, named on evaluate only, bounded in time and memory`, async () => {
      await assertBounded(await conformAgainst(given, extra, { delayMs }), given, want);
    });
  }
});

test('slow is not down: a target framing every answer in one-byte chunks is judged by its deadlines, never as down', async () => {
  // Legal HTTP/1.1, only slow, on every operation (the probes' answers included), at a deadline long
  // enough for the probe that tells a dead target from a slow one to be sent. On a quiet machine the
  // gate passes; where the target itself cannot frame an answer within the latency budget (a loaded
  // machine), that operation is given up for slowness: what must never happen is a verdict that the
  // target stopped answering, or a failure of any other kind.
  const run = await conformAgainst('one-byte-chunks', ['--timeout', '10s'], {
    path: '*',
    dir: `${REPORT_DIR}/one-byte-chunks`,
  });
  const detail = `one-byte-chunks: exit ${run.code}, ${Math.round(run.ms)} ms (clean ${Math.round(cleanMs)} ms), peak ${Math.round(run.peakProcess / 2 ** 20)} MB per process\n${run.stderr.slice(-2000)}`;
  console.error(detail.split('\n')[0]);
  const target = run.summary?.targets[0];
  assert.ok(target, `${detail}\nstdout is one JSON object`);
  const byDeadline = (text: string) =>
    /^latency-within-budget|^responds-within-timeout: no complete response within the deadline \(no |took longer than (its|the) latency budget|failed at the transport level \(responds-within-timeout/.test(
      text,
    );
  const failures = target.failures.map((failure) => `${failure.check}: ${failure.title} (${failure.received ?? ''})`);
  assert.deepEqual(
    failures.filter((text) => !byDeadline(text)),
    [],
    `${detail}\nno failure but slowness judged by the deadlines`,
  );
  const reasons = [...failures, ...target.skips.map((skip) => skip.reason)];
  assert.deepEqual(
    reasons.filter((text) => /stopped answering|did not answer a probe/.test(text)),
    [],
    'the target is never judged down',
  );
  assert.equal(run.code, failures.length > 0 ? 1 : 0, detail);
  assert.ok(run.peakProcess < MEMORY_LIMIT, `${detail}\nno kgate process above 400 MB`);
});

test('--max-duration ends a run against an endlessly slow target on time, listing the tests it did not run', async () => {
  const dir = `${REPORT_DIR}/max-duration`;
  // Every evaluate answer takes just under the deadline, and the latency budget is raised past it,
  // so nothing gives up on evaluate: only the run's own time limit can end this run.
  const run = await conformAgainst('slow-answer', ['--max-duration', '8s', '--timeout', '60s'], {
    delayMs: 30_000,
    dir,
  });
  assert.equal(run.code, 1, run.stderr.slice(-2000));
  assert.ok(run.ms < 8_000 + 20_000, `ended ${Math.round(run.ms)} ms after its start, limit 8 s`);
  const failures = run.summary!.targets[0]!.failures;
  assert.ok(
    failures.some((failure) => failure.title === 'not run: deadline'),
    JSON.stringify(failures.map((f) => f.title)),
  );
  for (const file of ['summary.md', 'summary.json', 'junit.xml']) assert.ok(existsSync(join(ROOT, dir, file)), file);
});

const INTERPRET = ['GET /academic/v1.0/interpret', 'POST /academic/v1.0/interpret'];

test('a target whose evaluate answers validly but slowly fails the gate, listing the tests not run, and every report says so', async () => {
  const dir = `${REPORT_DIR}/slow-valid`;
  const scratch = mkdtempSync(join(tmpdir(), 'kgate-slow-'));
  const stepSummary = join(scratch, 'step-summary.md');
  try {
    // Every evaluate answer is valid and takes 0.9 of the deadline (over the budget of 0.75);
    // latency-within-budget keeps its default severity (a warning), and the generative phase runs.
    const run = await conformAgainst('slow-answer', [], {
      delayMs: TIMEOUT_MS * 0.9,
      dir,
      generate: true,
      terminal: true,
      stepSummary,
    });
    const detail = `exit ${run.code}\n${run.stdout.slice(-3000)}\n${run.stderr.slice(-1500)}`;
    assert.equal(run.code, 1, detail);
    const target = run.summary!.targets[0]!;
    assert.equal(run.summary!.verdict, 'fail', detail);
    const notRun = target.failures.filter((failure) => failure.title === NOT_RUN_GIVEN_UP);
    assert.ok(notRun.length >= 5, `${detail}\nthe tests evaluate was not given are failures`);
    for (const failure of notRun) {
      assert.ok(EVALUATE.includes(failure.operation), `not run on ${failure.operation}: only evaluate was given up on`);
      assert.equal(failure.origin, 'not-run', 'a test not run catches nothing');
      assert.equal(
        target.matrix[failure.operation]![failure.check],
        'fail',
        `${failure.check} on ${failure.operation}`,
      );
    }
    assert.ok(
      target.warnings.some(
        (warning) => EVALUATE.includes(warning.operation) && warning.check === 'latency-within-budget',
      ),
      'latency-within-budget names the slow operation',
    );
    assert.deepEqual(
      target.failures.filter((failure) => !EVALUATE.includes(failure.operation)),
      [],
      'no failure on any other operation',
    );
    // Giving up on evaluate skips only the checks of interpret that call evaluate.
    const interpretSkips = target.skips.filter((skip) => INTERPRET.includes(skip.operation));
    for (const skip of interpretSkips) {
      const op = getOperation(skip.operation.startsWith('GET') ? 'interpretGet' : 'interpretPost')!;
      const reads = getCheck(skip.check)?.reads?.(op) ?? [];
      assert.ok(
        reads.some((id) => id.startsWith('evaluate')),
        `${skip.check} on ${skip.operation} was skipped though it does not call evaluate: ${skip.reason}`,
      );
      assert.match(skip.reason, /evaluate/, `${skip.check} on ${skip.operation} says why`);
    }
    for (const check of ['no-server-error', 'positive-input-accepted', 'negative-input-rejected']) {
      for (const operation of INTERPRET)
        assert.equal(target.matrix[operation]![check], 'pass', `${check} on ${operation}`);
    }
    // Every report the run writes agrees: the terminal, summary.md, junit.xml, the page, the step summary.
    const sample = notRun[0]!;
    assert.match(run.stdout, /kgate conform: FAIL/, 'the terminal says FAIL');
    const listed = new RegExp(
      `Not run: given up \\(${notRun.length} cells[^\\n]*\\n(.*\\n)*.*evaluate (GET|POST): .*${sample.check}`,
    );
    assert.match(run.stdout, listed, 'the terminal lists the tests not run, by cause and operation');
    for (const file of ['summary.md', 'junit.xml', 'report.html']) {
      const text = readFileSync(join(ROOT, dir, file), 'utf8');
      assert.ok(text.toLowerCase().includes(NOT_RUN_GIVEN_UP), `${file} lists the tests not run`);
      assert.ok(text.includes(sample.check), `${file} names ${sample.check}`);
    }
    // summary.md, like the terminal, lists them by cause and operation.
    assert.match(readFileSync(join(ROOT, dir, 'summary.md'), 'utf8'), listed, 'summary.md groups the tests not run');
    const step = readFileSync(stepSummary, 'utf8');
    assert.match(step, /FAIL/, 'the step summary says FAIL');
    assert.ok(step.toLowerCase().includes(NOT_RUN_GIVEN_UP), 'the step summary lists the tests not run');
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
});

test('latency-within-budget set off keeps testing a slow evaluate, bounded by the run time limit', async () => {
  const dir = `${REPORT_DIR}/slow-off`;
  const scratch = mkdtempSync(join(tmpdir(), 'kgate-slow-off-'));
  const config = join(scratch, 'kgate.config.json');
  writeFileSync(config, JSON.stringify({ severity: { 'latency-within-budget': 'off' } }));
  try {
    const run = await conformAgainst('slow-answer', ['--config', config, '--max-duration', '25s'], {
      delayMs: TIMEOUT_MS * 0.9,
      dir,
    });
    const detail = `exit ${run.code}\n${run.stderr.slice(-2000)}`;
    const target = run.summary!.targets[0]!;
    assert.deepEqual(
      target.failures.filter((failure) => failure.title === NOT_RUN_GIVEN_UP),
      [],
      `${detail}\nnothing is given up on for slowness`,
    );
    const judged = Object.entries(target.matrix)
      .filter(([operation]) => EVALUATE.includes(operation))
      .flatMap(([, row]) => Object.values(row))
      .filter((cell) => cell === 'pass');
    assert.ok(judged.length >= 10, `${detail}\nevaluate's tests run and pass on slow answers (${judged.length})`);
    // Whatever the run did not finish in 25 s fails as not run: deadline, never passes.
    assert.equal(run.code, target.failures.length > 0 ? 1 : 0, detail);
    for (const failure of target.failures) assert.equal(failure.title, 'not run: deadline', JSON.stringify(failure));
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
});
