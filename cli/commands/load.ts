import { didYouMean, nearMisses } from '../../config/near-miss.ts';
import { redactSecrets } from '../../config/redact.ts';
import { maskedProxy, proxyFor } from '../../http/network.ts';
import { TargetUnreachable } from '../../load/preflight.ts';
import { ProgressLine } from '../../load/progress.ts';
import { thresholdsPhrase } from '../../load/report.ts';
import { describePlan, runScenario } from '../../load/run-scenario.ts';
import type { ResponseValidator } from '../../load/runner.ts';
import { applyOverrides, SCENARIOS, type Scenario, type ScenarioOverrides } from '../../load/scenarios.ts';
import { startEmbeddedTarget, type Target } from '../../load/target.ts';
import { describeThreshold } from '../../load/thresholds.ts';
import { EXIT, option, type ParsedArgs, parseCommandArgs, RuleBroken, TargetError, UsageError } from '../door/args.ts';
import type { Command } from '../door/command.ts';
import { type Door, openDoor } from '../door/door.ts';
import { NETWORK_OPTIONS, NETWORK_USAGE, type ResolvedNetwork } from '../door/network.ts';
import { JSON_USAGE, printJson } from '../door/output.ts';
import { isInteractive } from '../door/progress.ts';
import { MAX_RPS_LIMIT, optionUsage, renamedUsage, sharedOptions } from '../door/vocabulary.ts';

/** --max-rps of a load run: the peak arrivals per second its profile is scaled to, or `max`. */
const LOAD_RATE = option.text(
  `a number of requests per second from 0.001 to ${MAX_RPS_LIMIT}, or 'max'`,
  '0',
  (raw): number | 'max' => {
    if (raw.trim() === 'max') return 'max';
    const rate = Number(raw.trim());
    if (raw.trim() === '' || !Number.isFinite(rate)) throw new RuleBroken('not a number');
    if (rate < 0.001 || rate > MAX_RPS_LIMIT) throw new RuleBroken('out of range');
    return rate;
  },
);

const OPTIONS = {
  ...sharedOptions('base-url'),
  'max-rps': LOAD_RATE,
  duration: option.duration(1_000, 24 * 3_600_000),
  connections: option.whole(1, 10_000, 'connections'),
  'validate-share': option.text('a percentage of responses from 0 to 100 (such as 1, 2.5 or 2.5%)', '150', (raw) => {
    const text = raw.trim().replace(/\s*%$/, '');
    const percent = Number(text);
    if (text === '' || !Number.isFinite(percent)) throw new RuleBroken('not a number');
    if (percent < 0 || percent > 100) throw new RuleBroken('out of range');
    return percent / 100;
  }),
  ...sharedOptions('timeout', 'allow-remote', 'config', 'report-dir', 'json'),
  rate: option.renamed('max-rps', LOAD_RATE),
  ...NETWORK_OPTIONS,
};

