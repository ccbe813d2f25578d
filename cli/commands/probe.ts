import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { didYouMean } from '../../config/near-miss.ts';
import { redactSecrets } from '../../config/redact.ts';
import { BELOW_LIMIT_HOW, describeSignal } from '../../http/throttle.ts';
import { checkRoute, TargetUnreachable } from '../../load/preflight.ts';
import { type BodyLimitProbeResult, probeBodyLimit } from '../../load/probes/body-limit.ts';
import { bodyLimitPage, rateLimitPage } from '../../load/probes/page.ts';
import { probeRateLimit, type RateLimitedOperation, type RateLimitProbeResult } from '../../load/probes/rate-limit.ts';
import { BROWSING_MIX, requestTarget } from '../../load/scenarios.ts';
import { getOperation } from '../../openapi/spec.ts';
import { REPORT_HTML, renderPage } from '../../page/page.ts';
import { buildEnvelope, type Envelope, writeEnvelope } from '../../reporting/envelope.ts';
import {
  EXIT,
  noPositionals,
  option,
  type ParsedArgs,
  parseCommandArgs,
  TargetError,
  UsageError,
} from '../door/args.ts';
import type { Command } from '../door/command.ts';
import { type Door, type DoorGiven, openDoor } from '../door/door.ts';
import { NETWORK_OPTIONS, NETWORK_USAGE } from '../door/network.ts';
import { JSON_USAGE, outcomeObject, printJson } from '../door/output.ts';
import { heartbeat, humanDuration, PROGRESS_EVERY_MS } from '../door/progress.ts';
import { optionUsage, renamedShared, renamedUsage, sharedOptions } from '../door/vocabulary.ts';
import { enterLoadTarget, loadValidator } from './load.ts';

const OPERATIONS = ['answerSearch', 'urlPreview'] as const satisfies readonly RateLimitedOperation[];

const COMMON_OPTIONS = {
  ...sharedOptions('base-url', 'timeout', 'allow-remote', 'config', 'report-dir', 'json'),
  ...NETWORK_OPTIONS,
};

/** The options of `kgate probe rate-limit`. */
const RATE_LIMIT_OPTIONS = {
  operation: option.choice(OPERATIONS),
  ...sharedOptions('max-rps', 'max-requests', 'max-duration'),
  'max-rate': renamedShared('max-rps'),
  ...COMMON_OPTIONS,
};

const ROUTE_USAGE = `${NETWORK_USAGE}

Every request goes through kgate's own client, on the route these set. Against a deployment, the
door's preflight comes first: a missing or refused key, an unreachable target or proxy, a refused
TLS connection or a base URL that routes nothing of the interface is one line, exit 2.`;

const COMMON_USAGE = optionUsage(15, [
  ['base-url', undefined, 'a loopback address unless --allow-remote'],
  ['timeout', undefined, 'default 10s'],
  ['allow-remote', 'allow a target that is not a loopback address'],
  ['config'],
  [
    'report-dir',
    undefined,
    'it gets report.html (the page: verdict, limit found, steps), summary.json (what --json prints) and envelope.json (the limit found, with how it was measured)',
  ],
]);

const EXIT_USAGE = `exit codes: 0 limit found and behaving as documented, 1 a problem was found (named on stderr),
2 bad usage, or a target, proxy, key or base URL the preflight refused; 130 or 143 when stopped by
SIGINT or SIGTERM`;

const RATE_LIMIT_USAGE = `usage: kgate probe rate-limit --operation answerSearch|urlPreview [--base-url URL] [--max-rps R]
                   [--max-requests N] [--max-duration D] [--timeout D] [--allow-remote] [--config FILE]
                   [--report-dir DIR] [--json] [--proxy URL] [--ca-file FILE] [--client-cert FILE --client-key FILE]

Raises the arrival rate (doubling each second from 10/s) until throttling is sustained (the
interface's 429, or a front server's 503 or HTML 429, with or without Retry-After), reports the
accepted requests per second while saturated (the limit) and how it was signalled (status,
content type, Retry-After form, who sent it, whether it is the interface's 429 with the seconds to
wait), validates every JSON 429 body, waits the seconds stated (message, or Retry-After) and checks
the target recovers.

${optionUsage(15, [
  ['operation', 'the operation probed: answerSearch or urlPreview'],
  ['max-rps', 'highest arrival rate, requests per second (default 1000)'],
  ['max-requests', undefined, 'default 10000'],
  ['max-duration', undefined, 'default 30s'],
])}
${COMMON_USAGE}
  --json          print one JSON object: { thresholdRps, requests, durationS, waitSeconds,
                  recovered, ... } after "command", "verdict" and "exitCode"; a stop too
${JSON_USAGE}
${ROUTE_USAGE}
${renamedUsage(RATE_LIMIT_OPTIONS)}
${EXIT_USAGE}`;

