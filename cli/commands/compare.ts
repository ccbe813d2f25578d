import { appendFileSync } from 'node:fs';
import { COMPARE_FILES, renderCompare, renderCompareMarkdown, writeCompareReports } from '../../compare/report.ts';
import {
  CompareUnreachable,
  DEFAULT_LATENCY_RATE,
  DEFAULT_LATENCY_SAMPLES,
  DEFAULT_REQUESTS,
  estimateRequests,
  generatedWithin,
  runCompare,
} from '../../compare/run.ts';
import { DEFAULT_THRESHOLD, type RegressionThreshold } from '../../compare/stats.ts';
import { comparePhrase } from '../../compare/words.ts';
import type { KgateConfig } from '../../config/file.ts';
import { redactSecrets } from '../../config/redact.ts';
import { shellWord } from '../../contracts/generative/judge.ts';
import { PREFLIGHT_PATHS } from '../../contracts/preflight.ts';
import { DEFAULT_MAX_BYTES, DEFAULT_TIMEOUT_MS } from '../../run/options.ts';
import {
  formatDuration,
  noPositionals,
  option,
  type ParsedArgs,
  parseCommandArgs,
  TargetError,
  UsageError,
} from '../door/args.ts';
import type { Command } from '../door/command.ts';
import { openDoor } from '../door/door.ts';
import { NETWORK_OPTIONS, NETWORK_USAGE } from '../door/network.ts';
import { JSON_USAGE, printJson, verdictWord } from '../door/output.ts';
import { optionUsage, renamedUsage, sharedOptions } from '../door/vocabulary.ts';

const OPTIONS = {
  ...sharedOptions('base-url'),
  'against-url': option.url(),
  latency: option.flag(),
  'latency-samples': option.whole(5, 100_000, 'interleaved pairs per operation'),
  'regression-percent': option.decimal(0, 10_000, 'percent'),
  'regression-ms': option.duration(0, 600_000),
  ...sharedOptions('max-requests'),
  seed: option.whole(0, 2 ** 32 - 1),
  ...sharedOptions('max-rps', 'timeout', 'report-dir', 'config', 'json'),
  requests: option.renamed(
    'max-requests',
    option.whole(0, 100_000, 'generated requests'),
    'at most N requests to each deployment, the battery and the preflight included; the generated requests are what the battery leaves of it',
    // The old count of generated requests, as the budget that sends exactly as many with the same latency schedule.
    (generated: number, others) =>
      estimateRequests({
        requests: generated,
        latency:
          others.latency === true
            ? {
                samples: (others['latency-samples'] as number | undefined) ?? DEFAULT_LATENCY_SAMPLES,
                threshold: DEFAULT_THRESHOLD,
              }
            : undefined,
      }).current + PREFLIGHT_PATHS.length,
  ),
  ...NETWORK_OPTIONS,
};

const USAGE = `usage: kgate compare --base-url CANDIDATE --against-url CURRENT [--latency] [--latency-samples N]
                     [--regression-percent P] [--regression-ms D] [--max-requests N] [--seed S]
                     [--max-rps R] [--timeout D] [--report-dir DIR] [--config FILE] [--json]
                     [--proxy URL] [--ca-file FILE] [--client-cert FILE --client-key FILE]

Judges a release candidate against the deployment it replaces. The same requests go to both (the
live battery's, the second page of every paged operation and seeded generated ones, chains carrying
the ids the current deployment returned); the answers are compared structurally: status, JSON values
by pointer, numbers within a relative tolerance of 1e-6, arrays as lists where the interface orders
them and as sets elsewhere. A share of the requests goes twice to the current deployment: the
pointers that vary between identical calls are its noise, listed and set aside. A difference at the
same pointer and of the same kind on several operations is shown once, with the operations it
touched (its places). With --latency both deployments get one arrival schedule, interleaved request
by request; a regression is a median slower by more than the threshold whose 95 % interval lies
above 1. The reports end with the kgate line that runs the same comparison again.

${optionUsage(20, [
  ['base-url', 'the release candidate (else KGATE_BASE_URL, else baseUrl in the configuration file)'],
  ['against-url', 'the deployment it replaces (else againstUrl in the configuration file)'],
  ['latency', 'compare latencies too'],
  ['latency-samples', `interleaved pairs per operation (default ${DEFAULT_LATENCY_SAMPLES})`],
  ['regression-percent', `a regression is slower by more than this percent (default ${DEFAULT_THRESHOLD.percent})`],
  [
    'regression-ms',
    `... and by more than this long, a duration such as 5ms or 0.1s (default ${formatDuration(DEFAULT_THRESHOLD.ms)})`,
  ],
  [
    'max-requests',
    'at most N requests to each deployment, the battery, repeats, confirmations and the preflight included',
    `the generated requests are what the battery leaves of it (default: ${DEFAULT_REQUESTS} generated requests, unbounded)`,
  ],
  ['seed', 'seed of the generated requests (default 1: the same requests on every run)'],
  [
    'max-rps',
    `at most R requests per second to each deployment (the latency schedule's rate too; default for it ${DEFAULT_LATENCY_RATE})`,
  ],
  ['timeout', undefined, `default ${formatDuration(DEFAULT_TIMEOUT_MS)}`],
  ['report-dir'],
  ['config'],
  [
    'json',
    undefined,
    'the result (summary.json) after "command", "verdict" and "exitCode", with "reportDir"; a stop too',
  ],
])}
${JSON_USAGE}
${NETWORK_USAGE}
                        (both deployments are reached along the same route)

