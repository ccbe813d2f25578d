import { resolve } from 'node:path';
import {
  AgainstRunError,
  compareLoadRuns,
  type LoadRunRecord,
  latestLoadRun,
  readLoadRun,
} from '../../compare/load-runs.ts';
import { DEFAULT_THRESHOLD, type RegressionThreshold } from '../../compare/stats.ts';
import { didYouMean, nearMisses } from '../../config/near-miss.ts';
import { redactSecrets } from '../../config/redact.ts';
import { maskedProxy, proxyFor } from '../../http/network.ts';
import { anyRegression, describeAgainst, regressedWords } from '../../load/against.ts';
import { TargetUnreachable } from '../../load/preflight.ts';
import { ProgressLine } from '../../load/progress.ts';
import { thresholdsPhrase } from '../../load/report.ts';
import { describePlan, runScenario } from '../../load/run-scenario.ts';
import type { ResponseValidator } from '../../load/runner.ts';
import { applyOverrides, SCENARIOS, type Scenario, type ScenarioOverrides } from '../../load/scenarios.ts';
import { startEmbeddedTarget, type Target } from '../../load/target.ts';
import { describeThreshold, formatMeasured, scopeWords } from '../../load/thresholds.ts';
import { describeMix } from '../../load/traffic.ts';
import { EXIT, option, type ParsedArgs, parseCommandArgs, RuleBroken, TargetError, UsageError } from '../door/args.ts';
import type { Command } from '../door/command.ts';
import { type Door, openDoor } from '../door/door.ts';
import { NETWORK_OPTIONS, NETWORK_USAGE, type ResolvedNetwork } from '../door/network.ts';
import { JSON_USAGE, printJson } from '../door/output.ts';
import { isInteractive } from '../door/progress.ts';
import { MAX_RPS_LIMIT, optionUsage, renamedUsage, sharedOptions } from '../door/vocabulary.ts';
import { MIX_FROM_OPTION, rulesInForce, THRESHOLD_OPTION, withTeamMix } from './load-settings.ts';

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

/** --against-run: an earlier load run's folder, or `latest`. */
const AGAINST_RUN = option.text(
  "an earlier load run's folder (such as reports/load/20261128T103942Z-f719), or 'latest' (the newest run of the same scenario in reports/load/)",
  '',
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
  threshold: THRESHOLD_OPTION,
  'mix-from': MIX_FROM_OPTION,
  'against-run': AGAINST_RUN,
  'regression-percent': option.decimal(0, 10_000, 'percent'),
  'regression-ms': option.duration(0, 600_000),
  seed: option.whole(0, 2 ** 32 - 1),
  ...sharedOptions('timeout', 'allow-remote', 'config', 'report-dir', 'json'),
  rate: option.renamed('max-rps', LOAD_RATE),
  ...NETWORK_OPTIONS,
};