const BODY_LIMIT_USAGE = `usage: kgate probe body-limit [--base-url URL] [--timeout D] [--allow-remote] [--config FILE]
                   [--report-dir DIR] [--json] [--proxy URL] [--ca-file FILE] [--client-cert FILE --client-key FILE]

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

const USAGE = `usage: kgate probe rate-limit --operation answerSearch|urlPreview [--base-url URL] [--max-rps R]
                   [--max-requests N] [--max-duration D] [--allow-remote] [--report-dir DIR] [--json]
       kgate probe body-limit [--base-url URL] [--allow-remote] [--report-dir DIR] [--json]
       (both: [--timeout D] [--config FILE] [--proxy URL] [--ca-file FILE] [--client-cert FILE --client-key FILE])

rate-limit  raises the arrival rate (doubling each second from 10/s) until throttling is sustained
            (the interface's 429, or a front server's 503 or HTML 429), reports the accepted
            requests per second while saturated (the limit) and how it was signalled, and checks
            the target recovers. Bounded: --max-rps (default 1000/s), --max-requests (default 10000),
            --max-duration (default 30s).
body-limit  finds the exact largest similarity POST body the target accepts by binary search
            between 64 bytes and 2 MiB (at most 25 requests), reports the answer just over it
            (status, or a reset before any status) and whether the limit is 1,000,000 or
            1,048,576 bytes, then checks the target still answers normally.

kgate probe rate-limit --help and kgate probe body-limit --help tell each one's options.

