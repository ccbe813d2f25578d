import { appendFileSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FullConfig, FullResult, Reporter, Suite, TestCase, TestResult } from '@playwright/test/reporter';
import { readEnv } from '../config/env.ts';
import { redactSecrets, registerSecret } from '../config/redact.ts';
import { notRunDeadline } from '../contracts/api.ts';
import { CHECKS } from '../contracts/checks/index.ts';
import type { Check } from '../contracts/checks/registry.ts';
import { RATE_LIMIT_TAG } from '../contracts/checks/registry.ts';
import { excerpt, type Failure, NOT_RUN_QUOTA } from '../contracts/failure.ts';
import { TOLERANCE_STATEMENT } from '../contracts/properties/tolerance.ts';
import { REQUEST_COUNT_FILE } from '../http/pacing.ts';
import { OPERATIONS } from '../openapi/spec.ts';
import {
  type ConformanceBaseline,
  readBaseline,
  updatedBaseline,
  utcDay,
  writeBaseline,
} from '../reporting/baseline.ts';
import { envelopeBreaches, runEnvelope } from '../reporting/envelope.ts';
import { runMeta, specSha256, targetName } from '../reporting/run-meta.ts';
import { writeRunReports } from '../reporting/run-reports.ts';
import { checksOfRun } from '../reporting/severity.ts';
import {
  type BaselineContext,
  type CoverageSummary,
  notSelectedOf,
  type RunSummary,
  renderTerminalSummary,
  summarise,
  type TargetSummary,
  type TestRecord,
} from '../reporting/summary.ts';
import { OUTCOME_ANNOTATION, type TestOutcome } from './fixtures.ts';
import {
  costsOf,
  coverageSummary,
  judgedItems,
  LedgerError,
  mergeIntoLedgerFile,
  selectionOf,
  updatedLedger,
} from './ledger.ts';
import {
  type ConformOptions,
  OTHERS_ENDED_FILE,
  PROGRESS_FILE,
  readConformOptions,
  runHeaders,
  scratchOf,
} from './options.ts';
import { readRunPlan } from './plan.ts';

/**
 * Playwright reporter that turns test outcomes into the operation x check matrix: writes
 * summary.md, summary.json and junit.xml (one case per matrix cell), prints the Markdown at the
 * end, and appends it to $GITHUB_STEP_SUMMARY when that is set.
 */
export default class ConformanceReporter implements Reporter {
  private readonly records: TestRecord[] = [];
  private started = Date.now();
  private workers = 1;
  private config?: FullConfig;
  private suite: Suite | undefined;
  private readonly ended = new Set<string>();
  private options: ConformOptions | undefined;
  /** Tests of the operations the rate-limit tests burst, but those, still to end, when they wait for them (see othersEnded). */
  private othersLeft = 0;
  /** The operations the run's rate-limit tests burst, by label (when those wait for the others). */
  private limitedOperations = new Set<string>();
  /** Tests the run selected, and requests the ended ones sent, for the progress file. */
  private total = 0;
  private requests = 0;
  private progressWrittenAt = 0;

  onBegin(config: FullConfig, suite: Suite): void {
    this.started = Date.now();
    this.workers = config.workers;
    this.config = config;
    this.suite = suite;
    this.options = readConformOptions();
    this.total = suite.allTests().length;
    writeProgress(this.options, 0, this.total, 0);
    this.progressWrittenAt = Date.now();
    if (this.options.plan?.rateLimitLast) {
      // The rate-limit tests wait for the end of the other tests of the operations they burst; a
      // folder used before must not say it already came.
      const tests = suite.allTests();
      this.limitedOperations = new Set(tests.filter((test) => test.tags.includes(RATE_LIMIT_TAG)).map(operationOf));
      this.othersLeft = tests.filter((test) => this.waitedFor(test)).length;
      rmSync(join(scratchOf(this.options), OTHERS_ENDED_FILE), { force: true });
      if (this.othersLeft === 0) othersEnded(this.options);
    }
  }

