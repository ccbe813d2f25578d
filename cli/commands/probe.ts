import { didYouMean } from '../../config/near-miss.ts';
import { redactSecrets } from '../../config/redact.ts';
import { checkRoute, TargetUnreachable } from '../../load/preflight.ts';
import { probeBodyLimit } from '../../load/probes/body-limit.ts';
import { probeRateLimit, type RateLimitedOperation } from '../../load/probes/rate-limit.ts';
import { BROWSING_MIX, requestTarget } from '../../load/scenarios.ts';
import { EXIT, noPositionals, option, parseCommandArgs, TargetError, UsageError } from '../args.ts';
import type { Command } from '../command.ts';
import { NETWORK_OPTIONS, NETWORK_USAGE } from '../network.ts';
import { JSON_USAGE, printJson } from '../output.ts';
import { heartbeat, humanDuration, PROGRESS_EVERY_MS } from '../progress.ts';
import { loadValidator, resolveTarget } from './load.ts';

const ROUTE_USAGE = `${NETWORK_USAGE}
                 (the configuration file in the working directory may set proxy, noProxy, caFile,
                 clientCert, clientKey and headers)

Every request goes through kgate's own client, on the route these set; one request before the
probe checks it (an unreachable target or proxy, a refused proxy or TLS connection: one line, exit 2).`;

const COMMON_USAGE = `  --base-url      target (default KGATE_BASE_URL, else the embedded reference server)
  --allow-remote  allow a target that is not a loopback address`;

const EXIT_USAGE = `exit codes: 0 limit found and behaving as documented, 1 a problem was found (named on stderr),
2 bad usage or unreachable target`;

const RATE_LIMIT_USAGE = `usage: kgate probe rate-limit --operation answerSearch|urlPreview [--base-url URL] [--max-rate R]
                   [--max-requests N] [--max-duration D] [--allow-remote] [--json]
                   [--proxy URL] [--ca-file FILE] [--client-cert FILE --client-key FILE]

Raises the arrival rate (doubling each second from 10/s) until 429s are sustained, reports the
accepted requests per second while saturated (the limit), validates every 429 body, waits the
seconds the 429 states (message, or Retry-After) and checks the target recovers.

  --operation     the operation probed: answerSearch or urlPreview
  --max-rate      highest arrival rate, requests per second (default 1000)
  --max-requests  most requests sent (default 10000)
  --max-duration  longest the probe runs, such as 30s or 2m (a bare number is seconds; default 30s)
${COMMON_USAGE}
  --json          print one JSON object: { thresholdRps, requests, durationS, waitSeconds,
                  recovered, ... } after "command", "verdict" and "exitCode"; a stop too
${JSON_USAGE}
${ROUTE_USAGE}

${EXIT_USAGE}`;

const BODY_LIMIT_USAGE = `usage: kgate probe body-limit [--base-url URL] [--allow-remote] [--json]
                   [--proxy URL] [--ca-file FILE] [--client-cert FILE --client-key FILE]

Finds the exact largest similarity POST body the target accepts by binary search between 64 bytes
and 2 MiB (at most 25 requests), reports the answer just over it (status, or a reset before any
status) and whether the limit is 1,000,000 or 1,048,576 bytes, then checks the target still
answers normally.

${COMMON_USAGE}
  --json          print one JSON object: { limitBytes, requests, overStatus, overFrom, notes,
                  healthyAfter, ... } after "command", "verdict" and "exitCode"; a stop too
${JSON_USAGE}
${ROUTE_USAGE}

${EXIT_USAGE}`;

const USAGE = `usage: kgate probe rate-limit --operation answerSearch|urlPreview [--base-url URL] [--max-rate R]
                   [--max-requests N] [--max-duration D] [--allow-remote] [--json]
       kgate probe body-limit [--base-url URL] [--allow-remote] [--json]
       (both: [--proxy URL] [--ca-file FILE] [--client-cert FILE --client-key FILE])

rate-limit  raises the arrival rate (doubling each second from 10/s) until 429s are sustained,
            reports the accepted requests per second while saturated (the limit), validates every
            429 body, waits the seconds the 429 states (message, or Retry-After) and checks the
            target recovers. Bounded: --max-rate (default 1000/s), --max-requests (default 10000),
            --max-duration (default 30s).
body-limit  finds the exact largest similarity POST body the target accepts by binary search
            between 64 bytes and 2 MiB (at most 25 requests), reports the answer just over it
            (status, or a reset before any status) and whether the limit is 1,000,000 or
            1,048,576 bytes, then checks the target still answers normally.

kgate probe rate-limit --help and kgate probe body-limit --help tell each one's options.

${EXIT_USAGE}`;

