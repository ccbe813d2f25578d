// `kgate fuzz`: generated requests against a target, bounded by a request budget and a duration,
// with the findings shrunk, de-duplicated and written under the run's report folder.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { redactSecrets } from '../config/redact.ts';
import { Api, requestsSent } from '../contracts/api.ts';
import { CHECKS } from '../contracts/checks/index.ts';
import { inputItemsOf, planCases } from '../contracts/coverage/plan.ts';
import { findingKey, formatFailureFolded, NOT_RUN_QUOTA } from '../contracts/failure.ts';
import { allocate, caseAt, type GeneratedCase } from '../contracts/generative/cases.ts';
import { type EngineProgress, GenerativeEngine } from '../contracts/generative/engine.ts';
import { poolsFor } from '../contracts/generative/pools.ts';
import type { ValuePools } from '../contracts/generative/values.ts';
import { CLIENT_NOTICEABLE, SCORE_TOLERANCE } from '../contracts/properties/tolerance.ts';
import { mergeTimings, type OperationTimings, operationStats } from '../contracts/timings.ts';
import { type FrontLimits, frontLimitNotes, mergeFrontLimits, noFrontLimits } from '../http/front-limits.ts';
import { mergeObservations, noObservations } from '../http/observations.ts';
import type { RequestPace } from '../http/pacing.ts';
import { AdaptivePace, throttleStates } from '../http/throttle.ts';
import type { OperationId } from '../openapi/spec.ts';
import { foldLine } from '../page/fold.ts';
import { shortLabel } from '../page/html.ts';
import { REPORT_HTML, renderPage } from '../page/page.ts';
import { buildEnvelope, envelopeSection, writeEnvelope } from '../reporting/envelope.ts';
import { type FuzzFinding, type FuzzResult, fuzzPage } from '../reporting/fuzz-page.ts';
import { listsFindings, previousRun } from '../reporting/report-page.ts';
import { targetText } from '../reporting/summary.ts';
import { Discovery } from './discovery.ts';
import { referenceRefused } from './plan.ts';

/** Requests of a run when --max-requests is not given: the coverage model's plan (about 590 over every operation), then draws. */
export const DEFAULT_MAX_REQUESTS = 1000;
/** Longest run when --max-duration is not given. */
export const DEFAULT_DURATION_MS = 60_000;
/** Most requests sent to a non-loopback target without --allow-remote (about what one `kgate conform` sends). */
export const REMOTE_BUDGET_LIMIT = 1000;
/** Requests in flight at once. */
export const FUZZ_CONCURRENCY = 16;
/** Most requests spent shrinking one finding. */
export const FUZZ_SHRINK_ATTEMPTS = 60;
/** Longest time spent shrinking one finding. */
export const FUZZ_SHRINK_MS = 15_000;
/** Relations started per operation and relation: at least this many, more for larger budgets. */
export const FUZZ_RELATIONS_MIN = 5;
/** One relation per operation and relation for this many cases of the budget, above the minimum. */
export const FUZZ_CASES_PER_RELATION = 100;
/** Where `kgate fuzz` writes its reports: one folder per run below it, and a `latest` link. */
export const DEFAULT_FUZZ_REPORT_DIR = 'reports/fuzz';

/** One `kgate fuzz` run. */
export interface FuzzSettings {
  baseUrl: string;
  /** The target is the embedded reference server kgate started itself, not a deployment. */
  embedded?: boolean;
  key?: string;
  operations: readonly OperationId[];
  /** At most this many requests in the whole run, every request counted (--max-requests). */
  maxRequests: number;
  durationMs: number;
  seed: number;
  timeoutMs: number;
  maxBytes: number;
  /** The run's pace and request budget (--max-rps, --max-requests); its preflight already counted in it. */
  pace?: RequestPace;
  concurrency?: number;
  /**
   * Coverage items to send (`--items`, a finding's seed line): the planned requests that carry them,
   * exactly as a planned run sent them for the seed; the budget is then theirs.
   */
  items?: readonly string[];
  /** Drawn cases to send (`--cases`, a finding's line): case K of an operation for the seed. */
  cases?: readonly { operationId: OperationId; index: number }[];
  reportDir: string;
  /** Where the run keeps what it needs only while it runs (default: a folder of its own in the OS's temp folder). */
  scratchDir?: string;
  /** The route to the target in words (proxy, CA file, client certificate), for the reports. */
  network?: string;
  onProgress?(progress: EngineProgress): void;
}

