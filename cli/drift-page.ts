// The report page of `kgate drift live`, in the shape of every kgate report page
// (page/page.ts). It lives in the CLI because the CLI is where drift results and the
// page renderer meet: drift/ and contracts/ do not import each other.
import { basename } from 'node:path';
import { maskUrl } from '../config/redact.ts';
import { type OperationTimings, operationStats, recordTiming } from '../contracts/timings.ts';
import type { DriftFinding } from '../drift/findings.ts';
import type { LiveResult } from '../drift/live.ts';
import { FINDING_KINDS, type FindingKind } from '../drift/walk.ts';
import type { Cell as PageCell, Finding as PageFinding } from '../page/components.ts';
import { type PageChanges, REPORT_HTML, type ReportPage } from '../page/page.ts';

/** The previous live drift run beside this one (see previousRun in contracts/report-page.ts). */
export interface PreviousDrift {
  dir: string;
  summary: LiveResult;
}

function finding(item: DriftFinding, curlOf: Map<string, string>): PageFinding {
  return {
    level: item.known ? 'known' : 'fail',
    check: item.kind,
    operation: item.operation,
    title: item.message,
    seen: item.occurrences > 1 ? `seen ${item.occurrences} times` : undefined,
    fields: [
      { label: 'status', value: `${item.status}${item.mediaType ? ` ${item.mediaType}` : ''}` },
      { label: 'at', value: item.path },
      ...(item.sample !== undefined ? [{ label: 'sample', value: item.sample }] : []),
      { label: 'kind', value: FINDING_KINDS[item.kind] },
      { label: 'first seen in', value: item.seenIn },
      { label: 'fingerprint', value: `${item.fingerprint}${item.known ? ' (in the baseline)' : ''}` },
    ],
    curl: curlOf.get(item.seenIn),
  };
}

/** The page of a live drift run: operations x finding kinds, every finding with the request that showed it. */
export function driftPage(result: LiveResult, previous?: PreviousDrift): ReportPage {
  const { summary } = result;
  const curlOf = new Map(result.cases.map((item) => [item.name, item.curl]));
  const exercised = [
    ...new Set(result.cases.filter((item) => item.status !== undefined).map((item) => item.operation)),
  ];
  const kinds = Object.keys(FINDING_KINDS) as FindingKind[];
  const cells: Record<string, Record<string, PageCell>> = {};
  for (const operation of exercised) cells[operation] = Object.fromEntries(kinds.map((kind) => [kind, 'pass']));
  for (const item of result.findings) {
    const row = cells[item.operation] ?? {};
    cells[item.operation] = row;
    if (row[item.kind] !== 'fail') row[item.kind] = item.known ? 'known' : 'fail';
  }
  const timings: OperationTimings = {};
  for (const item of result.cases) if (!item.skipped) recordTiming(timings, item.operation, item.durationMs);
  const fresh = result.findings.filter((item) => !item.known);
  let changes: PageChanges | undefined;
  if (previous) {
    const before = new Set(previous.summary.findings.map((item) => item.fingerprint));
    const now = new Set(result.findings.map((item) => item.fingerprint));
    const describe = (item: DriftFinding) =>
      `${item.kind} ${item.operation} ${item.status} ${item.path}: ${item.message}`;
    changes = {
      previous: {
        label: basename(previous.dir),
        verdict: previous.summary.summary.new > 0 ? 'fail' : 'pass',
        href: `../${basename(previous.dir)}/${REPORT_HTML}`,
      },
      added: result.findings
        .filter((item) => !before.has(item.fingerprint))
        .map((item) => ({ text: describe(item), operation: item.operation, check: item.kind })),
      fixed: previous.summary.findings
        .filter((item) => !now.has(item.fingerprint))
        .map((item) => ({ text: describe(item) })),
      still: result.findings.filter((item) => before.has(item.fingerprint)).length,
    };
  }
  const unanswered = result.cases.filter((item) => item.error);
  return {
    tool: 'kgate drift live',
    verdict: summary.new > 0 ? 'fail' : 'pass',
    headline:
      summary.findings === 0
        ? 'no drift'
        : `${summary.new} new finding${summary.new === 1 ? '' : 's'}, ${summary.known} known`,
    target: maskUrl(result.baseUrl),
    startedAt: result.startedAt,
    durationMs: result.durationMs,
    requests: summary.requests,
    facts: [
      ...(result.network ? [{ label: 'network', value: result.network }] : []),
      ...(summary.transportErrors > 0 ? [{ label: 'no answer', value: String(summary.transportErrors) }] : []),
    ],
    counts: [
      { label: 'new', value: summary.new, cell: 'fail' },
      { label: 'known', value: summary.known, cell: 'known' },
      { label: 'cases without an answer', value: unanswered.length, cell: 'skip' },
    ],
    changes,
    matrix: {
      title: 'Operation x kind of drift',
      operations: Object.keys(cells),
      rows: kinds.map((id) => ({ id })),
      cells,
      legend:
        'Drift is not a conformance failure: it is where the target differs from the spec. A new finding fails the run; a known one is in the baseline.',
    },
    sections: [
      {
        id: 'findings',
        title: 'New findings',
        tone: 'fail',
        findings: fresh.map((item) => finding(item, curlOf)),
      },
      {
        id: 'known',
        title: 'Known findings (in the baseline)',
        tone: 'known',
        findings: result.findings.filter((item) => item.known).map((item) => finding(item, curlOf)),
      },
      {
        id: 'resolved',
        title: 'Baseline findings no longer seen',
        tone: 'info',
        items: summary.resolved.map((id) => ({ text: 'fingerprint', code: id })),
      },
      {
        id: 'skipped',
        title: 'Requests without an answer, or not sent',
        tone: 'skip',
        items: unanswered.map((item) => ({ text: `${item.name}: ${item.error}`, code: item.curl })),
      },
    ],
    operations: operationStats(timings, Object.keys(cells)),
    checks: kinds.map((id) => ({ id, verifies: FINDING_KINDS[id] })),
    checksTitle: 'What each kind of drift means',
    files: ['drift.md', 'drift.json'],
  };
}
