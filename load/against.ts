// What a load run says of itself against an earlier run (`kgate load --against-run`): per
// operation, p50/p95/p99 and the error rate side by side with their intervals, and the regressions,
// those outside the run-to-run noise. The figures are computed by ../compare/load-runs.ts (the
// statistics of `kgate compare`); this file holds their shape and how the terminal and the page say them.
import { intervalChart } from '../page/charts.ts';
import { mark, table } from '../page/components.ts';
import { html } from '../page/html.ts';

/** One percentile of one operation in both runs. */
export interface AgainstLatency {
  /** `p50`, `p95`, `p99`. */
  stat: string;
  previous: number;
  current: number;
  /** current / previous. */
  ratio: number;
  /** The 95 % interval of the ratio. */
  interval: [number, number];
  /**
   * The ratio over every operation's (their median ratio at the same percentile, `common`), with its
   * interval: how much more this operation moved than the run as a whole.
   */
  relative: { ratio: number; interval: [number, number] };
  /** Why this percentile is shown but not judged: too few latencies beyond it in either run. */
  notJudged?: string;
  /** The relative interval lies above 1, and the operation is slower than the run's common move says by more than the threshold. */
  regression: boolean;
  /** The relative interval lies below 1, and faster than the common move says by more than the threshold. */
  improvement: boolean;
}

/** How every operation moved together at one percentile: the median of their ratios. */
export interface CommonMove {
  stat: string;
  /** The median over operations of their ratios. */
  ratio: number;
  interval: [number, number];
  /** The median over operations of the percentile in each run. */
  previous: number;
  current: number;
}

/** The error rate of one operation in both runs. */
export interface AgainstErrors {
  previous: { failed: number; count: number; rate: number };
  current: { failed: number; count: number; rate: number };
  /** current rate - previous rate. */
  difference: number;
  /** The 95 % interval of the difference. */
  interval: [number, number];
  /** The interval lies above 0. */
  regression: boolean;
}

/** One operation in both runs. */
export interface AgainstOperation {
  operationId: string;
  /** Why it was not judged (too few requests in either run, or sent by one only). */
  notJudged?: string;
  latency: AgainstLatency[];
  errors?: AgainstErrors;
  /** Some percentile or the error rate regressed. */
  regression: boolean;
}

/** A run against an earlier one. */
export interface AgainstRun {
  /** The earlier run. */
  previous: { dir: string; runId: string; scenario: string; startedAt: string; target: string };
  /** A slower percentile is a regression only when its interval lies above 1 and it is slower by more than both. */
  threshold: { percent: number; ms: number };
  /** The confidence of the intervals, the bootstrap's resamples and seed, and each run's block of time. */
  statistics: { confidence: number; resamples: number; seed: number; blockMs: { current: number; previous: number } };
  /** What differs between the runs besides the target (the plan, the mix), and how every operation moved together. */
  notes: string[];
  /**
   * How every operation moved together (the machine the runs shared, or the target as a whole):
   * each operation is judged against it. Absent when fewer than three operations were judged.
   */
  common?: CommonMove[];
  /** Every operation's median slower alike beyond the threshold, its interval above 1: the target as a whole (or the machine) slowed. */
  everyOperationRegressed: boolean;
  operations: AgainstOperation[];
  /** The operations that regressed (and `every operation` when their median moved together). */
  regressed: string[];
}

/** A ratio for people: `x1.02`. */
function times(ratio: number): string {
  return Number.isFinite(ratio) ? `x${ratio.toFixed(2)}` : 'x-';
}

/** `1.92 ms`, `41.8 ms`. */
function ms(value: number): string {
  return `${value < 10 ? value.toFixed(2) : value < 1000 ? value.toFixed(1) : Math.round(value)} ms`;
}

function percentText(share: number): string {
  return `${Number((share * 100).toFixed(2))} %`;
}