${EXIT_USAGE}`;

/** The options of `kgate probe body-limit`. */
const BODY_LIMIT_OPTIONS = COMMON_OPTIONS;

const SUBCOMMANDS = {
  'rate-limit': { usage: RATE_LIMIT_USAGE, options: RATE_LIMIT_OPTIONS },
  'body-limit': { usage: BODY_LIMIT_USAGE, options: BODY_LIMIT_OPTIONS },
};
const SIBLINGS = { 'probe rate-limit': RATE_LIMIT_OPTIONS, 'probe body-limit': BODY_LIMIT_OPTIONS };

/** The parsed command line of `kgate probe`: which probe, its own bounds, and the door's options. */
export type ProbeArgs = ({ kind: 'rate-limit'; operation: RateLimitedOperation } | { kind: 'body-limit' }) & {
  parsed: Pick<ParsedArgs, 'values' | 'notes'> & { options: DoorGiven };
};

/** Parses and checks the arguments of `kgate probe`; throws UsageError naming the option at fault. */
export function parseProbeArgs(argv: string[]): ProbeArgs {
  const [kind, ...rest] = argv;
  const names = Object.keys(SUBCOMMANDS);
  if (kind === 'rate-limit') {
    const parsed = parseCommandArgs(rest, RATE_LIMIT_OPTIONS, 'probe rate-limit', SIBLINGS);
    noPositionals(parsed.positionals, 'probe rate-limit');
    const operation = parsed.options.operation;
    if (operation === undefined)
      throw new UsageError('option --operation is required (answerSearch or urlPreview)', {
        command: 'probe rate-limit',
        option: '--operation',
        rule: 'is required: answerSearch or urlPreview',
      });
    return { kind, operation, parsed };
  }
  if (kind === 'body-limit') {
    const parsed = parseCommandArgs(rest, BODY_LIMIT_OPTIONS, 'probe body-limit', SIBLINGS);
    noPositionals(parsed.positionals, 'probe body-limit');
    return { kind, parsed };
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

/** The envelope a probe measured: the one limit it probed, with how. */
export function probeEnvelope(
  kind: 'rate-limit' | 'body-limit',
  target: string,
  result: RateLimitProbeResult | BodyLimitProbeResult,
  path: string,
): Envelope {
  const envelope = buildEnvelope({ command: `probe ${kind}`, target });
  if (kind === 'rate-limit') {
    const rate = result as RateLimitProbeResult;
    if (rate.signal)
      envelope.rateLimits.push({
        path,
        operations: [`GET ${path}`],
        status: rate.signal.status,
        contentType: rate.signal.contentType,
        retryAfter: rate.signal.retryAfter,
        conforms: rate.signal.conforms,
        signalledBy: rate.signal.signalledBy,
        rps: rate.thresholdRps,
        how: rate.measuredBelow
          ? `kgate probe rate-limit: arrivals from 10/s doubling every second until throttling was sustained; the limiter let almost nothing through while pressed (it counts its refusals), so the rate is ${BELOW_LIMIT_HOW} (${rate.requests} requests in ${rate.durationS} s)`
          : `kgate probe rate-limit: arrivals from 10/s doubling every second until throttling was sustained, then held above what was accepted for 4 s; the rate is the requests per second accepted while saturated (${rate.requests} requests in ${rate.durationS} s)`,
      });
  } else {
    const body = result as BodyLimitProbeResult;
    envelope.bodyLimit = {
      limitBytes: body.limitBytes,
      longestPassed: body.limitBytes,
      shortestRefused:
        body.limitBytes !== null && typeof body.overStatus === 'number'
          ? {
              bytes: body.limitBytes + 1,
              status: body.overStatus,
              contentType: /\(([^)]+)\)/.exec(body.overDetail)?.[1] ?? 'unknown',
              refusedBy: body.overFrom === 'front server' ? 'a server in front of the interface' : 'the interface',
            }
          : null,
      how: `kgate probe body-limit: a binary search over similarity POST bodies from 64 bytes to 2 MiB, each on a connection of its own; the limit is the largest body accepted, one byte over it refused (${body.requests} requests)`,
    };
  }
  envelope.latency.how = 'not measured by a probe (kgate conform, kgate load and kgate compare measure latency)';
  return envelope;
}

/** `kgate probe`: finds the rate limit or the similarity body limit of a target. */
export const command: Command = {
  usage: USAGE,
  subcommands: SUBCOMMANDS,
  async run(argv) {
    const args = parseProbeArgs(argv);
    const command = `probe ${args.kind}`;
    const door = openDoor({ command, kind: 'probe', loopbackOnly: true }, args.parsed);
    try {
      return await probe(door, args);
    } finally {
      await door.close();
    }
  },
};

/** A probe once its door is open. */
async function probe(door: Door, args: ProbeArgs): Promise<number> {
  const target = await enterLoadTarget(door);
  const json = door.json;
  const maxRate = door.limits.maxRps ?? 1000;
  const maxRequests = door.limits.maxRequests ?? 10_000;
  const maxDurationS = (door.limits.maxDurationMs ?? 30_000) / 1000;
  let lastLine = Date.now();
  const log = (line: string) => {
    lastLine = Date.now();
    console.error(redactSecrets(line));
  };
  const started = Date.now();
  const bound = args.kind === 'rate-limit' ? `at most ${maxDurationS} s` : 'at most 25 requests';
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
        `kgate probe rate-limit ${args.operation} -> ${where}\n  plan: from 10/s doubling every second up to ${maxRate}/s, at most ${maxRequests} requests and ${maxDurationS} s`,
      );
      const result = await probeRateLimit({
        baseUrl: target.baseUrl,
        key: target.key,
        operation: args.operation,
        maxRate: maxRate,
        maxRequests: maxRequests,
        maxDurationS: maxDurationS,
        validate: await loadValidator(),
        log,
      });
      problems = result.problems;
      output = result;
      if (!json) {
        console.log(
          [
            `rate limit of ${args.operation}: ${result.thresholdRps === null ? 'not found' : `${result.thresholdRps} requests/s`} (first 429 at ${result.first429AtRate ?? '-'}/s)`,
            `signalled: ${result.signal ? `${describeSignal({ status: result.signal.status, contentType: result.signal.contentType, retryAfter: { form: result.signal.retryAfter } })} by ${result.signal.signalledBy}${result.signal.conforms ? " (the interface's 429 with the seconds to wait: conforms)" : " (not the interface's 429 with the seconds to wait: does not conform)"}` : 'never throttled'}`,
            `throttled answers: ${result.throttledResponses} (${result.invalid429.count} JSON 429s not matching the spec); wait stated: message ${result.messageSeconds ?? '-'} s, Retry-After ${result.retryAfterSeconds ?? '-'} s`,
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
      if (!json) {
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
    const exitCode = problems.length === 0 ? EXIT.ok : EXIT.failed;
    // summary.json (what --json prints) and envelope.json: the limit found, with how it was measured.
    const reportDir = door.reportDir!;
    const summary = {
      ...outcomeObject(`probe ${args.kind}`, exitCode, output),
      baseUrl: target.baseUrl,
      ...(target.embedded ? { embedded: true } : {}),
    };
    writeFileSync(join(reportDir, 'summary.json'), `${redactSecrets(JSON.stringify(summary, null, 2))}\n`);
    const path = args.kind === 'rate-limit' ? getOperation(args.operation)!.path : '/academic/v1.0/similarity';
    writeEnvelope(
      reportDir,
      probeEnvelope(
        args.kind,
        target.embedded ? 'embedded reference server' : target.baseUrl,
        output as RateLimitProbeResult | BodyLimitProbeResult,
        path,
      ),
    );
    // report.html: the verdict, the limit found and the probe's steps, as every command's page.
    const run = {
      target: target.embedded ? 'embedded reference server' : target.baseUrl,
      startedAt: new Date(started).toISOString(),
      durationMs: Date.now() - started,
    };
    const page =
      args.kind === 'rate-limit'
        ? rateLimitPage(output as RateLimitProbeResult, run)
        : bodyLimitPage(output as BodyLimitProbeResult, run);
    writeFileSync(join(reportDir, REPORT_HTML), redactSecrets(renderPage(page)));
    if (json) printJson(`probe ${args.kind}`, exitCode, { ...output, reportDir });
    else
      console.log(
        `reports: open ${join(reportDir, REPORT_HTML)} (also ${join(reportDir, 'summary.json')}, ${join(reportDir, 'envelope.json')})`,
      );
    for (const problem of problems) console.error(redactSecrets(`kgate probe ${args.kind}: ${problem}`));
    if (!json)
      console.log(
        problems.length === 0
          ? `kgate probe ${args.kind}: PASS: limit found, behaving as documented`
          : `kgate probe ${args.kind}: FAIL: ${problems.length} problem${problems.length === 1 ? '' : 's'} (named on stderr)`,
      );
    return problems.length === 0 ? EXIT.ok : EXIT.failed;
  } finally {
    stopProgress();
  }
}
