import { readEnv } from '../../config/env.ts';
import { redactSecrets, registerSecret } from '../../config/redact.ts';
import { TargetUnreachable } from '../../load/preflight.ts';
import { ProgressLine } from '../../load/progress.ts';
import { thresholdsPhrase } from '../../load/report.ts';
import { describePlan, runScenario } from '../../load/run-scenario.ts';
import type { ResponseValidator } from '../../load/runner.ts';
import { applyOverrides, SCENARIOS, type Scenario, type ScenarioOverrides } from '../../load/scenarios.ts';
import { refusalReason, startEmbeddedTarget, type Target } from '../../load/target.ts';
import { describeThreshold } from '../../load/thresholds.ts';
import {
  durationOption,
  EXIT,
  intOption,
  type ParsedArgs,
  parseBaseUrl,
  parseCommandArgs,
  stringOption,
  UsageError,
  urlOption,
} from '../args.ts';
import type { Command } from '../main.ts';
import { isInteractive } from '../progress.ts';

const USAGE = `usage: kgate load <scenario> [--base-url URL] [--rate R|max] [--duration D] [--connections C]
                  [--validate-share P] [--allow-remote] [--report-dir DIR] [--json]

Runs a named load scenario (${Object.keys(SCENARIOS).join(', ')}) and checks its SLO thresholds
(p95 and p99 latency from the intended send time, error rate, share of responses that match the
spec). Writes reports/load/<run-id>/summary.json and report.html.

  --base-url        target (default KGATE_BASE_URL, else the embedded reference server)
  --rate            peak arrivals per second (the scenario's profile is scaled), or 'max' for a
                    closed-model run at maximum rate over --connections connections
  --duration        total duration, e.g. 30s or 2m (the profile is stretched)
  --connections     most requests in flight at once
  --validate-share  percentage of responses validated against the spec, 0-100 (e.g. 1 or 2.5%)
  --allow-remote    allow a target that is not a loopback address
  --report-dir      directory for run reports (default reports/load)
  --json            print the summary as one JSON object

The subscription key comes from KGATE_KEY (with the embedded server: its full key).
exit codes: 0 every threshold passed, 1 a threshold was breached, 2 bad usage or unreachable target`;

const OPTIONS = {
  'base-url': { type: 'string' },
  rate: { type: 'string' },
  duration: { type: 'string' },
  connections: { type: 'string' },
  'validate-share': { type: 'string' },
  'allow-remote': { type: 'boolean' },
  'report-dir': { type: 'string' },
  json: { type: 'boolean' },
} as const;

/** The parsed command line of `kgate load`. */
export interface LoadArgs {
  scenario: Scenario;
  maxRateDurationS?: number;
  baseUrl?: string;
  allowRemote: boolean;
  reportDir: string;
  json: boolean;
}

/** Parses and checks the arguments of `kgate load`; throws UsageError naming the option at fault. */
export function parseLoadArgs(argv: string[]): LoadArgs {
  const { values, positionals } = parseCommandArgs(argv, OPTIONS, 'load');
  const name = positionals[0];
  if (name === undefined) {
    throw new UsageError(`kgate load: missing scenario name (one of ${Object.keys(SCENARIOS).join(', ')})`);
  }
  if (positionals.length > 1) throw new UsageError(`kgate load: unexpected argument '${positionals[1]}'`);
  const base = SCENARIOS[name];
  if (!base)
    throw new UsageError(`kgate load: unknown scenario '${name}' (one of ${Object.keys(SCENARIOS).join(', ')})`);
  const overrides: ScenarioOverrides = {};
  const rawRate = stringOption(values, 'rate');
  const maxRate = rawRate === 'max';
  if (rawRate !== undefined && !maxRate) {
    const rate = Number(rawRate);
    if (rawRate.trim() === '' || !Number.isFinite(rate) || rate < 0.1 || rate > 100_000) {
      throw new UsageError(`option --rate takes arrivals per second from 0.1 to 100000 or 'max', got '${rawRate}'`);
    }
    overrides.rate = rate;
  }
  const durationMs = durationOption(values, 'duration', { minMs: 1000, maxMs: 24 * 3_600_000 });
  if (durationMs !== undefined) overrides.durationS = durationMs / 1000;
  overrides.connections = intOption(values, 'connections', { min: 1, max: 10_000 });
  overrides.validateShare = shareOption(values, 'validate-share');
  const scenario = applyOverrides(base, overrides);
  return {
    scenario,
    ...(maxRate ? { maxRateDurationS: overrides.durationS ?? 10 } : {}),
    baseUrl: urlOption(values, 'base-url'),
    allowRemote: values['allow-remote'] === true,
    reportDir: stringOption(values, 'report-dir') ?? 'reports/load',
    json: values.json === true,
  };
}