  /**
   * Whether the rate-limit tests wait for this test to end: it is not one of them and tests an
   * operation they burst (answer search, URL preview). Other operations' tests run beside the
   * bursts: the interface rate-limits only those two.
   */
  private waitedFor(test: TestCase): boolean {
    return !test.tags.includes(RATE_LIMIT_TAG) && this.limitedOperations.has(operationOf(test));
  }

  onTestEnd(test: TestCase, result: TestResult): void {
    registerKeys();
    this.ended.add(test.id);
    if (this.othersLeft > 0 && this.waitedFor(test) && --this.othersLeft === 0) othersEnded(this.options);
    // titlePath: '', project, file, [sweep target,] operation, check id.
    const [, project = '', , ...rest] = test.titlePath();
    const check = rest.pop() ?? test.title;
    const operation = rest.pop() ?? '';
    const target = rest[0] ?? project;
    const carried = result.annotations.find((annotation) => annotation.type === OUTCOME_ANNOTATION);
    const outcome = carried?.description ? (JSON.parse(carried.description) as TestOutcome) : undefined;
    const status = result.status === 'skipped' ? 'skipped' : result.status === 'passed' ? 'passed' : 'failed';
    const findings = [...(outcome?.findings ?? [])];
    const ownFailure = findings.some(
      (finding) => finding.operation === operation && (finding.level ?? 'fail') === 'fail',
    );
    // A test that failed without saying why (Playwright's own timeout, a crash before the outcome was attached).
    if (status === 'failed' && !ownFailure)
      findings.push(
        deadlinePassed(this.options) ? notRunDeadline(check, operation) : unexplained(operation, check, result),
      );
    const annotations = [...test.annotations, ...result.annotations];
    const record: TestRecord = {
      project: target,
      operation,
      check,
      status,
      findings,
      reads: outcome?.reads ?? [],
      notes: outcome?.notes ?? [],
      skipReason:
        status === 'skipped'
          ? (outcome?.skipped ?? annotations.find((a) => a.type === 'skip')?.description)
          : undefined,
      durationMs: result.duration,
      ...(outcome?.carrier ? { carrier: true } : {}),
      ...(outcome?.judged ? { judged: outcome.judged } : {}),
      requests: outcome?.requests,
      timings: outcome?.timings,
      ...(outcome?.items ? { items: outcome.items } : {}),
      ...(outcome?.refused ? { refused: outcome.refused } : {}),
      ...(outcome?.judgedBy ? { judgedBy: outcome.judgedBy } : {}),
      ...(outcome?.deferred ? { deferred: true } : {}),
    };
    this.records.push(JSON.parse(redactSecrets(JSON.stringify(record))) as TestRecord);
    this.requests += record.requests ? record.requests.test + record.requests.discovery : 0;
    // The CLI reads the progress every few seconds: writing it after every test cost the runner
    // about 4 ms a test (a file written and renamed), so it is written at most every PROGRESS_WRITE_MS.
    const now = Date.now();
    if (now - this.progressWrittenAt >= PROGRESS_WRITE_MS || this.records.length >= this.total) {
      writeProgress(this.options, this.records.length, Math.max(this.total, this.records.length), this.requests);
      this.progressWrittenAt = now;
    }
  }

  /** Tests the run's --max-duration ended before they started: each is a not-run failure on its cell. */
  private notStarted(): TestRecord[] {
    if (!deadlinePassed(this.options)) return [];
    return (this.suite?.allTests() ?? [])
      .filter((test) => !this.ended.has(test.id))
      .map((test) => {
        const [, project = '', , ...rest] = test.titlePath();
        const check = rest.pop() ?? test.title;
        const operation = rest.pop() ?? '';
        return {
          project: rest[0] ?? project,
          operation,
          check,
          status: 'failed',
          findings: [notRunDeadline(check, operation)],
          reads: [],
          notes: [],
          durationMs: 0,
        };
      });
  }

