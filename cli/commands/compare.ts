import { appendFileSync } from 'node:fs';
import { COMPARE_FILES, renderCompare, renderCompareMarkdown, writeCompareReports } from '../../compare/report.ts';
import {
  CompareUnreachable,
  DEFAULT_LATENCY_RATE,
  DEFAULT_LATENCY_SAMPLES,
  DEFAULT_REQUESTS,
  estimateRequests,
  runCompare,
} from '../../compare/run.ts';
import { DEFAULT_THRESHOLD, type RegressionThreshold } from '../../compare/stats.ts';
import { comparePhrase } from '../../compare/words.ts';
import { readCompareKeys, readEnv } from '../../config/env.ts';
import { ConfigError, type KgateConfig, loadConfig } from '../../config/file.ts';
import { redactSecrets, registerSecret } from '../../config/redact.ts';
import { checkReachable, preflight } from '../../contracts/preflight.ts';
import { DEFAULT_MAX_BYTES, DEFAULT_TIMEOUT_MS } from '../../run/options.ts';
import {
  formatDuration,
  noPositionals,
  option,
  parseBaseUrl,
  parseCommandArgs,
  TargetError,
  UsageError,
} from '../door/args.ts';
import type { Command } from '../door/command.ts';
import { configUsageError } from '../door/config-error.ts';
import { applyNetwork, NETWORK_OPTIONS, NETWORK_USAGE, networkLine, resolveNetwork } from '../door/network.ts';
import { JSON_USAGE, printJson } from '../door/output.ts';
import { REPORT_DIR_OPTION, reportDirUsage, runFolder } from '../door/run-folder.ts';

const USAGE = `usage: kgate compare --base-url CANDIDATE --against-url CURRENT [--latency] [--latency-samples N]
                     [--regression-percent P] [--regression-ms D] [--requests N] [--seed S]
                     [--max-rps R] [--timeout D] [--report-dir DIR] [--config FILE] [--json]
                     [--proxy URL] [--ca-file FILE] [--client-cert FILE --client-key FILE]

Judges a release candidate against the deployment it replaces. The same requests go to both (the
live battery's, the second page of every paged operation and N seeded generated ones, chains
carrying the ids the current deployment returned); the answers are compared structurally: status,
JSON values by pointer, numbers within a relative tolerance of 1e-6, arrays as lists where the
interface orders them and as sets elsewhere. A share of the requests goes twice to the current
deployment: the pointers that vary between identical calls are its noise, listed and set aside.
A difference at the same pointer and of the same kind on several operations is shown once, with
the operations it touched (its places).
With --latency both deployments get one arrival schedule, interleaved request by request; a
regression is a median slower by more than the threshold whose 95 % interval lies above 1.

  --base-url            the release candidate (env KGATE_BASE_URL, or baseUrl in the configuration file)
  --against-url         the deployment it replaces (againstUrl in the configuration file)
  --latency             compare latencies too
  --latency-samples     interleaved pairs per operation (default ${DEFAULT_LATENCY_SAMPLES})
  --regression-percent  a regression is slower by more than this percent (default ${DEFAULT_THRESHOLD.percent})
  --regression-ms       ... and by more than this long, such as 5ms or 0.1s (a bare number is
                        milliseconds; default ${formatDuration(DEFAULT_THRESHOLD.ms)})
  --requests            generated requests besides the battery's (default ${DEFAULT_REQUESTS}; 0: the battery only)
  --seed                seed of the generated requests (default 1: the same requests on every run)
  --max-rps             at most this many requests per second to each deployment (the latency schedule's
                        rate too; default for it ${DEFAULT_LATENCY_RATE})
  --timeout             per-request deadline, such as 500ms or 20s (a bare number is milliseconds;
                        default ${formatDuration(DEFAULT_TIMEOUT_MS)})
${reportDirUsage('compare', 20)}
  --config              configuration file (default: kgate.config.json or .yaml in the working directory)
  --json                print one JSON object instead of the summary: the result (summary.json) after
                        "command", "verdict" and "exitCode", with "reportDir"; a stop too
${JSON_USAGE}
${NETWORK_USAGE}
                        (both deployments are reached along the same route)

Keys: KGATE_KEY for the candidate, KGATE_AGAINST_KEY for the current deployment (default: KGATE_KEY),
or the variables keyVariables.full and keyVariables.against of the configuration file name.
exit codes: 0 alike, 1 a difference or a latency regression, 2 bad usage, an unreachable deployment or
proxy, a refused proxy or TLS connection, or a front server refusing every request`;