const USAGE = `usage: kgate load <scenario> [--base-url URL] [--max-rps R|max] [--duration D] [--connections C]
                  [--validate-share P] [--threshold RULE ...] [--mix-from FILE.har]
                  [--against-run DIR|latest [--regression-percent P] [--regression-ms D]] [--seed S]
                  [--timeout D] [--allow-remote] [--config FILE] [--report-dir DIR] [--json]
                  [--proxy URL] [--ca-file FILE] [--client-cert FILE --client-key FILE]

Runs a named load scenario (${Object.keys(SCENARIOS).join(', ')}) and checks its SLO thresholds
(p95 and p99 latency from the intended send time, error rate, share of responses that match the
spec), or the team's own (--threshold, load.thresholds of the configuration file), per operation or
for every operation; with the team's traffic (--mix-from, load.mix); against an earlier run
(--against-run). Writes summary.json, report.html and latency-samples.json into a new
reports/load/<run-id>/ (or --report-dir).

${optionUsage(16, [
  ['base-url', undefined, 'a loopback address unless --allow-remote'],
  [
    'max-rps',
    "the peak arrivals per second the scenario's profile is scaled to, or 'max' for a closed-model run at maximum rate over --connections connections",
  ],
  ['duration', 'how long the load runs, a duration such as 30s or 2m (the profile is stretched to it)'],
  ['connections', 'most requests in flight at once'],
  ['validate-share', 'percentage of responses validated against the spec, 0-100 (e.g. 1 or 2.5%)'],
  [
    'threshold',
    "a threshold in k6's syntax, [OPERATION: ]MEASURE COMPARISON VALUE; OPERATION an operation id or * (every operation, the default); MEASURE p(N), avg, min, max, med (latency: VALUE in ms or s), error_rate or valid_share (VALUE in %); COMPARISON <, <=, >, >= (e.g. 'evaluateGet: p(95)<300ms', '*: error_rate<1%'). Give it once per rule; a rule replaces the scenario's or the file's for the same operation and measure and joins the others. kgate k6 bundle writes k6's thresholds from the same rules",
  ],
  [
    'mix-from',
    "shape the arrivals after recorded traffic, a HAR file: each operation's share of the recorded requests the spec accepts, inputs drawn from them (their headers and key never read: the run sends its own key); replaces load.mix of the configuration file",
  ],
  [
    'against-run',
    "compare with an earlier load run's folder, or 'latest' (the newest run of the same scenario in reports/load/): per operation, p50, p95, p99 and the error rate side by side with 95 % intervals; a regression (exit 1) only outside the run-to-run noise",
  ],
  [
    'regression-percent',
    `with --against-run: a percentile regressed when slower by more than this percent and --regression-ms (default ${DEFAULT_THRESHOLD.percent}; latencyThreshold.percent of the configuration file)`,
  ],
  [
    'regression-ms',
    `with --against-run: and by more than this duration (default ${DEFAULT_THRESHOLD.ms}ms; latencyThreshold.ms)`,
  ],
  ['seed', "seed of --mix-from's draw of the recorded inputs and of --against-run's bootstrap (default 1)"],
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

The configuration file's "load" key holds the team's thresholds and mix:
  "load": { "thresholds": { "evaluateGet": "p(95)<300ms", "*": ["p(99)<1s", "error_rate<1%", "valid_share>99%"] },
            "mix": { "interpretGet": 70, "evaluateGet": 25, "calchistogramGet": 5 } }
${renamedUsage(OPTIONS)}
exit codes: 0 every threshold passed (and no regression against --against-run), 1 a threshold was
breached or an operation regressed, 2 bad usage, a target, proxy, key or base URL the preflight
refused, or a run that got no answer; 130 or 143 when stopped by SIGINT or SIGTERM`;

/** The command line of `kgate load` beyond the door's options. */
export interface LoadArgs {
  scenario: Scenario;
  maxRateDurationS?: number;
}

/** An option given only with --against-run means nothing without it. */
const AGAINST_ONLY = ['regression-percent', 'regression-ms'] as const;

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
  const alone = AGAINST_ONLY.find((name) => given[name] !== undefined);
  if (alone && given['against-run'] === undefined)
    throw new UsageError(`option --${alone} needs --against-run: it says when a run regressed against an earlier one`, {
      command: 'load',
      option: `--${alone}`,
      rule: 'is given with --against-run',
    });
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

/** The earlier run --against-run names, read before any load is sent: its folder, or the newest of the scenario's. */
export function earlierRun(given: string, scenario: string): LoadRunRecord {
  const rule = "names an earlier load run's folder with its summary.json and latency-samples.json, or 'latest'";
  const dir = given === 'latest' ? latestLoadRun(scenario) : given;
  if (dir === undefined)
    throw new UsageError(
      `option --against-run latest: no earlier run of the ${scenario} scenario in reports/load/ to compare with (run kgate load ${scenario} once first, or name a run's folder)`,
      { option: '--against-run', rule, command: 'load' },
    );
  try {
    return readLoadRun(resolve(dir));
  } catch (error) {
    if (!(error instanceof AgainstRunError)) throw error;
    throw new UsageError(`option --against-run ${rule}, got '${given}' (${error.message})`, {
      option: '--against-run',
      rule,
      command: 'load',
    });
  }
}

