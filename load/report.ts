import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { redactSecrets } from '../config/redact.ts';
import type { LoadResult } from './runner.ts';
import type { RateStage, Thresholds } from './scenarios.ts';
import { formatShare, type ThresholdResult } from './thresholds.ts';

/** Everything `summary.json` holds: the plan, what was measured and the threshold verdicts. */
export interface LoadSummary {
  runId: string;
  scenario: string;
  question: string;
  target: { baseUrl: string; embedded: boolean };
  plan: {
    model: 'open' | 'closed';
    startRate: number;
    stages: RateStage[];
    peakRate: number | null;
    durationS: number;
    connections: number;
    validateShare: number;
    /** Largest number of requests the run may send (null: bounded by duration only, closed model). */
    requestBudget: number | null;
  };
  thresholds: Thresholds;
  verdicts: ThresholdResult[];
  passed: boolean;
  result: LoadResult;
}

/** A run id that sorts by time: `<scenario>-<UTC timestamp>`. */
export function newRunId(scenario: string, now = new Date()): string {
  return `${scenario}-${now.toISOString().replace(/[-:]/g, '').replace(/\..*$/, '')}Z`;
}

/** Writes summary.json and report.html under `<dir>/<runId>/` and returns both paths. */
export function writeLoadReports(summary: LoadSummary, dir: string): { summaryPath: string; htmlPath: string } {
  const runDir = join(dir, summary.runId);
  mkdirSync(runDir, { recursive: true });
  const summaryPath = join(runDir, 'summary.json');
  const htmlPath = join(runDir, 'report.html');
  writeFileSync(summaryPath, `${redactSecrets(JSON.stringify(summary, null, 2))}\n`);
  writeFileSync(htmlPath, redactSecrets(renderReportHtml(summary)));
  return { summaryPath, htmlPath };
}

const COLORS = {
  p50: '#4c78a8',
  p95: '#f58518',
  p99: '#e45756',
  sent: '#9aa5b1',
  completed: '#54a24b',
  failed: '#e45756',
  limit: '#6b7280',
};

interface Series {
  name: string;
  color: string;
  points: [number, number][];
  dashed?: boolean;
}

