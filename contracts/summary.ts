import type { Check } from './checks/registry.ts';
import { type Failure, formatFailure } from './failure.ts';

/** File names the reporter writes into the report folder. */
export const SUMMARY_FILES = { markdown: 'summary.md', json: 'summary.json' } as const;

/** One finished test as the reporter saw it. */
export interface TestRecord {
  /** Playwright project: `conformance`, `rate-limit`, or a fault name in a sweep. */
  project: string;
  /** Operation label (the describe title). */
  operation: string;
  /** Check id (the test title). */
  check: string;
  status: 'passed' | 'failed' | 'skipped';
  /** The failure that ended the test, if any. */
  failure?: Failure;
  /** A `warn` check's failure, reported without failing the gate. */
  warning?: Failure;
  skipReason?: string;
  durationMs: number;
}

/** What one cell of the operation x check matrix says. */
export type Cell = 'pass' | 'fail' | 'warn' | 'skip' | 'n/a';

/** The outcome of one target (one Playwright project group). */
export interface TargetSummary {
  /** `conformance` for a single target; the fault name in a sweep. */
  target: string;
  verdict: 'pass' | 'fail';
  counts: { passed: number; failed: number; warned: number; skipped: number };
  /** operation label -> check id -> cell. */
  matrix: Record<string, Record<string, Cell>>;
  failures: Failure[];
  warnings: Failure[];
  skips: { operation: string; check: string; reason: string }[];
  /** Check ids that reported at least one failure (or warning). */
  tripped: string[];
}

/** The result object of a whole run (what `kgate conform --json` prints). */
export interface RunSummary {
  verdict: 'pass' | 'fail';
  exitCode: 0 | 1;
  baseUrl?: string;
  strict: boolean;
  durationMs: number;
  targets: TargetSummary[];
}

/** Projects whose results count towards the same target (the rate-limit tests run as their own project). */
export function targetOf(project: string): string {
  return project === 'rate-limit' ? 'conformance' : project.replace(/ @rate-limit$/, '');
}

const RANK: Record<Cell, number> = { 'n/a': 0, skip: 1, pass: 2, warn: 3, fail: 4 };

function merge(current: Cell | undefined, next: Cell): Cell {
  return current === undefined || RANK[next] > RANK[current] ? next : current;
}

/** Folds test records into one summary per target, with the matrix over the given operations and checks. */
export function summarise(records: TestRecord[], operations: string[], checks: readonly Check[]): TargetSummary[] {
  const byTarget = new Map<string, TestRecord[]>();
  for (const record of records) {
    const target = targetOf(record.project);
    byTarget.set(target, [...(byTarget.get(target) ?? []), record]);
  }
  return [...byTarget.entries()].map(([target, list]) => summariseTarget(target, list, operations, checks));
}

function summariseTarget(
  target: string,
  records: TestRecord[],
  operations: string[],
  checks: readonly Check[],
): TargetSummary {
  const matrix: TargetSummary['matrix'] = {};
  const fixtureChecks = checks.filter((check) => check.kind === 'fixture').map((check) => check.id);
  for (const operation of operations) {
    const row: Record<string, Cell> = {};
    const tests = records.filter((record) => record.operation === operation);
    for (const check of checks) row[check.id] = 'n/a';
    const ran = tests.some((record) => record.status !== 'skipped');
    for (const id of fixtureChecks) if (ran) row[id] = merge(row[id] === 'n/a' ? undefined : row[id], 'pass');
    for (const record of tests) {
      const own: Cell =
        record.status === 'failed' ? 'fail' : record.status === 'skipped' ? 'skip' : record.warning ? 'warn' : 'pass';
      row[record.check] = merge(row[record.check] === 'n/a' ? undefined : row[record.check], own);
      if (record.failure && record.failure.check !== record.check) row[record.failure.check] = 'fail';
    }
    // Cells that do not apply are left out: the JSON stays small and the renderer shows them as '·'.
    matrix[operation] = Object.fromEntries(Object.entries(row).filter(([, cell]) => cell !== 'n/a'));
  }
  const failures = records.flatMap((record) => (record.failure && record.status === 'failed' ? [record.failure] : []));
  const warnings = records.flatMap((record) => (record.warning ? [record.warning] : []));
  const counts = {
    passed: records.filter((record) => record.status === 'passed' && !record.warning).length,
    failed: records.filter((record) => record.status === 'failed').length,
    warned: warnings.length,
    skipped: records.filter((record) => record.status === 'skipped').length,
  };
  return {
    target,
    verdict: counts.failed > 0 ? 'fail' : 'pass',
    counts,
    matrix,
    failures,
    warnings,
    skips: records
      .filter((record) => record.status === 'skipped')
      .map((record) => ({ operation: record.operation, check: record.check, reason: record.skipReason ?? 'skipped' })),
    tripped: [...new Set([...failures, ...warnings].map((failure) => failure.check))].sort(),
  };
}

