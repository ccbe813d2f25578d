// The page of a `kgate fuzz` run, and the result it is drawn from (what `kgate fuzz --json` prints).
import { basename } from 'node:path';
import { maskUrl } from '../config/redact.ts';
import type { Check } from '../contracts/checks/registry.ts';
import type { Failure } from '../contracts/failure.ts';
import type { Intent } from '../contracts/generative/cases.ts';
import { toleranceNote } from '../contracts/properties/tolerance.ts';
import type { Cell as PageCell } from '../page/components.ts';
import type { PageChanges, ReportPage } from '../page/page.ts';
import { compareFailures, labelOf, type PreviousRun, pageFinding, siblingPage } from './report-page.ts';
import { targetText } from './summary.ts';

/** A finding of the run with how many cases showed it. */
export type FuzzFinding = Failure & { seenIn: number };

/** What `kgate fuzz --json` prints. */
export interface FuzzResult {
  command: 'fuzz';
  /** pass, fail, or error: no case got an answer, so the run judged nothing (exit 2). */
  verdict: 'pass' | 'fail' | 'error';
  exitCode: 0 | 1 | 2;
  baseUrl: string;
  /** True when the target was the embedded reference server kgate started itself, not a deployment. */
  embedded?: boolean;
  seed: number;
  /** At most this many requests in the whole run (--max-requests). */
  maxRequests: number;
  cases: Record<Intent, number> & { total: number };
  /** Cases planned per operation. */
  planned: Record<string, number>;
  /** Every request the target received: test data, generated cases, chains, shrinking and retries (what the report page counts). */
  requests: number;
  notSent: number;
  stopped: string[];
  durationMs: number;
  casesPerSecond: number;
  /**
   * The relative tolerance scores were compared within: SCORE_TOLERANCE everywhere, except the
   * operations listed under `learned`, whose answers differed more and a repeat of the same request
   * taught how much (at most CLIENT_NOTICEABLE).
   */
  tolerance: { relative: number; atMost: number; learned: Record<string, number> };
  findings: FuzzFinding[];
  /** What the run met on its way that is no finding: the route it took, a front server's size limits. */
  notes: string[];
  reportDir: string;
}

/** The checks that judge every generated request in `kgate fuzz`, in the order the page lists them. */
const FUZZ_ROWS = [
  'no-server-error',
  'positive-input-accepted',
  'negative-input-rejected',
  'response-matches-spec',
  'content-type-is-json',
  'body-is-json',
  'responds-within-timeout',
  'connection-completes',
  'body-within-size-cap',
];

