import { readEnv } from '../../config/env.ts';
import { redactSecrets, registerSecret } from '../../config/redact.ts';
import { maskedProxy, proxyFor } from '../../http/network.ts';
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
import type { Command } from '../command.ts';
import {
  applyNetwork,
  commandNetwork,
  embeddedNetwork,
  NETWORK_OPTIONS,
  NETWORK_USAGE,
  networkLine,
  type ResolvedNetwork,
} from '../network.ts';
import { isInteractive } from '../progress.ts';

const USAGE = `usage: kgate load <scenario> [--base-url URL] [--rate R|max] [--duration D] [--connections C]
                  [--validate-share P] [--allow-remote] [--report-dir DIR] [--json]
                  [--proxy URL] [--ca-file FILE] [--client-cert FILE --client-key FILE]

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
${NETWORK_USAGE}
                 (the configuration file in the working directory may set proxy, noProxy, caFile,
                 clientCert, clientKey and headers)

The preflight and the validated share go through kgate's own client: the proxy, the CA and the
client certificate apply to them. The load generator (autocannon) cannot use a proxy: its requests
go straight to the target, and the command says so in one line when a proxy applies. Its requests
carry the same headers as every other (the User-Agent, --header and the file's headers, the base
URL's credentials as Basic authorization).

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
  ...NETWORK_OPTIONS,
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

/**
 * Resolves the target of a load run or probe, a given base URL (loopback unless allowed) or the
 * embedded server, and the route to it (--proxy, --ca-file, --client-cert and --client-key, the
 * configuration file, the environment): the route becomes that of every request of the shared
 * client, and is named in one line. The embedded server is reached directly, never through a proxy.
 */
export async function resolveTarget(
  values: ParsedArgs['values'],
  baseUrl: string | undefined,
  allowRemote: boolean,
  command: string,
  embeddedOptions: { rateLimit?: number; bodyLimit?: number } = {},
): Promise<{ target: Target; network: ResolvedNetwork }> {
  const env = readEnv();
  registerSecret(env.key);
  const configured = commandNetwork(values, env, command);
  const url = baseUrl ?? (env.baseUrl ? parseBaseUrl(env.baseUrl, 'KGATE_BASE_URL') : undefined);
  if (url !== undefined) {
    const refusal = refusalReason(url, allowRemote);
    if (refusal) throw new UsageError(`kgate ${command}: ${refusal}`);
  }
  const network = url === undefined ? embeddedNetwork(configured) : configured;
  applyNetwork(network, url);
  const line = networkLine(command, network);
  if (line) console.error(redactSecrets(line));
  if (url === undefined) return { target: await startEmbeddedTarget(embeddedOptions), network };
  if (!env.key) console.error(`kgate ${command}: KGATE_KEY is not set; requests carry no subscription key`);
  return { target: { baseUrl: url, key: env.key, embedded: false, close: async () => undefined }, network };
}

/**
 * The one line a load run prints before it starts when a proxy applies to its target: autocannon
 * cannot use one, so its requests go straight to the target; undefined otherwise.
 */
export function unproxiedLoadLine(
  baseUrl: string,
  network: ResolvedNetwork,
  validateShare: number,
): string | undefined {
  const proxy = proxyFor(new URL(baseUrl), network.settings.proxy);
  if (!proxy) return undefined;
  const share = Number((validateShare * 100).toFixed(2));
  const direct = new URL(baseUrl).host;
  return share >= 100
    ? `kgate load: the load generator (autocannon) cannot use the proxy ${maskedProxy(proxy)}: it opens its connections straight to ${direct}, but sends nothing on them (every request is validated and goes through the proxy)`
    : `kgate load: the load generator (autocannon) cannot use the proxy ${maskedProxy(proxy)}: ${Number((100 - share).toFixed(2))} % of the requests go straight to ${direct}; the preflight and the validated ${share} % go through the proxy`;
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
    const { values } = parseCommandArgs(argv, OPTIONS, 'load');
    const { target, network } = await resolveTarget(values, args.baseUrl, args.allowRemote, 'load');
    try {
      const unproxied = unproxiedLoadLine(target.baseUrl, network, args.scenario.validateShare);
      if (unproxied) console.error(redactSecrets(unproxied));
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
          `answers: statuses ${JSON.stringify(r.statuses)}; no answer: ${r.transportErrors} (connection errors and resets ${Math.max(0, r.transportErrors - r.timeouts)}, timeouts ${r.timeouts}); retries ${r.retries} (only a validated request is ever sent again, once, when a kept-alive connection was lost before any byte of its answer); never sent ${r.dropped}; validated ${r.validation.checked} (${r.validation.invalid} invalid)`,
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
