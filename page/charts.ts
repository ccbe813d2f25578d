// The charts of the pages, as inline SVG (no script, no external resource): a line chart over time
// (load), horizontal bars of counts (load's statuses) and a latency histogram (compare, one per
// side). Every mark is named in text too (a legend, a label, a <title>), so a chart reads without
// colour and prints in black and white.
import { text } from './html.ts';

/** One line of a line chart (or the bars beside the lines). */
export interface Series {
  name: string;
  color: string;
  points: [number, number][];
  dashed?: boolean;
}

/** A round upper bound of a scale and its ticks (about `count` of them). */
export function niceScale(maxValue: number, count = 5): { max: number; ticks: number[] } {
  if (!(maxValue > 0)) return { max: 1, ticks: [0, 0.5, 1] };
  const rough = maxValue / count;
  const magnitude = 10 ** Math.floor(Math.log10(rough));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * magnitude).find((s) => s >= rough) ?? 10 * magnitude;
  const max = Math.ceil((maxValue * 1.05) / step) * step;
  const ticks: number[] = [];
  for (let t = 0; t <= max + step / 2; t += step) ticks.push(Number(t.toPrecision(10)));
  return { max, ticks };
}

function formatTick(value: number): string {
  return value >= 1000 ? `${Number((value / 1000).toFixed(1))}k` : String(Number(value.toPrecision(4)));
}

/** A line chart over seconds, with optional bars and limit lines (a limit far above the data is named, not drawn). */
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
    `<svg id="${text(options.id)}" class="chart" viewBox="0 0 ${width} ${height}" role="img" aria-label="${text(options.title)}" xmlns="http://www.w3.org/2000/svg">`,
    `<text x="${pad.left}" y="20" class="chart-title">${text(options.title)}</text>`,
  );
  for (const tick of ticks) {
    parts.push(
      `<line x1="${pad.left}" x2="${pad.left + plotW}" y1="${y(tick).toFixed(1)}" y2="${y(tick).toFixed(1)}" class="gridline"/>`,
      `<text x="${pad.left - 8}" y="${(y(tick) + 4).toFixed(1)}" class="tick" text-anchor="end">${formatTick(tick)}${text(options.yUnit)}</text>`,
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
          `<rect class="bar" x="${(x(bx) - barW / 2).toFixed(1)}" y="${y(bv).toFixed(1)}" width="${barW.toFixed(1)}" height="${(pad.top + plotH - y(bv)).toFixed(1)}" fill="${options.bars!.color}"><title>${formatTick(bx)} s: ${bv}</title></rect>`,
      );
    parts.push(`<g data-series="${text(options.bars.name)}">${bars.join('')}</g>`);
  }
  if (above.length > 0) {
    parts.push(
      `<text x="${pad.left + plotW}" y="39" class="tick" text-anchor="end">off the scale: ${text(above.map((l) => l.label).join(', '))}</text>`,
    );
  }
  for (const limit of drawn) {
    parts.push(
      `<line x1="${pad.left}" x2="${pad.left + plotW}" y1="${y(limit.value).toFixed(1)}" y2="${y(limit.value).toFixed(1)}" stroke="${limit.color}" stroke-dasharray="6 4" class="limit"/>`,
      `<text x="${pad.left + plotW + 6}" y="${(y(limit.value) + 4).toFixed(1)}" class="chart-legend" fill="${limit.color}">${text(limit.label)}</text>`,
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
      `<g class="series" data-series="${text(series.name)}" data-points="${series.points.length}" fill="${series.color}">`,
      `<path d="${d}" fill="none" stroke="${series.color}" stroke-width="2"${series.dashed ? ' stroke-dasharray="4 3"' : ''}/>${dots}</g>`,
    );
    const lx = pad.left + index * 100;
    parts.push(
      `<rect x="${lx}" y="33" width="14" height="4" fill="${series.color}"/>`,
      `<text x="${lx + 20}" y="39" class="chart-legend">${text(series.name)}</text>`,
    );
  });
  if (options.bars) {
    const lx = pad.left + options.series.length * 100;
    parts.push(
      `<rect x="${lx}" y="29" width="14" height="10" fill="${options.bars.color}"/>`,
      `<text x="${lx + 20}" y="39" class="chart-legend">${text(options.bars.name)}</text>`,
    );
  }
  parts.push('</svg>');
  return parts.join('\n');
}

/** Horizontal bars of counts, each labelled with its name, its count and its share. */
export function barChart(
  id: string,
  title: string,
  counts: { label: string; count: number; color: string }[],
  share: (value: number) => string,
): string {
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
      `<text x="${labelW - 10}" y="${ry + 15}" class="tick" text-anchor="end">${text(c.label)}</text>`,
      `<rect class="bar" data-status="${text(c.label)}" x="${labelW}" y="${ry}" width="${w.toFixed(1)}" height="${rowH - 8}" fill="${c.color}" rx="3"/>`,
      `<text x="${labelW + w + 8}" y="${ry + 15}" class="chart-legend">${c.count.toLocaleString('en-US')} (${share(c.count / total)})</text>`,
    ].join('');
  });
  return `<svg id="${text(id)}" class="chart" viewBox="0 0 ${width} ${height}" role="img" aria-label="${text(title)}" xmlns="http://www.w3.org/2000/svg">
<text x="10" y="20" class="chart-title">${text(title)}</text>
${rows.join('\n')}
</svg>`;
}

