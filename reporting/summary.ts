import type { Check } from '../contracts/checks/registry.ts';
import { type Failure, findingKey, formatFailureFolded } from '../contracts/failure.ts';
import { INVARIANT_CHECKS } from '../contracts/properties/index.ts';
import type { ToleranceStatement } from '../contracts/properties/tolerance.ts';
import { mergeTimings, type OperationStat, type OperationTimings, operationStats } from '../contracts/timings.ts';
import { type FrontLimits, frontLimitNotes, mergeFrontLimits, noFrontLimits } from '../http/front-limits.ts';
import { nameCache } from '../http/infrastructure.ts';
import { mergeObservations, noObservations, type Observations } from '../http/observations.ts';
import { describeSignal, signalledBy } from '../http/throttle.ts';
import { OPERATIONS } from '../openapi/spec.ts';
import { foldLine } from '../page/fold.ts';
import { shortLabel } from '../page/html.ts';
import {
  type BaselineEntry,
  type BaselineMark,
  type ConformanceBaseline,
  entriesByFingerprint,
  fingerprintOf,
  isExpired,
} from './baseline.ts';

/** File names the reporter writes into the report folder. */
export const SUMMARY_FILES = {
  markdown: 'summary.md',
  json: 'summary.json',
  junit: 'junit.xml',
  /** Every test's record (findings, reads, duration): what the fault sweep selects and times tests by. */
  tests: 'tests.json',
} as const;

/** One finished test as the reporter saw it. */
export interface TestRecord {
  /** Playwright project: `conformance`, `rate-limit`, or a target name in a sweep. */
  project: string;
  /** Operation label (the describe title). */
  operation: string;
  /** Check id (the test title). */
  check: string;
  /** Playwright's verdict on the test (a sweep never fails a test; its findings say what it found). */
  status: 'passed' | 'failed' | 'skipped';
  /** What the test found: its own check's findings, and the fixture's on every operation it called. */
  findings: Failure[];
  /** Operation ids the test read (directly or through discovered data). */
  reads: string[];
  /** Notes for the summary. */
  notes: string[];
  skipReason?: string;
  durationMs: number;
  /** The test only carried other checks' findings (its own check not selected): its own cell stays empty. */
  carrier?: boolean;
  /** `<check> <operation label>` of every invariant that judged an answer carrying what it reads (absent in records of older runs). */
  judged?: string[];
  /** Requests the test sent, those discovery sent for it, and the discovery items it used (absent in records of older runs). */
  requests?: {
    test: number;
    discovery: number;
    data: string[];
    /** The test's own requests by operation label (discovery's not counted). */
    byOperation?: Record<string, number>;
    retries?: Record<string, number>;
    /** Requests a front server refused for their size, and the longest that got through. */
    front?: FrontLimits;
    /** What the answers said of the envelope: versions, servers, caches, throttling. */
    observed?: Observations;
  };
  /** The same requests per operation with their latencies (absent in records of older runs). */
  timings?: OperationTimings;
  /** The coverage items the test's answers judged (contracts/coverage; absent in records of older runs). */
  items?: string[];
  /** The test sent nothing: the operation's generated requests had judged its cell already. */
  deferred?: boolean;
  /** Open items the target refused (a 4xx to the class alone). */
  refused?: string[];
  /** For each cell the test's generated answers judged, the items of the first case that did. */
  judgedBy?: Record<string, string[]>;
}

/** What one cell of the operation x check matrix says; `known`: only failures the baseline accepts. */
export type Cell = 'pass' | 'fail' | 'known' | 'warn' | 'skip' | 'n/a';

/** The baseline a run is judged against. */
export interface BaselineContext {
  /** The file, as the reports name it. */
  file: string;
  baseline: ConformanceBaseline;
  /** Today (YYYY-MM-DD, UTC): entries that expired before it no longer hold. */
  today: string;
  /** What --update-baseline changed before this run was judged. */
  update?: { added: number; dropped: number };
}

/** How a run stood against its baseline. */
export interface BaselineSummary {
  file: string;
  /** Entries in the baseline. */
  entries: number;
  /** Entries past their expiry whose failure occurred again (it fails the gate). */
  expired: number;
  /** Entries whose failure did not occur although their cell was judged. */
  fixed: BaselineEntry[];
  /** Entries whose cell was not judged in this run (not selected, skipped): neither known nor fixed. */
  unjudged: BaselineEntry[];
  update?: { added: number; dropped: number };
}

/** The outcome of one target (one Playwright project group). */
export interface TargetSummary {
  /** `conformance` for a single target; the fault name in a sweep. */
  target: string;
  verdict: 'pass' | 'fail';
  /** Matrix cells by outcome: one defect shows as one failed cell, however many tests saw it; `known` cells hold only failures the baseline accepts. */
  counts: { passed: number; failed: number; known?: number; warned: number; skipped: number };
  /** Tests run (Playwright tests), and the sum of their durations in milliseconds. */
  tests: { total: number; durationMs: number };
  /** operation label -> check id -> cell. */
  matrix: Record<string, Record<string, Cell>>;
  /** Distinct failures that fail the gate (`occurrences` counts the tests that saw each). */
  failures: Failure[];
  /** Distinct failures the baseline accepts: reported, not failing the gate (absent without a baseline's matches). */
  known?: Failure[];
  /** How the run stood against its baseline, when it had one. */
  baseline?: BaselineSummary;
  /** Distinct warnings: fail only under --strict. */
  warnings: Failure[];
  skips: { operation: string; check: string; reason: string }[];
  /** Notes of the checks (for example, a check that could not be exact on this target). */
  notes: string[];
  /** Check ids that reported a failure or warning about the target (kgate's own errors excluded). */
  tripped: string[];
  /** Per operation: the requests the run sent to it and their p50 / p95 latency, as the gate saw them. */
  operations?: OperationStat[];
}

