import { readEnv } from '../../config/env.ts';
import { didYouMean, nearMisses } from '../../config/near-miss.ts';
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
  EXIT,
  option,
  type ParsedArgs,
  parseBaseUrl,
  parseCommandArgs,
  RuleBroken,
  TargetError,
  UsageError,
} from '../door/args.ts';
import type { Command } from '../door/command.ts';
import {
  applyNetwork,
  commandNetwork,
  embeddedNetwork,
  NETWORK_OPTIONS,
  NETWORK_USAGE,
  networkLine,
  type ResolvedNetwork,
} from '../door/network.ts';
import { JSON_USAGE, printJson } from '../door/output.ts';
import { isInteractive } from '../door/progress.ts';
import { REPORT_DIR_OPTION, reportDirUsage, runFolder } from '../door/run-folder.ts';

const USAGE = `usage: kgate load <scenario> [--base-url URL] [--rate R|max] [--duration D] [--connections C]
                  [--validate-share P] [--allow-remote] [--report-dir DIR] [--json]
                  [--proxy URL] [--ca-file FILE] [--client-cert FILE --client-key FILE]

Runs a named load scenario (${Object.keys(SCENARIOS).join(', ')}) and checks its SLO thresholds
(p95 and p99 latency from the intended send time, error rate, share of responses that match the
spec). Writes summary.json and report.html into a new reports/load/<run-id>/ (or --report-dir).

  --base-url        target (default KGATE_BASE_URL, else the embedded reference server)
  --rate            peak arrivals per second (the scenario's profile is scaled), or 'max' for a
                    closed-model run at maximum rate over --connections connections
  --duration        total duration, e.g. 30s or 2m (a bare number is seconds; the profile is stretched)
  --connections     most requests in flight at once
  --validate-share  percentage of responses validated against the spec, 0-100 (e.g. 1 or 2.5%)
  --allow-remote    allow a target that is not a loopback address
${reportDirUsage('load', 15)}
                    (load used to make a new run folder inside DIR: give DIR/<name>)
  --json            print one JSON object: the summary (summary.json) after "command", "verdict" and
                    "exitCode", with "reportDir" and "reports"; a stop (bad usage, unreachable target) too
${JSON_USAGE}
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
  'base-url': option.url(),
  rate: option.text("a number of arrivals per second from 0.1 to 100000, or 'max'", '0', (raw): number | 'max' => {
    if (raw.trim() === 'max') return 'max';
    const rate = Number(raw.trim());
    if (!Number.isFinite(rate)) throw new RuleBroken('not a number');
    if (rate < 0.1 || rate > 100_000) throw new RuleBroken('out of range');
    return rate;
  }),
  duration: option.duration(1_000, 24 * 3_600_000, 's'),
  connections: option.whole(1, 10_000, 'connections'),
  'validate-share': option.text('a percentage of responses from 0 to 100 (such as 1, 2.5 or 2.5%)', '150', (raw) => {
    const text = raw.trim().replace(/\s*%$/, '');
    const percent = Number(text);
    if (text === '' || !Number.isFinite(percent)) throw new RuleBroken('not a number');
    if (percent < 0 || percent > 100) throw new RuleBroken('out of range');
    return percent / 100;
  }),
  'allow-remote': option.flag(),
  'report-dir': REPORT_DIR_OPTION,
  json: option.flag(),
  ...NETWORK_OPTIONS,
};

/** The parsed command line of `kgate load`. */
export interface LoadArgs {
  scenario: Scenario;
  maxRateDurationS?: number;
  baseUrl?: string;
  allowRemote: boolean;
  /** --report-dir: this run's folder; undefined: a new one under reports/load/. */
  reportDir?: string;
  json: boolean;
}

/** Parses and checks the arguments of `kgate load`; throws UsageError naming the option at fault. */
export function parseLoadArgs(argv: string[]): LoadArgs {
  const { positionals, options: given } = parseCommandArgs(argv, OPTIONS, 'load');
  const name = positionals[0];
  const names = Object.keys(SCENARIOS);
  if (name === undefined)
    throw new UsageError(`missing scenario name (one of ${names.join(', ')})`, {
      command: 'load',
      rule: `takes a scenario: one of ${names.join(', ')}`,
    });
  if (positionals.length > 1)
    throw new UsageError(`unexpected argument '${positionals[1]}'`, {
      command: 'load',
      argument: positionals[1],
      rule: 'takes one scenario',
    });
  const base = SCENARIOS[name];
  if (!base) {
    const near = didYouMean(name, names);
    throw new UsageError(`unknown scenario '${name}' (${near ? `${near} ` : ''}one of ${names.join(', ')})`, {
      command: 'load',
      argument: name,
      rule: `takes a scenario: one of ${names.join(', ')}`,
      ...(near ? { suggestion: nearMisses(name, names)[0] } : {}),
    });
  }
  const overrides: ScenarioOverrides = {};
  const maxRate = given.rate === 'max';
  if (given.rate !== undefined && given.rate !== 'max') overrides.rate = given.rate;
  if (given.duration !== undefined) overrides.durationS = given.duration / 1000;
  overrides.connections = given.connections;
  overrides.validateShare = given['validate-share'];
  const scenario = applyOverrides(base, overrides);
  return {
    scenario,
    ...(maxRate ? { maxRateDurationS: overrides.durationS ?? 10 } : {}),
    baseUrl: given['base-url'],
    allowRemote: given['allow-remote'] === true,
    reportDir: given['report-dir'],
    json: given.json === true,
  };
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
    if (refusal)
      throw new UsageError(refusal, {
        command,
        ...(baseUrl !== undefined ? { option: '--base-url' } : { variable: 'KGATE_BASE_URL' }),
        rule: 'names a loopback address unless --allow-remote is given',
      });
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
  options: OPTIONS,
  async run(argv) {
    const args = parseLoadArgs(argv);
    const { values } = parseCommandArgs(argv, OPTIONS, 'load');
    const { target, network } = await resolveTarget(values, args.baseUrl, args.allowRemote, 'load');
    try {
      const reportDir = runFolder(args.reportDir, 'load', 'load');
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
          reportDir,
        });
      } catch (error) {
        if (error instanceof TargetUnreachable) throw new TargetError(error.message, { option: '--base-url' });
        throw error;
      } finally {
        progress.done();
      }
      const { summary, paths } = outcome;
      const breached = summary.verdicts.filter((v) => v.status === 'fail');
      const code = breached.length > 0 ? EXIT.failed : EXIT.ok;
      if (args.json) {
        printJson('load', code, { ...summary, reportDir, reports: paths });
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
      if (breached.length > 0)
        console.error(`kgate load: threshold breached: ${breached.map((v) => v.rule).join('; ')}`);
      return code;
    } finally {
      await target.close();
    }
  },
};