  async onEnd(result: FullResult): Promise<{ status: FullResult['status'] } | undefined> {
    const env = registerKeys();
    this.records.push(...this.notStarted());
    const options = readConformOptions();
    const checks = checksOfRun(CHECKS, options);
    const operations = OPERATIONS.map((op) => op.label);
    const baseline = this.baseline(options, operations, checks);
    const targets = summarise(this.records, operations, checks, baseline);
    // The envelope of what the run measured, and the configuration file's bounds on it: a broken bound fails the run.
    const envelope = options.sweep
      ? undefined
      : runEnvelope(
          { baseUrl: env.baseUrl, startedAt: new Date(this.started).toISOString(), targets },
          this.records,
          // The adaptive pace keeps its state with the run's other scratch, outside the report folder.
          scratchOf(options),
          options.embedded ? 'embedded reference server' : (env.baseUrl ?? ''),
        );
    const breaches = envelope ? envelopeBreaches(envelope, options.envelopeBounds) : [];
    if (envelope && breaches.length > 0) envelope.breaches = breaches;
    // The call volume quota of a key ran out during the run: what it did not judge is not passed, so
    // the run gives no verdict, unless something it judged before failed.
    const quota = options.sweep
      ? undefined
      : this.records
          .map((record) => record.skipReason)
          .find((reason) => reason?.includes(NOT_RUN_QUOTA))
          ?.replace(/^.*?(not run: the call volume quota)/, '$1')
          .replace(/;.*$/, '');
    if (envelope && quota) envelope.quota = { seen: quota.replace(/^not run: /, '') };
    const failed =
      targets.some((target) => target.verdict === 'fail') ||
      (result.status === 'failed' && this.records.length === 0) ||
      breaches.length > 0;
    const notSelected = notSelectedOf(options.checks, checks, targets);
    const meta = options.sweep
      ? undefined
      : runMeta(options, {
          baseUrl: env.baseUrl,
          grep: options.grep ?? grepOf(this.config),
          shard: options.shard ?? this.config?.shard,
          baseline: baseline && { file: baseline.file, today: baseline.today, baseline: baseline.baseline },
          startedAt: new Date(this.started),
        });
    const requests = this.records.reduce(
      (sum, record) => sum + (record.requests ? record.requests.test + record.requests.discovery : 0),
      0,
    );
    // A run that judged no cell of its target (every one selected was skipped) gives no verdict: it
    // passes nothing. A shard may hold nothing of one kind; its merge judges the whole.
    const judgedNothing =
      !failed &&
      !options.sweep &&
      !meta?.shard &&
      targets.every((target) => {
        const { passed, failed: cells, warned, known = 0 } = target.counts;
        return passed + cells + warned + known === 0;
      });
    const noVerdict = judgedNothing || quota !== undefined;
    const verdict = failed ? 'fail' : noVerdict ? 'error' : 'pass';
    const coverage =
      options.sweep || meta?.shard
        ? undefined
        : this.coverage(options, targets[0], verdict, requests, quota !== undefined);
    const run: RunSummary = {
      verdict,
      exitCode: failed ? 1 : noVerdict ? 2 : 0,
      ...(quota ? { quota } : {}),
      baseUrl: options.sweep ? undefined : env.baseUrl,
      // The reports say when the target was kgate's own reference server, not a deployment.
      ...(!options.sweep && options.embedded ? { embedded: true } : {}),
      ...(notSelected ? { notSelected } : {}),
      strict: options.strict,
      startedAt: new Date(this.started).toISOString(),
      durationMs: Date.now() - this.started,
      reportDir: options.reportDir,
      workers: this.workers,
      requests,
      ...(options.maxRps ? { maxRps: options.maxRps } : {}),
      ...(meta?.shard ? { shard: meta.shard } : {}),
      ...(coverage ? { coverage } : {}),
      ...(breaches.length > 0 ? { envelopeBreaches: breaches } : {}),
      tolerance: TOLERANCE_STATEMENT,
      targets,
    };
    const { markdown } = writeRunReports(run, checks, {
      dir: options.reportDir,
      records: this.records,
      ...(meta ? { meta } : {}),
      // A sweep's folder holds one run of many targets: there is no previous run to compare with, nor one envelope.
      ...(options.sweep ? { previous: null, envelope: null } : { envelope }),
    });
    // What the run needed only while it ran goes with it (runSuite removes it too, should Playwright be stopped).
    if (options.scratchDir) rmSync(options.scratchDir, { recursive: true, force: true });
    // A plain `npx playwright test` prints kgate's summary; kgate's CLI prints it itself.
    if (!options.quiet && this.records.length > 0) console.log(`\n${renderTerminalSummary(run)}`);
    if (env.githubStepSummary && !options.sweep && this.records.length > 0)
      appendFileSync(env.githubStepSummary, `${markdown}\n`);
    // A failed check is an expected failure to Playwright (see runCheck): the matrix decides the
    // run's status, so `npx playwright test` exits 1 exactly when the summary says FAIL.
    return failed ? { status: 'failed' } : undefined;
  }

