// The report page of a conformance run and of a fuzz run (page/page.ts renders it), and the
// comparison with the previous run of the same kind in the same reports folder.

import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { maskUrl } from '../config/redact.ts';
import type { Check } from '../contracts/checks/registry.ts';
import { type Failure, NOT_RUN_DEADLINE } from '../contracts/failure.ts';
import { getOperation, operationLabel } from '../openapi/spec.ts';
import type { Cell as PageCell, Finding as PageFinding } from '../page/components.ts';
import { shortLabel } from '../page/html.ts';
import { type PageChanges, type PageItem, type PageSection, REPORT_HTML, type ReportPage } from '../page/page.ts';
import { fingerprintOf } from './baseline.ts';
import { isRunId, runIdTime } from './run-dir.ts';
import {
  type CoverageSummary,
  coverageHeadline,
  type RunSummary,
  runHeadline,
  SUMMARY_FILES,
  type TargetSummary,
  targetText,
} from './summary.ts';

/** A finished run found beside this one: its folder and what its summary file holds. */
export interface PreviousRun<T> {
  dir: string;
  summary: T;
}

/**
 * The newest run folder before `dir` in the same reports folder (`reports/conformance/<run-id>/`)
 * that holds `file`, read as JSON (and, with `finished`, one it says ran to a verdict); undefined
 * when there is none (the first run, or a --report-dir outside a reports folder).
 */
export function previousRun<T>(
  dir: string,
  file: string,
  finished: (summary: unknown) => summary is T = (summary): summary is T => true,
): PreviousRun<T> | undefined {
  const name = basename(dir);
  if (!isRunId(name)) return undefined;
  const at = (id: string) => runIdTime(id)!.getTime();
  const root = dirname(dir);
  let names: string[];
  try {
    names = readdirSync(root);
  } catch {
    return undefined;
  }
  const earlier = names
    .filter((other) => isRunId(other) && (at(other) < at(name) || (at(other) === at(name) && other < name)))
    .sort((a, b) => at(a) - at(b) || a.localeCompare(b));
  for (const other of earlier.reverse()) {
    const path = join(root, other, file);
    if (!existsSync(path)) continue;
    let summary: unknown;
    try {
      summary = JSON.parse(readFileSync(path, 'utf8'));
    } catch {
      continue;
    }
    if (finished(summary)) return { dir: join(root, other), summary };
  }
  return undefined;
}

/**
 * Whether an earlier run's file lists its findings, for previousRun: a run stopped before its
 * verdict (a target it could not reach, a stop) wrote none, and has nothing to compare with.
 */
export function listsFindings<T extends { findings: readonly unknown[] }>(summary: unknown): summary is T {
  return Array.isArray((summary as { findings?: unknown } | null)?.findings);
}

/** A finding as the page shows it: the fields of formatFailure, in its order. */
export function pageFinding(failure: Failure, level: PageFinding['level'], seen?: string): PageFinding {
  const fields: PageFinding['fields'] = [
    { label: 'received', value: failure.received },
    { label: 'documented', value: failure.documented },
  ];
  if (failure.pointer !== undefined) fields.push({ label: 'at', value: failure.pointer || '/' });
  if (failure.excerpt) fields.push({ label: 'body', value: failure.excerpt });
  if (failure.baseline) {
    const { reason, expires, expired } = failure.baseline;
    const state = expired ? `EXPIRED on ${expires}, fails again` : `known${expires ? ` until ${expires}` : ''}`;
    fields.push({ label: 'baseline', value: `${state}: ${reason}` });
  }
  if (failure.seed) fields.push({ label: 'seed', value: failure.seed });
  // A test the run's time limit ended carries origin `error` (it proves nothing of the target) but
  // is no defect of kgate either.
  if (failure.origin === 'error')
    fields.push({
      label: 'origin',
      value:
        failure.title === NOT_RUN_DEADLINE
          ? 'not run: the run reached its time limit (--max-duration)'
          : 'kgate itself (not the target)',
    });
  if (failure.origin === 'not-run')
    fields.push({ label: 'origin', value: 'not run: kgate gave up on this operation (see its own failures)' });
  return {
    level,
    check: failure.check,
    operation: failure.operation,
    title: failure.title,
    seen: seen ?? (failure.occurrences && failure.occurrences > 1 ? `seen by ${failure.occurrences} tests` : undefined),
    fields,
    curl: failure.curl,
  };
}

