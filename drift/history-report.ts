import { type FindingHistory, type HistoryReport, type HistoryState, shortTime, statePhrase } from './history.ts';

const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

/** The Markdown of a history: counts, then one table row per finding with its state, first and last seen. */
export function renderHistoryMarkdown(report: HistoryReport, level = '##'): string {
  const { counts } = report;
  const lines = [
    `${level} History (${report.file})`,
    '',
    `Target: ${report.target}; ${report.runs.length} run(s) from ${report.runs[0] ? shortTime(report.runs[0].at) : '-'} to ${report.runs.at(-1) ? shortTime(report.runs.at(-1)!.at) : '-'}  `,
    `Findings: ${counts.new} new, ${counts.ongoing} ongoing, ${counts.flaky} flaky, ${counts.gone} gone`,
    '',
  ];
  for (const problem of report.problems)
    lines.push(`- line ${problem.line} of the file was skipped: ${problem.reason}`);
  if (report.problems.length > 0) lines.push('');
  if (report.findings.length === 0) {
    lines.push('No finding in the history.', '');
    return lines.join('\n');
  }
  lines.push(
    '| state | severity | kind | operation | status | path | first seen | last seen | seen | timeline | fingerprint |',
    '|---|---|---|---|---|---|---|---|---|---|---|',
  );
  for (const finding of report.findings) {
    const state =
      finding.state === 'new' || finding.state === 'flaky' ? `**${statePhrase(finding)}**` : statePhrase(finding);
    lines.push(
      `| ${cell(state)} | ${finding.severity} | ${finding.kind} | ${cell(finding.operation)} | ${finding.status} | \`${cell(finding.path)}\` | ${shortTime(finding.firstSeen)} | ${shortTime(finding.lastSeen)} | ${finding.timesSeen}x | \`${timelineText(finding)}\` | ${finding.fingerprint} |`,
    );
  }
  lines.push('', 'Timeline: one mark per run, oldest first: `#` seen, `.` checked and not seen, `?` not checked.', '');
  return lines.join('\n');
}

/** `..##.#`: the timeline of a finding as text. */
export function timelineText(finding: FindingHistory): string {
  return finding.timeline.map((state) => (state === 'seen' ? '#' : state === 'absent' ? '.' : '?')).join('');
}

const html = (text: string) =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/**
 * State colours: the Okabe-Ito palette (told apart with the common colour-vision deficiencies), each
 * darkened to at least 4.5:1 against white; every state is also written out and drawn with its own mark shape.
 */
const STATE_STYLE: Record<HistoryState, { colour: string; label: string }> = {
  new: { colour: '#B34700', label: 'new' },
  flaky: { colour: '#8A5A00', label: 'flaky' },
  ongoing: { colour: '#0060A0', label: 'ongoing' },
  gone: { colour: '#555555', label: 'gone' },
};

/** The most recent runs the page draws; older ones are counted in the caption. */
const MAX_RUNS_DRAWN = 60;
const CELL = 12;
const HEIGHT = 18;

/** One finding's lane: a mark per run, filled seen, outlined checked and not seen, a dot not checked. */
function laneSvg(finding: FindingHistory, runs: HistoryReport['runs']): string {
  const drawn = runs.slice(-MAX_RUNS_DRAWN);
  const offset = runs.length - drawn.length;
  const width = drawn.length * CELL + 2;
  const { colour } = STATE_STYLE[finding.state];
  const marks = finding.timeline.slice(offset).map((state, column) => {
    const x = column * CELL + 1;
    const title = `<title>${html(`${shortTime(drawn[column]!.at)}: ${state === 'seen' ? 'seen' : state === 'absent' ? 'not seen' : 'not checked'}`)}</title>`;
    if (state === 'seen')
      return `<rect x="${x}" y="2" width="${CELL - 3}" height="${HEIGHT - 4}" rx="2" fill="${colour}">${title}</rect>`;
    if (state === 'absent')
      return `<rect x="${x + 0.5}" y="5.5" width="${CELL - 4}" height="${HEIGHT - 11}" rx="1.5" fill="none" stroke="#767676">${title}</rect>`;
    return `<circle cx="${x + (CELL - 3) / 2}" cy="${HEIGHT / 2}" r="1.5" fill="#767676">${title}</circle>`;
  });
  const seen = finding.timeline.filter((state) => state === 'seen').length;
  const label = `seen in ${seen} of ${finding.timeline.length} runs: ${timelineText(finding)} (# seen, . not seen, ? not checked)`;
  return `<svg role="img" aria-label="${html(label)}" width="${width}" height="${HEIGHT}" viewBox="0 0 ${width} ${HEIGHT}" xmlns="http://www.w3.org/2000/svg">${marks.join('')}</svg>`;
}

/**
 * A self-contained HTML page of a history: per operation, its findings, each with its state written
 * out and its timeline (one mark per run: filled seen, outlined checked and not seen, a dot not
 * checked), since when, first and last seen. No script, no external resource; prints on paper.
 */