const OPTIONS = {
  'base-url': option.url(),
  'against-url': option.url(),
  latency: option.flag(),
  'latency-samples': option.whole(5, 100_000, 'interleaved pairs per operation'),
  'regression-percent': option.decimal(0, 10_000, 'percent'),
  'regression-ms': option.duration(0, 600_000, 'ms'),
  requests: option.whole(0, 100_000, 'generated requests'),
  seed: option.whole(0, 2 ** 32 - 1),
  'max-rps': option.decimal(0.1, 100_000, 'requests per second'),
  timeout: option.duration(100, 600_000, 'ms'),
  'report-dir': REPORT_DIR_OPTION,
  config: option.path('file'),
  json: option.flag(),
  ...NETWORK_OPTIONS,
};

/** The parsed command line of `kgate compare`, merged with the environment and the configuration file. */
export interface CompareArgs {
  candidateUrl: string;
  currentUrl: string;
  latency?: { samples: number; threshold: RegressionThreshold };
  requests: number;
  seed: number;
  maxRps?: number;
  timeoutMs: number;
  reportDir?: string;
  json: boolean;
}

/** Parses and checks the arguments of `kgate compare`; throws UsageError naming the option at fault. */
export function parseCompareArgs(argv: string[], envBaseUrl: string | undefined, config: KgateConfig): CompareArgs {
  const { positionals, options: given } = parseCommandArgs(argv, OPTIONS, 'compare');
  noPositionals(positionals, 'compare');
  const candidateUrl = given['base-url'] ?? (envBaseUrl ? parseBaseUrl(envBaseUrl, 'KGATE_BASE_URL') : config.baseUrl);
  if (!candidateUrl)
    throw new UsageError(
      'option --base-url is required: the release candidate (or KGATE_BASE_URL, or baseUrl in the configuration file)',
      { option: '--base-url', rule: 'is required: the release candidate' },
    );
  const currentUrl = given['against-url'] ?? config.againstUrl;
  if (!currentUrl)
    throw new UsageError(
      'option --against-url is required: the deployment the candidate replaces (or againstUrl in the configuration file)',
      { option: '--against-url', rule: 'is required: the deployment the candidate replaces' },
    );
  const latencyOnly = (['latency-samples', 'regression-percent', 'regression-ms'] as const).find(
    (name) => given[name] !== undefined,
  );
  if (latencyOnly && given.latency !== true)
    throw new UsageError(`option --${latencyOnly} needs --latency`, {
      option: `--${latencyOnly}`,
      rule: 'needs --latency',
    });
  const threshold: RegressionThreshold = {
    percent: given['regression-percent'] ?? config.latencyThreshold?.percent ?? DEFAULT_THRESHOLD.percent,
    ms: given['regression-ms'] ?? config.latencyThreshold?.ms ?? DEFAULT_THRESHOLD.ms,
  };
  return {
    candidateUrl,
    currentUrl,
    ...(given.latency === true
      ? { latency: { samples: given['latency-samples'] ?? DEFAULT_LATENCY_SAMPLES, threshold } }
      : {}),
    requests: given.requests ?? DEFAULT_REQUESTS,
    seed: given.seed ?? 1,
    maxRps: given['max-rps'] ?? config.maxRps,
    timeoutMs: given.timeout ?? config.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    reportDir: given['report-dir'],
    json: given.json === true,
  };
}

/** The --config value, read before the rest (its file supplies defaults of the other options). */
function configOf(argv: string[]): KgateConfig {
  const { options: given } = parseCommandArgs(argv, OPTIONS, 'compare');
  try {
    return loadConfig(given.config);
  } catch (error) {
    if (error instanceof ConfigError) throw configUsageError(error, 'compare');
    throw error;
  }
}

