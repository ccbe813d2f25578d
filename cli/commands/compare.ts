import { appendFileSync } from 'node:fs';
import { COMPARE_FILES, renderCompare, renderCompareMarkdown, writeCompareReports } from '../../compare/report.ts';
import {
  CompareUnreachable,
  DEFAULT_COMPARE_REPORT_DIR,
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
import { createRunDir } from '../../reporting/run-dir.ts';
import { DEFAULT_MAX_BYTES, DEFAULT_TIMEOUT_MS } from '../../run/options.ts';
import {
  EXIT,
  intOption,
  noPositionals,
  numberOption,
  parseBaseUrl,
  parseCommandArgs,
  stringOption,
  UsageError,
  urlOption,
} from '../args.ts';
import type { Command } from '../command.ts';
import { applyNetwork, NETWORK_OPTIONS, NETWORK_USAGE, networkLine, resolveNetwork } from '../network.ts';

const USAGE = `usage: kgate compare --base-url CANDIDATE --against-url CURRENT [--latency] [--latency-samples N]
                     [--regression-percent P] [--regression-ms MS] [--requests N] [--seed S]
                     [--max-rps R] [--timeout MS] [--report-dir DIR] [--config FILE] [--json]
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
  --regression-ms       ... and by more than this many milliseconds (default ${DEFAULT_THRESHOLD.ms})
  --requests            generated requests besides the battery's (default ${DEFAULT_REQUESTS}; 0: the battery only)
  --seed                seed of the generated requests (default 1: the same requests on every run)
  --max-rps             at most this many requests per second to each deployment (the latency schedule's
                        rate too; default for it ${DEFAULT_LATENCY_RATE})
  --timeout             per-request deadline in milliseconds (default ${DEFAULT_TIMEOUT_MS})
  --report-dir          write this run's reports to DIR (default: a new ${DEFAULT_COMPARE_REPORT_DIR}/<run-id>/)
  --config              configuration file (default: kgate.config.json or .yaml in the working directory)
  --json                print one JSON result object instead of the summary
${NETWORK_USAGE}
                        (both deployments are reached along the same route)

Keys: KGATE_KEY for the candidate, KGATE_AGAINST_KEY for the current deployment (default: KGATE_KEY),
or the variables keyVariables.full and keyVariables.against of the configuration file name.
exit codes: 0 alike, 1 a difference or a latency regression, 2 bad usage, an unreachable deployment or
proxy, a refused proxy or TLS connection, or a front server refusing every request`;

const OPTIONS = {
  'base-url': { type: 'string' },
  'against-url': { type: 'string' },
  latency: { type: 'boolean' },
  'latency-samples': { type: 'string' },
  'regression-percent': { type: 'string' },
  'regression-ms': { type: 'string' },
  requests: { type: 'string' },
  seed: { type: 'string' },
  'max-rps': { type: 'string' },
  timeout: { type: 'string' },
  'report-dir': { type: 'string' },
  config: { type: 'string' },
  json: { type: 'boolean' },
  ...NETWORK_OPTIONS,
} as const;

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
  const { values, positionals } = parseCommandArgs(argv, OPTIONS, 'compare');
  noPositionals(positionals, 'compare');
  const candidateUrl =
    urlOption(values, 'base-url') ?? (envBaseUrl ? parseBaseUrl(envBaseUrl, 'KGATE_BASE_URL') : config.baseUrl);
  if (!candidateUrl)
    throw new UsageError(
      'kgate compare: option --base-url is required: the release candidate (or KGATE_BASE_URL, or baseUrl in the configuration file)',
    );
  const currentUrl = urlOption(values, 'against-url') ?? config.againstUrl;
  if (!currentUrl)
    throw new UsageError(
      'kgate compare: option --against-url is required: the deployment the candidate replaces (or againstUrl in the configuration file)',
    );
  const latencyOnly = ['latency-samples', 'regression-percent', 'regression-ms'].find(
    (name) => values[name] !== undefined,
  );
  if (latencyOnly && values.latency !== true)
    throw new UsageError(`kgate compare: option --${latencyOnly} needs --latency`);
  const reportDir = stringOption(values, 'report-dir');
  if (reportDir !== undefined && reportDir.trim() === '')
    throw new UsageError('option --report-dir takes a folder path, got an empty string');
  const threshold: RegressionThreshold = {
    percent:
      numberOption(values, 'regression-percent', { min: 0, max: 10_000 }) ??
      config.latencyThreshold?.percent ??
      DEFAULT_THRESHOLD.percent,
    ms:
      numberOption(values, 'regression-ms', { min: 0, max: 600_000 }) ??
      config.latencyThreshold?.ms ??
      DEFAULT_THRESHOLD.ms,
  };
  return {
    candidateUrl,
    currentUrl,
    ...(values.latency === true
      ? {
          latency: {
            samples: intOption(values, 'latency-samples', { min: 5, max: 100_000 }, DEFAULT_LATENCY_SAMPLES)!,
            threshold,
          },
        }
      : {}),
    requests: intOption(values, 'requests', { min: 0, max: 100_000 }, DEFAULT_REQUESTS)!,
    seed: intOption(values, 'seed', { min: 0, max: 2 ** 32 - 1 }, 1)!,
    maxRps: numberOption(values, 'max-rps', { min: 0.1, max: 100_000 }) ?? config.maxRps,
    timeoutMs: intOption(values, 'timeout', { min: 100, max: 600_000 }) ?? config.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    reportDir,
    json: values.json === true,
  };
}

