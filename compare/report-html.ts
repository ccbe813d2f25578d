// report.html of a comparison: one self-contained page (no script, no network) with the verdict,
// the differences by operation, the noise learned, and per operation the latency distributions of
// both deployments side by side on one scale. Colours pass WCAG AA on white and every mark is
// labelled in text too, so the page reads without colour and prints in black and white.
import type { CompareResult, LatencyItem, LatencySamples } from './run.ts';

/** Colour of the candidate's marks (6.6:1 on white). */
export const CANDIDATE_COLOUR = '#1d5fa6';
/** Colour of the current deployment's marks (5.3:1 on white). */
export const CURRENT_COLOUR = '#a64b00';

/** The WCAG contrast ratio of a #rrggbb colour against white. */
export function contrastOnWhite(hex: string): number {
  const channel = (i: number) => {
    const c = Number.parseInt(hex.slice(i, i + 2), 16) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  const luminance = 0.2126 * channel(1) + 0.7152 * channel(3) + 0.0722 * channel(5);
  return 1.05 / (luminance + 0.05);
}

/** Escapes text for HTML. */
export function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

const BINS = 24;

/** Bin edges from 0 to a bound that holds the 99th percentile of both sides (slower values go in the last bin). */
function edges(values: number[]): number[] {
  const sorted = [...values].sort((a, b) => a - b);
  const top = sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.99))] ?? 1;
  const step = Math.max(top, 0.1) / BINS;
  return Array.from({ length: BINS + 1 }, (_, i) => i * step);
}

function counts(values: number[], bounds: number[]): number[] {
  const out = new Array(BINS).fill(0) as number[];
  const step = bounds[1]! - bounds[0]!;
  for (const value of values) out[Math.min(BINS - 1, Math.max(0, Math.floor(value / step)))]!++;
  return out;
}

function histogram(
  title: string,
  colour: string,
  values: number[],
  bounds: number[],
  yMax: number,
  marks: { p50: number; p95: number },
): string {
  const width = 300;
  const height = 160;
  const pad = { left: 34, right: 14, top: 22, bottom: 34 };
  const plotW = width - pad.left - pad.right;
  const plotH = height - pad.top - pad.bottom;
  const bins = counts(values, bounds);
  const barW = plotW / BINS;
  const xMax = bounds[BINS]!;
  const x = (ms: number) => pad.left + (Math.min(ms, xMax) / xMax) * plotW;
  const bars = bins
    .map((n, i) => {
      const h = yMax > 0 ? (n / yMax) * plotH : 0;
      return n === 0
        ? ''
        : `<rect class="bar" x="${(pad.left + i * barW + 0.5).toFixed(1)}" y="${(pad.top + plotH - h).toFixed(1)}" width="${(barW - 1).toFixed(1)}" height="${h.toFixed(1)}" fill="${colour}"><title>${bounds[i]!.toFixed(1)} to ${bounds[i + 1]!.toFixed(1)} ms: ${n}</title></rect>`;
    })
    .join('');
  // The p95 label sits lower than the p50 one, so that close marks stay readable.
  const mark = (ms: number, label: string, dash: string, dy: number) =>
    `<line x1="${x(ms).toFixed(1)}" x2="${x(ms).toFixed(1)}" y1="${pad.top}" y2="${pad.top + plotH}" stroke="#1f2933" stroke-width="1.5" stroke-dasharray="${dash}"/><text x="${(x(ms) + 3).toFixed(1)}" y="${pad.top + 10 + dy}" class="tick">${label}</text>`;
  const ticks = [0, xMax / 2, xMax]
    .map(
      (tick) =>
        `<text x="${x(tick).toFixed(1)}" y="${pad.top + plotH + 13}" class="tick" text-anchor="middle">${tick.toFixed(tick < 10 ? 1 : 0)}</text>`,
    )
    .join('');
  return [
    `<svg class="hist" data-side="${escapeHtml(title)}" viewBox="0 0 ${width} ${height}" role="img" aria-label="${escapeHtml(`${title}: p50 ${marks.p50} ms, p95 ${marks.p95} ms, ${values.length} requests`)}" xmlns="http://www.w3.org/2000/svg">`,
    `<text x="${pad.left}" y="14" class="panel-title" fill="${colour}">${escapeHtml(title)}</text>`,
    `<line x1="${pad.left}" x2="${pad.left + plotW}" y1="${pad.top + plotH}" y2="${pad.top + plotH}" class="axis"/>`,
    `<text x="${pad.left - 4}" y="${pad.top + 8}" class="tick" text-anchor="end">${yMax}</text>`,
    bars,
    mark(marks.p50, 'p50', '', 0),
    mark(marks.p95, 'p95', '4 3', 14),
    ticks,
    `<text x="${pad.left + plotW / 2}" y="${height - 1}" class="tick" text-anchor="middle">latency, ms</text>`,
    '</svg>',
  ].join('');
}

