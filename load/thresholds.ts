// The verdict of each threshold rule (./threshold-rules.ts) on what a run measured: latency from
// the run's or the operation's HDR histogram, the error rate over everything planned (for every
// operation together) or sent (for one), the valid share over the validated answers.
import type { LatencySummary } from './latency.ts';
import type { Comparator, Measure, ThresholdRule } from './threshold-rules.ts';
import { ruleId } from './threshold-rules.ts';

/** Where a rule in force came from. */
export type RuleSource = 'scenario' | 'configuration file' | '--threshold';

/** A rule in force and where it came from. */
export interface SourcedRule extends ThresholdRule {
  source: RuleSource;
}

/** The outcome of one threshold: pass, fail, or skipped with the reason it could not be measured. */
export interface ThresholdResult {
  /** Stable id, used in the CLI output and summary.json: `p95-latency`, `evaluateGet:p95-latency`. */
  id: string;
  /** The operation id the rule judges, or `*` for every operation together. */
  operation: string;
  /** The rule as kgate writes it: `evaluateGet: p(95)<300ms`. */
  rule: string;
  /** Its expression alone: `p(95)<300ms`. */
  expression: string;
  measure: Measure;
  comparator: Comparator;
  /** Milliseconds for latency, a share 0..1 otherwise. */
  limit: number;
  actual: number | null;
  status: 'pass' | 'fail' | 'skipped';
  /** Why the threshold was skipped. */
  reason?: string;
  source: RuleSource;
}

/** What one scope (every operation, or one of them) measured. */
export interface ScopeFigures {
  latencyMs: LatencySummary;
  /** Requests planned or sent: the error rate's denominator. */
  attempted: number;
  failed: number;
  validated: number;
  valid: number;
}

/** The figures thresholds are judged on: every operation together, and each operation's own. */
export interface MeasuredFigures {
  overall: ScopeFigures;
  operations: Record<string, ScopeFigures>;
}

/** The latency a rule reads from a summary, or undefined when the summary lacks that percentile. */
export function latencyFor(
  rule: Pick<ThresholdRule, 'aggregation' | 'percentile'>,
  latency: LatencySummary,
): number | undefined {
  if (rule.aggregation === 'avg') return latency.mean;
  if (rule.aggregation === 'min') return latency.min;
  if (rule.aggregation === 'max') return latency.max;
  const p = rule.percentile;
  if (p === undefined) return undefined;
  const standard: Record<number, number> = {
    50: latency.p50,
    90: latency.p90,
    95: latency.p95,
    99: latency.p99,
    99.9: latency.p999,
    100: latency.max,
  };
  return standard[p] ?? latency.percentiles?.[String(p)];
}

/** The percentiles the rules need beyond those every summary holds (50, 90, 95, 99, 99.9, 100). */
export function extraPercentiles(rules: readonly ThresholdRule[]): number[] {
  const standard = new Set([50, 90, 95, 99, 99.9, 100]);
  return [
    ...new Set(
      rules.flatMap((rule) =>
        rule.measure === 'latency' && rule.percentile !== undefined && !standard.has(rule.percentile)
          ? [rule.percentile]
          : [],
      ),
    ),
  ];
}

function holds(actual: number, comparator: Comparator, limit: number): boolean {
  switch (comparator) {
    case '<':
      return actual < limit;
    case '<=':
      return actual <= limit;
    case '>':
      return actual > limit;
    default:
      return actual >= limit;
  }
}

/** Judges every rule in force against what the run measured. */
export function evaluateThresholds(rules: readonly SourcedRule[], figures: MeasuredFigures): ThresholdResult[] {
  return rules.map((rule): ThresholdResult => {
    const base = {
      id: ruleId(rule),
      operation: rule.scope,
      rule: rule.text,
      expression: rule.expression,
      measure: rule.measure,
      comparator: rule.comparator,
      limit: rule.limit,
      source: rule.source,
    };
    const skipped = (reason: string): ThresholdResult => ({ ...base, actual: null, status: 'skipped', reason });
    const scope = rule.scope === '*' ? figures.overall : figures.operations[rule.scope];
    if (!scope || scope.attempted === 0)
      return skipped(
        rule.scope === '*' ? 'no request was sent' : `no ${rule.scope} request was sent (the mix has none)`,
      );
    let actual: number | undefined;
    if (rule.measure === 'latency') {
      actual = latencyFor(rule, scope.latencyMs);
      if (actual === undefined) return skipped(`${rule.aggregation} was not measured`);
    } else if (rule.measure === 'error_rate') {
      actual = scope.failed / scope.attempted;
    } else {
      if (scope.validated === 0)
        return skipped(
          `no ${rule.scope === '*' ? 'response' : `${rule.scope} response`} was validated (raise --validate-share or the duration)`,
        );
      actual = scope.valid / scope.validated;
    }
    return { ...base, actual, status: holds(actual, rule.comparator, rule.limit) ? 'pass' : 'fail' };
  });
}

/** The operation a verdict names, in words: `evaluateGet`, or `every operation`. */
export function scopeWords(operation: string): string {
  return operation === '*' ? 'every operation' : operation;
}

/** A measured value in its rule's unit: `812.4 ms`, `1.25 %`. */
export function formatMeasured(result: Pick<ThresholdResult, 'measure'>, value: number): string {
  return result.measure === 'latency' ? `${value.toFixed(1)} ms` : formatShare(value);
}

/** One line describing a threshold outcome: `FAIL    evaluateGet p(95)<300ms: measured 342.1 ms`. */
export function describeThreshold(result: ThresholdResult): string {
  const measured =
    result.actual === null ? `not judged (${result.reason})` : `measured ${formatMeasured(result, result.actual)}`;
  return `${result.status.toUpperCase().padEnd(7)} ${scopeWords(result.operation)} ${result.expression}: ${measured}`;
}

/** A share as a percentage with up to two decimals, e.g. 0.0125 -> '1.25 %'. */
export function formatShare(share: number): string {
  return `${Number((share * 100).toFixed(2))} %`;
}
