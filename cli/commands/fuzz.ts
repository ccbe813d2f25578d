import { randomInt } from 'node:crypto';
import { join } from 'node:path';
import { readEnv } from '../../config/env.ts';
import { didYouMean } from '../../config/near-miss.ts';
import { redactSecrets, registerSecret } from '../../config/redact.ts';
import { allInputItems } from '../../contracts/coverage/inputs.ts';
import type { EngineProgress } from '../../contracts/generative/engine.ts';
import { checkReachable, preflight } from '../../contracts/preflight.ts';
import { isLoopback, startEmbeddedTarget, type Target } from '../../load/target.ts';
import { OPERATION_IDS, type OperationId } from '../../openapi/spec.ts';
import { REPORT_HTML } from '../../page/page.ts';
import {
  DEFAULT_BUDGET,
  DEFAULT_DURATION_MS,
  type FuzzSettings,
  fuzzCounts,
  REMOTE_BUDGET_LIMIT,
  renderFuzz,
  runFuzz,
} from '../../run/fuzz.ts';
import { DEFAULT_MAX_BYTES, DEFAULT_TIMEOUT_MS } from '../../run/options.ts';
import {
  formatDuration,
  noPositionals,
  option,
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
} from '../door/network.ts';
import { JSON_USAGE, printJson } from '../door/output.ts';
import { humanDuration, isInteractive, PROGRESS_EVERY_MS } from '../door/progress.ts';
import { REPORT_DIR_OPTION, reportDirUsage, runFolder } from '../door/run-folder.ts';

const USAGE = `usage: kgate fuzz [--base-url URL] [--operations ids] [--budget N] [--items ids] [--duration D] [--seed S]
                  [--max-rps R] [--timeout D] [--allow-remote] [--report-dir DIR] [--json]
                  [--proxy URL] [--ca-file FILE] [--client-cert FILE --client-key FILE]

Sends generated requests and reports the defects only some inputs trigger: valid requests (by the
spec and the expression grammar of facts.md, GET and POST, encoded and not) must get a 2xx,
requests that break exactly one documented rule a 4xx, and no request at all a 5xx; every answer
must match the spec and arrive in time. Findings are shrunk to a minimal request and printed like
conformance failures, with a curl line (key masked) and the seed that reproduces them. With no
--base-url and no KGATE_BASE_URL it judges the embedded reference server (rate limit lifted).

  --base-url      target base URL, may carry a path prefix (env KGATE_BASE_URL)
  --operations    comma-separated operation ids (default: all ${OPERATION_IDS.length}: ${OPERATION_IDS.join(', ')})
  --budget        generated requests to send, spread over the operations (default ${DEFAULT_BUDGET})
  --items         comma-separated coverage items (kgate coverage): send the requests kgate conform's plan
                  sends for them with --seed, as a finding's seed line names them (--budget is then theirs)
  --duration      stop starting new requests after this long, e.g. 30s or 5m (a bare number is seconds;
                  default ${formatDuration(DEFAULT_DURATION_MS)})
  --seed          seed of the generated requests (default: a random one, printed); same seed, same requests
  --max-rps       at most this many requests per second
  --timeout       per-request deadline, such as 500ms or 20s (a bare number is milliseconds; default
                  ${formatDuration(DEFAULT_TIMEOUT_MS)})
  --allow-remote  allow a budget above ${REMOTE_BUDGET_LIMIT} against a target that is not a loopback address
${reportDirUsage('fuzz', 13)}
  --json          print one JSON object instead of the report: the result (summary.json) after
                  "command", "verdict" and "exitCode"; a stop (bad usage, unreachable target) too
${JSON_USAGE}
${NETWORK_USAGE}
                 (the configuration file in the working directory may set proxy, noProxy, caFile,
                 clientCert, clientKey and headers)

The subscription key comes from KGATE_KEY (with the embedded server: its own key); 429 answers are
retried after the wait they state.
exit codes: 0 no findings, 1 findings, 2 bad usage, an unreachable target or proxy, a refused proxy or
TLS connection, a front server refusing every request, or a key every API refuses`;