const OPERATIONS = ['answerSearch', 'urlPreview'] as const satisfies readonly RateLimitedOperation[];

const COMMON_OPTIONS = {
  'base-url': option.url(),
  'allow-remote': option.flag(),
  json: option.flag(),
  ...NETWORK_OPTIONS,
};

/** The options of `kgate probe rate-limit`. */
const RATE_LIMIT_OPTIONS = {
  operation: option.choice(OPERATIONS),
  'max-rate': option.whole(10, 100_000, 'requests per second'),
  'max-requests': option.whole(10, 1_000_000, 'requests'),
  'max-duration': option.duration(5_000, 600_000, 's'),
  ...COMMON_OPTIONS,
};

/** The options of `kgate probe body-limit`. */
const BODY_LIMIT_OPTIONS = COMMON_OPTIONS;

const SUBCOMMANDS = {
  'rate-limit': { usage: RATE_LIMIT_USAGE, options: RATE_LIMIT_OPTIONS },
  'body-limit': { usage: BODY_LIMIT_USAGE, options: BODY_LIMIT_OPTIONS },
};
const SIBLINGS = { 'probe rate-limit': RATE_LIMIT_OPTIONS, 'probe body-limit': BODY_LIMIT_OPTIONS };

/** The parsed command line of `kgate probe`. */
export type ProbeArgs =
  | {
      kind: 'rate-limit';
      operation: RateLimitedOperation;
      baseUrl?: string;
      maxRate: number;
      maxRequests: number;
      maxDurationS: number;
      allowRemote: boolean;
      json: boolean;
    }
  | { kind: 'body-limit'; baseUrl?: string; allowRemote: boolean; json: boolean };

/** Parses and checks the arguments of `kgate probe`; throws UsageError naming the option at fault. */
export function parseProbeArgs(argv: string[]): ProbeArgs {
  const [kind, ...rest] = argv;
  const names = Object.keys(SUBCOMMANDS);
  if (kind === 'rate-limit') {
    const { positionals, options: given } = parseCommandArgs(rest, RATE_LIMIT_OPTIONS, 'probe rate-limit', SIBLINGS);
    noPositionals(positionals, 'probe rate-limit');
    if (given.operation === undefined)
      throw new UsageError('option --operation is required (answerSearch or urlPreview)', {
        command: 'probe rate-limit',
        option: '--operation',
        rule: 'is required: answerSearch or urlPreview',
      });
    return {
      kind,
      operation: given.operation,
      maxRate: given['max-rate'] ?? 1000,
      maxRequests: given['max-requests'] ?? 10_000,
      maxDurationS: (given['max-duration'] ?? 30_000) / 1000,
      baseUrl: given['base-url'],
      allowRemote: given['allow-remote'] === true,
      json: given.json === true,
    };
  }
  if (kind === 'body-limit') {
    const { positionals, options: given } = parseCommandArgs(rest, BODY_LIMIT_OPTIONS, 'probe body-limit', SIBLINGS);
    noPositionals(positionals, 'probe body-limit');
    return {
      kind,
      baseUrl: given['base-url'],
      allowRemote: given['allow-remote'] === true,
      json: given.json === true,
    };
  }
  const rule = 'takes a probe: rate-limit or body-limit';
  if (kind === undefined || kind.startsWith('-'))
    throw new UsageError('missing probe name (rate-limit or body-limit)', { command: 'probe', rule });
  const near = didYouMean(kind, names);
  throw new UsageError(`unknown probe '${kind}' (${near ? `${near} ` : ''}rate-limit or body-limit)`, {
    command: 'probe',
    argument: kind,
    rule,
  });
}