function latencySection(item: LatencyItem, samples: LatencySamples | undefined): string {
  const candidate = samples?.candidate ?? [];
  const current = samples?.current ?? [];
  const bounds = edges([...candidate, ...current]);
  const yMax = Math.max(1, ...counts(candidate, bounds), ...counts(current, bounds));
  const badge = item.regression
    ? '<span class="badge fail">REGRESSION</span>'
    : item.improvement
      ? '<span class="badge pass">faster</span>'
      : '<span class="badge pass">alike</span>';
  const row = (name: string, p: LatencyItem['candidate']) =>
    `<tr><th scope="row">${name}</th><td>${p.p50}</td><td>${p.p95}</td><td>${p.p99}</td><td>${p.count}</td></tr>`;
  return `<section class="op${item.regression ? ' regression' : ''}" data-operation="${escapeHtml(item.operation)}">
<h3>${escapeHtml(item.operation)} ${badge}</h3>
<p class="ratio">median ratio ${item.ratio.toFixed(2)}, 95 % interval [${item.interval[0].toFixed(2)}, ${item.interval[1].toFixed(2)}]${item.errors.candidate + item.errors.current > 0 ? `; no answer: candidate ${item.errors.candidate}, current ${item.errors.current}` : ''}</p>
<div class="pair">
${histogram('candidate', CANDIDATE_COLOUR, candidate, bounds, yMax, item.candidate)}
${histogram('current', CURRENT_COLOUR, current, bounds, yMax, item.current)}
</div>
<table><thead><tr><th></th><th>p50 ms</th><th>p95 ms</th><th>p99 ms</th><th>requests</th></tr></thead>
<tbody>${row('candidate', item.candidate)}${row('current', item.current)}</tbody></table>
</section>`;
}