/**
 * Ratios with their intervals, one row each, on a logarithmic scale around 1 (a forest plot): the
 * interval as a bar, the ratio as a dot, a vertical line at 1; a flagged row is drawn in the
 * failing colour and says REGRESSION in words beside it.
 */
export function intervalChart(options: {
  id: string;
  title: string;
  rows: { label: string; value: number; interval: [number, number]; flagged: boolean; note?: string }[];
}): string {
  const rowH = 22;
  const width = 760;
  const labelW = 190;
  const plotW = 360;
  const height = 60 + Math.max(1, options.rows.length) * rowH;
  const finite = (v: number) => (Number.isFinite(v) && v > 0 ? v : 1);
  const logs = options.rows.flatMap((row) => [row.value, ...row.interval].map((v) => Math.log10(finite(v))));
  const reach = Math.max(Math.log10(1.5), ...logs.map(Math.abs)) * 1.1;
  const x = (v: number) => labelW + ((Math.log10(finite(v)) + reach) / (2 * reach)) * plotW;
  const ticks = [0.01, 0.1, 0.5, 0.8, 1, 1.25, 2, 10, 100].filter((t) => Math.abs(Math.log10(t)) <= reach);
  const parts = [
    `<svg id="${text(options.id)}" class="chart" viewBox="0 0 ${width} ${height}" role="img" aria-label="${text(options.title)}" xmlns="http://www.w3.org/2000/svg">`,
    `<text x="10" y="20" class="chart-title">${text(options.title)}</text>`,
    `<line x1="${x(1).toFixed(1)}" x2="${x(1).toFixed(1)}" y1="30" y2="${height - 22}" class="axis"/>`,
    ...ticks.map(
      (t) =>
        `<text x="${x(t).toFixed(1)}" y="${height - 6}" class="tick" text-anchor="middle">x${formatTick(t)}</text>`,
    ),
  ];
  options.rows.forEach((row, i) => {
    const y = 40 + i * rowH;
    const colour = row.flagged ? '#c0392b' : '#4c78a8';
    const [low, high] = row.interval;
    parts.push(
      `<g class="interval" data-row="${text(row.label)}"${row.flagged ? ' data-flagged="true"' : ''}>`,
      `<text x="${labelW - 10}" y="${y + 4}" class="tick" text-anchor="end">${text(row.label)}</text>`,
      `<line x1="${x(low).toFixed(1)}" x2="${x(high).toFixed(1)}" y1="${y}" y2="${y}" stroke="${colour}" stroke-width="4"><title>${text(`${row.label}: x${row.value} [${low}, ${high}]`)}</title></line>`,
      `<circle cx="${x(row.value).toFixed(1)}" cy="${y}" r="4" fill="${colour}"/>`,
      `<text x="${labelW + plotW + 10}" y="${y + 4}" class="chart-legend">${text(`x${Number.isFinite(row.value) ? row.value.toFixed(2) : '-'} [${low.toFixed(2)}, ${high.toFixed(2)}]${row.note ? ` ${row.note}` : ''}${row.flagged ? ' REGRESSION' : ''}`)}</text>`,
      '</g>',
    );
  });
  parts.push('</svg>');
  return parts.join('\n');
}

const BINS = 24;

/** Bin edges from 0 to a bound that holds the 99th percentile of the values (slower ones go in the last bin). */
export function histogramEdges(values: number[]): number[] {
  const sorted = [...values].sort((a, b) => a - b);
  const top = sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.99))] ?? 1;
  const step = Math.max(top, 0.1) / BINS;
  return Array.from({ length: BINS + 1 }, (_, i) => i * step);
}

/** How many values fall into each bin of `bounds`. */
export function histogramCounts(values: number[], bounds: number[]): number[] {
  const out = new Array(BINS).fill(0) as number[];
  const step = bounds[1]! - bounds[0]!;
  for (const value of values) out[Math.min(BINS - 1, Math.max(0, Math.floor(value / step)))]!++;
  return out;
}

/**
 * A latency histogram on given bins and height (two panels side by side share both), with its
 * p50 (solid) and p95 (dashed) marked and labelled.
 */
export function histogram(
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
  const bins = histogramCounts(values, bounds);
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
    `<svg class="chart hist" data-side="${text(title)}" viewBox="0 0 ${width} ${height}" role="img" aria-label="${text(`${title}: p50 ${marks.p50} ms, p95 ${marks.p95} ms, ${values.length} requests`)}" xmlns="http://www.w3.org/2000/svg">`,
    `<text x="${pad.left}" y="14" class="panel-title" fill="${colour}">${text(title)}</text>`,
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

/** The WCAG contrast ratio of a #rrggbb colour against white. */
export function contrastOnWhite(hex: string): number {
  const channel = (i: number) => {
    const c = Number.parseInt(hex.slice(i, i + 2), 16) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  const luminance = 0.2126 * channel(1) + 0.7152 * channel(3) + 0.0722 * channel(5);
  return 1.05 / (luminance + 0.05);
}
