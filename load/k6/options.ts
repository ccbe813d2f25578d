// k6 options derived from ../scenarios.ts and ../threshold-rules.ts, so the k6 scripts and `kgate
// load` share one definition of every scenario and threshold. Pure: no k6 runtime module is
// imported here, which lets the Node tests evaluate it directly.
import type { Options } from 'k6/options';
import { applyOverrides, type MixRequest, plannedArrivals, SCENARIOS, type Scenario } from '../scenarios.ts';
import { budgetRules, k6Thresholds, parseThreshold } from '../threshold-rules.ts';

/** Environment overrides a k6 run accepts (`k6 run -e RATE=80 -e DURATION_S=60 ...`). */
export interface K6Env {
  RATE?: string;
  DURATION_S?: string;
  CONNECTIONS?: string;
  /** Percentage of answers checked, 0 to 100, as `kgate load --validate-share` takes it. */
  VALIDATE_PERCENT?: string;
  /** The old spelling: a fraction from 0 to 1 (read, with a note, until the next release). */
  VALIDATE_SHARE?: string;
}

/** What `kgate k6 bundle` writes into a bundle when the team states its own: the rules in force and the mix. */
export interface BundleSettings {
  /** Every threshold rule in force, in kgate's syntax (`evaluateGet: p(95)<300ms`). */
  thresholds?: string[];
  /** The team's mix (the configuration file's weights, or recorded traffic). */
  mix?: MixRequest[];
}

// `kgate k6 bundle` replaces this string, in the bundle it writes, by the JSON of the team's
// settings; in a bundle without them, and in the sources, it stays as it is and means none.
const BUNDLED_SETTINGS = '__KGATE_BUNDLE_SETTINGS__';

/** The settings `kgate k6 bundle` wrote into this script, if any. */
export function bundledSettings(): BundleSettings | undefined {
  return BUNDLED_SETTINGS.charAt(0) === '{' ? (JSON.parse(BUNDLED_SETTINGS) as BundleSettings) : undefined;
}

/** The note a run with the old VALIDATE_SHARE prints once, or undefined. */
export function validateShareNote(env: K6Env): string | undefined {
  if (env.VALIDATE_SHARE === undefined || env.VALIDATE_SHARE === '') return undefined;
  return `kgate: VALIDATE_SHARE (a fraction from 0 to 1) is now VALIDATE_PERCENT (a percentage from 0 to 100, as kgate load --validate-share): read as ${Number(env.VALIDATE_SHARE) * 100} %; the old name goes in the next release`;
}

/** The scenario after the overrides given in the k6 environment and the bundle's settings. */
export function scenarioFor(name: string, env: K6Env = {}, settings = bundledSettings()): Scenario {
  const base = SCENARIOS[name];
  if (!base) throw new Error(`unknown scenario '${name}' (one of ${Object.keys(SCENARIOS).join(', ')})`);
  const number = (value: string | undefined) => (value === undefined || value === '' ? undefined : Number(value));
  const percent = number(env.VALIDATE_PERCENT);
  if (percent !== undefined && !(percent >= 0 && percent <= 100))
    throw new Error(`VALIDATE_PERCENT takes a percentage from 0 to 100, got '${env.VALIDATE_PERCENT}'`);
  const share = number(env.VALIDATE_SHARE);
  if (percent === undefined && share !== undefined && !(share >= 0 && share <= 1))
    throw new Error(
      `VALIDATE_SHARE takes a fraction from 0 to 1, got '${env.VALIDATE_SHARE}'; use VALIDATE_PERCENT=<0..100>`,
    );
  const scenario = applyOverrides(base, {
    rate: number(env.RATE),
    durationS: number(env.DURATION_S),
    connections: number(env.CONNECTIONS),
    validateShare: percent !== undefined ? percent / 100 : share,
  });
  return settings?.mix ? { ...scenario, mix: settings.mix } : scenario;
}

/**
 * The k6 thresholds of a scenario: the rules the bundle carries, else the scenario's own budget.
 * `http_req_duration` is k6's time from send to answer; the error rate counts failed requests
 * (`http_req_failed`) and, as kgate does, arrivals that were never sent for want of a free VU
 * (`dropped_iterations`); `checks` is the share of sampled responses whose status and shape match
 * the spec. A rule of one operation judges the requests tagged with it.
 */
export function thresholdsFor(scenario: Scenario, settings = bundledSettings()): Record<string, string[]> {
  const rules = settings?.thresholds
    ? settings.thresholds.map((text) => parseThreshold(text))
    : budgetRules(scenario.thresholds);
  return k6Thresholds(rules, plannedArrivals(scenario));
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
    thresholds: thresholdsFor(scenario),
    summaryTrendStats: ['avg', 'min', 'med', 'p(90)', 'p(95)', 'p(99)', 'max'],
  };
}
