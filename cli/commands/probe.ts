import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { redactSecrets } from '../../config/redact.ts';
import { describeSignal } from '../../http/throttle.ts';
import { checkRoute, TargetUnreachable } from '../../load/preflight.ts';
import { type BodyLimitProbeResult, probeBodyLimit } from '../../load/probes/body-limit.ts';
import { probeRateLimit, type RateLimitedOperation, type RateLimitProbeResult } from '../../load/probes/rate-limit.ts';
import { BROWSING_MIX, requestTarget } from '../../load/scenarios.ts';
import { getOperation } from '../../openapi/spec.ts';
import { buildEnvelope, type Envelope, writeEnvelope } from '../../reporting/envelope.ts';
import { createRunDir } from '../../reporting/run-dir.ts';
import {
  durationOption,
  EXIT,
  intOption,
  noPositionals,
  parseCommandArgs,
  stringOption,
  UsageError,
  urlOption,
} from '../args.ts';
import type { Command } from '../command.ts';
import { NETWORK_OPTIONS, NETWORK_USAGE } from '../network.ts';
import { heartbeat, humanDuration, PROGRESS_EVERY_MS } from '../progress.ts';
import { loadValidator, resolveTarget } from './load.ts';

const USAGE = `usage: kgate probe rate-limit --operation answerSearch|urlPreview [--base-url URL] [--max-rate R]
                   [--max-requests N] [--max-duration D] [--allow-remote] [--report-dir DIR] [--json]
       kgate probe body-limit [--base-url URL] [--allow-remote] [--report-dir DIR] [--json]
       (both: [--proxy URL] [--ca-file FILE] [--client-cert FILE --client-key FILE])

rate-limit  raises the arrival rate (doubling each second from 10/s) until throttling is sustained
            (the interface's 429, or a front server's 503 or HTML 429, with or without Retry-After),
            reports the accepted requests per second while saturated (the limit) and how it was
            signalled (status, content type, Retry-After form, who sent it, whether it is the
            interface's 429 with the seconds to wait), validates every JSON 429 body, waits the
            seconds stated (message, or Retry-After) and checks the target recovers. Bounded: --max-rate (default 1000/s), --max-requests (default 10000),
            --max-duration (default 30s).
body-limit  finds the exact largest similarity POST body the target accepts by binary search
            between 64 bytes and 2 MiB (at most 25 requests), reports the answer just over it
            (status, or a reset before any status) and whether the limit is 1,000,000 or
            1,048,576 bytes, then checks the target still answers normally.

  --base-url      target (default KGATE_BASE_URL, else the embedded reference server)
  --allow-remote  allow a target that is not a loopback address
  --report-dir    write probe.json and envelope.json (the limit found, how it was measured) there
                  (default: a new reports/probe/<run-id>/)
  --json          print one JSON object: rate-limit { thresholdRps, requests, durationS,
                  waitSeconds, recovered, ... }; body-limit { limitBytes, requests, overStatus,
                  overFrom, notes, healthyAfter, ... }
${NETWORK_USAGE}
                 (the configuration file in the working directory may set proxy, noProxy, caFile,
                 clientCert and clientKey)

Every request goes through kgate's own client, on the route these set; one request before the
probe checks it (an unreachable target or proxy, a refused proxy or TLS connection: one line, exit 2).

exit codes: 0 limit found and behaving as documented, 1 a problem was found (named on stderr),
2 bad usage or unreachable target`;

const OPTIONS = {
  operation: { type: 'string' },
  'base-url': { type: 'string' },
  'max-rate': { type: 'string' },
  'max-requests': { type: 'string' },
  'max-duration': { type: 'string' },
  'allow-remote': { type: 'boolean' },
  'report-dir': { type: 'string' },
  json: { type: 'boolean' },
  ...NETWORK_OPTIONS,
} as const;

const OPERATIONS: RateLimitedOperation[] = ['answerSearch', 'urlPreview'];

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
      reportDir?: string;
    }
  | { kind: 'body-limit'; baseUrl?: string; allowRemote: boolean; json: boolean; reportDir?: string };

/** Parses and checks the arguments of `kgate probe`; throws UsageError naming the option at fault. */
export function parseProbeArgs(argv: string[]): ProbeArgs {
  const { values, positionals } = parseCommandArgs(argv, OPTIONS, 'probe');
  const [kind, ...rest] = positionals;
  noPositionals(rest, 'probe');
  const common = {
    baseUrl: urlOption(values, 'base-url'),
    allowRemote: values['allow-remote'] === true,
    json: values.json === true,
    ...(reportDirOf(values) ? { reportDir: reportDirOf(values) } : {}),
  };
  if (kind === 'rate-limit') {
    const operation = stringOption(values, 'operation');
    if (operation === undefined)
      throw new UsageError('kgate probe rate-limit: option --operation is required (answerSearch or urlPreview)');
    if (!OPERATIONS.includes(operation as RateLimitedOperation)) {
      throw new UsageError(`option --operation takes answerSearch or urlPreview, got '${operation}'`);
    }
    return {
      kind,
      operation: operation as RateLimitedOperation,
      maxRate: intOption(values, 'max-rate', { min: 10, max: 100_000 }, 1000)!,
      maxRequests: intOption(values, 'max-requests', { min: 10, max: 1_000_000 }, 10_000)!,
      maxDurationS: durationOption(values, 'max-duration', { minMs: 5000, maxMs: 600_000 }, 30_000)! / 1000,
      ...common,
    };
  }
  if (kind === 'body-limit') {
    for (const name of ['operation', 'max-rate', 'max-requests', 'max-duration']) {
      if (values[name] !== undefined)
        throw new UsageError(`option --${name} applies to rate-limit only, not body-limit`);
    }
    return { kind, ...common };
  }
  throw new UsageError(
    kind === undefined
      ? 'kgate probe: missing probe name (rate-limit or body-limit)'
      : `kgate probe: unknown probe '${kind}' (rate-limit or body-limit)`,
  );
}

/** The --report-dir given, refused when empty. */
function reportDirOf(values: Record<string, unknown>): string | undefined {
  const dir = stringOption(values as Parameters<typeof stringOption>[0], 'report-dir');
  if (dir !== undefined && dir.trim() === '')
    throw new UsageError('option --report-dir takes a folder path, got an empty string');
  return dir;
}

/** Where probe reports go by default. */
export const DEFAULT_PROBE_REPORT_DIR = 'reports/probe';

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
        how: `kgate probe rate-limit: arrivals from 10/s doubling every second until throttling was sustained, then held above what was accepted for 4 s; the rate is the requests per second accepted while saturated (${rate.requests} requests in ${rate.durationS} s)`,
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
  async run(argv) {
    const args = parseProbeArgs(argv);
    const { values } = parseCommandArgs(argv, OPTIONS, 'probe');
    const { target } = await resolveTarget(values, args.baseUrl, args.allowRemote, 'probe');
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
        console.error(redactSecrets(`kgate probe: ${error.message}`));
        return EXIT.usage;
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
      // probe.json and envelope.json: the limit found, with how it was measured.
      const reportDir = args.reportDir ?? createRunDir(DEFAULT_PROBE_REPORT_DIR);
      mkdirSync(reportDir, { recursive: true });
      writeFileSync(join(reportDir, 'probe.json'), `${redactSecrets(JSON.stringify(output, null, 2))}\n`);
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
      if (args.json) console.log(redactSecrets(JSON.stringify({ ...output, reportDir })));
      else console.log(`reports: ${join(reportDir, 'probe.json')}, ${join(reportDir, 'envelope.json')}`);
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