/** `kgate load`: runs a named scenario with SLO thresholds and writes its reports. */
export const command: Command = {
  usage: USAGE,
  options: OPTIONS,
  async run(argv) {
    const args = parseLoadArgs(argv);
    const given = args.parsed.options;
    // --max-rps of a load run is the arrival rate it sends at (its own, read above), not a cap the door keeps.
    const { 'max-rps': _rate, ...shared } = given;
    const door = openDoor({ command: 'load', kind: 'load', loopbackOnly: true }, { ...args.parsed, options: shared });
    try {
      const seed = given.seed ?? 1;
      const rules = rulesInForce(args.scenario, door.config, door.configFile, given.threshold);
      const team = withTeamMix(args.scenario, door.config, given['mix-from'], seed);
      const scenario = team.scenario;
      // The earlier run is read before anything is sent: a wrong folder stops the run at once.
      const previous = given['against-run'] === undefined ? undefined : earlierRun(given['against-run'], scenario.name);
      const threshold: RegressionThreshold = {
        percent: given['regression-percent'] ?? door.config.latencyThreshold?.percent ?? DEFAULT_THRESHOLD.percent,
        ms: given['regression-ms'] ?? door.config.latencyThreshold?.ms ?? DEFAULT_THRESHOLD.ms,
      };
      const target = await enterLoadTarget(door);
      const reportDir = door.reportDir!;
      const unproxied = unproxiedLoadLine(target.baseUrl, door.network, scenario.validateShare);
      if (unproxied) door.note(unproxied);
      const plannedS =
        args.maxRateDurationS ?? Math.round(scenario.stages.reduce((sum, stage) => sum + stage.durationS, 0));
      const own = rules.filter((rule) => rule.source !== 'scenario');
      door.note(
        [
          `kgate load ${scenario.name} -> ${target.baseUrl}${target.embedded ? ' (embedded reference server)' : ''}`,
          `  ${describePlan(scenario, args.maxRateDurationS)}`,
          `  thresholds: ${rules.map((rule) => rule.text).join(', ')}${own.length > 0 ? ` (${own.length} the team's)` : ''}`,
          ...(previous ? [`  against run ${previous.summary.runId} (${previous.dir})`] : []),
        ].join('\n'),
      );
      const progress = new ProgressLine(process.stderr, plannedS, isInteractive());
      let outcome: Awaited<ReturnType<typeof runScenario>>;
      try {
        outcome = await runScenario(scenario, {
          baseUrl: target.baseUrl,
          key: target.key,
          embedded: target.embedded,
          maxRateDurationS: args.maxRateDurationS,
          validate: scenario.validateShare > 0 ? await loadValidator() : undefined,
          onSecond: (snapshot) => progress.update(snapshot),
          reportDir,
          ...(door.limits.timeoutMs !== undefined ? { timeoutS: door.limits.timeoutMs / 1000 } : {}),
          rules,
          mixOrigin: team.origin,
          ...(previous ? { against: (run) => compareLoadRuns(run, previous, { threshold, seed }) } : {}),
        });
      } catch (error) {
        if (error instanceof TargetUnreachable) throw new TargetError(error.message, { option: '--base-url' });
        throw error;
      } finally {
        progress.done();
      }
      const { summary, paths } = outcome;
      const breached = summary.verdicts.filter((v) => v.status === 'fail');
      const code = summary.passed ? EXIT.ok : EXIT.failed;
      if (door.json) {
        printJson('load', code, { ...summary, reportDir, reports: paths });
      } else {
        const r = summary.result;
        const lines = [
          `${r.sent} requests in ${r.elapsedS} s (${r.throughputRps} answers/s), p50 ${r.latencyMs.p50} ms, p95 ${r.latencyMs.p95} ms, p99 ${r.latencyMs.p99} ms, max ${r.latencyMs.max} ms`,
          `answers: statuses ${JSON.stringify(r.statuses)}; no answer: ${r.transportErrors} (connection errors and resets ${Math.max(0, r.transportErrors - r.timeouts)}, timeouts ${r.timeouts}); retries ${r.retries} (only a validated request is ever sent again, once, when a kept-alive connection was lost before any byte of its answer); never sent ${r.dropped}; validated ${r.validation.checked} (${r.validation.invalid} invalid)`,
          describeMix(summary.mix.comparison, summary.mix.origin),
          ...summary.verdicts.map(describeThreshold),
          ...(summary.against ? describeAgainst(summary.against) : []),
          `kgate load ${summary.scenario}: ${summary.passed ? 'PASS' : 'FAIL'}: ${thresholdsPhrase(summary)}${paths ? `; open ${paths.htmlPath} (also ${paths.summaryPath})` : ''}`,
        ];
        console.log(redactSecrets(lines.join('\n')));
      }
      if (breached.length > 0)
        console.error(
          `kgate load: threshold breached: ${breached.map((v) => `${scopeWords(v.operation)} ${v.expression} (measured ${formatMeasured(v, v.actual!)})`).join('; ')}`,
        );
      if (summary.against && anyRegression(summary.against))
        console.error(
          `kgate load: regressed against run ${summary.against.previous.runId}: ${regressedWords(summary.against).join(', ')}`,
        );
      return code;
    } finally {
      await door.close();
    }
  },
};