/** Reads a percentage option (0-100, an optional '%' suffix) and returns it as a share 0..1. */
function shareOption(values: ParsedArgs['values'], name: string): number | undefined {
  const raw = stringOption(values, name);
  if (raw === undefined) return undefined;
  const text = raw.trim().replace(/\s*%$/, '');
  const percent = Number(text);
  if (text === '' || !Number.isFinite(percent) || percent < 0 || percent > 100) {
    throw new UsageError(`option --${name} takes a percentage from 0 to 100, got '${raw}'`);
  }
  return percent / 100;
}

/** Resolves the target of a load run or probe: a given base URL (loopback unless allowed) or the embedded server. */
export async function resolveTarget(
  baseUrl: string | undefined,
  allowRemote: boolean,
  command: string,
  embeddedOptions: { rateLimit?: number; bodyLimit?: number } = {},
): Promise<Target> {
  const env = readEnv();
  registerSecret(env.key);
  const url = baseUrl ?? (env.baseUrl ? parseBaseUrl(env.baseUrl, 'KGATE_BASE_URL') : undefined);
  if (url === undefined) return startEmbeddedTarget(embeddedOptions);
  const refusal = refusalReason(url, allowRemote);
  if (refusal) throw new UsageError(`kgate ${command}: ${refusal}`);
  if (!env.key) console.error(`kgate ${command}: KGATE_KEY is not set; requests carry no subscription key`);
  return { baseUrl: url, key: env.key, embedded: false, close: async () => undefined };
}

/** Loads the spec validator only when a run validates responses (it compiles the spec on first use). */
export async function loadValidator(): Promise<ResponseValidator> {
  const { validateResponse } = await import('../../openapi/validator.ts');
  return (operationId, status, contentType, body) => validateResponse(operationId, status, contentType, body);
}

/** `kgate load`: runs a named scenario with SLO thresholds and writes its reports. */
export const command: Command = {
  usage: USAGE,
  async run(argv) {
    const args = parseLoadArgs(argv);
    const target = await resolveTarget(args.baseUrl, args.allowRemote, 'load');
    try {
      const plannedS =
        args.maxRateDurationS ?? Math.round(args.scenario.stages.reduce((sum, stage) => sum + stage.durationS, 0));
      console.error(
        redactSecrets(
          `kgate load ${args.scenario.name} -> ${target.baseUrl}${target.embedded ? ' (embedded reference server)' : ''}\n  ${describePlan(args.scenario, args.maxRateDurationS)}`,
        ),
      );
      const progress = new ProgressLine(process.stderr, plannedS, isInteractive());
      let outcome: Awaited<ReturnType<typeof runScenario>>;
      try {
        outcome = await runScenario(args.scenario, {
          baseUrl: target.baseUrl,
          key: target.key,
          embedded: target.embedded,
          maxRateDurationS: args.maxRateDurationS,
          validate: args.scenario.validateShare > 0 ? await loadValidator() : undefined,
          onSecond: (snapshot) => progress.update(snapshot),
          reportDir: args.reportDir,
        });
      } catch (error) {
        if (error instanceof TargetUnreachable) {
          console.error(redactSecrets(`kgate load: ${error.message}`));
          return EXIT.usage;
        }
        throw error;
      } finally {
        progress.done();
      }
      const { summary, paths } = outcome;
      if (args.json) {
        console.log(redactSecrets(JSON.stringify({ ...summary, reports: paths })));
      } else {
        const r = summary.result;
        const lines = [
          `${r.sent} requests in ${r.elapsedS} s (${r.throughputRps} answers/s), p50 ${r.latencyMs.p50} ms, p95 ${r.latencyMs.p95} ms, p99 ${r.latencyMs.p99} ms, max ${r.latencyMs.max} ms`,
          `answers: statuses ${JSON.stringify(r.statuses)}; no answer: ${r.transportErrors} (connection errors and resets ${Math.max(0, r.transportErrors - r.timeouts)}, timeouts ${r.timeouts}); retries 0 (a load run never sends a request again); never sent ${r.dropped}; validated ${r.validation.checked} (${r.validation.invalid} invalid)`,
          ...summary.verdicts.map(describeThreshold),
          `kgate load ${summary.scenario}: ${summary.passed ? 'PASS' : 'FAIL'}: ${thresholdsPhrase(summary)}${paths ? `; open ${paths.htmlPath} (also ${paths.summaryPath})` : ''}`,
        ];
        console.log(redactSecrets(lines.join('\n')));
      }
      const breached = summary.verdicts.filter((v) => v.status === 'fail');
      if (breached.length > 0) {
        console.error(`kgate load: threshold breached: ${breached.map((v) => v.rule).join('; ')}`);
        return EXIT.failed;
      }
      return EXIT.ok;
    } finally {
      await target.close();
    }
  },
};