/**
 * The drawn cases of a run, interleaved across operations so that a run cut short by its duration
 * covers each. A drawn case keeps its number of the draw, so that its seed line (`--cases op:K`)
 * sends it again whatever the plan sent before it.
 */
export function* fuzzCases(
  seed: number,
  plan: ReadonlyMap<string, number>,
  pools: ReadonlyMap<string, ValuePools>,
): Generator<GeneratedCase> {
  const longest = Math.max(0, ...plan.values());
  for (let index = 0; index < longest; index++) {
    for (const [operationId, count] of plan) {
      if (index < count) yield caseAt(seed, operationId, index, pools.get(operationId)!);
    }
  }
}

/**
 * The coverage model's plan for each operation (contracts/coverage): every item, packed as a planned
 * `kgate conform` packs them, for the seed and the target's values; the open classes the reference
 * server refuses go alone, as in a planned run.
 */
export function modelPlan(
  seed: number,
  operations: readonly string[],
  pools: ReadonlyMap<string, ValuePools>,
): Map<string, GeneratedCase[]> {
  const refused = referenceRefused();
  return new Map(
    operations.map((id) => [id, planCases(seed, id, inputItemsOf(id), pools.get(id)!, undefined, refused).cases]),
  );
}

/** The drawn cases per operation for what a budget has left: none when nothing is left, never more than it. */
function drawsFor(left: number, operations: readonly OperationId[]): Map<string, number> {
  if (left <= 0) return new Map(operations.map((id) => [id, 0]));
  const draws = allocate(left, operations);
  // allocate gives each operation one at least: take back from the largest shares what that added.
  for (let over = [...draws.values()].reduce((a, b) => a + b, 0) - left; over > 0; over--) {
    const [largest] = [...draws.entries()].sort((a, b) => b[1] - a[1])[0]!;
    draws.set(largest, draws.get(largest)! - 1);
  }
  return draws;
}

/** Cases of several operations interleaved (the first of each, then the second...), at most `limit`. */
function interleaved(byOperation: ReadonlyMap<string, readonly GeneratedCase[]>, limit: number): GeneratedCase[] {
  const out: GeneratedCase[] = [];
  const longest = Math.max(0, ...[...byOperation.values()].map((cases) => cases.length));
  for (let index = 0; index < longest && out.length < limit; index++)
    for (const cases of byOperation.values()) if (index < cases.length && out.length < limit) out.push(cases[index]!);
  return out;
}

/**
 * Runs the generated requests and writes summary.md, summary.json and report.html into the report
 * folder; what the run needs only while it runs (the breaker's files) lives in a folder of the OS's
 * temp folder, removed at the end.
 */
export async function runFuzz(settings: FuzzSettings): Promise<FuzzResult> {
  if (settings.scratchDir) return fuzzIn(settings, settings.scratchDir);
  const scratchDir = mkdtempSync(join(tmpdir(), `kgate-fuzz-${basename(resolve(settings.reportDir))}-`));
  try {
    return await fuzzIn(settings, scratchDir);
  } finally {
    rmSync(scratchDir, { recursive: true, force: true });
  }
}