/** The page of a `kgate fuzz` run: operations x the checks that judged the generated requests. */
export function fuzzPage(
  result: FuzzResult,
  operations: { operation: string; requests: number; p50Ms?: number; p95Ms?: number }[] = [],
  previous?: PreviousRun<FuzzResult>,
  checks: readonly Check[] = [],
): ReportPage {
  const labels = Object.keys(result.planned)
    .filter((id) => (result.planned[id] ?? 0) > 0)
    .map((id) => labelOf(id));
  const rows = [...FUZZ_ROWS, ...new Set(result.findings.map((finding) => finding.check))].filter(
    (id, index, all) => all.indexOf(id) === index,
  );
  const cells: Record<string, Record<string, PageCell>> = {};
  for (const operation of labels) cells[operation] = Object.fromEntries(rows.map((row) => [row, 'pass' as PageCell]));
  for (const finding of result.findings) {
    const row = cells[finding.operation] ?? {};
    cells[finding.operation] = row;
    const level: PageCell = (finding.level ?? 'fail') === 'warn' ? 'warn' : 'fail';
    if (row[finding.check] !== 'fail') row[finding.check] = level;
  }
  const failing = result.findings.filter((finding) => (finding.level ?? 'fail') === 'fail');
  const warnings = result.findings.filter((finding) => finding.level === 'warn');
  const cellsOf = (state: PageCell) =>
    Object.values(cells)
      .flatMap((row) => Object.values(row))
      .filter((cell) => cell === state).length;
  let changes: PageChanges | undefined;
  if (previous) {
    const before = previous.summary.findings.filter((finding) => (finding.level ?? 'fail') === 'fail');
    changes = {
      previous: {
        label: basename(previous.dir),
        verdict: previous.summary.verdict === 'fail' ? 'fail' : 'pass',
        href: siblingPage(previous.dir),
        note:
          previous.summary.seed !== result.seed ? `seed ${previous.summary.seed}, this run ${result.seed}` : undefined,
      },
      ...compareFailures(failing, before, (finding) => cells[finding.operation]?.[finding.check]),
    };
  }
  const { cases } = result;
  const known = new Set(checks.map((check) => check.id));
  return {
    tool: 'kgate fuzz',
    verdict: result.verdict === 'error' ? 'info' : result.verdict,
    ...(result.verdict === 'error' ? { word: 'NO VERDICT' } : {}),
    headline:
      result.verdict === 'error'
        ? 'no case got an answer: nothing was judged'
        : `${failing.length > 0 ? `${failing.length} finding${failing.length === 1 ? '' : 's'}` : 'no finding'}${warnings.length > 0 ? `, ${warnings.length} warning${warnings.length === 1 ? '' : 's'}` : ''}`,
    target: result.embedded
      ? (targetText({ ...result, baseUrl: maskUrl(result.baseUrl) }) ?? '')
      : maskUrl(result.baseUrl),
    durationMs: result.durationMs,
    // Test data discovery included, as in the table below and in summary.json.
    requests: result.requests,
    facts: [
      { label: 'seed', value: String(result.seed) },
      {
        label: 'generated',
        value: `${cases.total} (${cases.positive} valid, ${cases.negative} invalid by one rule, ${cases.edge} unusual)`,
      },
      ...(result.notSent > 0 ? [{ label: 'not sent', value: String(result.notSent) }] : []),
    ],
    counts: [
      { label: 'findings', value: failing.length, cell: 'fail' },
      { label: 'warnings', value: warnings.length, cell: 'warn' },
      { label: 'failed cells', value: cellsOf('fail'), cell: 'fail' },
      { label: 'passed cells', value: cellsOf('pass'), cell: 'pass' },
    ],
    changes,
    matrix: {
      title: 'Operation x check (every generated request is judged by each)',
      operations: Object.keys(cells),
      rows: rows.map((id) => ({ id })),
      cells,
      legend: 'An operation with generated requests passes a check unless one of them tripped it.',
    },
    sections: [
      {
        id: 'findings',
        title: 'Findings',
        tone: 'fail',
        intro: 'Each finding shrunk to a minimal request; its seed line sends the original case again.',
        findings: failing.map((finding) => pageFinding(finding, 'fail', `seen in ${finding.seenIn} case(s)`)),
      },
      {
        id: 'warnings',
        title: 'Warnings',
        tone: 'warn',
        findings: warnings.map((finding) => pageFinding(finding, 'warn', `seen in ${finding.seenIn} case(s)`)),
      },
      { id: 'stopped', title: 'Stopped', tone: 'skip', items: result.stopped.map((text) => ({ text })) },
      {
        id: 'notes',
        title: 'Notes',
        tone: 'info',
        items: [
          ...(result.notes ?? []).map((text) => ({ text })),
          ...Object.entries(result.tolerance?.learned ?? {}).map(([operation, tolerance]) => ({
            text: toleranceNote(operation, { tolerance }),
          })),
        ],
      },
    ],
    operations,
    checks: checks
      .filter((check) => known.has(check.id) && rows.includes(check.id))
      .map(({ id, severity, verifies }) => ({ id, severity, verifies })),
    files: ['summary.md', 'summary.json'],
  };
}
