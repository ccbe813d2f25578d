import { basename } from 'node:path';
import { createRunDir, isRunId, kindFolder, newRunId } from '../reporting/run-dir.ts';
import { preflight } from './preflight.ts';
import { type LoadSummary, writeLoadReports } from './report.ts';
import { type ResponseValidator, runLoad, type SecondSnapshot } from './runner.ts';
import { peakRate, plannedArrivals, type Scenario, scenarioDurationS } from './scenarios.ts';
import { evaluateThresholds } from './thresholds.ts';

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
}

/** The plan printed before a run starts: model, rates, duration and request budget. */
export function describePlan(scenario: Scenario, maxRateDurationS?: number): string {
  if (maxRateDurationS !== undefined) {
    return `closed model at maximum rate: ${scenario.connections} connections for ${maxRateDurationS} s (budget: bounded by duration), validating ${Number((scenario.validateShare * 100).toFixed(2))} % of responses`;
  }
  const start = round(scenario.startRate);
  const peak = round(peakRate(scenario));
  const rate = start === peak ? `${peak} req/s` : `${start} -> ${peak} req/s`;
  return `open model: ${rate} for ${round(scenarioDurationS(scenario))} s, request budget ${plannedArrivals(scenario)}, at most ${scenario.connections} in flight, validating ${Number((scenario.validateShare * 100).toFixed(2))} % of responses`;
}

/** Runs a scenario: preflight, load, thresholds, reports. */
export async function runScenario(
  scenario: Scenario,
  options: ScenarioRunOptions,
): Promise<{ summary: LoadSummary; paths?: { summaryPath: string; htmlPath: string } }> {
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
    },
    { validate: options.validate, onSecond: options.onSecond },
  );
  const verdicts = evaluateThresholds(scenario.thresholds, {
    p95Ms: result.latencyMs.p95,
    p99Ms: result.latencyMs.p99,
    attempted: result.sent + result.dropped,
    failed: result.failed,
    validated: result.validation.checked,
    valid: result.validation.valid,
  });
  const closed = options.maxRateDurationS !== undefined;
  const runDir = options.reportDir === null ? undefined : (options.reportDir ?? createRunDir(kindFolder('load')));
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
      validateShare: scenario.validateShare,
      requestBudget: closed ? null : plannedArrivals(scenario),
    },
    thresholds: scenario.thresholds,
    verdicts,
    passed: verdicts.every((v) => v.status !== 'fail'),
    result,
  };
  if (runDir === undefined) return { summary };
  return { summary, paths: writeLoadReports(summary, runDir) };
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}
