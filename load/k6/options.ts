// k6 options derived from ../scenarios.ts, so the k6 scripts and `kgate load` share one definition
// of every scenario and threshold. Pure: no k6 runtime module is imported here, which lets the
// Node tests evaluate it directly.
import type { Options } from 'k6/options';
import { applyOverrides, plannedArrivals, SCENARIOS, type Scenario, type Thresholds } from '../scenarios.ts';

/** Environment overrides a k6 run accepts (`k6 run -e RATE=80 -e DURATION_S=60 ...`). */
export interface K6Env {
  RATE?: string;
  DURATION_S?: string;
  CONNECTIONS?: string;
  VALIDATE_SHARE?: string;
}

/** The scenario after the overrides given in the k6 environment. */
export function scenarioFor(name: string, env: K6Env = {}): Scenario {
  const base = SCENARIOS[name];
  if (!base) throw new Error(`unknown scenario '${name}' (one of ${Object.keys(SCENARIOS).join(', ')})`);
  const number = (value: string | undefined) => (value === undefined || value === '' ? undefined : Number(value));
  return applyOverrides(base, {
    rate: number(env.RATE),
    durationS: number(env.DURATION_S),
    connections: number(env.CONNECTIONS),
    validateShare: number(env.VALIDATE_SHARE),
  });
}

/**
 * The k6 thresholds of a scenario. `http_req_duration` is k6's time from send to answer; the
 * error rate counts failed requests (`http_req_failed`) and, as kgate does, arrivals that were
 * never sent for want of a free VU (`dropped_iterations`); `checks` is the share of sampled
 * responses whose status and shape match the spec.
 */
export function k6Thresholds(thresholds: Thresholds, planned: number): Record<string, string[]> {
  return {
    http_req_duration: [`p(95)<=${thresholds.p95Ms}`, `p(99)<=${thresholds.p99Ms}`],
    http_req_failed: [`rate<=${thresholds.maxErrorRate}`],
    dropped_iterations: [`count<=${Math.floor(thresholds.maxErrorRate * planned)}`],
    checks: [`rate>=${thresholds.minValidShare}`],
  };
}

/** The k6 options of a named scenario: one ramping-arrival-rate scenario plus its thresholds. */
export function k6Options(name: string, env: K6Env = {}): Options {
  const scenario = scenarioFor(name, env);
  return {
    scenarios: {
      [scenario.name]: {
        executor: 'ramping-arrival-rate',
        startRate: Math.round(scenario.startRate),
        timeUnit: '1s',
        preAllocatedVUs: scenario.connections,
        maxVUs: scenario.connections,
        stages: scenario.stages.map((stage) => ({
          duration: `${Math.round(stage.durationS * 1000)}ms`,
          target: Math.round(stage.target),
        })),
      },
    },
    thresholds: k6Thresholds(scenario.thresholds, plannedArrivals(scenario)),
    summaryTrendStats: ['avg', 'min', 'med', 'p(90)', 'p(95)', 'p(99)', 'max'],
  };
}