async function fuzzIn(settings: FuzzSettings, scratchDir: string): Promise<FuzzResult> {
  const started = performance.now();
  mkdirSync(settings.reportDir, { recursive: true });
  const apiSettings = {
    baseUrl: settings.baseUrl,
    keys: { full: settings.key },
    timeoutMs: settings.timeoutMs,
    maxBytes: settings.maxBytes,
    disabledChecks: new Set<string>(),
    breakerDir: scratchDir,
    throttle: new AdaptivePace(scratchDir),
    ...(settings.pace ? { pace: settings.pace } : {}),
  };
  // Every Api of the run, for the requests and latencies per operation of the report page.
  const apis = [new Api({ ...apiSettings, judge: false })];
  const discovery = new Discovery(apis[0]!);
  const pools = new Map<string, ValuePools>();
  for (const id of settings.operations) pools.set(id, await poolsFor(id, discovery));
  // Items: the plan's requests for them, per operation, in the order given; cases: the draw's cases
  // named. Else the coverage model's plan first (every item, as conform's plan packs them), then
  // draws for what the budget has left (cut where the request budget runs out).
  const named = settings.cases
    ? settings.cases.map(({ operationId, index }) => caseAt(settings.seed, operationId, index, pools.get(operationId)!))
    : settings.items
      ? settings.operations.flatMap(
          (id) =>
            planCases(
              settings.seed,
              id,
              settings.items!.filter((item) => item.startsWith(`input:${id}:`)),
              pools.get(id)!,
            ).cases,
        )
      : undefined;
  const planned = named ?? interleaved(modelPlan(settings.seed, settings.operations, pools), settings.maxRequests);
  const first = new Map(settings.operations.map((id) => [id, planned.filter((c) => c.operationId === id).length]));
  const draws = named
    ? new Map<string, number>()
    : drawsFor(settings.maxRequests - planned.length, settings.operations);
  const plan = new Map(settings.operations.map((id) => [id, (first.get(id) ?? 0) + (draws.get(id) ?? 0)]));
  const engine = new GenerativeEngine({
    newApi: (judge = true) => {
      const api = new Api({ ...apiSettings, judge });
      apis.push(api);
      return api;
    },
    concurrency: settings.concurrency ?? FUZZ_CONCURRENCY,
    deadlineAt: started + settings.durationMs,
    // A finding's line sends its case again to the target (a bare line judges the embedded server).
    ...(settings.embedded ? {} : { target: settings.baseUrl }),
    shrinkAttempts: FUZZ_SHRINK_ATTEMPTS,
    shrinkMs: FUZZ_SHRINK_MS,
    relationsPerOperation: Math.max(FUZZ_RELATIONS_MIN, Math.ceil(settings.maxRequests / FUZZ_CASES_PER_RELATION)),
    onProgress: settings.onProgress,
  });
  const run = await engine.run(
    (function* () {
      yield* planned;
      yield* fuzzCases(settings.seed, draws, pools);
    })(),
  );
  const total = run.cases.positive + run.cases.negative + run.cases.edge;
  const durationMs = performance.now() - started;
  const findings = run.findings.map((finding) => ({ ...finding, seenIn: run.seenIn[findingKey(finding)] ?? 1 }));
  const failed = findings.some((finding) => (finding.level ?? 'fail') === 'fail');
  // A run in which no case got an answer judged nothing, and one whose key's quota ran out did not
  // judge what it left: no verdict, unless something it judged failed.
  const judgedNothing = total === 0;
  const quota = run.stopped.some((reason) => reason.includes(NOT_RUN_QUOTA));
  const noVerdict = judgedNothing || (quota && !failed);
  const result: FuzzResult = {
    command: 'fuzz',
    verdict: noVerdict ? 'error' : failed ? 'fail' : 'pass',
    exitCode: noVerdict ? 2 : failed ? 1 : 0,
    baseUrl: settings.baseUrl,
    ...(settings.embedded ? { embedded: true } : {}),
    seed: settings.seed,
    maxRequests: settings.maxRequests,
    cases: { ...run.cases, total },
    planned: Object.fromEntries(plan),
    requests: requestsSent(apis),
    notSent: run.notSent,
    stopped: [
      ...run.stopped,
      ...(judgedNothing ? ['no case got an answer of the target: the run judged nothing, so it gives no verdict'] : []),
    ],
    durationMs: Math.round(durationMs),
    casesPerSecond: Math.round(total / Math.max(0.001, run.durationMs / 1000)),
    tolerance: { relative: SCORE_TOLERANCE, atMost: CLIENT_NOTICEABLE, learned: run.tolerances },
    findings,
    notes: [
      ...(settings.network ? [`requests went through this route: ${settings.network}`] : []),
      ...frontLimitNotes(apis.reduce<FrontLimits>((all, api) => mergeFrontLimits(all, api.front), noFrontLimits())),
    ],
    reportDir: settings.reportDir,
  };
  writeFileSync(join(settings.reportDir, 'summary.json'), `${redactSecrets(JSON.stringify(result, null, 2))}\n`);
  writeFileSync(join(settings.reportDir, 'summary.md'), `${redactSecrets(renderFuzz(result))}\n`);
  const timings = apis.reduce<OperationTimings>((all, api) => mergeTimings(all, api.timings), {});
  const page = fuzzPage(
    result,
    operationStats(timings),
    // A run stopped before its verdict (a target it could not reach) has no findings to compare with.
    previousRun(settings.reportDir, 'summary.json', listsFindings<FuzzResult>),
    CHECKS,
  );
  const envelope = buildEnvelope({
    command: 'fuzz',
    target: settings.baseUrl,
    timings,
    front: apis.reduce<FrontLimits>((all, api) => mergeFrontLimits(all, api.front), noFrontLimits()),
    observed: apis.reduce((all, api) => mergeObservations(all, api.observed), noObservations()),
    throttleStates: throttleStates(scratchDir),
    tolerances: run.tolerances,
    notes: result.notes,
  });
  writeEnvelope(settings.reportDir, envelope);
  page.sections.push(envelopeSection(envelope));
  writeFileSync(join(settings.reportDir, REPORT_HTML), redactSecrets(renderPage(page)));
  return result;
}

