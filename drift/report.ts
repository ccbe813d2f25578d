import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { redactSecrets } from '../config/redact.ts';
import { foldLine, wrapList } from '../page/fold.ts';
import { causeCounts, type DriftChange, type DriftFinding, groupByCause } from './findings.ts';
import { type HistoryReport, placeText } from './history.ts';
import { renderHistoryHtml, renderHistoryMarkdown } from './history-report.ts';
import type { LiveResult } from './live.ts';
import { FINDING_KINDS } from './walk.ts';

/**
 * Writes `drift.json` and `drift.md` of a live run into `dir` (created if needed), and with a
 * history (--history) its section in both and `history.html`; returns the paths.
 */
export function writeLiveReport(
  result: LiveResult,
  dir: string,
  history?: HistoryReport,
): { json: string; markdown: string; html?: string } {
  mkdirSync(dir, { recursive: true });
  const json = join(dir, 'drift.json');
  const markdown = join(dir, 'drift.md');
  writeFileSync(json, `${redactSecrets(JSON.stringify(history ? { ...result, history } : result, null, 2))}\n`);
  const historyPart = history ? `\n${renderHistoryMarkdown(history)}` : '';
  writeFileSync(markdown, redactSecrets(`${renderMarkdown(result, dir)}${historyPart}`));
  if (!history) return { json, markdown };
  const html = join(dir, 'history.html');
  writeFileSync(html, redactSecrets(renderHistoryHtml(history)));
  return { json, markdown, html };
}

/** One line per finding, as the CLI prints it. */
export function findingLine(finding: DriftFinding): string {
  const state = finding.known ? 'known' : 'FAIL ';
  const times = finding.occurrences > 1 ? ` (x${finding.occurrences})` : '';
  return `${state} ${finding.kind} ${finding.operation} ${finding.status} ${finding.path}: ${finding.message}${times} [${finding.fingerprint}]`;
}

/**
 * The lines of one change as the CLI prints it: a change seen in one place is its finding's line;
 * one seen in several is one line (state, kind, path, what, how many places), then its places.
 */
export function changeLines(change: DriftChange): string[] {
  if (change.places.length === 1) return [findingLine(change.places[0]!)];
  const state = change.known ? 'known' : 'FAIL ';
  const known = change.places.filter((place) => place.known).length;
  const places = change.places.map(
    (place) => `${placeText(place)}${place.known && !change.known ? ' (in the baseline)' : ''}`,
  );
  return [
    `${state} ${change.kind} ${change.path}: ${change.message} (${change.places.length} places${known > 0 && !change.known ? `, ${known} of them in the baseline` : ''})`,
    ...wrapList(places, '        '),
  ];
}

/**
 * `12 changes (3 failing, 9 known) at 40 places`: the counts a live run's reports give. A change
 * fails the run unless the baseline lists every place of it (then it is known); `new` is a history's
 * word (first seen by the last run), never a live run's.
 */
export function changesPhrase(result: LiveResult): string {
  const causes = result.summary.causes ?? causeCounts(groupByCause(result.findings));
  return `${causes.total} change${causes.total === 1 ? '' : 's'} (${causes.new} failing, ${causes.known} known) at ${result.summary.findings} place${result.summary.findings === 1 ? '' : 's'}`;
}

const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

/** The Markdown report of a live run: one row per change, with the places it touched. */
export function renderMarkdown(result: LiveResult, reportDir?: string): string {
  const { summary } = result;
  const changes = groupByCause(result.findings);
  const lines = [
    '# kgate drift live',
    '',
    `Target: ${result.baseUrl}  `,
    ...(result.network ? [`Network: ${result.network}  `] : []),
    `Started: ${result.startedAt}, ${summary.requests} requests in ${(result.durationMs / 1000).toFixed(1)} s  `,
    `Findings: ${changesPhrase(result)}; by place ${summary.new} failing, ${summary.known} known from the baseline` +
      (summary.transportErrors > 0 ? `; ${summary.transportErrors} requests without an answer` : ''),
    '',
    'Drift is not a conformance failure: it lists where the target differs from the spec. One change seen on several operations and statuses is one row, with its places.',
    '',
  ];
  if (changes.length > 0) {
    lines.push('## Changes', '', '| | kind | path | what | sample | places | seen |', '|---|---|---|---|---|---|---|');
    for (const change of changes) {
      const places = change.places.map(
        (place) => `${placeText(place)}${place.known ? ' (known)' : ''} \`${place.fingerprint}\``,
      );
      const seen = change.places.reduce((sum, place) => sum + place.occurrences, 0);
      lines.push(
        `| ${change.known ? 'known' : '**failing**'} | ${change.kind} | \`${cell(change.path)}\` | ${cell(change.message)} | ${change.sample ? `\`${cell(change.sample)}\`` : ''} | ${change.places.length}: ${cell(places.join(', '))} | ${seen}x, first in ${cell(change.places[0]!.seenIn)} |`,
      );
    }
    lines.push('');
  } else {
    lines.push('No drift: every response matched the spec.', '');
  }
  if (summary.resolved.length > 0) {
    lines.push('## Baseline findings no longer seen', '', ...summary.resolved.map((id) => `- ${id}`), '');
  }
  const used = [...new Set(result.findings.map((finding) => finding.kind))];
  if (used.length > 0) {
    lines.push('## Kinds', '', ...used.map((kind) => `- **${kind}**: ${FINDING_KINDS[kind]}`), '');
  }
  lines.push('## Requests', '', '| case | status | media type | issues | reproduce |', '|---|---|---|---|---|');
  for (const item of result.cases) {
    const curl = foldLine(item.curl, { dir: reportDir, stem: `drift-${item.name}` });
    lines.push(
      `| ${cell(item.name)} | ${item.status ?? cell(item.error ?? '')} | ${item.mediaType ?? ''} | ${item.issues} | \`${cell(curl)}\` |`,
    );
  }
  return `${lines.join('\n')}\n`;
}
