import type { Check } from './checks/registry.ts';
import { type Failure, formatFailure } from './failure.ts';

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
}

/** What one cell of the operation x check matrix says. */
export type Cell = 'pass' | 'fail' | 'warn' | 'skip' | 'n/a';

/** The outcome of one target (one Playwright project group). */
export interface TargetSummary {
  /** `conformance` for a single target; the fault name in a sweep. */
  target: string;
  verdict: 'pass' | 'fail';
  /** Matrix cells by outcome: one defect shows as one failed cell, however many tests saw it. */
  counts: { passed: number; failed: number; warned: number; skipped: number };
  /** Tests run (Playwright tests), and the sum of their durations in milliseconds. */
  tests: { total: number; durationMs: number };
  /** operation label -> check id -> cell. */
  matrix: Record<string, Record<string, Cell>>;
  /** Distinct failures (`occurrences` counts the tests that saw each). */
  failures: Failure[];
  /** Distinct warnings: fail only under --strict. */
  warnings: Failure[];
  skips: { operation: string; check: string; reason: string }[];
  /** Notes of the checks (for example, a check that could not be exact on this target). */
  notes: string[];
  /** Check ids that reported a failure or warning about the target (kgate's own errors excluded). */
  tripped: string[];
}

/** The result object of a whole run (what `kgate conform --json` prints). */
export interface RunSummary {
  verdict: 'pass' | 'fail';
  exitCode: 0 | 1;
  baseUrl?: string;
  strict: boolean;
  durationMs: number;
  /** Folder the run wrote its reports to. */
  reportDir?: string;
  /** Worker processes the run used. */
  workers?: number;
  targets: TargetSummary[];
}

/** Projects whose results count towards the same target (the rate-limit tests run as their own project). */
export function targetOf(project: string): string {
  return project === 'rate-limit' ? 'conformance' : project.replace(/ @rate-limit$/, '');
}

const RANK: Record<Cell, number> = { 'n/a': 0, skip: 1, pass: 2, warn: 3, fail: 4 };

function merge(current: Cell | undefined, next: Cell): Cell {
  return current === undefined || current === 'n/a' || RANK[next] > RANK[current] ? next : current;
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

/** The identity of a finding: the same defect seen by several tests is one finding. */
export function findingKey(finding: Failure): string {
  return [finding.check, finding.operation, finding.title, finding.pointer ?? ''].join('\u0000');
}

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
      if (known) known.occurrences = (known.occurrences ?? 1) + 1;
      else byKey.set(key, { ...finding, occurrences: 1 });
    }
  }
  return [...byKey.values()];
}

function summariseTarget(
  target: string,
  records: TestRecord[],
  operations: string[],
  checks: readonly Check[],
): TargetSummary {
  const fixtureChecks = checks.filter((check) => check.kind === 'fixture').map((check) => check.id);
  const rows = new Map<string, Record<string, Cell>>(operations.map((operation) => [operation, {}]));
  const set = (operation: string, check: string, cell: Cell) => {
    const row = rows.get(operation);
    if (row) row[check] = merge(row[check], cell);
  };
  for (const record of records) {
    const ran = record.status !== 'skipped';
    // The fixture checks judge every response: an operation with a test that ran has them passed
    // unless a finding says otherwise.
    if (ran) for (const id of fixtureChecks) set(record.operation, id, 'pass');
    set(record.operation, record.check, ran ? 'pass' : 'skip');
    for (const finding of record.findings) {
      set(finding.operation, finding.check, (finding.level ?? 'fail') === 'warn' ? 'warn' : 'fail');
    }
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
    warned: cells.filter((cell) => cell === 'warn').length,
    skipped: cells.filter((cell) => cell === 'skip').length,
  };
  const failures = distinct(records, 'fail');
  const warnings = distinct(records, 'warn');
  return {
    target,
    verdict: counts.failed > 0 ? 'fail' : 'pass',
    counts,
    tests: { total: records.length, durationMs: records.reduce((sum, record) => sum + record.durationMs, 0) },
    matrix,
    failures,
    warnings,
    skips: records
      .filter((record) => record.status === 'skipped' && matrix[record.operation]?.[record.check] === 'skip')
      .map((record) => ({ operation: record.operation, check: record.check, reason: record.skipReason ?? 'skipped' })),
    notes: [...new Set(records.flatMap((record) => record.notes))],
    tripped: [
      ...new Set(
        [...failures, ...warnings].filter((finding) => finding.origin !== 'error').map((finding) => finding.check),
      ),
    ].sort(),
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
  if (run.reportDir) lines.push(`Reports: ${run.reportDir}`, '');
  for (const target of run.targets) {
    const { passed, failed, warned, skipped } = target.counts;
    if (run.targets.length > 1) lines.push(`## ${target.target}: ${target.verdict.toUpperCase()}`, '');
    lines.push(
      `${passed} passed, ${failed} failed, ${warned} warnings, ${skipped} skipped (operation x check cells; ${target.tests.total} tests) in ${seconds} s.`,
      '',
    );
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
    if (target.notes.length > 0) {
      lines.push('### Notes', '');
      for (const note of target.notes) lines.push(`- ${note}`);
      lines.push('');
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