/** The last failure of an item, as a coverage ledger keeps it. */
export interface ItemFailure {
  item: string;
  run: number;
  date: string;
  seed: number;
  /** The check and the failure's title. */
  title: string;
  /** The command that sends the failed request again (a generated one's seed and items). */
  replay?: string;
}

/** What a run judged of the coverage model (contracts/coverage), and with a ledger, what earlier runs did. */
export interface CoverageSummary {
  /** Items of the run's selection: its cells, and the input items of the operations it judged. */
  items: number;
  /** Of them, judged in this run. */
  judged: number;
  /** Items of the selection this run did not judge (judged + notJudged = items): left out by its budget, or planned and not judged (a skip). */
  notJudged: string[];
  /** Of those, the ones its budget left out. */
  notPlanned: string[];
  /**
   * With a ledger: its file, its runs so far (this one included), the items of the selection judged
   * since it began, and, once every item was, the fewest last runs that judged every item.
   */
  ledger?: { file: string; runs: number; judged: number; allWithin?: number };
  /** A budgeted run with a ledger or a quota: the runs a full cycle of every item takes at this budget (more than 60: 61). */
  cycle?: number;
  /** With a ledger: items no run of it ever judged. */
  never?: number;
  /** With a ledger: the last failure of each item that ever failed. */
  lastFailures?: ItemFailure[];
  /** A budgeted run's plan: its budget and what it announced. */
  plan?: { budget: string; requests: number; seconds: number };
}

/** The result object of a whole run (what `kgate conform --json` prints). */
export interface RunSummary {
  /** pass, fail, or error: no cell was judged (every selected one skipped), so the run gives no verdict (exit 2). */
  verdict: 'pass' | 'fail' | 'error';
  exitCode: 0 | 1 | 2;
  /** When the call volume quota of a key ran out during the run: why its tests were not run (`not run: the call volume quota of KGATE_KEY ran out after 251 requests (replenished in 23:59:59)`). */
  quota?: string;
  baseUrl?: string;
  /** True when the target was the embedded reference server kgate started itself, not a deployment. */
  embedded?: boolean;
  /**
   * Check ids the run's --checks left out (no cell of theirs was judged): their cells read "not
   * selected", never "does not apply" (which is a check that has no meaning for an operation).
   */
  notSelected?: string[];
  strict: boolean;
  /** When the run started (ISO 8601, UTC). */
  startedAt?: string;
  durationMs: number;
  /** Folder the run wrote its reports to. */
  reportDir?: string;
  /** Worker processes the run used. */
  workers?: number;
  /** HTTP requests the suite sent to the target (tests and discovery; the CLI's preflight not included). */
  requests?: number;
  /** --max-rps of the run, when paced. */
  maxRps?: number;
  /** This run's shard (--shard I/N): its counts are the shard's own. */
  shard?: { current: number; total: number };
  /** A run merged from shards (kgate report merge): the shards found and those missing (a missing one fails it). */
  shards?: ShardsSummary;
  /** What the run judged of the coverage model, and with a ledger, what the runs before it did. */
  coverage?: CoverageSummary;
  /** Bounds of the configuration file's `envelope` this run's measurements break: each fails the run. */
  envelopeBreaches?: string[];
  /** How the run compared numbers a target computes (a tolerance learned on an operation is under its notes). */
  tolerance?: ToleranceStatement;
  targets: TargetSummary[];
}

/** The shards of a merged run. */
export interface ShardsSummary {
  total: number;
  merged: number[];
  missing: number[];
}

/** `shard 2 of 4 missing`, `shards 2 and 3 of 4 missing`: why a merged run fails without a failed check. */
export function missingShards(shards: ShardsSummary): string | undefined {
  const { missing, total } = shards;
  if (missing.length === 0) return undefined;
  const list = missing.length === 1 ? `${missing[0]}` : `${missing.slice(0, -1).join(', ')} and ${missing.at(-1)}`;
  return `shard${missing.length > 1 ? 's' : ''} ${list} of ${total} missing`;
}

/** Projects whose results count towards the same target (the rate-limit tests run as their own project). */
export function targetOf(project: string): string {
  return project === 'rate-limit' ? 'conformance' : project.replace(/ @rate-limit$/, '');
}

const RANK: Record<Cell, number> = { 'n/a': 0, skip: 1, pass: 2, warn: 3, known: 4, fail: 5 };

function merge(current: Cell | undefined, next: Cell): Cell {
  return current === undefined || current === 'n/a' || RANK[next] > RANK[current] ? next : current;
}

/**
 * Folds test records into one summary per target, with the matrix over the given operations and
 * checks. With a baseline, a failure it lists (and has not expired) makes its cell `known` instead
 * of `fail`: reported, not failing the gate. The verdict comes from here and nowhere else.
 */
