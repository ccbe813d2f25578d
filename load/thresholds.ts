import type { Thresholds } from './scenarios.ts';

/** The outcome of one threshold: pass, fail, or skipped with the reason it could not be measured. */
export interface ThresholdResult {
  /** Stable id, used in the CLI output and summary.json. */
  id: 'p95-latency' | 'p99-latency' | 'error-rate' | 'valid-share';
  /** The rule, e.g. 'p95 latency <= 250 ms'. */
  rule: string;
  limit: number;
  actual: number | null;
  status: 'pass' | 'fail' | 'skipped';
  /** Why the threshold was skipped. */
  reason?: string;
}

/** The measured figures thresholds are evaluated on. */
export interface MeasuredFigures {
  p95Ms: number;
  p99Ms: number;
  /** Requests planned or sent (the error-rate denominator). */
  attempted: number;
  failed: number;
  validated: number;
  valid: number;
}

/** Evaluates every threshold of a scenario against measured figures. */
export function evaluateThresholds(thresholds: Thresholds, figures: MeasuredFigures): ThresholdResult[] {
  const results: ThresholdResult[] = [];
  const latency = (id: 'p95-latency' | 'p99-latency', label: string, limit: number, actual: number) => {
    const rule = `${label} latency <= ${limit} ms`;
    if (figures.attempted === 0) {
      results.push({ id, rule, limit, actual: null, status: 'skipped', reason: 'no request was sent' });
    } else {
      results.push({ id, rule, limit, actual, status: actual <= limit ? 'pass' : 'fail' });
    }
  };
  latency('p95-latency', 'p95', thresholds.p95Ms, figures.p95Ms);
  latency('p99-latency', 'p99', thresholds.p99Ms, figures.p99Ms);

  const errorRule = `error rate <= ${formatShare(thresholds.maxErrorRate)}`;
  if (figures.attempted === 0) {
    results.push({
      id: 'error-rate',
      rule: errorRule,
      limit: thresholds.maxErrorRate,
      actual: null,
      status: 'skipped',
      reason: 'no request was sent',
    });
  } else {
    const rate = figures.failed / figures.attempted;
    results.push({
      id: 'error-rate',
      rule: errorRule,
      limit: thresholds.maxErrorRate,
      actual: rate,
      status: rate <= thresholds.maxErrorRate ? 'pass' : 'fail',
    });
  }

  const validRule = `valid share >= ${formatShare(thresholds.minValidShare)}`;
  if (figures.validated === 0) {
    results.push({
      id: 'valid-share',
      rule: validRule,
      limit: thresholds.minValidShare,
      actual: null,
      status: 'skipped',
      reason: 'no response was validated (raise --validate-share or the duration)',
    });
  } else {
    const share = figures.valid / figures.validated;
    results.push({
      id: 'valid-share',
      rule: validRule,
      limit: thresholds.minValidShare,
      actual: share,
      status: share >= thresholds.minValidShare ? 'pass' : 'fail',
    });
  }
  return results;
}

/** One line describing a threshold outcome, e.g. 'FAIL p95 latency <= 250 ms: measured 812.4 ms'. */
export function describeThreshold(result: ThresholdResult): string {
  const unit = result.id.endsWith('latency') ? (v: number) => `${v.toFixed(1)} ms` : formatShare;
  const measured = result.actual === null ? `skipped (${result.reason})` : `measured ${unit(result.actual)}`;
  return `${result.status.toUpperCase().padEnd(7)} ${result.rule}: ${measured}`;
}

/** A share as a percentage with up to two decimals, e.g. 0.0125 -> '1.25 %'. */
export function formatShare(share: number): string {
  return `${Number((share * 100).toFixed(2))} %`;
}