/** Reads --items: input items of the coverage model; throws RuleBroken naming the first unknown one. */
function parseItems(raw: string): string[] {
  const items = [
    ...new Set(
      raw
        .split(',')
        .map((item) => item.trim())
        .filter(Boolean),
    ),
  ];
  if (items.length === 0) throw new RuleBroken('an empty list');
  const known = allInputItems().map((item) => item.id);
  const unknown = items.find((item) => !known.includes(item));
  if (unknown !== undefined) {
    const near = didYouMean(unknown, known);
    throw new RuleBroken(`unknown: '${unknown}'${near ? `; ${near}` : ''}`);
  }
  return items;
}

const OPTIONS = {
  'base-url': option.url(),
  operations: option.list('operation ids', OPERATION_IDS),
  budget: option.whole(1, 10_000_000, 'generated requests'),
  items: option.text(
    'a comma-separated list of input items of the coverage model (kgate coverage --kind inputs), such as input:evaluateGet:expr:wide-or',
    'input:no-such-item',
    parseItems,
  ),
  duration: option.duration(100, 24 * 3_600_000, 's'),
  seed: option.whole(0, 2 ** 32 - 1),
  'max-rps': option.decimal(0.1, 100_000, 'requests per second'),
  timeout: option.duration(100, 600_000, 'ms'),
  'allow-remote': option.flag(),
  'report-dir': REPORT_DIR_OPTION,
  json: option.flag(),
  ...NETWORK_OPTIONS,
};

/** The parsed command line of `kgate fuzz` (the target still to resolve). */
export interface FuzzArgs {
  baseUrl?: string;
  operations: OperationId[];
  budget: number;
  /** --items: the coverage items whose planned requests to send. */
  items?: string[];
  durationMs: number;
  seed: number;
  maxRps?: number;
  timeoutMs: number;
  allowRemote: boolean;
  reportDir?: string;
  json: boolean;
}

/** Parses and checks the arguments of `kgate fuzz`; throws UsageError naming the option at fault. */
export function parseFuzzArgs(argv: string[], envBaseUrl?: string): FuzzArgs {
  const { positionals, options: given } = parseCommandArgs(argv, OPTIONS, 'fuzz');
  noPositionals(positionals, 'fuzz');
  const items = given.items;
  const args: FuzzArgs = {
    baseUrl: given['base-url'] ?? (envBaseUrl ? parseBaseUrl(envBaseUrl, 'KGATE_BASE_URL') : undefined),
    // The items name their operations.
    operations: (items
      ? [...new Set(items.map((item) => item.split(':')[1]!))]
      : (given.operations ?? [...OPERATION_IDS])) as OperationId[],
    ...(items ? { items } : {}),
    budget: given.budget ?? DEFAULT_BUDGET,
    durationMs: given.duration ?? DEFAULT_DURATION_MS,
    seed: given.seed ?? randomInt(0, 2 ** 31),
    maxRps: given['max-rps'],
    timeoutMs: given.timeout ?? DEFAULT_TIMEOUT_MS,
    allowRemote: given['allow-remote'] === true,
    reportDir: given['report-dir'],
    json: given.json === true,
  };
  if (args.baseUrl && !args.allowRemote && !isLoopback(args.baseUrl) && args.budget > REMOTE_BUDGET_LIMIT) {
    throw new UsageError(
      `option --budget: ${args.budget} requests to the non-loopback target ${new URL(args.baseUrl).host} is more than ${REMOTE_BUDGET_LIMIT}; lower --budget or pass --allow-remote`,
      {
        option: '--budget',
        rule: `takes at most ${REMOTE_BUDGET_LIMIT} requests to a non-loopback target without --allow-remote`,
      },
    );
  }
  return args;
}

/** One progress line: elapsed time, cases so far of the budget, their rate, requests sent, findings, time left. */
export function formatFuzzProgress(progress: EngineProgress, budget: number, durationMs?: number): string {
  const seconds = progress.elapsedMs / 1000;
  const rate = seconds > 0 ? Math.round(progress.cases / seconds) : 0;
  // The run ends at its budget or its --duration, whichever comes first.
  const byBudget = progress.cases > 0 ? (progress.elapsedMs / progress.cases) * (budget - progress.cases) : Infinity;
  const left = Math.min(byBudget, durationMs === undefined ? Infinity : durationMs - progress.elapsedMs);
  return `${seconds.toFixed(0).padStart(4)}s  ${String(progress.cases).padStart(7)}/${budget} cases  ${String(rate).padStart(6)} cases/s  ${progress.requests} requests  ${progress.findings} finding(s) so far${Number.isFinite(left) ? `  about ${humanDuration(left)} left` : ''}`;
}