export function summarise(
  records: TestRecord[],
  operations: string[],
  checks: readonly Check[],
  baseline?: BaselineContext,
): TargetSummary[] {
  const byTarget = new Map<string, TestRecord[]>();
  for (const record of records) {
    const target = targetOf(record.project);
    byTarget.set(target, [...(byTarget.get(target) ?? []), record]);
  }
  return [...byTarget.entries()].map(([target, list]) => summariseTarget(target, list, operations, checks, baseline));
}

/** Added to the skip reason of a property's check: no answer at all gave its invariant something to judge. */
export const NO_ANSWER_READ = '; no generated or fixed answer of this operation carried what its property reads';

/** Distinct findings of the given level, each with the number of tests that saw it. */
function distinct(records: TestRecord[], level: 'fail' | 'warn'): Failure[] {
  const byKey = new Map<string, Failure>();
  for (const record of records) {
    const seen = new Set<string>();
    for (const finding of record.findings) {
      if ((finding.level ?? 'fail') !== level) continue;
      const key = findingKey(finding);
      if (seen.has(key)) continue;
      seen.add(key);
      const known = byKey.get(key);
      // The check's own test's finding speaks for the defect rather than a property's on another answer.
      if (known?.via === 'property' && finding.via !== 'property')
        byKey.set(key, { ...finding, occurrences: (known.occurrences ?? 1) + 1 });
      else if (known) known.occurrences = (known.occurrences ?? 1) + 1;
      else byKey.set(key, { ...finding, occurrences: 1 });
    }
  }
  // A property that judged another request's answer found what the check's own test reports
  // (at another pointer, or another answer): one defect, one failure, the test's.
  const reported = new Set([...byKey.values()].filter((finding) => finding.via !== 'property').map(defectKey));
  return [...byKey.values()].filter((finding) => finding.via !== 'property' || !reported.has(defectKey(finding)));
}

/** A finding's check, operation and title: what a property and its check's own test both say of one defect. */
function defectKey(finding: Failure): string {
  return [finding.check, finding.operation, finding.title].join('\u0000');
}

/** The baseline entry listing a failure, if any (kgate's own errors and warnings are never listed). */
function markOf(
  finding: Failure,
  entries: Map<string, BaselineEntry> | undefined,
  today: string,
): BaselineMark | undefined {
  if (!entries || finding.origin === 'error' || finding.origin === 'not-run' || (finding.level ?? 'fail') !== 'fail')
    return undefined;
  const entry = entries.get(fingerprintOf(finding));
  if (!entry) return undefined;
  return {
    reason: entry.reason,
    ...(entry.expires ? { expires: entry.expires } : {}),
    ...(isExpired(entry, today) ? { expired: true } : {}),
  };
}

function summariseTarget(
  target: string,
  records: TestRecord[],
  operations: string[],
  checks: readonly Check[],
  baseline?: BaselineContext,
): TargetSummary {
  const entries = baseline && entriesByFingerprint(baseline.baseline);
  const today = baseline?.today ?? '';
  const fixtureChecks = checks.filter((check) => check.kind === 'fixture').map((check) => check.id);
  const rows = new Map<string, Record<string, Cell>>(operations.map((operation) => [operation, {}]));
  const set = (operation: string, check: string, cell: Cell) => {
    const row = rows.get(operation);
    if (row) row[check] = merge(row[check], cell);
  };
  for (const record of records) {
    // A test not run (its operation given up on) judged nothing: its cell is its not-run failure.
    const ran =
      record.status !== 'skipped' &&
      !record.findings.some(
        (finding) =>
          finding.origin === 'not-run' && finding.operation === record.operation && finding.check === record.check,
      );
    // The fixture checks judge every response: an operation with a test that ran has them passed
    // unless a finding says otherwise.
    if (ran) for (const id of fixtureChecks) set(record.operation, id, 'pass');
    if (!record.carrier) set(record.operation, record.check, ran ? 'pass' : 'skip');
    for (const finding of record.findings) {
      const mark = markOf(finding, entries, today);
      set(
        finding.operation,
        finding.check,
        (finding.level ?? 'fail') === 'warn' ? 'warn' : mark && !mark.expired ? 'known' : 'fail',
      );
    }
  }
  // A property that judged answers carrying what it reads, and found nothing, passes where its own
  // test lacked the data to judge; one that never found such an answer keeps the skip.
  const judged = new Set(records.flatMap((record) => record.judged ?? []));
  for (const key of judged) {
    const at = key.indexOf(' ');
    const row = rows.get(key.slice(at + 1));
    if (row?.[key.slice(0, at)] === 'skip') row[key.slice(0, at)] = 'pass';
  }
  const matrix: TargetSummary['matrix'] = {};
  for (const [operation, row] of rows) {
    // Cells that do not apply are left out: the JSON stays small and the renderer shows them as '·'.
    matrix[operation] = Object.fromEntries(Object.entries(row).filter(([, cell]) => cell !== 'n/a'));
  }
  const cells = Object.values(matrix).flatMap((row) => Object.values(row));
  const counts = {
    passed: cells.filter((cell) => cell === 'pass').length,
    failed: cells.filter((cell) => cell === 'fail').length,
    known: cells.filter((cell) => cell === 'known').length,
    warned: cells.filter((cell) => cell === 'warn').length,
    skipped: cells.filter((cell) => cell === 'skip').length,
  };
  const failures: Failure[] = [];
  const known: Failure[] = [];
  for (const failure of distinct(records, 'fail')) {
    const mark = markOf(failure, entries, today);
    if (mark) failure.baseline = mark;
    (mark && !mark.expired ? known : failures).push(failure);
  }
  const warnings = distinct(records, 'warn');
  return {
    target,
    verdict: counts.failed > 0 ? 'fail' : 'pass',
    counts,
    tests: { total: records.length, durationMs: records.reduce((sum, record) => sum + record.durationMs, 0) },
    matrix,
    failures,
    known,
    ...(baseline ? { baseline: baselineSummary(baseline, [...failures, ...known], matrix) } : {}),
    warnings,
    skips: records
      .filter((record) => record.status === 'skipped' && matrix[record.operation]?.[record.check] === 'skip')
      .map((record) => ({
        operation: record.operation,
        check: record.check,
        reason: `${record.skipReason ?? 'skipped'}${INVARIANT_CHECKS.has(record.check) ? NO_ANSWER_READ : ''}`,
      })),
    notes: [
      ...new Set(records.flatMap((record) => record.notes)),
      ...retryNote(records),
      ...frontNote(records),
      ...throttleNotes(records),
    ],
    tripped: [
      ...new Set(
        [...failures, ...known, ...warnings]
          .filter((finding) => finding.origin !== 'error' && finding.origin !== 'not-run')
          .map((finding) => finding.check),
      ),
    ].sort(),
    operations: operationStats(
      records.reduce<OperationTimings>((all, record) => mergeTimings(all, record.timings), {}),
      operations,
    ),
  };
}