/** `kgate probe`: finds the rate limit or the similarity body limit of a target. */
export const command: Command = {
  usage: USAGE,
  subcommands: SUBCOMMANDS,
  async run(argv) {
    const args = parseProbeArgs(argv);
    const { values } = parseCommandArgs(
      argv.slice(1),
      args.kind === 'rate-limit' ? RATE_LIMIT_OPTIONS : BODY_LIMIT_OPTIONS,
      `probe ${args.kind}`,
    );
    const { target } = await resolveTarget(values, args.baseUrl, args.allowRemote, `probe ${args.kind}`);
    let lastLine = Date.now();
    const log = (line: string) => {
      lastLine = Date.now();
      console.error(redactSecrets(line));
    };
    const started = Date.now();
    const bound = args.kind === 'rate-limit' ? `at most ${args.maxDurationS} s` : 'at most 25 requests';
    // The probes log as they go; the heartbeat covers the stretches where they wait (a slow target).
    const stopProgress = heartbeat(
      () => `kgate probe ${args.kind}: ${humanDuration(Date.now() - started)} elapsed (${bound})`,
      {
        skip: () => Date.now() - lastLine < PROGRESS_EVERY_MS / 2,
      },
    );
    try {
      // One request of the probe's own operation checks the route first: cheap, and what the probe sends anyway.
      const first =
        args.kind === 'rate-limit'
          ? requestTarget(BROWSING_MIX.find((entry) => entry.operationId === args.operation)!)
          : '/academic/v1.0/similarity?s1=home&s2=house';
      try {
        await checkRoute(target.baseUrl, target.key, first);
      } catch (error) {
        if (!(error instanceof TargetUnreachable)) throw error;
        throw new TargetError(error.message, { command: `probe ${args.kind}`, option: '--base-url' });
      }
      const where = `${target.baseUrl}${target.embedded ? ' (embedded reference server)' : ''}`;
      let problems: string[];
      let output: object;
      if (args.kind === 'rate-limit') {
        log(
          `kgate probe rate-limit ${args.operation} -> ${where}\n  plan: from 10/s doubling every second up to ${args.maxRate}/s, at most ${args.maxRequests} requests and ${args.maxDurationS} s`,
        );
        const result = await probeRateLimit({
          baseUrl: target.baseUrl,
          key: target.key,
          operation: args.operation,
          maxRate: args.maxRate,
          maxRequests: args.maxRequests,
          maxDurationS: args.maxDurationS,
          validate: await loadValidator(),
          log,
        });
        problems = result.problems;
        output = result;
        if (!args.json) {
          console.log(
            [
              `rate limit of ${args.operation}: ${result.thresholdRps === null ? 'not found' : `${result.thresholdRps} requests/s`} (first 429 at ${result.first429AtRate ?? '-'}/s)`,
              `429s: ${result.throttledResponses} (${result.invalid429.count} not matching the spec); wait stated: message ${result.messageSeconds ?? '-'} s, Retry-After ${result.retryAfterSeconds ?? '-'} s`,
              `recovered after waiting ${result.waitSeconds ?? '-'} s: ${result.recovered ?? 'not checked'}`,
              `${result.requests} requests in ${result.durationS} s`,
            ].join('\n'),
          );
        }
      } else {
        log(
          `kgate probe body-limit -> ${where}\n  plan: binary search over 64 B .. 2 MiB of similarity POST bodies, at most 25 requests`,
        );
        const result = await probeBodyLimit({
          baseUrl: target.baseUrl,
          key: target.key,
          validate: await loadValidator(),
          log,
        });
        problems = result.problems;
        output = result;
        if (!args.json) {
          console.log(
            [
              `largest accepted body: ${result.limitBytes === null ? 'not found' : `${result.limitBytes.toLocaleString('en-US')} bytes`} (${result.matches})`,
              `one byte over: ${result.overDetail || '-'}${result.overFrom ? ` (from ${result.overFrom === 'target' ? 'the target' : 'a front server'})` : ''}`,
              ...result.notes.map((note) => `note: ${note}`),
              `target healthy afterwards: ${result.healthyAfter}`,
              `${result.requests} requests in ${result.durationS} s`,
            ].join('\n'),
          );
        }
      }
      if (args.json) printJson(`probe ${args.kind}`, problems.length === 0 ? EXIT.ok : EXIT.failed, output);
      for (const problem of problems) console.error(redactSecrets(`kgate probe ${args.kind}: ${problem}`));
      if (!args.json)
        console.log(
          problems.length === 0
            ? `kgate probe ${args.kind}: PASS: limit found, behaving as documented`
            : `kgate probe ${args.kind}: FAIL: ${problems.length} problem${problems.length === 1 ? '' : 's'} (named on stderr)`,
        );
      return problems.length === 0 ? EXIT.ok : EXIT.failed;
    } finally {
      stopProgress();
      await target.close();
    }
  },
};
