// The reports of a load run: summary.json (the plan, what was measured, the threshold verdicts) and
// report.html, built from the page kit like every page of kgate: the verdict banner, the thresholds,
// latency, throughput and status charts, and the per-operation table.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { redactSecrets } from '../config/redact.ts';
import { getOperation } from '../openapi/spec.ts';
import { barChart, lineChart } from '../page/charts.ts';
import { type Cell, mark, table } from '../page/components.ts';
import { html } from '../page/html.ts';
import { type ReportPage, renderPage } from '../page/page.ts';
import { buildEnvelope, type Envelope, envelopeSection, writeEnvelope } from '../reporting/envelope.ts';
import { type AgainstRun, againstSection, regressedWords } from './against.ts';
import { type LoadResult, observedOfLoad, samplesOfLoad } from './runner.ts';
import type { RateStage } from './scenarios.ts';
import { formatMeasured, formatShare, type RuleSource, scopeWords, type ThresholdResult } from './thresholds.ts';
import { describeMix, type MixComparison, type MixOrigin } from './traffic.ts';

/** The file of a run's folder that keeps each operation's reservoir of latencies, for a later run's --against-run. */
export const SAMPLES_FILE = 'latency-samples.json';

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
    /** Percentage of responses validated against the spec (0 to 100), as --validate-share takes it. */
    validatePercent: number;
    /** Largest number of requests the run may send (null: bounded by duration only, closed model). */
    requestBudget: number | null;
  };
  /** The threshold rules in force, in k6's syntax, and where each came from. */
  thresholds: { rule: string; source: RuleSource }[];
  verdicts: ThresholdResult[];
  /** The mix: where it came from, and the shares sent against those asked. */
  mix: { origin: MixOrigin; comparison: MixComparison };
  /** The run against an earlier one (--against-run). */
  against?: AgainstRun;
  /** Every threshold met, and no regression against the earlier run. */
  passed: boolean;
  result: LoadResult;
}

/** Writes summary.json and report.html into the run's folder `runDir` (created if needed) and returns both paths. */
export function writeLoadReports(summary: LoadSummary, runDir: string): { summaryPath: string; htmlPath: string } {
  mkdirSync(runDir, { recursive: true });
  const summaryPath = join(runDir, 'summary.json');
  const htmlPath = join(runDir, 'report.html');
  writeFileSync(summaryPath, `${redactSecrets(JSON.stringify(summary, null, 2))}\n`);
  const samples = samplesOfLoad(summary.result);
  if (samples)
    writeFileSync(
      join(runDir, SAMPLES_FILE),
      `${JSON.stringify({ runId: summary.runId, scenario: summary.scenario, operations: samples })}\n`,
    );
  const envelope = loadEnvelope(summary);
  writeEnvelope(runDir, envelope);
  const page = loadPage(summary);
  page.sections.push(envelopeSection(envelope));
  writeFileSync(htmlPath, redactSecrets(renderPage(page)));
  return { summaryPath, htmlPath };
}

/** The envelope a load run measured: latency per operation under the load, and what the validated share's answers said. */
export function loadEnvelope(summary: LoadSummary): Envelope {
  const result = summary.result;
  return buildEnvelope({
    command: 'load',
    target: summary.target.embedded ? 'embedded reference server' : summary.target.baseUrl,
    latency: Object.entries(result.operations)
      .filter(([, figures]) => figures.count > 0)
      .map(([operationId, figures]) => ({
        operation: getOperation(operationId)?.label ?? operationId,
        samples: figures.count,
        p50Ms: figures.latencyMs.p50,
        p95Ms: figures.latencyMs.p95,
        p99Ms: figures.latencyMs.p99,
        maxMs: figures.latencyMs.max,
      }))
      .sort((a, b) => a.operation.localeCompare(b.operation)),
    latencyHow: `under the ${summary.scenario} scenario's load (${result.model} model: timed from the ${result.model === 'open' ? 'intended send time of each arrival, so waiting for a connection counts' : 'actual send'} to the answer), every request of the run; HDR histograms, exact to a microsecond`,
    ...(observedOfLoad(result) ? { observed: observedOfLoad(result) } : {}),
    measuredAt: new Date(result.startedAt),
  });
}