/** `2 findings, 1 warning`: what the reports of a fuzz run count (a warning does not fail it). */
export function fuzzCounts(result: Pick<FuzzResult, 'findings'>): string {
  const failing = result.findings.filter((finding) => (finding.level ?? 'fail') === 'fail').length;
  const warnings = result.findings.length - failing;
  return `${failing} finding${failing === 1 ? '' : 's'}${warnings > 0 ? `, ${warnings} warning${warnings === 1 ? '' : 's'}` : ''}`;
}

/** The run as a person reads it: the verdict, what was sent, then every finding like a conformance failure. */
export function renderFuzz(result: FuzzResult): string {
  const { cases } = result;
  const lines = [
    `# kgate fuzz: ${result.verdict === 'error' ? 'NO VERDICT' : result.verdict.toUpperCase()}`,
    '',
    `Target: ${targetText(result) ?? result.baseUrl}`,
    '',
    `Seed ${result.seed}: ${cases.total} generated requests (${cases.positive} valid, ${cases.negative} invalid by one rule, ${cases.edge} unusual) and ${result.requests - cases.total} more for test data, chains, shrinking and retries (${result.requests} in all), in ${(result.durationMs / 1000).toFixed(1)} s (${result.casesPerSecond} cases/s).${result.notSent > 0 ? ` ${result.notSent} planned cases were not sent (the request budget or the duration ran out, or the target stopped answering).` : ''}`,
    '',
    '| operation | cases planned |',
    '| --- | --: |',
    ...Object.entries(result.planned).map(([id, count]) => `| ${id} | ${count} |`),
    '',
    `Scores compared within a relative ${result.tolerance.relative}${
      Object.keys(result.tolerance.learned).length > 0
        ? '; learned from repeats where answers differed more (at most ' +
          result.tolerance.atMost +
          '): ' +
          Object.entries(result.tolerance.learned)
            .map(([operation, tolerance]) => `${operation} ${tolerance.toPrecision(2)}`)
            .join(', ')
        : ''
    }.`,
    '',
  ];
  if (result.stopped.length > 0) lines.push('## Stopped', '', ...result.stopped.map((reason) => `- ${reason}`), '');
  if (result.notes.length > 0) lines.push('## Notes', '', ...result.notes.map((note) => `- ${note}`), '');
  const failing = result.findings.filter((finding) => (finding.level ?? 'fail') === 'fail');
  const warnings = result.findings.filter((finding) => finding.level === 'warn');
  const fold = (finding: FuzzFinding) => (curl: string) =>
    foldLine(curl, { dir: result.reportDir, stem: `${finding.check}-${shortLabel(finding.operation)}` });
  const block = (finding: FuzzFinding) => [
    '```',
    formatFailureFolded(finding, fold(finding)),
    `  seen in:    ${finding.seenIn} case(s)`,
    '```',
    '',
  ];
  lines.push(failing.length === 0 ? 'No findings.' : `## Findings (${failing.length})`, '');
  lines.push(...failing.flatMap(block));
  if (warnings.length > 0) lines.push(`## Warnings, failing only under a strict reading (${warnings.length})`, '');
  lines.push(...warnings.flatMap(block));
  lines.push(`Reports: ${result.reportDir}`);
  return lines.join('\n');
}
