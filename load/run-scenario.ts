import { basename } from 'node:path';
import { createRunDir, isRunId, kindFolder, newRunId } from '../reporting/run-dir.ts';
import { type AgainstRun, anyRegression } from './against.ts';
import type { LatencySamples } from './latency.ts';
import { preflight } from './preflight.ts';
import { type LoadSummary, writeLoadReports } from './report.ts';
import { type LoadResult, type ResponseValidator, runLoad, type SecondSnapshot, samplesOfLoad } from './runner.ts';
import { peakRate, plannedArrivals, type Scenario, scenarioDurationS } from './scenarios.ts';
import { budgetRules } from './threshold-rules.ts';
import { evaluateThresholds, extraPercentiles, type ScopeFigures, type SourcedRule } from './thresholds.ts';
import { compareMix, type MixOrigin, mixShares } from './traffic.ts';

/** What a scenario run needs besides the scenario: the target and how to run. */
export interface ScenarioRunOptions {
  baseUrl: string;
  key?: string;
  embedded: boolean;
  /** Closed model at maximum rate for this many seconds instead of the scenario's arrival profile. */
  maxRateDurationS?: number;
  validate?: ResponseValidator;
  onSecond?: (snapshot: SecondSnapshot) => void;
  /** This run's report folder, exactly (created if needed); undefined: a new run folder under reports/load/; null: no report. */
  reportDir?: string | null;
  timeoutS?: number;
  /** The threshold rules in force (default: the scenario's own budget, for every operation). */
  rules?: SourcedRule[];
  /** Where the scenario's mix came from (default: the scenario). */
  mixOrigin?: MixOrigin;
  /** Compares the run with an earlier one (`--against-run`), before its reports are written. */
  against?: (run: { summary: LoadSummary; samples: Record<string, LatencySamples> }) => AgainstRun;
}

/** The scenario's own thresholds as rules in force. */
export function scenarioRules(scenario: Scenario): SourcedRule[] {
  return budgetRules(scenario.thresholds).map((rule) => ({ ...rule, source: 'scenario' as const }));
}

/** A share as the percentage kgate writes (`1`, `2.5`, `100`). */
export function percentOf(share: number): number {
  return Number((share * 100).toFixed(4));
}

/** The plan printed before a run starts: model, rates, duration and request budget. */
export function describePlan(scenario: Scenario, maxRateDurationS?: number): string {
  if (maxRateDurationS !== undefined) {
    return `closed model at maximum rate: ${scenario.connections} connections for ${maxRateDurationS} s (budget: bounded by duration), validating ${percentOf(scenario.validateShare)} % of responses`;
  }
  const start = round(scenario.startRate);
  const peak = round(peakRate(scenario));
  const rate = start === peak ? `${peak} req/s` : `${start} -> ${peak} req/s`;
  return `open model: ${rate} for ${round(scenarioDurationS(scenario))} s, request budget ${plannedArrivals(scenario)}, at most ${scenario.connections} in flight, validating ${percentOf(scenario.validateShare)} % of responses`;
}

/** What the thresholds are judged on: every operation together, and each one. */
export function measuredFigures(result: LoadResult): {
  overall: ScopeFigures;
  operations: Record<string, ScopeFigures>;
} {
  return {
    overall: {
      latencyMs: result.latencyMs,
      attempted: result.sent + result.dropped,
      failed: result.failed,
      validated: result.validation.checked,
      valid: result.validation.valid,
    },
    operations: Object.fromEntries(
      Object.entries(result.operations).map(([id, op]) => [
        id,
        { latencyMs: op.latencyMs, attempted: op.count, failed: op.failed, validated: op.validated, valid: op.valid },
      ]),
    ),
  };
}

/** Runs a scenario: preflight, load, thresholds, the mix sent, the earlier run, reports. */
export async function runScenario(
  scenario: Scenario,
  options: ScenarioRunOptions,
): Promise<{ summary: LoadSummary; paths?: { summaryPath: string; htmlPath: string } }> {
  const rules = options.rules ?? scenarioRules(scenario);
  const pathParams = await preflight(options.baseUrl, options.key, scenario.mix);
  const result = await runLoad(
    {
      baseUrl: options.baseUrl,
      key: options.key,
      startRate: scenario.startRate,
      stages: scenario.stages,
      ...(options.maxRateDurationS !== undefined ? { maxRate: { durationS: options.maxRateDurationS } } : {}),
      connections: scenario.connections,
      validateShare: scenario.validateShare,
      mix: scenario.mix,
      pathParams,
      timeoutS: options.timeoutS,
      percentiles: extraPercentiles(rules),
    },
    { validate: options.validate, onSecond: options.onSecond },
  );
  const verdicts = evaluateThresholds(rules, measuredFigures(result));
  const closed = options.maxRateDurationS !== undefined;
  const runDir = options.reportDir === null ? undefined : (options.reportDir ?? createRunDir(kindFolder('load')));
  const sent = Object.fromEntries(Object.entries(result.operations).map(([id, op]) => [id, op.count]));
  const summary: LoadSummary = {
    runId: runDir && isRunId(basename(runDir)) ? basename(runDir) : newRunId(),
    scenario: scenario.name,
    question: scenario.question,
    target: { baseUrl: options.baseUrl, embedded: options.embedded },
    plan: {
      model: closed ? 'closed' : 'open',
      startRate: closed ? 0 : round(scenario.startRate),
      stages: closed ? [] : scenario.stages.map((s) => ({ durationS: round(s.durationS), target: round(s.target) })),
      peakRate: closed ? null : round(peakRate(scenario)),
      durationS: closed ? options.maxRateDurationS! : round(scenarioDurationS(scenario)),
      connections: scenario.connections,
      validatePercent: percentOf(scenario.validateShare),
      requestBudget: closed ? null : plannedArrivals(scenario),
    },
    thresholds: rules.map((rule) => ({ rule: rule.text, source: rule.source })),
    verdicts,
    mix: { origin: options.mixOrigin ?? { kind: 'scenario' }, comparison: compareMix(mixShares(scenario.mix), sent) },
    passed: verdicts.every((v) => v.status !== 'fail'),
    result,
  };
  if (options.against) {
    summary.against = options.against({ summary, samples: samplesOfLoad(result) ?? {} });
    summary.passed = summary.passed && !anyRegression(summary.against);
  }
  if (runDir === undefined) return { summary };
  return { summary, paths: writeLoadReports(summary, runDir) };
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}