/** A self-contained SVG line chart (no script, no external resource). */
export function lineChart(options: {
  id: string;
  title: string;
  yUnit: string;
  series: Series[];
  bars?: Series;
  limits?: { label: string; value: number; color: string }[];
}): string {
  const width = 760;
  const height = 300;
  const pad = { left: 64, right: 120, top: 52, bottom: 40 };
  const plotW = width - pad.left - pad.right;
  const plotH = height - pad.top - pad.bottom;
  const all = [...options.series.flatMap((s) => s.points), ...(options.bars?.points ?? [])];
  const xMax = Math.max(1, ...all.map(([x]) => x)) + (options.bars ? 0.5 : 0);
  const dataMax = Math.max(0, ...all.map(([, y]) => y));
  // A limit far above the data would squash the lines flat: such limits are named, not drawn.
  const drawn = (options.limits ?? []).filter((l) => dataMax === 0 || l.value <= dataMax * 3);
  const above = (options.limits ?? []).filter((l) => !drawn.includes(l));
  const yData = Math.max(dataMax, ...drawn.map((l) => l.value));
  const { max: yMax, ticks } = niceScale(yData);
  const x = (v: number) => pad.left + (v / xMax) * plotW;
  const y = (v: number) => pad.top + plotH - (v / yMax) * plotH;
  const parts: string[] = [];
  parts.push(
    `<svg id="${options.id}" class="chart" viewBox="0 0 ${width} ${height}" role="img" aria-label="${escapeHtml(options.title)}" xmlns="http://www.w3.org/2000/svg">`,
  );
  parts.push(`<text x="${pad.left}" y="20" class="chart-title">${escapeHtml(options.title)}</text>`);
  for (const tick of ticks) {
    parts.push(
      `<line x1="${pad.left}" x2="${pad.left + plotW}" y1="${y(tick).toFixed(1)}" y2="${y(tick).toFixed(1)}" class="grid"/>`,
      `<text x="${pad.left - 8}" y="${(y(tick) + 4).toFixed(1)}" class="tick" text-anchor="end">${formatTick(tick)}${options.yUnit}</text>`,
    );
  }
  for (const tick of niceScale(xMax, 6).ticks.filter((t) => t <= xMax)) {
    parts.push(
      `<text x="${x(tick).toFixed(1)}" y="${pad.top + plotH + 18}" class="tick" text-anchor="middle">${formatTick(tick)} s</text>`,
    );
  }
  parts.push(
    `<line x1="${pad.left}" x2="${pad.left + plotW}" y1="${pad.top + plotH}" y2="${pad.top + plotH}" class="axis"/>`,
  );
  if (options.bars && options.bars.points.length > 0) {
    const barW = Math.max(2, (plotW / Math.max(1, options.bars.points.length)) * 0.6);
    const bars = options.bars.points
      .filter(([, v]) => v > 0)
      .map(
        ([bx, bv]) =>
          `<rect class="bar" x="${(x(bx) - barW / 2).toFixed(1)}" y="${y(bv).toFixed(1)}" width="${barW.toFixed(1)}" height="${(pad.top + plotH - y(bv)).toFixed(1)}" fill="${options.bars!.color}"/>`,
      );
    parts.push(`<g data-series="${options.bars.name}">${bars.join('')}</g>`);
  }
  if (above.length > 0) {
    parts.push(
      `<text x="${pad.left + plotW}" y="39" class="tick" text-anchor="end">off the scale: ${escapeHtml(above.map((l) => l.label).join(', '))}</text>`,
    );
  }
  for (const limit of drawn) {
    parts.push(
      `<line x1="${pad.left}" x2="${pad.left + plotW}" y1="${y(limit.value).toFixed(1)}" y2="${y(limit.value).toFixed(1)}" stroke="${limit.color}" stroke-dasharray="6 4" class="limit"/>`,
      `<text x="${pad.left + plotW + 6}" y="${(y(limit.value) + 4).toFixed(1)}" class="legend" fill="${limit.color}">${escapeHtml(limit.label)}</text>`,
    );
  }
  options.series.forEach((series, index) => {
    if (series.points.length === 0) return;
    const d = series.points
      .map(([px, py], i) => `${i === 0 ? 'M' : 'L'}${x(px).toFixed(1)},${y(py).toFixed(1)}`)
      .join('');
    const dots =
      series.points.length <= 120
        ? series.points
            .map(([px, py]) => `<circle class="point" cx="${x(px).toFixed(1)}" cy="${y(py).toFixed(1)}" r="2.5"/>`)
            .join('')
        : '';
    parts.push(
      `<g class="series" data-series="${series.name}" data-points="${series.points.length}" fill="${series.color}">`,
      `<path d="${d}" fill="none" stroke="${series.color}" stroke-width="2"${series.dashed ? ' stroke-dasharray="4 3"' : ''}/>${dots}</g>`,
    );
    const lx = pad.left + index * 100;
    parts.push(
      `<rect x="${lx}" y="33" width="14" height="4" fill="${series.color}"/>`,
      `<text x="${lx + 20}" y="39" class="legend">${escapeHtml(series.name)}</text>`,
    );
  });
  if (options.bars) {
    const lx = pad.left + options.series.length * 100;
    parts.push(
      `<rect x="${lx}" y="29" width="14" height="10" fill="${options.bars.color}"/>`,
      `<text x="${lx + 20}" y="39" class="legend">${escapeHtml(options.bars.name)}</text>`,
    );
  }
  parts.push('</svg>');
  return parts.join('\n');
}

/** A horizontal bar chart of response counts per status code (plus transport failures). */
export function statusChart(id: string, counts: { label: string; count: number; color: string }[]): string {
  const rowH = 30;
  const width = 760;
  const labelW = 150;
  const height = 40 + Math.max(1, counts.length) * rowH;
  const max = Math.max(1, ...counts.map((c) => c.count));
  const total = counts.reduce((sum, c) => sum + c.count, 0) || 1;
  const rows = counts.map((c, i) => {
    const w = Math.max(2, (c.count / max) * (width - labelW - 160));
    const ry = 34 + i * rowH;
    return [
      `<text x="${labelW - 10}" y="${ry + 15}" class="tick" text-anchor="end">${escapeHtml(c.label)}</text>`,
      `<rect class="bar" data-status="${escapeHtml(c.label)}" x="${labelW}" y="${ry}" width="${w.toFixed(1)}" height="${rowH - 8}" fill="${c.color}" rx="3"/>`,
      `<text x="${labelW + w + 8}" y="${ry + 15}" class="legend">${c.count.toLocaleString('en-US')} (${formatShare(c.count / total)})</text>`,
    ].join('');
  });
  return `<svg id="${id}" class="chart" viewBox="0 0 ${width} ${height}" role="img" aria-label="Status codes" xmlns="http://www.w3.org/2000/svg">
<text x="10" y="20" class="chart-title">Responses by status</text>
${rows.join('\n')}
</svg>`;
}