  /**
   * What the run judged of the coverage model (contracts/coverage), and with a ledger, what the runs
   * before it did; the ledger is then written with this run's judgements (run/ledger.ts).
   */
  private coverage(
    options: ConformOptions,
    target: TargetSummary | undefined,
    verdict: 'pass' | 'fail' | 'error',
    requests: number,
    quotaRanOut = false,
  ): CoverageSummary | undefined {
    if (!target) return undefined;
    const fixture = CHECKS.filter((check) => check.kind === 'fixture' && !options.excludeChecks?.includes(check.id));
    const selection = selectionOf(
      this.records,
      fixture.map((check) => check.id),
    );
    const { judged, failed } = judgedItems(target, this.records);
    const plan = options.planFile && existsSync(options.planFile) ? readRunPlan(options.planFile) : undefined;
    const notPlanned = plan?.notPlanned ?? [];
    const budget = plan?.budgeted
      ? {
          plan: {
            budget: plan.budget ?? '',
            requests: plan.estimate?.requests ?? 0,
            seconds: plan.estimate?.seconds ?? 0,
          },
        }
      : {};
    if (plan?.cycle !== undefined) Object.assign(budget, { cycle: plan.cycle });
    if (!options.ledgerFile) return { ...coverageSummary(selection, judged, notPlanned), ...budget };
    try {
      const env = readEnv();
      const refused = [...new Set(this.records.flatMap((record) => record.refused ?? []))];
      // What the run sent: every request its budget counted (the key preflight too), else its tests' and test data's.
      const counted = options.scratchDir ? Number(readIfThere(join(options.scratchDir, REQUEST_COUNT_FILE))) : NaN;
      const updated = mergeIntoLedgerFile(
        options.ledgerFile,
        targetName(env.baseUrl, options.embedded),
        specSha256(),
        (ledger) =>
          updatedLedger(
            ledger,
            {
              date: new Date(this.started).toISOString(),
              seed: options.seed,
              verdict,
              items: selection.length,
              ...(plan?.budgeted ? { planned: plan.planned } : {}),
              requests: Number.isFinite(counted) && counted > 0 ? counted : requests,
            },
            judged,
            failed,
            refused,
            costsOf(this.records),
            // What the plan held and the key's quota kept the run from judging: the next run sends it first.
            quotaRanOut ? selection.filter((item) => !judged.has(item) && !notPlanned.includes(item)) : [],
          ),
      );
      return {
        ...coverageSummary(selection, judged, notPlanned, { file: options.ledgerFile, ledger: updated }),
        ...budget,
      };
    } catch (error) {
      // The CLI refused a damaged or foreign ledger before the run; one damaged since is left as it is.
      if (!(error instanceof LedgerError)) throw error;
      return { ...coverageSummary(selection, judged, notPlanned), ...budget };
    }
  }