/** Which baseline entries occurred, expired, were fixed, or could not be judged in this run. */
function baselineSummary(
  context: BaselineContext,
  failing: Failure[],
  matrix: TargetSummary['matrix'],
): BaselineSummary {
  const occurred = new Set(failing.filter((failure) => failure.baseline).map(fingerprintOf));
  const fixed: BaselineEntry[] = [];
  const unjudged: BaselineEntry[] = [];
  for (const [id, entry] of entriesByFingerprint(context.baseline)) {
    if (occurred.has(id)) continue;
    const cell = matrix[entry.operation]?.[entry.check];
    (cell === 'pass' || cell === 'warn' || cell === 'fail' || cell === 'known' ? fixed : unjudged).push(entry);
  }
  return {
    file: context.file,
    entries: context.baseline.failures.length,
    expired: failing.filter((failure) => failure.baseline?.expired).length,
    fixed,
    unjudged,
    ...(context.update ? { update: context.update } : {}),
  };
}

const SYMBOL: Record<Cell, string> = {
  pass: 'pass',
  fail: '**FAIL**',
  known: 'known',
  warn: 'warn',
  skip: 'skip',
  'n/a': '·',
};

/** What a cell of a check the run's --checks left out says, where the check applies to the operation. */
export const NOT_SELECTED = 'not selected';

/** Whether a check applies to an operation (by its label): where it does not, its cell reads "does not apply". */
export function appliesAt(check: Pick<Check, 'appliesTo'>, operation: string): boolean {
  const op = OPERATIONS.find((candidate) => candidate.label === operation);
  return op !== undefined && check.appliesTo(op);
}

/**
 * The checks of `checks` that a run's --checks (`selected`) left out: none of their cells was
 * judged (the fixture's checks judge every answer, so they count as selected wherever they did).
 */
export function notSelectedOf(
  selected: readonly string[] | undefined,
  checks: readonly Check[],
  targets: readonly TargetSummary[],
): string[] | undefined {
  if (!selected) return undefined;
  const judged = new Set(targets.flatMap((target) => Object.values(target.matrix).flatMap((row) => Object.keys(row))));
  const left = checks.filter((check) => !selected.includes(check.id) && !judged.has(check.id)).map((check) => check.id);
  return left.length > 0 ? left : undefined;
}

/**
 * Renders the check x operation matrix as a Markdown table (checks as rows: 13 operations fit
 * across); a check the run's --checks left out reads "not selected" where it applies.
 */
export function renderMatrix(
  matrix: TargetSummary['matrix'],
  checks: readonly Check[],
  notSelected: readonly string[] = [],
): string {
  const operations = Object.keys(matrix);
  const header = `| check | ${operations.map(shortLabel).join(' | ')} |`;
  const rule = `|---|${operations.map(() => ':-:').join('|')}|`;
  const rows = checks.map((check) => {
    const left = notSelected.includes(check.id);
    const cell = (op: string) =>
      left && matrix[op]![check.id] === undefined && appliesAt(check, op)
        ? NOT_SELECTED
        : SYMBOL[matrix[op]![check.id] ?? 'n/a'];
    return `| \`${check.id}\`${check.severity === 'warn' ? ' (warn)' : ''}${left ? ' (not selected)' : ''} | ${operations.map(cell).join(' | ')} |`;
  });
  return [header, rule, ...rows].join('\n');
}

/** The target as the reports name it: its base URL, or the embedded reference server (not a deployment). */
export function targetText(run: Pick<RunSummary, 'baseUrl' | 'embedded'>): string | undefined {
  if (!run.embedded) return run.baseUrl;
  const url = run.baseUrl && /^https?:\/\//.test(run.baseUrl) ? ` at ${run.baseUrl}` : '';
  return `the embedded reference server${url} (kgate's own stand-in, not a deployment)`;
}