/** Colours of the chart series (each also named in its legend). */
const COLORS = {
  p50: '#4c78a8',
  p95: '#c05a00',
  p99: '#c0392b',
  sent: '#7b8794',
  completed: '#2f7d32',
  failed: '#c0392b',
};

function statusColor(label: string): string {
  if (label.startsWith('2')) return '#2f7d32';
  if (label === '429') return '#c05a00';
  if (label.startsWith('4')) return '#b08800';
  if (label.startsWith('5')) return '#c0392b';
  return '#7f3c8d';
}

/** A latency for people: two decimals under 10 ms, one under 1 s, whole ms above. */
export function formatMs(ms: number): string {
  return `${ms < 10 ? ms.toFixed(2) : ms < 1000 ? ms.toFixed(1) : Math.round(ms).toLocaleString('en-US')} ms`;
}

/** `1 of 4 thresholds breached`, `every threshold met`, and the operations regressed against an earlier run: what the reports' headlines count. */
export function thresholdsPhrase(summary: Pick<LoadSummary, 'verdicts' | 'against'>): string {
  const breached = summary.verdicts.filter((v) => v.status === 'fail').length;
  const total = summary.verdicts.length;
  const thresholds =
    breached > 0
      ? `${breached} of ${total} threshold${total === 1 ? '' : 's'} breached`
      : `every threshold met (${total})`;
  const regressed = summary.against ? regressedWords(summary.against) : [];
  return regressed.length > 0
    ? `${thresholds}; ${regressed.join(', ')} regressed against run ${summary.against!.previous.runId}`
    : thresholds;
}

const THRESHOLD_TONE: Record<ThresholdResult['status'], Cell> = { pass: 'pass', fail: 'fail', skipped: 'skip' };

