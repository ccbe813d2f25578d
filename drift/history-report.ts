// The reports of a drift history: Markdown (drift.md's history section) and the timeline page
// (history.html), both one entry per change: a change seen on several operations and statuses (an
// undocumented field on every answer) is one entry with the places it touched, counted once.
import { type Cell, mark, table } from '../page/components.ts';
import { html, text } from '../page/html.ts';
import { type ReportPage, renderPage } from '../page/page.ts';
import {
  type ChangeHistory,
  type FindingHistory,
  type HistoryReport,
  type HistoryState,
  placeText,
  shortTime,
  statePhrase,
} from './history.ts';

const cell = (value: string) => value.replace(/\|/g, '\\|').replace(/\n/g, ' ');

/** `2 changes (1 new, 1 ongoing, 0 flaky, 0 gone) at 38 places`: what the headlines count. */
export function historyCounts(report: HistoryReport): string {
  const counts = report.changeCounts;
  const places = report.findings.length;
  return `${report.changes.length} change${report.changes.length === 1 ? '' : 's'} (${counts.new} new, ${counts.ongoing} ongoing, ${counts.flaky} flaky, ${counts.gone} gone) at ${places} place${places === 1 ? '' : 's'}`;
}

/** The Markdown of a history: counts, then one table row per change with its state, places, first and last seen. */
export function renderHistoryMarkdown(report: HistoryReport, level = '##'): string {
  const lines = [
    `${level} History (${report.file})`,
    '',
    `Target: ${report.target}; ${report.runs.length} run(s) from ${report.runs[0] ? shortTime(report.runs[0].at) : '-'} to ${report.runs.at(-1) ? shortTime(report.runs.at(-1)!.at) : '-'}  `,
    `Findings: ${historyCounts(report)}`,
    '',
  ];
  for (const problem of report.problems)
    lines.push(`- line ${problem.line} of the file was skipped: ${problem.reason}`);
  if (report.problems.length > 0) lines.push('');
  if (report.changes.length === 0) {
    lines.push('No finding in the history.', '');
    return lines.join('\n');
  }
  lines.push(
    '| state | severity | kind | path | places | first seen | last seen | seen | timeline |',
    '|---|---|---|---|---|---|---|---|---|',
  );
  for (const change of report.changes) {
    const state =
      change.state === 'new' || change.state === 'flaky' ? `**${statePhrase(change)}**` : statePhrase(change);
    const places = change.places.map((place) => `${placeText(place)} \`${place.fingerprint}\``).join(', ');
    lines.push(
      `| ${cell(state)} | ${change.severity} | ${change.kind} | \`${cell(change.path)}\` | ${change.places.length}: ${cell(places)} | ${shortTime(change.firstSeen)} | ${shortTime(change.lastSeen)} | ${change.timesSeen}x | \`${timelineText(change)}\` |`,
    );
  }
  lines.push('', 'Timeline: one mark per run, oldest first: `#` seen, `.` checked and not seen, `?` not checked.', '');
  return lines.join('\n');
}

/** `..##.#`: the timeline of a finding or change as text. */
export function timelineText(finding: Pick<FindingHistory, 'timeline'>): string {
  return finding.timeline.map((state) => (state === 'seen' ? '#' : state === 'absent' ? '.' : '?')).join('');
}

/** Each state as the page shows it: a tone (icon and colour) and its word; `new` is what a live run fails on. */
const STATE_TONE: Record<HistoryState, { tone: Cell; colour: string }> = {
  new: { tone: 'fail', colour: '#b3400b' },
  flaky: { tone: 'warn', colour: '#6b4a00' },
  ongoing: { tone: 'known', colour: '#4a3a80' },
  gone: { tone: 'pass', colour: '#0b6b50' },
};

/** The most recent runs the page draws; older ones are counted in the caption. */
const MAX_RUNS_DRAWN = 60;
const CELL = 12;
const HEIGHT = 18;

/** One change's lane: a mark per run, filled seen, outlined checked and not seen, a dot not checked. */
function laneSvg(change: Pick<ChangeHistory, 'timeline' | 'state'>, runs: HistoryReport['runs']): string {
  const drawn = runs.slice(-MAX_RUNS_DRAWN);
  const offset = runs.length - drawn.length;
  const width = drawn.length * CELL + 2;
  const { colour } = STATE_TONE[change.state];
  const marks = change.timeline.slice(offset).map((state, column) => {
    const x = column * CELL + 1;
    const title = `<title>${text(`${shortTime(drawn[column]!.at)}: ${state === 'seen' ? 'seen' : state === 'absent' ? 'not seen' : 'not checked'}`)}</title>`;
    if (state === 'seen')
      return `<rect x="${x}" y="2" width="${CELL - 3}" height="${HEIGHT - 4}" rx="2" fill="${colour}">${title}</rect>`;
    if (state === 'absent')
      return `<rect x="${x + 0.5}" y="5.5" width="${CELL - 4}" height="${HEIGHT - 11}" rx="1.5" fill="none" stroke="#767676">${title}</rect>`;
    return `<circle cx="${x + (CELL - 3) / 2}" cy="${HEIGHT / 2}" r="1.5" fill="#767676">${title}</circle>`;
  });
  const seen = change.timeline.filter((state) => state === 'seen').length;
  const label = `seen in ${seen} of ${change.timeline.length} runs: ${timelineText(change)} (# seen, . not seen, ? not checked)`;
  return `<svg role="img" aria-label="${text(label)}" width="${width}" height="${HEIGHT}" viewBox="0 0 ${width} ${HEIGHT}" xmlns="http://www.w3.org/2000/svg">${marks.join('')}</svg>`;
}