function statusColor(label: string): string {
  if (label.startsWith('2')) return '#54a24b';
  if (label === '429') return '#f58518';
  if (label.startsWith('4')) return '#eeca3b';
  if (label.startsWith('5')) return '#e45756';
  return '#7f3c8d';
}

/** Renders the whole report page: headline figures, thresholds, three charts, per-operation table. */
export function renderReportHtml(summary: LoadSummary): string {
  const r = summary.result;
  const timeline = r.timeline;
  const latency = lineChart({
    id: 'latency-chart',
    title: 'Latency per second (from intended send time)',
    yUnit: ' ms',
    series: [
      { name: 'p50', color: COLORS.p50, points: timeline.map((s) => [s.t, s.p50]) },
      { name: 'p95', color: COLORS.p95, points: timeline.map((s) => [s.t, s.p95]) },
      { name: 'p99', color: COLORS.p99, points: timeline.map((s) => [s.t, s.p99]) },
    ],
    limits: [
      { label: `p95 SLO ${summary.thresholds.p95Ms} ms`, value: summary.thresholds.p95Ms, color: COLORS.p95 },
      { label: `p99 SLO ${summary.thresholds.p99Ms} ms`, value: summary.thresholds.p99Ms, color: COLORS.p99 },
    ],
  });
  const throughput = lineChart({
    id: 'throughput-chart',
    title: 'Throughput per second',
    yUnit: '/s',
    series: [
      { name: 'sent', color: COLORS.sent, points: timeline.map((s) => [s.t, s.sent]), dashed: true },
      { name: 'answered', color: COLORS.completed, points: timeline.map((s) => [s.t, s.completed]) },
    ],
    bars: { name: 'failed', color: COLORS.failed, points: timeline.map((s) => [s.t, s.failed]) },
  });
  const statusRows = Object.entries(r.statuses)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([label, count]) => ({ label: `HTTP ${label}`, count, color: statusColor(label) }));
  if (r.transportErrors > 0) statusRows.push({ label: 'no answer', count: r.transportErrors, color: '#7f3c8d' });
  if (r.dropped > 0) statusRows.push({ label: 'never sent', count: r.dropped, color: '#bab0ac' });
  const statuses = statusChart('status-chart', statusRows);
  const attempted = r.sent + r.dropped;
  const cards: [string, string][] = [
    ['requests', r.sent.toLocaleString('en-US')],
    ['throughput', `${r.throughputRps} /s`],
    ['p50', formatMs(r.latencyMs.p50)],
    ['p95', formatMs(r.latencyMs.p95)],
    ['p99', formatMs(r.latencyMs.p99)],
    ['errors', formatShare(attempted === 0 ? 0 : r.failed / attempted)],
    ['validated', `${r.validation.valid}/${r.validation.checked}`],
  ];
  const verdictRows = summary.verdicts
    .map((v) => {
      const unit = v.id.endsWith('latency') ? (n: number) => `${n.toFixed(1)} ms` : formatShare;
      return `<tr class="${v.status}"><td><span class="badge ${v.status}">${v.status.toUpperCase()}</span></td><td>${escapeHtml(v.rule)}</td><td>${v.actual === null ? escapeHtml(v.reason ?? '') : unit(v.actual)}</td></tr>`;
    })
    .join('\n');
  const operationRows = Object.entries(r.operations)
    .map(
      ([id, op]) =>
        `<tr><td>${escapeHtml(id)}</td><td>${op.count}</td><td>${op.failed}</td>${[op.latencyMs.p50, op.latencyMs.p95, op.latencyMs.p99, op.latencyMs.max].map((v) => `<td>${formatMs(v).replace(' ms', '')}</td>`).join('')}</tr>`,
    )
    .join('\n');
  const invalid = r.validation.samples
    .map(
      (s) =>
        `<li><code>${escapeHtml(s.operationId)}</code> HTTP ${s.status}: ${escapeHtml(s.errors.map((e) => `${e.pointer || '/'} ${e.message}`).join('; '))}</li>`,
    )
    .join('\n');
  const plan = summary.plan;
  const planText =
    plan.model === 'closed'
      ? `closed model, ${plan.connections} connections at maximum rate for ${plan.durationS} s`
      : `open model, ${plan.startRate}→${plan.peakRate} arrivals/s over ${plan.durationS} s (${plan.requestBudget} planned), at most ${plan.connections} in flight`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>kgate load: ${escapeHtml(summary.scenario)} ${summary.passed ? 'passed' : 'FAILED'}</title>