  /**
   * The baseline the run is judged against. With --update-baseline the file is first rewritten to
   * accept exactly this run's failures (keeping the reasons and expiry dates of entries that still
   * match), so the reports and the verdict show the gate as the new baseline makes it.
   */
  private baseline(
    options: ConformOptions,
    operations: string[],
    checks: readonly Check[],
  ): BaselineContext | undefined {
    const file = options.baselineFile;
    if (!file || options.sweep) return undefined;
    const today = utcDay();
    let baseline: ConformanceBaseline | undefined =
      options.updateBaseline && !existsSync(file) ? undefined : readBaseline(file);
    let update: BaselineContext['update'];
    if (options.updateBaseline) {
      const failures = summarise(this.records, operations, checks).flatMap((target) => target.failures);
      const next = updatedBaseline(baseline, failures, today);
      writeBaseline(file, next.baseline);
      baseline = next.baseline;
      update = { added: next.added.length, dropped: next.dropped.length };
    }
    return { file, baseline: baseline!, today, update };
  }

  /** True: kgate prints the run (Playwright then adds no reporter of its own, see playwright.config.ts). */
  printsToStdio(): boolean {
    return true;
  }
}

/** A failed test without a finding of its own (Playwright's test timeout, a crash): kgate's error, on the test's cell. */
function unexplained(operation: string, check: string, result: TestResult): Failure {
  const message = result.error?.message ?? result.errors[0]?.message ?? `test ended with status ${result.status}`;
  return {
    check,
    operation,
    title: result.status === 'timedOut' ? 'test did not finish in time' : 'test ended with an unexpected error',
    received: excerpt(message.replace(/\u001b\[[0-9;]*m/g, ''), 400),
    documented: 'the check runs to completion (this is a defect of kgate, not of the target)',
    origin: 'error',
  };
}

/** Playwright's --grep of the run, when one was given (its default matches everything). */
function grepOf(config: FullConfig | undefined): string | undefined {
  const patterns = config ? (Array.isArray(config.grep) ? config.grep : [config.grep]) : [];
  const given = patterns.map(String).filter((pattern) => pattern !== '/.*/');
  return given.length > 0 ? given.join(' ') : undefined;
}

/** True once the run's --max-duration has passed. */
function deadlinePassed(options: ConformOptions | undefined): boolean {
  const at = options?.deadlineAt;
  return at !== undefined && Date.now() >= at;
}

/** Shortest time between two writes of the progress file (the CLI reads it every few seconds). */
const PROGRESS_WRITE_MS = 1_000;

/** Records tests done of total and requests sent, for the CLI's progress line (best effort). */
function writeProgress(options: ConformOptions | undefined, done: number, total: number, requests: number): void {
  if (!options || options.sweep) return;
  try {
    const dir = scratchOf(options);
    mkdirSync(dir, { recursive: true });
    // Written aside and renamed, so the CLI never reads half a file.
    const path = join(dir, PROGRESS_FILE);
    writeFileSync(`${path}.tmp`, JSON.stringify({ done, total, requests }));
    renameSync(`${path}.tmp`, path);
  } catch {
    // The progress line is a courtesy: a report folder that cannot be written fails later, loudly.
  }
}

/** The operation label of a suite test (its titlePath: '', project, file, [sweep target,] operation, check id). */
function operationOf(test: TestCase): string {
  return test.titlePath().at(-2) ?? '';
}

/**
 * Tells the rate-limit tests, waiting in the workers, that every other test of the operations
 * they burst has ended (see runCheck).
 */
function othersEnded(options: ConformOptions | undefined): void {
  if (!options) return;
  mkdirSync(scratchOf(options), { recursive: true });
  writeFileSync(join(scratchOf(options), OTHERS_ENDED_FILE), '');
}

/** Registers the run's keys (the global setup may have set them after this reporter started). */
function registerKeys() {
  const env = readEnv();
  for (const key of [env.key, env.keyUnsubscribed, env.keyExhausted]) registerSecret(key);
  runHeaders(env);
  return env;
}

/** A file's text, or '' when there is none. */
function readIfThere(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}
