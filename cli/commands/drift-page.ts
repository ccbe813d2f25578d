// The report page of `kgate drift live`, in the shape of every kgate report page
// (page/page.ts). It lives in the CLI because the CLI is where drift results and the
// page renderer meet: drift/ and contracts/ do not import each other.
import { basename } from 'node:path';
import { maskUrl } from '../../config/redact.ts';
import { type OperationTimings, operationStats, recordTiming } from '../../contracts/timings.ts';
import { causeCounts, type DriftChange, type DriftFinding, groupByCause } from '../../drift/findings.ts';
import { placeText } from '../../drift/history.ts';
import type { LiveResult } from '../../drift/live.ts';
import { changesPhrase } from '../../drift/report.ts';
import { FINDING_KINDS, type FindingKind } from '../../drift/walk.ts';
import type { Cell as PageCell, Finding as PageFinding } from '../../page/components.ts';
import { type PageChanges, REPORT_HTML, type ReportPage } from '../../page/page.ts';

/** The previous live drift run beside this one (see previousRun in reporting/report-page.ts). */
export interface PreviousDrift {
  dir: string;
  summary: LiveResult;
}

/** A change as the page shows it: one card, with every place it touched and the request that first showed it. */
function card(change: DriftChange, curlOf: Map<string, string>): PageFinding {
  const first = change.places[0]!;
  const occurrences = change.places.reduce((sum, place) => sum + place.occurrences, 0);
  const single = change.places.length === 1;
  return {
    level: change.known ? 'known' : 'fail',
    check: change.kind,
    operation: first.operation,
    title: change.message,
    seen: occurrences > 1 ? `seen ${occurrences} times` : undefined,
    fields: [
      ...(single ? [{ label: 'status', value: `${first.status}${first.mediaType ? ` ${first.mediaType}` : ''}` }] : []),
      { label: 'at', value: single ? first.path : change.path },
      ...(change.sample !== undefined ? [{ label: 'sample', value: change.sample }] : []),
      { label: 'kind', value: FINDING_KINDS[change.kind] },
      { label: 'first seen in', value: first.seenIn },
      ...(single
        ? [{ label: 'fingerprint', value: `${first.fingerprint}${first.known ? ' (in the baseline)' : ''}` }]
        : []),
    ],
    places: change.places.map((place) => ({
      operation: place.operation,
      text: `${placeText(place)}${place.known ? ' (in the baseline)' : ''} · ${place.fingerprint}`,
    })),
    curl: curlOf.get(first.seenIn),
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
  const grouped = groupByCause(result.findings);
  const causes = summary.causes ?? causeCounts(grouped);
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
    headline: summary.findings === 0 ? 'no drift' : changesPhrase(result),
    target: maskUrl(result.baseUrl),
    startedAt: result.startedAt,
    durationMs: result.durationMs,
    requests: summary.requests,
    facts: [
      ...(result.network ? [{ label: 'network', value: result.network }] : []),
      ...(summary.transportErrors > 0 ? [{ label: 'no answer', value: String(summary.transportErrors) }] : []),
    ],
    counts: [
      { label: 'failing changes', value: causes.new, cell: 'fail' },
      { label: 'known changes', value: causes.known, cell: 'known' },
      { label: 'places', value: summary.findings, cell: 'info' },
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
        title: 'Failing changes (not in the baseline)',
        tone: 'fail',
        intro:
          'One card per change: the same difference seen on several operations and statuses is one change, with the places it touched.',
        findings: grouped.filter((change) => !change.known).map((change) => card(change, curlOf)),
      },
      {
        id: 'known',
        title: 'Known changes (every place in the baseline)',
        tone: 'known',
        findings: grouped.filter((change) => change.known).map((change) => card(change, curlOf)),
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