/** The whole page. */
export function renderCompareHtml(result: CompareResult, samples: LatencySamples[]): string {
  const pass = result.verdict === 'pass';
  const regressions = result.latency.filter((item) => item.regression).length;
  const differences = result.differences
    .map(
      (
        diff,
      ) => `<tr><td>${escapeHtml(diff.operation)}</td><td><code>${escapeHtml(diff.pointer || '(status or body)')}</code></td><td>${escapeHtml(diff.kind)}</td>
<td><code>${escapeHtml(JSON.stringify(diff.candidate) ?? 'null').slice(0, 200)}</code></td><td><code>${escapeHtml(JSON.stringify(diff.current) ?? 'null').slice(0, 200)}</code></td>
<td>${diff.seenIn}</td><td>${escapeHtml(diff.example.request)}<pre class="curl">${escapeHtml(diff.example.candidateCurl)}\n${escapeHtml(diff.example.currentCurl)}</pre></td></tr>`,
    )
    .join('\n');
  const noise = result.noise
    .map(
      (noisy) =>
        `<li>${escapeHtml(noisy.operation)} <code>${escapeHtml(noisy.pointer || '(status or body)')}</code>: ${noisy.numeric ? `numbers moving by up to ${(noisy.spread * 100).toPrecision(2)} % or ${noisy.absolute}` : 'any value'}</li>`,
    )
    .join('');
  const latency = result.latency
    .map((item) =>
      latencySection(
        item,
        samples.find((entry) => entry.operation === item.operation),
      ),
    )
    .join('\n');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>kgate compare: ${pass ? 'PASS' : 'FAIL'}</title>
<style>
body { font: 15px/1.45 system-ui, -apple-system, 'Segoe UI', sans-serif; margin: 0; background: #f5f6f8; color: #1f2933; }
main { max-width: 1120px; margin: 0 auto; padding: 24px; }
h1 { font-size: 22px; margin: 0 0 4px; } h2 { font-size: 18px; } h3 { font-size: 15px; margin: 0 0 4px; }
.plan, .ratio { color: #52606d; font-size: 13px; margin: 0 0 10px; }
.verdict { display: inline-block; padding: 2px 10px; border-radius: 12px; color: #fff; font-weight: 600; margin-left: 8px; font-size: 14px; }
.pass { background: #2f6f4e; } .fail { background: #b42318; }
section { background: #fff; border-radius: 8px; padding: 14px 16px; margin-bottom: 16px; box-shadow: 0 1px 2px rgba(0,0,0,.08); break-inside: avoid; }
section.regression { border-left: 6px solid #b42318; }
.legend span { display: inline-block; margin-right: 16px; font-weight: 600; }
.pair { display: grid; grid-template-columns: 1fr 1fr; gap: 12px; max-width: 760px; }
.hist { width: 100%; height: auto; display: block; }
.panel-title { font-size: 13px; font-weight: 700; }
.axis { stroke: #7b8794; } .tick { font-size: 10px; fill: #3e4c59; }
table { border-collapse: collapse; width: 100%; font-size: 13px; }
th, td { text-align: left; padding: 4px 8px; border-bottom: 1px solid #e4e7eb; vertical-align: top; }
th { color: #3e4c59; font-weight: 600; }
code, pre { font-size: 12px; white-space: pre-wrap; word-break: break-all; }
pre.curl { font-size: 11px; color: #3e4c59; margin: 4px 0 0; }
.badge { font-size: 12px; font-weight: 700; padding: 1px 7px; border-radius: 10px; color: #fff; }
@media print {
  body { background: #fff; } main { padding: 0; } section { box-shadow: none; border: 1px solid #cbd2d9; }
}
</style>
</head>
<body>
<main>
<h1>kgate compare<span class="verdict ${pass ? 'pass' : 'fail'}">${pass ? 'PASS' : 'FAIL'}</span></h1>
<p class="plan">Candidate <code>${escapeHtml(result.candidate)}</code> against current <code>${escapeHtml(result.current)}</code>, seed ${result.seed}: ${result.requests.compared} requests compared, ${result.requests.repeated} repeated to the current deployment to learn its noise, ${result.requests.confirmed} sent to it again to confirm differences, ${result.requests.sent} sent in all. ${result.differences.length} difference(s), ${regressions} latency regression(s).</p>
<section>
<h2>Differences</h2>
${result.differences.length === 0 ? '<p>None: both deployments answered alike, beyond the noise below.</p>' : `<table><thead><tr><th>operation</th><th>pointer</th><th>kind</th><th>candidate</th><th>current</th><th>requests</th><th>example</th></tr></thead><tbody>\n${differences}\n</tbody></table>`}
</section>
${
  (result.notes ?? []).length > 0
    ? `<section>
<h2>Notes</h2>
<ul>${(result.notes ?? []).map((note) => `<li>${escapeHtml(note)}</li>`).join('')}</ul>
</section>
`
    : ''
}<section>
<h2>Learned to ignore</h2>
${noise ? `<p>The current deployment varied there between identical calls (${result.ignored} difference(s) set aside).</p><ul>${noise}</ul>` : '<p>Nothing: the current deployment answered identical calls identically.</p>'}
</section>
${
  result.latency.length > 0
    ? `<h2>Latency</h2>
<p class="plan">Both deployments on one arrival schedule, request by request interleaved; latency from the intended send time. A regression is a median slower by more than ${result.threshold.percent} % and ${result.threshold.ms} ms whose 95 % interval lies above 1. Solid line: p50, dashed: p95; both panels of an operation share their scales.</p>
<p class="legend"><span style="color:${CANDIDATE_COLOUR}">candidate (left)</span><span style="color:${CURRENT_COLOUR}">current (right)</span></p>
${latency}`
    : ''
}
</main>
</body>
</html>
`;
}