const describe = (failure: Pick<Failure, 'check' | 'operation' | 'title'>) =>
  `[${failure.check}] ${failure.operation}: ${failure.title}`;

/** New and fixed failures against the previous run's, matched by fingerprint (check, operation, pointer). */
export function compareFailures(
  current: Failure[],
  previous: Failure[],
  cellNow: (failure: Failure) => PageCell | undefined,
): Omit<PageChanges, 'previous'> {
  const before = new Set(previous.map(fingerprintOf));
  const now = new Set(current.map(fingerprintOf));
  const added: PageItem[] = current
    .filter((failure) => !before.has(fingerprintOf(failure)))
    .map((failure) => ({ text: describe(failure), operation: failure.operation, check: failure.check }));
  const fixed: PageItem[] = [];
  const seen = new Set<string>();
  for (const failure of previous) {
    const id = fingerprintOf(failure);
    if (now.has(id) || seen.has(id)) continue;
    seen.add(id);
    const cell = cellNow(failure);
    const judged = cell === 'pass' || cell === 'warn' || cell === 'known' || cell === 'fail';
    fixed.push({
      text: `${describe(failure)}${judged ? '' : ' (not judged in this run: the check did not run or was skipped)'}`,
    });
  }
  return { added, fixed, still: current.filter((failure) => before.has(fingerprintOf(failure))).length };
}

/** The relative link from one run folder's page to another's. */
export function siblingPage(dir: string): string {
  return `../${basename(dir)}/${REPORT_HTML}`;
}

/**
 * The coverage section: what the run judged of the coverage model, with a ledger what the runs
 * before it did, the last failure of each item that failed, and the items not judged in this run.
 */
function coverageSection(coverage: CoverageSummary): PageSection {
  const failures = (coverage.lastFailures ?? []).map((failure) => ({
    text: `${failure.item}: last failed in run ${failure.run} (${failure.date.slice(0, 10)}, seed ${failure.seed}): ${failure.title}${failure.replay ? `; replay: ${failure.replay}` : ''}`,
  }));
  const left = coverage.notJudged.slice(0, 200).map((item) => ({
    text: `${item}: not judged in this run${coverage.notPlanned.includes(item) ? ' (the budget left it out)' : ''}`,
  }));
  return {
    id: 'coverage',
    title: 'Coverage',
    tone: coverage.notJudged.length > 0 ? 'skip' : 'info',
    intro: `${coverageHeadline(coverage)}.${coverage.plan ? ` Budget ${coverage.plan.budget}: about ${coverage.plan.requests} requests announced.` : ''}${coverage.notJudged.length > 200 ? ` The first 200 items not judged are listed; summary.json (coverage.notJudged) holds all ${coverage.notJudged.length}.` : ''} Items not judged are never counted as passed; kgate coverage says what each item is.`,
    items: [...failures, ...left],
    count: failures.length + coverage.notJudged.length,
  };
}

