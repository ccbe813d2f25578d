import { randomInt } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { didYouMean } from '../../config/near-miss.ts';
import { redactSecrets } from '../../config/redact.ts';
import { allInputItems } from '../../contracts/coverage/inputs.ts';
import type { EngineProgress } from '../../contracts/generative/engine.ts';
import { runPace } from '../../http/pacing.ts';
import { isLoopback, startEmbeddedTarget } from '../../load/target.ts';
import { OPERATION_IDS, type OperationId } from '../../openapi/spec.ts';
import { REPORT_HTML } from '../../page/page.ts';
import {
  DEFAULT_DURATION_MS,
  DEFAULT_MAX_REQUESTS,
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
  type ParsedArgs,
  parseCommandArgs,
  RuleBroken,
  UsageError,
} from '../door/args.ts';
import type { Command } from '../door/command.ts';
import { openDoor } from '../door/door.ts';
import { NETWORK_OPTIONS, NETWORK_USAGE } from '../door/network.ts';
import { JSON_USAGE, printJson } from '../door/output.ts';
import { humanDuration, isInteractive, PROGRESS_EVERY_MS } from '../door/progress.ts';
import { optionUsage, renamedShared, renamedUsage, sharedOptions } from '../door/vocabulary.ts';

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

/** Reads --cases: drawn cases `operationId:K` of the seed; throws RuleBroken naming the first that is not one. */
function parseCases(raw: string): { operationId: OperationId; index: number }[] {
  const cases = raw
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);
  if (cases.length === 0) throw new RuleBroken('an empty list');
  return cases.map((text) => {
    const match = /^([A-Za-z]+):(\d+)$/.exec(text);
    if (!match) throw new RuleBroken(`'${text}' is not operation:K`);
    if (!(OPERATION_IDS as readonly string[]).includes(match[1]!)) {
      const near = didYouMean(match[1]!, OPERATION_IDS);
      throw new RuleBroken(`unknown operation '${match[1]}'${near ? `; ${near}` : ''}`);
    }
    return { operationId: match[1] as OperationId, index: Number(match[2]) };
  });
}

const OPTIONS = {
  ...sharedOptions('base-url', 'max-requests', 'max-duration', 'max-rps', 'timeout', 'allow-remote'),
  operations: option.list('operation ids', OPERATION_IDS),
  items: option.text(
    'a comma-separated list of input items of the coverage model (kgate coverage --kind inputs), such as input:evaluateGet:expr:wide-or',
    'input:no-such-item',
    parseItems,
  ),
  cases: option.text(
    'a comma-separated list of generated cases operation:K, such as evaluateGet:17',
    'evaluateGet:x',
    parseCases,
  ),
  seed: option.whole(0, 2 ** 32 - 1),
  ...sharedOptions('config', 'report-dir', 'json'),
  budget: renamedShared('max-requests', 'at most N requests in the whole run, every request counted'),
  duration: renamedShared('max-duration'),
  ...NETWORK_OPTIONS,
};

const USAGE = `usage: kgate fuzz [--base-url URL] [--operations ids] [--max-requests N] [--max-duration D]
                  [--items ids | --cases op:K,...] [--seed S] [--max-rps R] [--timeout D] [--allow-remote]
                  [--config FILE] [--report-dir DIR] [--json]
                  [--proxy URL] [--ca-file FILE] [--client-cert FILE --client-key FILE] [--header 'N: v']

Sends generated requests and reports the defects only some inputs trigger: valid requests (by the
spec and the expression grammar of facts.md, GET and POST, encoded and not) must get a 2xx,
requests that break exactly one documented rule a 4xx, and no request at all a 5xx; every answer
must match the spec and arrive in time. Findings are shrunk to a minimal request and printed like
conformance failures, with a curl line (key masked) and the kgate line that sends the request
again, its target included. With nothing naming a target it judges the embedded reference server
(rate limit lifted).

${optionUsage(15, [
  ['base-url'],
  ['operations', `comma-separated operation ids (default: all ${OPERATION_IDS.length}: ${OPERATION_IDS.join(', ')})`],
  [
    'max-requests',
    undefined,
    `default ${DEFAULT_MAX_REQUESTS}; the generated requests are what test data, chains and shrinking leave of it`,
  ],
  ['max-duration', undefined, `default ${formatDuration(DEFAULT_DURATION_MS)}: no new request starts after it`],
  [
    'items',
    "comma-separated coverage items (kgate coverage): send the requests kgate conform's plan sends for them with --seed, as a finding's line names them",
  ],
  [
    'cases',
    "comma-separated generated cases operation:K of the seed (case K of that operation), as a finding's line names them",
  ],
  ['seed', 'seed of the generated requests (default: a random one, printed); same seed, same requests'],
  ['max-rps'],
  ['timeout', undefined, `default ${formatDuration(DEFAULT_TIMEOUT_MS)}`],
  ['allow-remote', `allow more than ${REMOTE_BUDGET_LIMIT} requests to a target that is not a loopback address`],
  ['config'],
  ['report-dir'],
  ['json', undefined, 'the result (summary.json) after "command", "verdict" and "exitCode"; a stop too'],
])}
${JSON_USAGE}
${NETWORK_USAGE}

The subscription key comes from KGATE_KEY (or the variable keyVariables.full names). Against a
deployment, a missing or refused key, an unreachable target or a base URL that routes nothing of the
interface stops the run before it starts (exit 2). Throttled answers are retried after the wait they
state, never judged.
${renamedUsage(OPTIONS)}
exit codes: 0 no findings, 1 findings, 2 bad usage, a target, proxy, key or base URL the preflight
refused, or a run that judged no answer; 130 or 143 when stopped by SIGINT or SIGTERM`;