/** The --config value, read before the rest (its file supplies defaults of the other options). */
function configOf(argv: string[]): KgateConfig {
  const { values } = parseCommandArgs(argv, OPTIONS, 'compare');
  try {
    return loadConfig(stringOption(values, 'config'));
  } catch (error) {
    if (error instanceof ConfigError) throw new UsageError(`kgate compare: ${error.message}`);
    throw error;
  }
}

/** `kgate compare`: a release candidate against the deployment it replaces. */
export const command: Command = {
  usage: USAGE,
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
    for (const name of keys.unset) {
      console.error(`kgate compare: ${name} (named by keyVariables in the configuration file) is not set`);
      return EXIT.usage;
    }
    for (const [option, url] of [
      ['--base-url', args.candidateUrl],
      ['--against-url', args.currentUrl],
    ] as const) {
      try {
        await checkReachable(url);
      } catch (error) {
        console.error(
          redactSecrets(
            `kgate compare: option ${option}: cannot reach ${url} (${(error as Error).message}); start the deployment or correct the URL`,
          ),
        );
        return EXIT.usage;
      }
      // The proxy and TLS on the way to each deployment, and a front server refusing every request,
      // are one line here; what the deployments answer is the comparison's to judge.
      const problem = await preflight(url, option === '--base-url' ? keys.candidate : keys.current);
      if (problem && problem.kind !== 'key') {
        console.error(redactSecrets(`kgate compare: option ${option}: ${url}: ${problem.reason}`));
        return EXIT.usage;
      }
    }
    if (!keys.candidate && !args.json) {
      console.error(
        'kgate compare: KGATE_KEY is not set; requests carry no key, so most answers will be 401 on both sides.',
      );
    }
    const reportDir = args.reportDir ?? createRunDir(DEFAULT_COMPARE_REPORT_DIR);
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
        console.error(
          `kgate compare: option ${error.message.startsWith('the candidate') ? '--base-url' : '--against-url'}: ${redactSecrets(error.message)}`,
        );
        return EXIT.usage;
      }
      throw error;
    }
    writeCompareReports(result, reportDir);
    if (env.githubStepSummary)
      appendFileSync(env.githubStepSummary, redactSecrets(renderCompareMarkdown(result, reportDir)));
    if (args.json) console.log(redactSecrets(JSON.stringify(result)));
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