/** The page of a conformance run (its single target, or the first of a sweep). */
export function conformancePage(
  run: RunSummary,
  checks: readonly Check[],
  previous?: PreviousRun<RunSummary>,
): ReportPage {
  // A run of several targets (a fault sweep) shows the first failing one in detail and lists them all.
  const target = run.targets.find((item) => item.verdict === 'fail') ?? run.targets[0] ?? emptyTarget();
  const { passed, failed, known, warned, skipped } = target.counts;
  const several = run.targets.length > 1;
  const matrix = target.matrix;
  // Operations the run did not select (--grep, a shard) have no cell: they get no column.
  const operations = Object.keys(matrix).filter((operation) => Object.keys(matrix[operation] ?? {}).length > 0);
  const unselected = Object.keys(matrix).length - operations.length;
  const sections: PageSection[] = [
    {
      id: 'targets',
      title: 'Targets of this run',
      tone: 'info',
      intro: several ? `The matrix and the details below are those of ${target.target}.` : undefined,
      items: several
        ? run.targets.map((item) => ({
            text: `${item.target}: ${item.verdict.toUpperCase()} (${item.counts.failed} failed, ${item.counts.passed} passed, ${item.counts.skipped} skipped cells)`,
          }))
        : [],
    },
    {
      id: 'failures',
      title: 'Failures',
      tone: 'fail',
      intro: 'Each failure once, on the operation and check where it belongs, as the terminal prints it.',
      findings: target.failures.map((failure) => pageFinding(failure, 'fail')),
    },
  ];
  if (target.baseline) {
    const baseline = target.baseline;
    sections.push({
      id: 'known',
      title: `Known failures (listed in ${baseline.file}: reported, not failing the gate)`,
      tone: 'known',
      findings: (target.known ?? []).map((failure) => pageFinding(failure, 'known')),
    });
    const entry = (item: (typeof baseline.fixed)[number]) => ({
      text: `[${item.check}] ${item.operation}${item.pointer ? ` at ${item.pointer}` : ''}: ${item.reason}`,
    });
    sections.push({
      id: 'baseline',
      title: `Baseline ${baseline.file}`,
      tone: 'info',
      intro: `${baseline.entries} entr${baseline.entries === 1 ? 'y' : 'ies'}: ${target.known?.length ?? 0} known, ${baseline.expired} expired (failing again), ${baseline.fixed.length} fixed, ${baseline.unjudged.length} not judged in this run.${baseline.update ? ` Updated before judging: ${baseline.update.added} added, ${baseline.update.dropped} dropped.` : ''}`,
      items: [
        ...baseline.fixed.map((item) => ({ ...entry(item), text: `fixed (remove it): ${entry(item).text}` })),
        ...baseline.unjudged.map((item) => ({ ...entry(item), text: `not judged: ${entry(item).text}` })),
      ],
    });
  }
  sections.push({
    id: 'warnings',
    title: 'Warnings (fail under --strict)',
    tone: 'warn',
    intro:
      'Behaviour a strict reading of the interface fails but the real service showed, or what the interface saw only in samples; "documented" gives the evidence behind the level.',
    findings: target.warnings.map((warning) => pageFinding(warning, 'warn')),
  });
  sections.push({
    id: 'skipped',
    title: 'Skipped',
    tone: 'skip',
    intro: 'A skipped check was not judged: it is never counted as passed.',
    items: skipItems(target.skips),
    count: target.skips.length,
  });
  sections.push({ id: 'notes', title: 'Notes', tone: 'info', items: target.notes.map((note) => ({ text: note })) });
  if (run.coverage) sections.push(coverageSection(run.coverage));

  let changes: PageChanges | undefined;
  const before = previous?.summary.targets?.[0];
  if (previous && before) {
    changes = {
      previous: {
        label: basename(previous.dir),
        verdict: previous.summary.verdict === 'fail' ? 'fail' : 'pass',
        href: siblingPage(previous.dir),
        note:
          previous.summary.baseUrl && run.baseUrl && maskUrl(previous.summary.baseUrl) !== maskUrl(run.baseUrl)
            ? `it judged ${maskUrl(previous.summary.baseUrl)}`
            : undefined,
      },
      ...compareFailures(
        target.failures,
        before.failures ?? [],
        (failure) => matrix[failure.operation]?.[failure.check],
      ),
    };
  }
  const shown = new Set(operations.flatMap((operation) => Object.keys(matrix[operation] ?? {})));
  return {
    tool: 'kgate conformance',
    verdict: run.verdict === 'error' ? 'info' : run.verdict,
    ...(run.verdict === 'error' ? { word: 'NO VERDICT' } : {}),
    headline: runHeadline(run),
    target: run.baseUrl || run.embedded ? maskUrl(targetText(run)!) : undefined,
    startedAt: run.startedAt,
    durationMs: run.durationMs,
    requests: run.requests,
    facts: [
      { label: 'tests', value: String(target.tests.total) },
      ...(run.workers ? [{ label: 'workers', value: String(run.workers) }] : []),
      ...(run.strict ? [{ label: 'strict', value: 'warnings fail' }] : []),
      ...(run.maxRps ? [{ label: 'pace', value: `at most ${run.maxRps} requests/s` }] : []),
      ...(target.baseline ? [{ label: 'baseline', value: target.baseline.file }] : []),
    ],
    counts: [
      { label: 'passed', value: passed, cell: 'pass' },
      { label: 'failed', value: failed, cell: 'fail' },
      ...(target.baseline ? [{ label: 'known', value: known ?? 0, cell: 'known' as const }] : []),
      { label: 'warnings', value: warned, cell: 'warn' },
      { label: 'skipped', value: skipped, cell: 'skip' },
    ],
    changes,
    matrix: {
      title: several ? `Operation x check: ${target.target}` : 'Operation x check',
      operations,
      rows: checks
        .filter((check) => shown.has(check.id))
        .map((check) => ({ id: check.id, ...(check.severity === 'warn' ? { note: 'warn' } : {}) })),
      cells: matrix,
      legend: `Counts are cells: one defect shows as one failed cell per operation it breaks, however many tests saw it. A cell links to its finding, its skip reason or what its check verifies.${unselected > 0 ? ` ${unselected} operation(s) of the spec were not selected in this run and have no column.` : ''}${run.notSelected ? ` Not selected in this run (left out by --checks, so not judged; not the same as does not apply), and so without a row: ${run.notSelected.join(', ')}.` : ''}`,
    },
    sections,
    operations: target.operations,
    checks: checks
      .filter((check) => shown.has(check.id))
      .map(({ id, severity, verifies }) => ({ id, severity, verifies })),
    files: [SUMMARY_FILES.markdown, SUMMARY_FILES.json, SUMMARY_FILES.junit, SUMMARY_FILES.tests],
  };
}