const SYMBOL: Record<Cell, string> = { pass: 'pass', fail: '**FAIL**', warn: 'warn', skip: 'skip', 'n/a': '·' };

/** Renders the check x operation matrix as a Markdown table (checks as rows: 13 operations fit across). */
export function renderMatrix(matrix: TargetSummary['matrix'], checks: readonly Check[]): string {
  const operations = Object.keys(matrix);
  const header = `| check | ${operations.map(shortLabel).join(' | ')} |`;
  const rule = `|---|${operations.map(() => ':-:').join('|')}|`;
  const rows = checks.map(
    (check) =>
      `| \`${check.id}\`${check.severity === 'warn' ? ' (warn)' : ''} | ${operations.map((op) => SYMBOL[matrix[op]![check.id] ?? 'n/a']).join(' | ')} |`,
  );
  return [header, rule, ...rows].join('\n');
}

/** `GET /academic/v1.0/evaluate` -> `evaluate GET`; `/eventknowledge/v1.0/events/{event_id}/documents` -> `documents GET`. */
export function shortLabel(label: string): string {
  const [method, path] = label.split(' ');
  const last =
    (path ?? '')
      .split('/')
      .filter((part) => part && !part.startsWith('{'))
      .pop() ?? path;
  const name = last === 'search' ? (path!.includes('urlpreview') ? 'urlpreview' : 'answersearch') : last;
  return `${name} ${method}`;
}

/** Renders a whole run as the Markdown summary printed at the end and written to summary.md. */
export function renderSummary(run: RunSummary, checks: readonly Check[]): string {
  const lines: string[] = [];
  const seconds = (run.durationMs / 1000).toFixed(1);
  lines.push(`# kgate conformance: ${run.verdict === 'pass' ? 'PASS' : 'FAIL'}`, '');
  if (run.baseUrl) lines.push(`Target: ${run.baseUrl}${run.strict ? ' (strict: warnings fail)' : ''}`, '');
  for (const target of run.targets) {
    const { passed, failed, warned, skipped } = target.counts;
    if (run.targets.length > 1) lines.push(`## ${target.target}: ${target.verdict.toUpperCase()}`, '');
    lines.push(`${passed} passed, ${failed} failed, ${warned} warnings, ${skipped} skipped in ${seconds} s.`, '');
    if (run.targets.length === 1) {
      lines.push(renderMatrix(target.matrix, checks), '');
      lines.push(
        'pass / **FAIL** / warn (fails under --strict) / skip / · does not apply. What each check verifies: contracts/README.md.',
        '',
      );
    }
    if (target.failures.length > 0) {
      lines.push('### Failures', '');
      for (const failure of target.failures) lines.push('```', formatFailure(failure), '```', '');
    }
    if (target.warnings.length > 0) {
      lines.push('### Warnings (fail under --strict)', '');
      for (const warning of target.warnings) lines.push('```', formatFailure(warning), '```', '');
    }
    if (target.skips.length > 0) {
      lines.push('### Skipped', '');
      const reasons = new Map<string, string[]>();
      for (const skip of target.skips)
        reasons.set(skip.reason, [
          ...(reasons.get(skip.reason) ?? []),
          `${skip.check} on ${shortLabel(skip.operation)}`,
        ]);
      for (const [reason, which] of reasons)
        lines.push(
          `- ${reason}: ${which.length} test(s) (${which.slice(0, 3).join(', ')}${which.length > 3 ? ', ...' : ''})`,
        );
      lines.push('');
    }
  }
  return lines.join('\n');
}