export function renderHistoryHtml(report: HistoryReport, title = 'kgate drift history'): string {
  const byOperation = new Map<string, FindingHistory[]>();
  for (const finding of report.findings)
    byOperation.set(finding.operation, [...(byOperation.get(finding.operation) ?? []), finding]);
  const { counts } = report;
  const first = report.runs.at(-MAX_RUNS_DRAWN) ?? report.runs[0];
  const last = report.runs.at(-1);
  const span = first && last ? `${shortTime(first.at)} to ${shortTime(last.at)}` : '';
  const sections = [...byOperation.entries()].map(([operation, findings]) => {
    const rows = findings
      .map((finding) => {
        const style = STATE_STYLE[finding.state];
        return `<tr><th scope="row"><span class="state state-${finding.state}" style="border-color:${style.colour};color:${style.colour}">${html(style.label)}</span></th><td><code>${html(finding.kind)}</code> ${finding.status} <code>${html(finding.path)}</code><br><span class="muted">${html(finding.message)}</span></td><td class="timeline">${laneSvg(finding, report.runs)}</td><td>${html(statePhrase(finding))}</td><td>${html(shortTime(finding.firstSeen))}</td><td>${html(shortTime(finding.lastSeen))}</td><td>${finding.timesSeen}</td><td>${html(finding.severity)}</td></tr>`;
      })
      .join('\n');
    return `<section>
<h2>${html(operation)}</h2>
<table>
<thead><tr><th scope="col">state</th><th scope="col">finding</th><th scope="col">timeline, one mark per run${report.runs.length > MAX_RUNS_DRAWN ? ` (the last ${MAX_RUNS_DRAWN} of ${report.runs.length})` : ''}<br><span class="muted">${html(span)}</span></th><th scope="col">since</th><th scope="col">first seen</th><th scope="col">last seen</th><th scope="col">runs seen</th><th scope="col">severity</th></tr></thead>
<tbody>
${rows}
</tbody>
</table>
</section>`;
  });
  const problems = report.problems
    .map((problem) => `<li>line ${problem.line} of the file was skipped: ${html(problem.reason)}</li>`)
    .join('');
  const legend = (Object.keys(STATE_STYLE) as HistoryState[])
    .map(
      (state) =>
        `<li><span class="state" style="border-color:${STATE_STYLE[state].colour};color:${STATE_STYLE[state].colour}">${state}</span> ${counts[state]}</li>`,
    )
    .join('');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${html(title)}: ${html(report.target)}</title>
<style>
body { font: 15px/1.45 system-ui, sans-serif; color: #1a1a1a; background: #fff; margin: 2rem auto; max-width: 72rem; padding: 0 1rem; }
h1 { font-size: 1.5rem; } h2 { font-size: 1.1rem; margin-top: 2rem; border-bottom: 1px solid #ccc; }
code { font: 13px ui-monospace, monospace; }
table { border-collapse: collapse; width: 100%; margin-top: .5rem; }
th, td { text-align: left; vertical-align: top; padding: .3rem .5rem; border-bottom: 1px solid #ddd; }
.muted { color: #555; }
.state { display: inline-block; border: 2px solid; border-radius: 3px; padding: 0 .35rem; font-weight: 600; }
.state-new, .state-flaky { text-transform: uppercase; }
.legend { list-style: none; padding: 0; display: flex; gap: 1.2rem; }
.timeline { white-space: nowrap; } .timeline svg { display: block; }
.axis { font: 11px system-ui, sans-serif; fill: #444; }
figure { margin: .5rem 0; } figcaption { color: #555; font-size: 13px; }
@media print { body { margin: 0; max-width: none; } section { break-inside: avoid; } .timeline { overflow: visible; } * { print-color-adjust: exact; -webkit-print-color-adjust: exact; } }
</style>
</head>
<body>
<h1>${html(title)}</h1>
<p>Target: <strong>${html(report.target)}</strong>. ${report.runs.length} run(s)${report.runs[0] ? `, from ${html(shortTime(report.runs[0].at))} to ${html(shortTime(report.runs.at(-1)!.at))}` : ''}. History file: <code>${html(report.file)}</code> (format version ${report.version}).</p>
<ul class="legend" aria-label="findings by state">${legend}</ul>
${problems ? `<p>Lines skipped when the history was read:</p><ul>${problems}</ul>` : ''}
${sections.length > 0 ? sections.join('\n') : '<p>No finding in the history: every run matched the spec.</p>'}
<p class="muted">Timeline marks, oldest run on the left: filled, seen; outlined, checked and not seen; a dot, not checked (no answer from the operation).</p>
<p class="muted">new: first seen by the last run. ongoing: seen in every run that checked it since the date given. gone: checked and not seen since the date given. flaky: it went away and came back, so it is not new each time it shows.</p>
</body>
</html>
`;
}