/** Skipped cells, one item per check and reason: `quota-exhausted-is-403 on interpret GET, ...: no exhausted key given`. */
export function skipItems(skips: TargetSummary['skips']): PageItem[] {
  const groups = new Map<string, TargetSummary['skips']>();
  for (const skip of skips) {
    const key = `${skip.check}\u0000${skip.reason}`;
    groups.set(key, [...(groups.get(key) ?? []), skip]);
  }
  return [...groups.values()].map((group) => ({
    text: `${group[0]!.check} on ${group.map((skip) => shortLabel(skip.operation)).join(', ')}: ${group[0]!.reason}`,
    cells: group.map(({ operation, check }) => ({ operation, check })),
  }));
}

function emptyTarget(): TargetSummary {
  return {
    target: 'conformance',
    verdict: 'fail',
    counts: { passed: 0, failed: 0, warned: 0, skipped: 0 },
    tests: { total: 0, durationMs: 0 },
    matrix: {},
    failures: [],
    warnings: [],
    skips: [],
    notes: ['the run produced no test results'],
    tripped: [],
  };
}

/** `evaluateGet` -> `GET /academic/v1.0/evaluate` (an unknown id stays as it is). */
export function labelOf(operationId: string): string {
  const op = getOperation(operationId);
  return op ? operationLabel(op) : operationId;
}