/** The command line of `kgate fuzz` beyond the door's options. */
export interface FuzzArgs {
  operations: OperationId[];
  /** --items: the coverage items whose planned requests to send. */
  items?: string[];
  /** --cases: the drawn cases to send. */
  cases?: { operationId: OperationId; index: number }[];
  seed: number;
}

/** What `kgate fuzz` sends: the items' planned requests, the cases named, or a draw across the operations. */
export function fuzzArgs(given: ParsedArgs<typeof OPTIONS>['options']): FuzzArgs {
  const { items, cases } = given;
  if (items && cases)
    throw new UsageError('option --items and --cases each name what to send: give one of them', {
      option: '--cases',
      rule: 'does not go with --items',
    });
  // The items and the cases name their operations.
  const named = items?.map((item) => item.split(':')[1]!) ?? cases?.map((c) => c.operationId);
  return {
    operations: (named ? [...new Set(named)] : (given.operations ?? [...OPERATION_IDS])) as OperationId[],
    ...(items ? { items } : {}),
    ...(cases ? { cases } : {}),
    seed: given.seed ?? randomInt(0, 2 ** 31),
  };
}

/** Parses the command line of `kgate fuzz` (the door's options and its own). */
export function parseFuzzArgs(argv: string[]): ParsedArgs<typeof OPTIONS> {
  const parsed = parseCommandArgs(argv, OPTIONS, 'fuzz');
  noPositionals(parsed.positionals, 'fuzz');
  return parsed;
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

/** `kgate fuzz`: generated requests against the door's target. */
export const command: Command = {
  usage: USAGE,
  options: OPTIONS,
  async run(argv) {
    const parsed = parseFuzzArgs(argv);
    const args = fuzzArgs(parsed.options);
    const door = openDoor({ command: 'fuzz', kind: 'fuzz' }, parsed);
    const maxRequests = door.limits.maxRequests ?? DEFAULT_MAX_REQUESTS;
    const durationMs = door.limits.maxDurationMs ?? DEFAULT_DURATION_MS;
    const url = door.target.url;
    if (url && parsed.options['allow-remote'] !== true && !isLoopback(url) && maxRequests > REMOTE_BUDGET_LIMIT)
      throw new UsageError(
        `option --max-requests: ${maxRequests} requests to the non-loopback target ${new URL(url).host} is more than ${REMOTE_BUDGET_LIMIT}; lower --max-requests or pass --allow-remote`,
        {
          option: '--max-requests',
          rule: `takes at most ${REMOTE_BUDGET_LIMIT} requests to a non-loopback target without --allow-remote`,
        },
      );
    // The run's pace and request budget, the preflight's requests counted in it.
    const scratchDir = mkdtempSync(join(tmpdir(), 'kgate-fuzz-'));
    door.onStop(() => rmSync(scratchDir, { recursive: true, force: true }));
    const pace = runPace(scratchDir, door.limits.maxRps, undefined, maxRequests);
    try {
      // Generated traffic measures how inputs are handled, not the rate limit (kgate probe rate-limit does).
      const target = await door.enter({
        pace,
        embedded: async () => {
          const started = await startEmbeddedTarget({ rateLimit: 1e9 });
          return { baseUrl: started.baseUrl, keys: { full: started.key }, close: () => started.close() };
        },
      });
      const reportDir = door.reportDir!;
      const what = args.items
        ? `the planned requests of ${args.items.length} item(s)`
        : args.cases
          ? `${args.cases.length} named case(s)`
          : `generated requests, at most ${maxRequests} requests in all`;
      door.say(
        `kgate fuzz: ${what} (seed ${args.seed}, ${args.operations.length} operation(s), at most ${formatDuration(durationMs)})`,
      );
      const interactive = isInteractive();
      let lastPlain = 0;
      const settings: FuzzSettings = {
        baseUrl: target.baseUrl,
        embedded: target.embedded,
        key: target.keys.full,
        operations: args.operations,
        maxRequests,
        ...(args.items ? { items: args.items } : {}),
        ...(args.cases ? { cases: args.cases } : {}),
        durationMs,
        seed: args.seed,
        timeoutMs: door.limits.timeoutMs ?? DEFAULT_TIMEOUT_MS,
        maxBytes: DEFAULT_MAX_BYTES,
        pace,
        scratchDir,
        reportDir,
        network: door.network.description,
        onProgress(progress) {
          const line = formatFuzzProgress(progress, maxRequests, durationMs);
          if (interactive) process.stderr.write(`\r\x1b[2K${line}`);
          else if (progress.elapsedMs - lastPlain >= PROGRESS_EVERY_MS / 2) {
            lastPlain = progress.elapsedMs;
            process.stderr.write(`${line}\n`);
          }
        },
      };
      const result = await runFuzz(settings);
      if (interactive) process.stderr.write('\r\x1b[2K');
      if (door.json) printJson('fuzz', result.exitCode, result);
      else {
        console.log(redactSecrets(renderFuzz(result)));
        console.log(
          result.verdict === 'error'
            ? `kgate fuzz: NO VERDICT: no case got an answer of the target, so nothing was judged (${result.stopped[0] ?? 'see the report'}); open ${join(reportDir, REPORT_HTML)}`
            : `kgate fuzz: ${result.verdict.toUpperCase()}: ${fuzzCounts(result)} in ${result.cases.total} cases (seed ${result.seed}); open ${join(reportDir, REPORT_HTML)} (also summary.md, summary.json)`,
        );
      }
      return result.exitCode;
    } finally {
      pace?.remove();
      rmSync(scratchDir, { recursive: true, force: true });
      await door.close();
    }
  },
};