<style>
body { font: 15px/1.45 system-ui, -apple-system, 'Segoe UI', sans-serif; margin: 0; background: #f5f6f8; color: #1f2933; }
main { max-width: 1120px; margin: 0 auto; padding: 24px; }
h1 { font-size: 22px; margin: 0 0 4px; }
.question { color: #52606d; margin: 0 0 4px; }
.plan { color: #52606d; font-size: 13px; margin: 0 0 18px; }
.verdict { display: inline-block; padding: 2px 10px; border-radius: 12px; color: #fff; font-weight: 600; margin-left: 8px; font-size: 14px; }
.verdict.pass { background: #2f855a; } .verdict.fail { background: #c53030; }
.cards { display: grid; grid-template-columns: repeat(auto-fit, minmax(130px, 1fr)); gap: 10px; margin-bottom: 18px; }
.card { background: #fff; border-radius: 8px; padding: 10px 14px; box-shadow: 0 1px 2px rgba(0,0,0,.08); }
.card .label { color: #7b8794; font-size: 12px; text-transform: uppercase; letter-spacing: .04em; }
.card .value { font-size: 20px; font-weight: 600; }
section { background: #fff; border-radius: 8px; padding: 14px 16px; margin-bottom: 16px; box-shadow: 0 1px 2px rgba(0,0,0,.08); }
.charts { display: grid; grid-template-columns: 1fr; gap: 16px; }
.chart { width: 100%; height: auto; display: block; }
.chart-title { font-size: 15px; font-weight: 600; fill: #1f2933; }
.grid { stroke: #e4e7eb; } .axis { stroke: #9aa5b1; }
.tick { font-size: 12px; fill: #616e7c; } .legend { font-size: 12px; fill: #3e4c59; }
table { border-collapse: collapse; width: 100%; font-size: 14px; }
th, td { text-align: left; padding: 5px 8px; border-bottom: 1px solid #e4e7eb; }
th { color: #616e7c; font-weight: 600; }
.badge { font-size: 12px; font-weight: 700; padding: 1px 7px; border-radius: 10px; color: #fff; }
.badge.pass { background: #2f855a; } .badge.fail { background: #c53030; } .badge.skipped { background: #9aa5b1; }
tr.fail td { background: #fff5f5; }
</style>
</head>
<body>
<main>
<h1>Load scenario <code>${escapeHtml(summary.scenario)}</code><span class="verdict ${summary.passed ? 'pass' : 'fail'}">${summary.passed ? 'PASS' : 'FAIL'}</span></h1>
<p class="question">${escapeHtml(summary.question)}</p>
<p class="plan">Run ${escapeHtml(summary.runId)} against ${escapeHtml(summary.target.baseUrl)}${summary.target.embedded ? ' (embedded reference server)' : ''}: ${escapeHtml(planText)}; ${formatShare(plan.validateShare)} of responses validated against the spec.</p>
<div class="cards">
${cards.map(([label, value]) => `<div class="card"><div class="label">${label}</div><div class="value">${escapeHtml(value)}</div></div>`).join('\n')}
</div>
<section><h2>Thresholds</h2><table id="thresholds"><tr><th></th><th>rule</th><th>measured</th></tr>
${verdictRows}
</table></section>
<div class="charts">
<section>${latency}</section>
<section>${throughput}</section>
<section>${statuses}</section>
</div>
<section><h2>Per operation (latency in ms)</h2><table id="operations"><tr><th>operation</th><th>requests</th><th>failed</th><th>p50</th><th>p95</th><th>p99</th><th>max</th></tr>
${operationRows}
</table></section>
${invalid ? `<section><h2>Responses that did not match the spec</h2><ul>${invalid}</ul></section>` : ''}
</main>
</body>
</html>
`;
}

function niceScale(maxValue: number, count = 5): { max: number; ticks: number[] } {
  if (!(maxValue > 0)) return { max: 1, ticks: [0, 0.5, 1] };
  const rough = maxValue / count;
  const magnitude = 10 ** Math.floor(Math.log10(rough));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * magnitude).find((s) => s >= rough) ?? 10 * magnitude;
  const max = Math.ceil((maxValue * 1.05) / step) * step;
  const ticks: number[] = [];
  for (let t = 0; t <= max + step / 2; t += step) ticks.push(Number(t.toPrecision(10)));
  return { max, ticks };
}

/** A latency for people: two decimals under 10 ms, one under 1 s, whole ms above. */
export function formatMs(ms: number): string {
  return `${ms < 10 ? ms.toFixed(2) : ms < 1000 ? ms.toFixed(1) : Math.round(ms).toLocaleString('en-US')} ms`;
}

function formatTick(value: number): string {
  return value >= 1000 ? `${Number((value / 1000).toFixed(1))}k` : String(Number(value.toPrecision(4)));
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}