/** How a long curl line of a failure shows in the summaries: folded into a file of the run's report folder. */
function curlFolder(run: RunSummary): (failure: Failure) => (curl: string) => string {
  return (failure) => (curl) =>
    foldLine(curl, { dir: run.reportDir, stem: `${failure.check}-${shortLabel(failure.operation)}` });
}

/** Why a run passed or failed, in a few words: `2 failed cells, 1 distinct failure`; the page's headline too. */
export function runHeadline(run: RunSummary): string {
  const several = run.targets.length > 1;
  const target = run.targets.find((item) => item.verdict === 'fail') ?? run.targets[0];
  if (several)
    return `${run.targets.filter((item) => item.verdict === 'fail').length} of ${run.targets.length} targets failed`;
  const { failed = 0, known = 0, warned = 0 } = target?.counts ?? {};
  const distinct = target?.failures.length ?? 0;
  if (run.verdict === 'error' && run.quota)
    return `${run.quota.replace(/^not run: /, '')}: what it did not judge is not passed, so there is no verdict`;
  if (run.verdict === 'error') return 'no cell was judged: every selected cell was skipped, so there is no verdict';
  if (run.verdict === 'fail' && failed === 0) return 'the run failed without a failed cell: see Notes';
  if (failed > 0)
    return `${failed} failed cell${failed === 1 ? '' : 's'}, ${distinct} distinct failure${distinct === 1 ? '' : 's'}`;
  return `no failed cell${known ? `; ${known} known` : ''}${warned ? `; ${warned} warning${warned === 1 ? '' : 's'}` : ''}`;
}

/** `243 passed, 2 failed, 0 warnings, 26 skipped`: the cell counts of a target, as every report gives them. */
export function countsLine(target: TargetSummary): string {
  const { passed, failed, known, warned, skipped } = target.counts;
  const knownPart = target.baseline ? `${known ?? 0} known (baseline), ` : '';
  return `${passed} passed, ${failed} failed, ${knownPart}${warned} warnings, ${skipped} skipped`;
}

/** The failed cells of a target, one entry per check: `response-matches-spec on evaluate GET, evaluate POST`. */
function failedCells(target: TargetSummary): string[] {
  const byCheck = new Map<string, string[]>();
  for (const [operation, row] of Object.entries(target.matrix))
    for (const [check, cell] of Object.entries(row))
      if (cell === 'fail') byCheck.set(check, [...(byCheck.get(check) ?? []), shortLabel(operation)]);
  return [...byCheck.entries()].map(([check, operations]) => `${check} on ${operations.join(', ')}`);
}

/**
 * A target's failures split into its own and those of tests not run (their operation given up on):
 * the terminal and summary.md list the latter as one entry per cause under notRunHeading.
 */
function splitNotRun(failures: readonly Failure[]): { own: Failure[]; notRun: Failure[] } {
  return {
    own: failures.filter((failure) => failure.origin !== 'not-run'),
    notRun: failures.filter((failure) => failure.origin === 'not-run'),
  };
}

function notRunHeading(notRun: readonly Failure[]): string {
  const titles = [...new Set(notRun.map((failure) => failure.title.replace(/^not run: /, '')))].sort();
  return `Not run: ${titles.join(', ') || 'given up'} (${notRun.length} cells, each failing the gate)`;
}

/** Tests not run grouped by cause, then by operation: `  evaluate GET: paging-is-consistent, ...`. */
function notRunLines(failures: readonly Failure[]): string[] {
  const causes = new Map<string, Map<string, string[]>>();
  for (const failure of failures) {
    const cause = failure.received.replace(/, so this test did not judge it$/, '');
    const byOperation = causes.get(cause) ?? new Map<string, string[]>();
    causes.set(cause, byOperation);
    const label = shortLabel(failure.operation);
    byOperation.set(label, [...(byOperation.get(label) ?? []), failure.check]);
  }
  return [...causes].flatMap(([cause, byOperation]) => [
    `  ${cause}`,
    ...[...byOperation].map(([operation, checks]) => `    ${operation}: ${checks.join(', ')}`),
  ]);
}

/** Skipped cells grouped by reason: `no exhausted key given: 13 cells (quota-exhausted-is-403 on interpret GET, ...)`. */
function skipLines(target: TargetSummary): string[] {
  const reasons = new Map<string, string[]>();
  for (const skip of target.skips)
    reasons.set(skip.reason, [...(reasons.get(skip.reason) ?? []), `${skip.check} on ${shortLabel(skip.operation)}`]);
  return [...reasons].map(
    ([reason, which]) =>
      `${reason}: ${which.length} cell${which.length === 1 ? '' : 's'} (${which.slice(0, 3).join(', ')}${which.length > 3 ? ', ...' : ''})`,
  );
}