/** What regressed, in words: the operations, and `every operation` when their medians slowed alike. */
export function regressedWords(against: AgainstRun): string[] {
  return [...(against.everyOperationRegressed ? ['every operation (p50)'] : []), ...against.regressed];
}

/** Whether anything regressed against the earlier run. */
export function anyRegression(against: AgainstRun): boolean {
  return against.everyOperationRegressed || against.regressed.length > 0;
}

/** The words of the regressions of one operation: `p50, p95, error rate`. */
export function regressedStats(op: AgainstOperation): string[] {
  return [
    ...op.latency.filter((l) => l.regression).map((l) => l.stat),
    ...(op.errors?.regression ? ['error rate'] : []),
  ];
}

/**
 * The regressions of one operation with their size, as a person says it: `p95 40 % slower (22.3 ms
 * -> 31.2 ms)`, `error rate 0.1 % -> 2.5 %`.
 */
export function regressedFigures(op: AgainstOperation): string[] {
  return [
    ...op.latency
      .filter((l) => l.regression)
      .map((l) => `${l.stat} ${Math.round((l.ratio - 1) * 100)} % slower (${ms(l.previous)} -> ${ms(l.current)})`),
    ...(op.errors?.regression
      ? [`error rate ${percentText(op.errors.previous.rate)} -> ${percentText(op.errors.current.rate)}`]
      : []),
  ];
}

/** The lines the terminal prints: a headline, then one line per operation. */
export function describeAgainst(against: AgainstRun): string[] {
  const what = [
    ...(against.everyOperationRegressed
      ? [
          `every operation's median (x${against.common![0]!.ratio.toFixed(2)}, ${ms(against.common![0]!.previous)} -> ${ms(against.common![0]!.current)}: the target as a whole, or the machine)`,
        ]
      : []),
    ...against.operations
      .filter((op) => op.regression)
      .map((op) => `${op.operationId} (${regressedFigures(op).join(', ')})`),
  ];
  const headline = !anyRegression(against)
    ? `against run ${against.previous.runId} (${against.previous.scenario}): no regression beyond the run-to-run noise`
    : `against run ${against.previous.runId} (${against.previous.scenario}): regressed beyond the run-to-run noise: ${what.join('; ')}`;
  const width = Math.max(...against.operations.map((op) => op.operationId.length), 10);
  const number = (value: number) =>
    value < 10 ? value.toFixed(2) : value < 1000 ? value.toFixed(1) : String(Math.round(value));
  const pair = ([low, high]: [number, number]) => `[${low.toFixed(2)}, ${high.toFixed(2)}]`;
  const figure = (stat: string, previous: number, current: number, ratio: number, interval: [number, number]) =>
    `${stat} ${number(previous)}->${number(current)} ms ${times(ratio)} ${pair(interval)}`;
  const lines = against.operations.map((op) => {
    const name = op.operationId.padEnd(width);
    if (op.notJudged) return `  ${name}  not judged: ${op.notJudged}`;
    const latency = op.latency.map((l) =>
      l.notJudged
        ? `${l.stat} ${number(l.previous)}->${number(l.current)} ms (too few to judge)`
        : figure(l.stat, l.previous, l.current, l.ratio, l.interval),
    );
    const errors = op.errors
      ? op.errors.previous.failed + op.errors.current.failed === 0
        ? 'errors 0 %'
        : `errors ${percentText(op.errors.previous.rate)}->${percentText(op.errors.current.rate)} ${pair([op.errors.interval[0] * 100, op.errors.interval[1] * 100])} points`
      : '';
    const state = op.regression ? `: REGRESSION (${regressedStats(op).join(', ')})` : '';
    return `  ${name}  ${[...latency, errors].join('  ')}${state}`;
  });
  const common = against.common
    ? [
        `  ${'every operation'.padEnd(width)}  ${against.common
          .map((move) => figure(move.stat, move.previous, move.current, move.ratio, move.interval))
          .join(
            '  ',
          )}  (medians over operations: each operation is judged against them)${against.everyOperationRegressed ? ': REGRESSION (p50)' : ''}`,
      ]
    : [];
  return [headline, ...against.notes.map((note) => `  note: ${note}`), ...common, ...lines];
}