/** The page of a load run. */
export function loadPage(summary: LoadSummary): ReportPage {
  const r = summary.result;
  const timeline = r.timeline;
  const plan = summary.plan;
  const attempted = r.sent + r.dropped;
  const count = (status: ThresholdResult['status']) => summary.verdicts.filter((v) => v.status === status).length;
  const planText =
    plan.model === 'closed'
      ? `closed model, ${plan.connections} connections at maximum rate for ${plan.durationS} s`
      : `open model, ${plan.startRate}→${plan.peakRate} arrivals/s over ${plan.durationS} s (${plan.requestBudget} planned), at most ${plan.connections} in flight`;
  const statusRows = Object.entries(r.statuses)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([label, n]) => ({ label: `HTTP ${label}`, count: n, color: statusColor(label) }));
  if (r.transportErrors > 0) statusRows.push({ label: 'no answer', count: r.transportErrors, color: '#7f3c8d' });
  if (r.dropped > 0) statusRows.push({ label: 'never sent', count: r.dropped, color: '#8a8178' });
  const charts = [
    lineChart({
      id: 'latency-chart',
      title: 'Latency per second (from intended send time)',
      yUnit: ' ms',
      series: [
        { name: 'p50', color: COLORS.p50, points: timeline.map((s) => [s.t, s.p50]) },
        { name: 'p95', color: COLORS.p95, points: timeline.map((s) => [s.t, s.p95]) },
        { name: 'p99', color: COLORS.p99, points: timeline.map((s) => [s.t, s.p99]) },
      ],
      // The SLO lines of every operation's p95 and p99, the series the chart draws.
      limits: summary.verdicts
        .filter((v) => v.operation === '*' && (v.id === 'p95-latency' || v.id === 'p99-latency'))
        .map((v) => ({
          label: `${v.expression} SLO`,
          value: v.limit,
          color: v.id === 'p95-latency' ? COLORS.p95 : COLORS.p99,
        })),
    }),
    lineChart({
      id: 'throughput-chart',
      title: 'Throughput per second',
      yUnit: '/s',
      series: [
        { name: 'sent', color: COLORS.sent, points: timeline.map((s) => [s.t, s.sent]), dashed: true },
        { name: 'answered', color: COLORS.completed, points: timeline.map((s) => [s.t, s.completed]) },
      ],
      bars: { name: 'failed', color: COLORS.failed, points: timeline.map((s) => [s.t, s.failed]) },
    }),
    barChart('status-chart', 'Responses by status', statusRows, formatShare),
  ];
  const invalid = r.validation.samples.map((sample) => ({
    text: `${sample.operationId} HTTP ${sample.status}: ${sample.errors.map((e) => `${e.pointer || '/'} ${e.message}`).join('; ')}`,
  }));
  return {
    tool: `kgate load ${summary.scenario}`,
    verdict: summary.passed ? 'pass' : 'fail',
    headline: thresholdsPhrase(summary),
    target: `${summary.target.baseUrl}${summary.target.embedded ? ' (embedded reference server)' : ''}`,
    durationMs: Math.round(r.elapsedS * 1000),
    requests: r.sent,
    facts: [
      { label: 'question', value: summary.question },
      { label: 'plan', value: planText },
      { label: 'run', value: summary.runId },
      { label: 'throughput', value: `${r.throughputRps} /s` },
      { label: 'p50', value: formatMs(r.latencyMs.p50) },
      { label: 'p95', value: formatMs(r.latencyMs.p95) },
      { label: 'p99', value: formatMs(r.latencyMs.p99) },
      { label: 'errors', value: formatShare(attempted === 0 ? 0 : r.failed / attempted) },
      {
        label: 'validated',
        value: `${r.validation.valid}/${r.validation.checked} (${plan.validatePercent} % of responses)`,
      },
    ],
    counts: [
      { label: 'thresholds met', value: count('pass'), cell: 'pass' },
      { label: 'thresholds breached', value: count('fail'), cell: 'fail' },
      { label: 'thresholds not judged', value: count('skipped'), cell: 'skip' },
      { label: 'invalid responses', value: r.validation.invalid, cell: 'warn' },
      ...(summary.against
        ? [{ label: 'regressions', value: regressedWords(summary.against).length, cell: 'fail' as const }]
        : []),
    ],
    sections: [
      {
        id: 'thresholds-part',
        title: 'Thresholds',
        tone: summary.passed ? 'info' : 'fail',
        intro:
          "The run passes when every threshold is met: the scenario's own (load/README.md says why each is set as it is), replaced or joined by the team's (the configuration file's load.thresholds, then --threshold).",
        html: table({
          id: 'thresholds',
          columns: ['', 'operation', 'rule', 'measured', 'set by'],
          rows: summary.verdicts.map((v) => ({
            cells: [
              html(mark(THRESHOLD_TONE[v.status], v.status === 'fail' ? 'FAIL' : v.status)),
              scopeWords(v.operation),
              v.expression,
              v.actual === null ? `not judged: ${v.reason ?? ''}` : formatMeasured(v, v.actual),
              v.source,
            ],
            ...(v.status === 'fail' ? { tone: 'fail' as const } : {}),
          })),
        }),
      },
      ...(summary.against ? [againstSection(summary.against)] : []),
      { id: 'charts', title: 'Over time', tone: 'info', html: `<div class="charts">${charts.join('\n')}</div>` },
      {
        id: 'operations-part',
        title: 'Per operation (latency in ms)',
        tone: 'info',
        html: table({
          id: 'operations',
          columns: [
            'operation',
            { title: 'requests', numeric: true },
            { title: 'failed', numeric: true },
            { title: 'p50', numeric: true },
            { title: 'p95', numeric: true },
            { title: 'p99', numeric: true },
            { title: 'max', numeric: true },
          ],
          rows: Object.entries(r.operations).map(([id, op]) => ({
            cells: [
              id,
              op.count,
              op.failed,
              ...[op.latencyMs.p50, op.latencyMs.p95, op.latencyMs.p99, op.latencyMs.max].map((v) =>
                formatMs(v).replace(' ms', ''),
              ),
            ],
            ...(op.failed > 0 ? { tone: 'fail' as const } : {}),
          })),
        }),
      },
      {
        id: 'mix-part',
        title: 'The mix sent and asked',
        tone: 'info',
        intro: describeMix(summary.mix.comparison, summary.mix.origin),
        html: table({
          id: 'mix',
          columns: ['operation', { title: 'asked', numeric: true }, { title: 'sent', numeric: true }],
          rows: summary.mix.comparison.operations.map((op) => ({
            cells: [op.operationId, formatShare(op.asked), formatShare(op.sent)],
          })),
        }),
      },
      { id: 'invalid', title: 'Responses that did not match the spec', tone: 'warn', items: invalid },
    ],
    files: ['summary.json', SAMPLES_FILE],
  };
}