/** `kgate fuzz`: generated requests against --base-url, KGATE_BASE_URL, or the embedded reference server. */
export const command: Command = {
  usage: USAGE,
  options: OPTIONS,
  async run(argv) {
    const env = readEnv();
    registerSecret(env.key);
    const args = parseFuzzArgs(argv, env.baseUrl);
    const configured = commandNetwork(parseCommandArgs(argv, OPTIONS, 'fuzz').values, env, 'fuzz');
    // A reference server kgate starts itself is reached directly, never through a proxy.
    const network = args.baseUrl ? configured : embeddedNetwork(configured);
    applyNetwork(network, args.baseUrl);
    const line = networkLine('fuzz', network);
    if (line) console.error(redactSecrets(line));
    let target: Target;
    if (args.baseUrl) {
      try {
        await checkReachable(args.baseUrl);
      } catch (error) {
        throw new TargetError(
          `cannot reach ${args.baseUrl} (${(error as Error).message}). Start the target, or point --base-url / KGATE_BASE_URL at a running deployment (omit both to judge the embedded reference server).`,
          { option: '--base-url' },
        );
      }
      const problem = await preflight(args.baseUrl, env.key);
      if (problem) {
        throw new TargetError(
          problem.kind === 'key'
            ? `${args.baseUrl} refused KGATE_KEY: ${problem.reason}. Check the key before fuzzing the target.`
            : `${args.baseUrl}: ${problem.reason}`,
          problem.kind === 'key' ? { variable: 'KGATE_KEY' } : { option: '--base-url' },
        );
      }
      if (!env.key && !args.json) {
        console.error('kgate fuzz: KGATE_KEY is not set; requests carry no key, so most answers will be 401.');
      }
      target = { baseUrl: args.baseUrl, key: env.key, embedded: false, close: async () => {} };
    } else {
      // Generated traffic measures how inputs are handled, not the rate limit (kgate probe rate-limit does).
      target = await startEmbeddedTarget({ rateLimit: 1e9 });
    }
    registerSecret(target.key);
    try {
      const reportDir = runFolder(args.reportDir, 'fuzz', 'fuzz');
      if (!args.json) {
        console.log(
          `kgate fuzz: ${args.budget} generated requests against ${target.embedded ? `the embedded reference server at ${target.baseUrl}` : target.baseUrl} (seed ${args.seed}, ${args.operations.length} operation(s), at most ${formatDuration(args.durationMs)})`,
        );
      }
      const interactive = isInteractive();
      let lastPlain = 0;
      const settings: FuzzSettings = {
        baseUrl: target.baseUrl,
        embedded: target.embedded,
        key: target.key,
        operations: args.operations,
        budget: args.budget,
        ...(args.items ? { items: args.items } : {}),
        durationMs: args.durationMs,
        seed: args.seed,
        timeoutMs: args.timeoutMs,
        maxBytes: DEFAULT_MAX_BYTES,
        maxRps: args.maxRps,
        reportDir,
        network: network.description,
        onProgress(progress) {
          const line = formatFuzzProgress(progress, args.budget, args.durationMs);
          if (interactive) process.stderr.write(`\r\x1b[2K${line}`);
          else if (progress.elapsedMs - lastPlain >= PROGRESS_EVERY_MS / 2) {
            lastPlain = progress.elapsedMs;
            process.stderr.write(`${line}\n`);
          }
        },
      };
      const result = await runFuzz(settings);
      if (interactive) process.stderr.write('\r\x1b[2K');
      if (args.json) printJson('fuzz', result.exitCode, result);
      else {
        console.log(redactSecrets(renderFuzz(result)));
        console.log(
          `kgate fuzz: ${result.verdict.toUpperCase()}: ${fuzzCounts(result)} in ${result.cases.total} cases (seed ${result.seed}); open ${join(reportDir, REPORT_HTML)} (also summary.md, summary.json)`,
        );
      }
      return result.exitCode;
    } finally {
      await target.close();
    }
  },
};