/** `kgate compare`: a release candidate against the deployment it replaces. */
export const command: Command = {
  usage: USAGE,
  options: OPTIONS,
  async run(argv) {
    const env = readEnv();
    const config = configOf(argv);
    const args = parseCompareArgs(argv, env.baseUrl, config);
    const network = resolveNetwork(parseCommandArgs(argv, OPTIONS, 'compare').values, env, config);
    applyNetwork(network, args.candidateUrl, args.currentUrl);
    const line = networkLine('compare', network);
    if (line) console.error(redactSecrets(line));
    const keys = readCompareKeys(config.keyVariables);
    registerSecret(keys.candidate);
    registerSecret(keys.current);
    for (const name of keys.unset)
      throw new UsageError(`${name} (named by keyVariables in the configuration file) is not set`, {
        variable: name,
        rule: 'must hold a key: keyVariables names it',
      });
    for (const [option, url] of [
      ['--base-url', args.candidateUrl],
      ['--against-url', args.currentUrl],
    ] as const) {
      try {
        await checkReachable(url);
      } catch (error) {
        throw new TargetError(
          `option ${option}: cannot reach ${url} (${(error as Error).message}); start the deployment or correct the URL`,
          { option },
        );
      }
      // The proxy and TLS on the way to each deployment, and a front server refusing every request,
      // are one line here; what the deployments answer is the comparison's to judge.
      const problem = await preflight(url, option === '--base-url' ? keys.candidate : keys.current);
      if (problem && problem.kind !== 'key')
        throw new TargetError(`option ${option}: ${url}: ${problem.reason}`, { option });
    }
    if (!keys.candidate && !args.json) {
      console.error(
        'kgate compare: KGATE_KEY is not set; requests carry no key, so most answers will be 401 on both sides.',
      );
    }
    const reportDir = runFolder(args.reportDir, 'compare', 'compare');
    if (!args.json) {
      const estimate = estimateRequests(args);
      console.log(
        `kgate compare: candidate ${args.candidateUrl} against current ${args.currentUrl}: ${estimate.compared} requests (the battery, second pages and ${args.requests} generated, seed ${args.seed})${args.latency ? `, then ${args.latency.samples} interleaved latency pairs per operation` : ''}; about ${estimate.candidate} requests to the candidate and ${estimate.current} or more to the current deployment${args.maxRps ? `, at most ${args.maxRps}/s each` : ''}`,
      );
    }
    let result: Awaited<ReturnType<typeof runCompare>>;
    try {
      result = await runCompare({
        candidate: { baseUrl: args.candidateUrl, key: keys.candidate },
        current: { baseUrl: args.currentUrl, key: keys.current },
        network: network.description,
        requests: args.requests,
        seed: args.seed,
        timeoutMs: args.timeoutMs,
        maxBytes: DEFAULT_MAX_BYTES,
        maxRps: args.maxRps,
        latency: args.latency,
        onProgress: args.json ? undefined : (line) => process.stderr.write(`kgate compare: ${line}\n`),
      });
    } catch (error) {
      if (error instanceof CompareUnreachable) {
        const option = error.message.startsWith('the candidate') ? '--base-url' : '--against-url';
        throw new TargetError(`option ${option}: ${error.message}`, { option });
      }
      throw error;
    }
    writeCompareReports(result, reportDir);
    if (env.githubStepSummary)
      appendFileSync(env.githubStepSummary, redactSecrets(renderCompareMarkdown(result, reportDir)));
    if (args.json) printJson('compare', result.exitCode, { ...result, reportDir });
    else {
      console.log(redactSecrets(renderCompare(result, reportDir)));
      console.log(
        redactSecrets(
          `\nkgate compare: ${result.verdict.toUpperCase()}: ${result.verdict === 'pass' ? `alike${args.latency ? ', no latency regression' : ''}` : comparePhrase(result)} in ${result.requests.compared} requests compared; open ${reportDir}/${COMPARE_FILES.html} (also ${[COMPARE_FILES.markdown, COMPARE_FILES.json, COMPARE_FILES.junit].join(', ')})`,
        ),
      );
    }
    return result.exitCode;
  },
};