Keys: KGATE_KEY for the candidate, KGATE_AGAINST_KEY for the current deployment (default: KGATE_KEY),
or the variables keyVariables.full and keyVariables.against of the configuration file name. A
missing or refused key, a deployment that cannot be reached or whose base URL routes nothing of the
interface stops the comparison before it starts (exit 2): two deployments refusing alike are not alike.
${renamedUsage(OPTIONS)}
exit codes: 0 alike, 1 a difference or a latency regression, 2 bad usage, a deployment, proxy, key or
base URL the preflight refused, or a comparison that compared no answer; 130 or 143 when stopped by
SIGINT or SIGTERM`;

/** What `kgate compare` compares, beyond the door's options. */
export interface CompareArgs {
  latency?: { samples: number; threshold: RegressionThreshold };
  /** Generated requests besides the battery's. */
  requests: number;
  seed: number;
}

/** Reads the command's own options; throws UsageError naming the option at fault. */
export function compareArgs(
  given: ParsedArgs<typeof OPTIONS>['options'],
  config: KgateConfig,
  maxRequests: number | undefined,
): CompareArgs {
  const threshold: RegressionThreshold = {
    percent: given['regression-percent'] ?? config.latencyThreshold?.percent ?? DEFAULT_THRESHOLD.percent,
    ms: given['regression-ms'] ?? config.latencyThreshold?.ms ?? DEFAULT_THRESHOLD.ms,
  };
  const latency =
    given.latency === true ? { samples: given['latency-samples'] ?? DEFAULT_LATENCY_SAMPLES, threshold } : undefined;
  let requests = DEFAULT_REQUESTS;
  if (maxRequests !== undefined) {
    const fit = generatedWithin(maxRequests, { latency }, PREFLIGHT_PATHS.length);
    if ('smallest' in fit)
      throw new UsageError(
        `option --max-requests: ${maxRequests} requests to each deployment cannot hold the battery${latency ? ' and the latency schedule' : ''} and the preflight; the smallest budget that does is ${fit.smallest}`,
        { option: '--max-requests', rule: `holds the battery and the preflight: at least ${fit.smallest}` },
      );
    requests = fit.generated;
  }
  return { ...(latency ? { latency } : {}), requests, seed: given.seed ?? 1 };
}

/** Parses the command line of `kgate compare`; throws UsageError naming the option at fault. */
export function parseCompareArgs(argv: string[]): ParsedArgs<typeof OPTIONS> {
  const parsed = parseCommandArgs(argv, OPTIONS, 'compare');
  noPositionals(parsed.positionals, 'compare');
  const given = parsed.options;
  const latencyOnly = (['latency-samples', 'regression-percent', 'regression-ms'] as const).find(
    (name) => given[name] !== undefined,
  );
  if (latencyOnly && given.latency !== true)
    throw new UsageError(`option --${latencyOnly} needs --latency`, {
      option: `--${latencyOnly}`,
      rule: 'needs --latency',
    });
  return parsed;
}

/** The kgate line that runs the same comparison again (targets, seed and budget; never a key). */
export function compareAgainLine(
  entered: { baseUrl: string; against: string },
  args: CompareArgs,
  maxRequests: number | undefined,
): string {
  return [
    'kgate compare',
    `--base-url ${shellWord(entered.baseUrl)}`,
    `--against-url ${shellWord(entered.against)}`,
    `--seed ${args.seed}`,
    ...(maxRequests !== undefined ? [`--max-requests ${maxRequests}`] : []),
    ...(args.latency ? [`--latency --latency-samples ${args.latency.samples}`] : []),
  ].join(' ');
}

/** `kgate compare`: a release candidate against the deployment it replaces. */
export const command: Command = {
  usage: USAGE,
  options: OPTIONS,
  async run(argv) {
    const parsed = parseCompareArgs(argv);
    const door = openDoor({ command: 'compare', kind: 'compare', against: true }, parsed);
    try {
      const maxRequests = door.limits.maxRequests;
      const args = compareArgs(parsed.options, door.config, maxRequests);
      const entered = await door.enter();
      const against = entered.against!;
      const reportDir = door.reportDir!;
      const timeoutMs = door.limits.timeoutMs ?? DEFAULT_TIMEOUT_MS;
      const maxRps = door.limits.maxRps;
      if (!door.json) {
        const estimate = estimateRequests(args);
        door.say(
          `kgate compare: ${estimate.compared} requests (the battery, second pages and ${args.requests} generated, seed ${args.seed})${args.latency ? `, then ${args.latency.samples} interleaved latency pairs per operation` : ''}; about ${estimate.candidate} requests to the candidate and ${estimate.current} or more to the current deployment${maxRequests !== undefined ? `, at most ${maxRequests} each` : ''}${maxRps ? `, at most ${maxRps}/s each` : ''}`,
        );
      }
      let result: Awaited<ReturnType<typeof runCompare>>;
      try {
        result = await runCompare({
          candidate: { baseUrl: entered.baseUrl, key: entered.keys.full },
          current: { baseUrl: against.baseUrl, key: against.key },
          network: door.network.description,
          requests: args.requests,
          seed: args.seed,
          timeoutMs,
          maxBytes: DEFAULT_MAX_BYTES,
          maxRps,
          ...(maxRequests !== undefined ? { maxRequests, preflightRequests: PREFLIGHT_PATHS.length } : {}),
          latency: args.latency,
          onProgress: door.json ? undefined : (line) => process.stderr.write(`kgate compare: ${line}\n`),
        });
      } catch (error) {
        if (error instanceof CompareUnreachable) {
          const option = error.message.startsWith('the candidate') ? '--base-url' : '--against-url';
          throw new TargetError(`option ${option}: ${error.message}`, { option });
        }
        throw error;
      }
      result.again = compareAgainLine({ baseUrl: entered.baseUrl, against: against.baseUrl }, args, maxRequests);
      // A comparison that compared no answer judged nothing: no verdict.
      if (result.requests.compared === 0) {
        result.verdict = 'error';
        result.exitCode = 2;
        result.notes = [
          ...(result.notes ?? []),
          'no request was compared: the comparison judged nothing, so it gives no verdict',
        ];
      }
      writeCompareReports(result, reportDir);
      if (door.env.githubStepSummary)
        appendFileSync(door.env.githubStepSummary, redactSecrets(renderCompareMarkdown(result, reportDir)));
      if (door.json) printJson('compare', result.exitCode, { ...result, reportDir });
      else {
        console.log(redactSecrets(renderCompare(result, reportDir)));
        console.log(
          redactSecrets(
            `\nkgate compare: ${verdictWord(result.verdict)}: ${result.verdict === 'error' ? 'nothing compared' : result.verdict === 'pass' ? `alike${args.latency ? ', no latency regression' : ''}` : comparePhrase(result)} in ${result.requests.compared} requests compared; open ${reportDir}/${COMPARE_FILES.html} (also ${[COMPARE_FILES.markdown, COMPARE_FILES.json, COMPARE_FILES.junit].join(', ')})`,
          ),
        );
      }
      return result.exitCode;
    } finally {
      await door.close();
    }
  },
};