/** The page section of a run against an earlier one: the intervals as a chart, then the table. */
export function againstSection(against: AgainstRun): {
  id: string;
  title: string;
  tone: 'info' | 'fail';
  intro: string;
  html: string;
} {
  const judged = against.operations.filter((op) => !op.notJudged);
  const chart = intervalChart({
    id: 'against-chart',
    title: `Latency against run ${against.previous.runId}: ratio this run / that run, 95 % interval`,
    rows: [
      ...(against.common ?? []).map((move) => ({
        label: `every operation ${move.stat}`,
        value: move.ratio,
        interval: move.interval,
        flagged: move.stat === 'p50' && against.everyOperationRegressed,
        note: `${ms(move.previous)} -> ${ms(move.current)}`,
      })),
      ...judged.flatMap((op) =>
        op.latency.map((l) => ({
          label: `${op.operationId} ${l.stat}`,
          value: l.ratio,
          interval: l.interval,
          flagged: l.regression,
          note: `${ms(l.previous)} -> ${ms(l.current)}${l.notJudged ? ' (not judged: too few requests)' : ''}`,
        })),
      ),
    ],
  });
  const rows = against.operations.map((op) => {
    const stat = (name: string) => op.latency.find((l) => l.stat === name);
    const cell = (name: string) => {
      const l = stat(name);
      return l
        ? `${ms(l.previous)} -> ${ms(l.current)} (${times(l.ratio)} [${l.interval[0].toFixed(2)}, ${l.interval[1].toFixed(2)}]${against.common ? `; ${times(l.relative.ratio)} [${l.relative.interval[0].toFixed(2)}, ${l.relative.interval[1].toFixed(2)}] of every operation's` : ''})${l.regression ? ' REGRESSION' : l.notJudged ? ` not judged: ${l.notJudged}` : ''}`
        : '';
    };
    const errors = op.errors
      ? `${percentText(op.errors.previous.rate)} -> ${percentText(op.errors.current.rate)} ([${(op.errors.interval[0] * 100).toFixed(2)}, ${(op.errors.interval[1] * 100).toFixed(2)}] points)`
      : '';
    return {
      cells: [
        html(
          op.notJudged
            ? mark('skip', 'not judged')
            : op.regression
              ? mark('fail', 'REGRESSION')
              : mark('pass', 'alike'),
        ),
        op.operationId,
        op.notJudged ? op.notJudged : cell('p50'),
        cell('p95'),
        cell('p99'),
        errors,
      ],
      ...(op.regression ? { tone: 'fail' as const } : {}),
    };
  });
  return {
    id: 'against-part',
    title: `Against run ${against.previous.runId}`,
    tone: anyRegression(against) ? 'fail' : 'info',
    intro: `The same figures of the ${against.previous.scenario} run ${against.previous.runId} (${against.previous.startedAt}, ${against.previous.target}), as ratios this run / that run with 95 % intervals (a bootstrap over blocks of each run's time, the same blocks for every operation, ${against.statistics.resamples} resamples, seed ${against.statistics.seed}). An operation's percentile regressed when its ratio over every operation's (their median: what the machine or the target as a whole did) has an interval above 1 and it is slower than that common move says by more than ${against.threshold.percent} % and ${against.threshold.ms} ms; every operation's median when it moved alike so; the error rate when the interval of its difference lies above 0.${against.notes.length > 0 ? ` Notes: ${against.notes.join(' ')}` : ''}`,
    html: `<div class="charts">${chart}</div>${table({
      id: 'against',
      columns: ['', 'operation', 'p50', 'p95', 'p99', 'error rate'],
      rows,
    })}`,
  };
}