/** The headline of a run's coverage: what it judged, and with a ledger, what the runs before it did. */
export function coverageHeadline(coverage: CoverageSummary): string {
  const missed = coverage.notJudged.length;
  const left = coverage.notPlanned.length;
  const why = [
    ...(left > 0 ? [`${left} left out by the budget`] : []),
    ...(missed - left > 0 ? [`${missed - left} planned but skipped`] : []),
  ];
  const parts = [
    `${coverage.judged} of ${coverage.items} items judged in this run${missed > 0 ? `, ${missed} not judged in this run (${why.join(', ')})` : ''}`,
  ];
  if (coverage.ledger)
    parts.push(
      `${coverage.ledger.judged} of ${coverage.items} judged since this ledger began (${coverage.ledger.runs} run${coverage.ledger.runs === 1 ? '' : 's'})${coverage.ledger.allWithin !== undefined ? `; every item at least once in the last ${coverage.ledger.allWithin} run${coverage.ledger.allWithin === 1 ? '' : 's'}` : ''}`,
    );
  if (coverage.cycle !== undefined)
    parts.push(
      coverage.cycle > 60
        ? 'at this budget a full cycle takes more than 60 runs'
        : `at this budget a full cycle takes about ${coverage.cycle} run${coverage.cycle === 1 ? '' : 's'}`,
    );
  if (coverage.lastFailures?.length)
    parts.push(`${coverage.lastFailures.length} item(s) whose last judgement failed at some run`);
  return parts.join('; ');
}

/** Items not judged in this run, counted per operation: `evaluateGet 12 (2 cells)`. */
function notJudgedByOperation(items: readonly string[]): string {
  const by = new Map<string, { cells: number; inputs: number }>();
  for (const item of items) {
    const operation = item.split(':')[1] ?? '';
    const entry = by.get(operation) ?? { cells: 0, inputs: 0 };
    by.set(operation, entry);
    if (item.startsWith('cell:')) entry.cells++;
    else entry.inputs++;
  }
  return [...by]
    .map(
      ([operation, { cells, inputs }]) =>
        `${operation} ${cells + inputs}${cells ? ` (${cells} cell${cells === 1 ? '' : 's'})` : ''}`,
    )
    .join(', ');
}