/**
 * The page of a history (one entry per change, with its places, its state written out and its
 * timeline: one mark per run, filled seen, outlined checked and not seen, a dot not checked). A
 * history judges nothing (`kgate drift history` exits 0): its banner says INFO; the live run that
 * wrote it has its own verdict on its own page.
 */
export function historyPage(report: HistoryReport, title = 'kgate drift history'): ReportPage {
  const counts = report.changeCounts;
  const first = report.runs.at(-MAX_RUNS_DRAWN) ?? report.runs[0];
  const last = report.runs.at(-1);
  const span = first && last ? `${shortTime(first.at)} to ${shortTime(last.at)}` : '';
  const rows = report.changes.map((change) => {
    const { tone } = STATE_TONE[change.state];
    const places =
      change.places.length === 1
        ? text(`${change.places[0]!.operation} ${change.places[0]!.status}`)
        : `<details class="fold"><summary>${change.places.length} places</summary><ul class="places">${change.places.map((place) => `<li>${text(`${placeText(place)} (${place.fingerprint})`)}</li>`).join('')}</ul></details>`;
    return {
      cells: [
        html(mark(tone, change.state)),
        html(
          `<code>${text(change.kind)}</code> <code>${text(change.path)}</code><br><span class="intro">${text(change.message)}</span>`,
        ),
        html(places),
        html(`<div class="lane">${laneSvg(change, report.runs)}</div>`),
        statePhrase(change),
        shortTime(change.firstSeen),
        shortTime(change.lastSeen),
        change.timesSeen,
        change.severity,
      ],
      ...(change.state === 'new' ? { tone: 'fail' as const } : {}),
      attributes: `data-cause="${text(change.cause)}" data-places="${change.places.length}"`,
    };
  });
  const problems = report.problems.map((problem) => ({
    text: `line ${problem.line} of the file was skipped: ${problem.reason}`,
  }));
  return {
    tool: title,
    verdict: 'info',
    word: 'HISTORY',
    headline: historyCounts(report),
    target: report.target,
    facts: [
      { label: 'runs', value: String(report.runs.length) },
      ...(span ? [{ label: 'from', value: span }] : []),
      { label: 'file', value: `${report.file} (format version ${report.version})` },
    ],
    counts: [
      { label: 'new', value: counts.new, cell: 'fail' },
      { label: 'flaky', value: counts.flaky, cell: 'warn' },
      { label: 'ongoing', value: counts.ongoing, cell: 'known' },
      { label: 'gone', value: counts.gone, cell: 'pass' },
      { label: 'places', value: report.findings.length, cell: 'info' },
    ],
    sections: [
      { id: 'problems', title: 'Lines skipped when the history was read', tone: 'warn', items: problems },
      {
        id: 'changes',
        title: 'Changes',
        tone: counts.new > 0 ? 'fail' : 'info',
        count: report.changes.length,
        ...(rows.length === 0 ? { items: [{ text: 'No finding in the history: every run matched the spec.' }] } : {}),
        intro:
          report.changes.length === 0
            ? undefined
            : 'One row per change: a change seen on several operations and statuses (the same field on every answer) is one row with its places. Timeline marks, oldest run on the left: filled, seen; outlined, checked and not seen; a dot, not checked (no answer from the operation).',
        html:
          rows.length > 0
            ? table({
                id: 'history',
                columns: [
                  'state',
                  'change',
                  'places',
                  `timeline, one mark per run${report.runs.length > MAX_RUNS_DRAWN ? ` (the last ${MAX_RUNS_DRAWN} of ${report.runs.length})` : ''}`,
                  'since',
                  'first seen',
                  'last seen',
                  { title: 'runs seen', numeric: true },
                  'severity',
                ],
                rows,
              })
            : undefined,
      },
      {
        id: 'states',
        title: 'What the states mean',
        items: [
          { text: 'new: first seen by the last run.' },
          { text: 'ongoing: seen in every run that checked it since the date given.' },
          { text: 'gone: checked and not seen since the date given.' },
          { text: 'flaky: it went away and came back, so it is not new each time it shows.' },
        ],
      },
    ],
  };
}

/** The self-contained timeline page of a history (see historyPage). */
export function renderHistoryHtml(report: HistoryReport, title = 'kgate drift history'): string {
  return renderPage(historyPage(report, title));
}