const USAGE = `usage: kgate load <scenario> [--base-url URL] [--max-rps R|max] [--duration D] [--connections C]
                  [--validate-share P] [--timeout D] [--allow-remote] [--config FILE] [--report-dir DIR]
                  [--json] [--proxy URL] [--ca-file FILE] [--client-cert FILE --client-key FILE]

Runs a named load scenario (${Object.keys(SCENARIOS).join(', ')}) and checks its SLO thresholds
(p95 and p99 latency from the intended send time, error rate, share of responses that match the
spec). Writes summary.json and report.html into a new reports/load/<run-id>/ (or --report-dir).

${optionUsage(16, [
  ['base-url', undefined, 'a loopback address unless --allow-remote'],
  [
    'max-rps',
    "the peak arrivals per second the scenario's profile is scaled to, or 'max' for a closed-model run at maximum rate over --connections connections",
  ],
  ['duration', 'how long the load runs, a duration such as 30s or 2m (the profile is stretched to it)'],
  ['connections', 'most requests in flight at once'],
  ['validate-share', 'percentage of responses validated against the spec, 0-100 (e.g. 1 or 2.5%)'],
  ['timeout', undefined, 'default 10s: a request unanswered by then counts as a timeout'],
  ['allow-remote', 'allow a target that is not a loopback address'],
  ['config'],
  ['report-dir'],
  [
    'json',
    undefined,
    'the summary (summary.json) after "command", "verdict" and "exitCode", with "reportDir" and "reports"; a stop too',
  ],
])}
${JSON_USAGE}
${NETWORK_USAGE}

The preflight and the validated share go through kgate's own client: the proxy, the CA and the
client certificate apply to them. The load generator (autocannon) cannot use a proxy: its requests
go straight to the target, and the command says so in one line when a proxy applies. Its requests
carry the same headers as every other (the User-Agent, --header and the file's headers, the base
URL's credentials as Basic authorization).

The subscription key comes from KGATE_KEY (or the variable keyVariables.full names; with the embedded
server: its full key). A missing or refused key, an unreachable target or a base URL that routes
nothing of the interface stops the run before any load (exit 2).
${renamedUsage(OPTIONS)}
exit codes: 0 every threshold passed, 1 a threshold was breached, 2 bad usage, a target, proxy, key or
base URL the preflight refused, or a run that got no answer; 130 or 143 when stopped by SIGINT or SIGTERM`;

/** The command line of `kgate load` beyond the door's options. */
export interface LoadArgs {
  scenario: Scenario;
  maxRateDurationS?: number;
}

/** Parses and checks the arguments of `kgate load`; throws UsageError naming the option at fault. */
export function parseLoadArgs(argv: string[]): LoadArgs & { parsed: ParsedArgs<typeof OPTIONS> } {
  const parsed = parseCommandArgs(argv, OPTIONS, 'load');
  const { positionals, options: given } = parsed;
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
  const rate = given['max-rps'];
  const maxRate = rate === 'max';
  if (rate !== undefined && rate !== 'max') overrides.rate = rate;
  if (given.duration !== undefined) overrides.durationS = given.duration / 1000;
  overrides.connections = given.connections;
  overrides.validateShare = given['validate-share'];
  const scenario = applyOverrides(base, overrides);
  return { scenario, ...(maxRate ? { maxRateDurationS: overrides.durationS ?? 10 } : {}), parsed };
}

/**
 * Enters a load run's or probe's door: the target (loopback unless allowed) or the embedded server
 * (with `embeddedOptions`), the route every request of the shared client takes, its key.
 */
export async function enterLoadTarget(
  door: Door,
  embeddedOptions: { rateLimit?: number; bodyLimit?: number } = {},
): Promise<Target> {
  const entered = await door.enter({
    embedded: async () => {
      const started = await startEmbeddedTarget(embeddedOptions);
      return { baseUrl: started.baseUrl, keys: { full: started.key }, close: () => started.close() };
    },
  });
  return { baseUrl: entered.baseUrl, key: entered.keys.full, embedded: entered.embedded, close: async () => {} };
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
    // --max-rps of a load run is the arrival rate it sends at (its own, read above), not a cap the door keeps.
    const { 'max-rps': _rate, ...shared } = args.parsed.options;
    const door = openDoor({ command: 'load', kind: 'load', loopbackOnly: true }, { ...args.parsed, options: shared });
    try {
      const target = await enterLoadTarget(door);
      const reportDir = door.reportDir!;
      const unproxied = unproxiedLoadLine(target.baseUrl, door.network, args.scenario.validateShare);
      if (unproxied) door.note(unproxied);
      const plannedS =
        args.maxRateDurationS ?? Math.round(args.scenario.stages.reduce((sum, stage) => sum + stage.durationS, 0));
      door.note(
        `kgate load ${args.scenario.name} -> ${target.baseUrl}${target.embedded ? ' (embedded reference server)' : ''}\n  ${describePlan(args.scenario, args.maxRateDurationS)}`,
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
          ...(door.limits.timeoutMs !== undefined ? { timeoutS: door.limits.timeoutMs / 1000 } : {}),
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
      if (door.json) {
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
      await door.close();
    }
  },
};