/** The coverage section of summary.md (and the CI job summary). */
function renderCoverage(coverage: CoverageSummary): string[] {
  const lines = ['### Coverage', '', `${coverageHeadline(coverage)}.`, ''];
  if (coverage.plan)
    lines.push(
      `Budget: ${coverage.plan.budget}; the plan announced about ${coverage.plan.requests} requests${coverage.plan.seconds ? ` and ${Math.round(coverage.plan.seconds)} s` : ''}.`,
      '',
    );
  if (coverage.notJudged.length > 0)
    lines.push(
      `Not judged in this run, per operation: ${notJudgedByOperation(coverage.notJudged)} (each item in summary.json, coverage.notJudged; \`kgate coverage\` says what each is).`,
      '',
    );
  if (coverage.lastFailures?.length) {
    lines.push(`Last failure of each item that failed (${coverage.ledger?.file}):`, '');
    for (const failure of coverage.lastFailures.slice(0, 30))
      lines.push(
        `- \`${failure.item}\`: run ${failure.run}, ${failure.date.slice(0, 10)}, seed ${failure.seed}: ${failure.title}${failure.replay ? ` (\`${failure.replay}\`)` : ''}`,
      );
    if (coverage.lastFailures.length > 30) lines.push(`- and ${coverage.lastFailures.length - 30} more (summary.json)`);
    lines.push('');
  }
  return lines;
}

/**
 * Renders a whole run as the terminal shows it at the end: the verdict and why, the cell counts,
 * the failed cells, then each failure, known failure and warning as formatFailure writes it (a long
 * curl line folded into a file of the report folder), notes and skips. Every count is the
 * verdict's: cells of the operation x check matrix. The matrix itself is on the page and in summary.md.
 */
export function renderTerminalSummary(run: RunSummary): string {
  const verdict = run.verdict === 'error' ? 'NO VERDICT' : run.verdict.toUpperCase();
  const seconds = (run.durationMs / 1000).toFixed(1);
  const fold = curlFolder(run);
  const lines: string[] = [`kgate conformance: ${verdict} (${runHeadline(run)})`];
  const named = targetText(run);
  if (named) lines.push(`  target:    ${named}${run.strict ? ' (strict: warnings fail)' : ''}`);
  if (run.notSelected)
    lines.push(`  not selected (--checks): ${run.notSelected.length} check(s), ${run.notSelected.join(', ')}`);
  if (run.shard)
    lines.push(
      `  shard:     ${run.shard.current} of ${run.shard.total}; the counts are this shard's (kgate report merge makes one verdict of the shards)`,
    );
  if (run.shards) {
    const missing = missingShards(run.shards);
    lines.push(
      `  shards:    ${run.shards.merged.join(', ') || 'none'} of ${run.shards.total} merged${missing ? `; ${missing}, so the run is incomplete and fails` : ''}`,
    );
  }
  if (run.requests) lines.push(`  requests:  ${run.requests}${run.maxRps ? ` (paced at most ${run.maxRps}/s)` : ''}`);
  if (run.coverage) lines.push(`  coverage:  ${coverageHeadline(run.coverage)}`);
  for (const breach of run.envelopeBreaches ?? []) lines.push(`  envelope:  bound broken, ${breach}`);
  if (run.tolerance) lines.push(`  numbers:   ${run.tolerance.text}`);
  for (const target of run.targets) {
    const several = run.targets.length > 1;
    const indent = several ? '    ' : '  ';
    if (several) lines.push('', `${target.target}: ${target.verdict.toUpperCase()}`);
    lines.push(
      `${indent}cells:     ${countsLine(target)} (operation x check; ${target.tests.total} tests) in ${seconds} s`,
    );
    const failed = failedCells(target);
    if (failed.length > 0) lines.push(`${indent}failed:    ${failed.join('; ')}`);
    const block = (title: string, failures: readonly Failure[]) => {
      if (failures.length === 0) return;
      lines.push('', `${title}`);
      for (const failure of failures)
        lines.push(
          ...formatFailureFolded(failure, fold(failure))
            .split('\n')
            .map((line) => `  ${line}`),
          '',
        );
      lines.pop();
    };
    // Tests not run for one cause read as one entry: the cause's own failure is listed above them.
    const { own, notRun } = splitNotRun(target.failures);
    block(`Failures (${own.length})`, own);
    if (notRun.length > 0) lines.push('', notRunHeading(notRun), ...notRunLines(notRun));
    if (target.baseline) {
      block(`Known failures, listed in ${target.baseline.file} (${target.known?.length ?? 0})`, target.known ?? []);
      const { update, expired, fixed, unjudged } = target.baseline;
      if (update)
        lines.push(
          '',
          `Baseline ${target.baseline.file} updated before judging: ${update.added} failure(s) added, ${update.dropped} entry(ies) dropped as fixed; write the reason of each added entry before committing it.`,
        );
      if (expired > 0)
        lines.push('', `${expired} baseline entr${expired === 1 ? 'y is' : 'ies are'} past expiry and fail again.`);
      if (fixed.length > 0)
        lines.push(
          '',
          `Fixed, still in ${target.baseline.file} (remove them, or rerun with --update-baseline):`,
          ...fixed.map(
            (entry) =>
              `  - ${entry.check} on ${entry.operation}${entry.pointer ? ` at ${entry.pointer}` : ''}: ${entry.reason}`,
          ),
        );
      if (unjudged.length > 0)
        lines.push(
          '',
          'Baseline entries not judged in this run:',
          ...unjudged.map((entry) => `  - ${entry.check} on ${entry.operation}: ${entry.reason}`),
        );
    }
    block(`Warnings, failing only under --strict (${target.warnings.length})`, target.warnings);
    if (target.notes.length > 0) lines.push('', 'Notes', ...target.notes.map((note) => `  - ${note}`));
    if (target.skips.length > 0)
      lines.push('', 'Skipped (never counted as passed)', ...skipLines(target).map((line) => `  - ${line}`));
  }
  return lines.join('\n');
}

/** Renders a whole run as the Markdown summary written to summary.md (and the CI job summary). */
export function renderSummary(run: RunSummary, checks: readonly Check[]): string {
  const lines: string[] = [];
  const seconds = (run.durationMs / 1000).toFixed(1);
  const fold = curlFolder(run);
  lines.push(`# kgate conformance: ${run.verdict === 'error' ? 'NO VERDICT' : run.verdict.toUpperCase()}`, '');
  const named = targetText(run);
  if (named) lines.push(`Target: ${named}${run.strict ? ' (strict: warnings fail)' : ''}`, '');
  if (run.reportDir) lines.push(`Reports: ${run.reportDir}`, '');
  if (run.shard)
    lines.push(
      `Shard ${run.shard.current} of ${run.shard.total}: the counts are this shard's; \`kgate report merge\` makes one verdict of the shards' folders.`,
      '',
    );
  if (run.shards) {
    const missing = missingShards(run.shards);
    lines.push(
      `Merged from shard${run.shards.merged.length === 1 ? '' : 's'} ${run.shards.merged.join(', ') || 'none'} of ${run.shards.total}${missing ? `: **${missing}**, so the run is incomplete and fails` : ''}.`,
      '',
    );
  }
  if (run.requests)
    lines.push(`Requests sent: ${run.requests}${run.maxRps ? ` (paced at most ${run.maxRps}/s)` : ''}`, '');
  if (run.envelopeBreaches && run.envelopeBreaches.length > 0)
    lines.push(
      "**Envelope bounds broken** (the configuration file's `envelope`; envelope.json has the figures):",
      ...run.envelopeBreaches.map((breach) => `- ${breach}`),
      '',
    );
  if (run.tolerance) lines.push(`Numbers compared: ${run.tolerance.text}`, '');
  for (const target of run.targets) {
    if (run.targets.length > 1) lines.push(`## ${target.target}: ${target.verdict.toUpperCase()}`, '');
    lines.push(`${countsLine(target)} (operation x check cells; ${target.tests.total} tests) in ${seconds} s.`, '');
    if (run.targets.length === 1) {
      lines.push(renderMatrix(target.matrix, checks, run.notSelected), '');
      lines.push(
        `pass / **FAIL** /${target.baseline ? ' known (a failure the baseline accepts) /' : ''} warn (fails under --strict) / skip / · does not apply${run.notSelected ? ` / ${NOT_SELECTED} (left out by --checks)` : ''}. What each check verifies: report.html.`,
        '',
      );
    }
    // As in the terminal: tests not run for one cause read as one entry under the cause's own failure.
    const { own, notRun } = splitNotRun(target.failures);
    if (own.length > 0) {
      lines.push(notRun.length > 0 ? `### Failures (${own.length})` : '### Failures', '');
      for (const failure of own) lines.push('```', formatFailureFolded(failure, fold(failure)), '```', '');
    }
    if (notRun.length > 0)
      lines.push(
        `### ${notRunHeading(notRun)}`,
        '',
        '```',
        ...notRunLines(notRun).map((line) => line.slice(2)),
        '```',
        '',
      );
    if (target.baseline) lines.push(...renderBaseline(target, fold));
    if (target.warnings.length > 0) {
      lines.push('### Warnings (fail under --strict)', '');
      for (const warning of target.warnings) lines.push('```', formatFailureFolded(warning, fold(warning)), '```', '');
    }
    if (target.notes.length > 0) {
      lines.push('### Notes', '');
      for (const note of target.notes) lines.push(`- ${note}`);
      lines.push('');
    }
    if (target.skips.length > 0) {
      lines.push('### Skipped', '');
      for (const line of skipLines(target)) lines.push(`- ${line}`);
      lines.push('');
    }
  }
  if (run.coverage) lines.push(...renderCoverage(run.coverage));
  return lines.join('\n');
}

/** The baseline sections of a target's summary: known failures, fixed and unjudged entries, the update. */
function renderBaseline(target: TargetSummary, fold: (failure: Failure) => (curl: string) => string): string[] {
  const baseline = target.baseline!;
  const lines: string[] = [];
  const entry = (item: BaselineEntry) =>
    `- \`${item.check}\` on ${item.operation}${item.pointer ? ` at ${item.pointer}` : ''}: ${item.reason}`;
  if (baseline.update) {
    lines.push(
      `Baseline ${baseline.file} updated before judging: ${baseline.update.added} failure(s) added, ${baseline.update.dropped} entry(ies) dropped as fixed. Write the reason of each added entry before committing it.`,
      '',
    );
  }
  if (target.known && target.known.length > 0) {
    lines.push(`### Known failures (listed in ${baseline.file}: reported, not failing the gate)`, '');
    for (const failure of target.known) lines.push('```', formatFailureFolded(failure, fold(failure)), '```', '');
  }
  if (baseline.expired > 0) {
    lines.push(
      `${baseline.expired} failure(s) listed in the baseline are past their expiry and fail again (see Failures).`,
      '',
    );
  }
  if (baseline.fixed.length > 0) {
    lines.push(`### Fixed (in ${baseline.file}, no longer failing: remove them, or rerun with --update-baseline)`, '');
    lines.push(...baseline.fixed.map(entry), '');
  }
  if (baseline.unjudged.length > 0) {
    lines.push('### Baseline entries not judged in this run (check not run or skipped)', '');
    lines.push(...baseline.unjudged.map(entry), '');
  }
  return lines;
}

/** One note per kind of front-server refusal the run met, with the limit found (http/front-limits.ts). */
export function frontNote(records: readonly TestRecord[]): string[] {
  const all = noFrontLimits();
  for (const record of records) mergeFrontLimits(all, record.requests?.front);
  return frontLimitNotes(all);
}

/** The paths the interface rate-limits (interface 8): a throttle signal there is rate-limit-signalled's to judge. */
const RATE_LIMITED_PATHS = ['/answersearch/v7.0/search', '/urlpreview/v7.0/search'];

/**
 * The notes on what the answers said of the deployment's infrastructure: each path the run met
 * throttled (retried, never judged; rate-limit-signalled judges the signal), and a cache in front.
 */
export function throttleNotes(records: readonly TestRecord[]): string[] {
  const all = noObservations();
  for (const record of records) mergeObservations(all, record.requests?.observed);
  const notes = Object.values(all.throttled)
    .sort((a, b) => a.path.localeCompare(b.path))
    .map((seen) =>
      seen.persistent
        ? seen.signal.status === 503
          ? `${seen.operations.join(', ')} answered ${describeSignal(seen.signal)} at every pace kgate slowed to, and nothing got through: a server failing, not throttling, so its 503s were judged as its answers (${seen.count} retried first)`
          : `${seen.operations.join(', ')} kept answering ${describeSignal(seen.signal)} at the slowest pace kgate slowed to, after answers of it had got through: persistent, not a limit that lets requests through, so its 429s were judged as its answers (${seen.count} retried first)`
        : `${seen.operations.join(', ')} throttled: ${seen.count} answer(s) ${describeSignal(seen.signal)} from ${signalledBy(seen.signal)}; each was sent again after the wait it asked for or a slower pace on its path, and only the answers that got through were judged (envelope.json says the rate that got through)${!seen.signal.conforms && RATE_LIMITED_PATHS.includes(seen.path) ? "; not the interface's 429 with the seconds to wait, which rate-limit-signalled judges (with --with-rate-limit against a deployment)" : ''}`,
    );
  if (all.cacheHits > 0 && all.cacheExample)
    notes.push(
      `a cache in front of the interface (${nameCache(all.cacheExample)}) served ${all.cacheHits} of the answers the run judged from its cache`,
    );
  return notes;
}

/**
 * The note on requests sent again on a fresh connection: a server may close a kept-alive connection
 * at any moment, so a request it cut off before any byte of its answer is no failure; the summary
 * says how many there were, on which operations.
 */
export function retryNote(records: readonly TestRecord[]): string[] {
  const byOperation = new Map<string, number>();
  for (const record of records)
    for (const [operation, count] of Object.entries(record.requests?.retries ?? {}))
      byOperation.set(operation, (byOperation.get(operation) ?? 0) + count);
  if (byOperation.size === 0) return [];
  const total = [...byOperation.values()].reduce((sum, count) => sum + count, 0);
  const list = [...byOperation.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([operation, count]) => `${operation} ${count}`)
    .join(', ');
  return [
    `${total} request(s) were sent again on a fresh connection, because a kept-alive one was closed before any byte of the answer or brought back two answers (counted in the requests, not a failure): ${list}`,
  ];
}
