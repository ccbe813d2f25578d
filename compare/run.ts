// `kgate compare`: the same requests to a release candidate and to the deployment it replaces,
// compared structurally with the current deployment's own run-to-run noise learned and set aside,
// and optionally their latencies on one interleaved arrival schedule.

import { curlLine } from '../contracts/failure.ts';
import { allocate } from '../contracts/generative/cases.ts';
import { Random, seedOf } from '../contracts/generative/random.ts';
import { type OperationTimings, recordTiming } from '../contracts/timings.ts';
import { type BatteryContext, buildBattery } from '../drift/battery.ts';
import { sendHttp, TransportError } from '../http/client.ts';
import {
  type FrontLimits,
  type FrontRefusal,
  frontLimitNotes,
  frontRefusal,
  noFrontLimits,
  recordPassed,
  recordRefusal,
} from '../http/front-limits.ts';
import { noObservations, type Observations, observeAnswer, observeThrottle } from '../http/observations.ts';
import { type QuotaSignal, quotaSignal, replenishedWords } from '../http/quota.ts';
import { statedWaitMs, throttleSignal } from '../http/throttle.ts';
import { getOperation, OPERATION_IDS, OPERATIONS } from '../openapi/spec.ts';
import { buildEnvelope, type Envelope, envelopeChanges, LATENCY_NOISE } from '../reporting/envelope.ts';
import { NoiseModel, type NoisyPointer } from './noise.ts';
import { type CompareRequest, fromBattery, fromCase, generatedCases, resolveChain, secondPage } from './requests.ts';
import { DEFAULT_THRESHOLD, judgeLatency, type LatencyVerdict, type RegressionThreshold } from './stats.ts';
import { type Answer, type Diff, type DiffKind, diffAnswers, normalizePointer } from './structural.ts';

/** Generated requests when --requests is not given. */
export const DEFAULT_REQUESTS = 120;
/** Share of requests sent a second time to the current deployment to learn its noise. */
export const REPEAT_SHARE = 0.25;
/** Requests of each operation always repeated, whatever the share draws. */
export const REPEAT_FIRST = 2;
/** Interleaved pairs of latency samples per operation when --latency-samples is not given. */
export const DEFAULT_LATENCY_SAMPLES = 40;
/** Pairs per second of the latency schedule when --max-rps is not given. */
export const DEFAULT_LATENCY_RATE = 50;
/** Requests compared at once in the behaviour phase. */
export const COMPARE_CONCURRENCY = 4;
/** Where `kgate compare` writes its reports: one folder per run below it, and a `latest` link. */
export const DEFAULT_COMPARE_REPORT_DIR = 'reports/compare';

const SUBSCRIPTION_HEADER = 'Ocp-Apim-Subscription-Key';
const MAX_RATE_LIMIT_RETRIES = 3;

/** One deployment of a comparison. */
export interface CompareTarget {
  baseUrl: string;
  key?: string;
}

/** One `kgate compare` run. */
export interface CompareSettings {
  /** The release candidate. */
  candidate: CompareTarget;
  /** The deployment it replaces. */
  current: CompareTarget;
  /** Generated requests besides the battery's. */
  requests: number;
  seed: number;
  timeoutMs: number;
  maxBytes: number;
  /** At most this many requests per second to each deployment. */
  maxRps?: number;
  /**
   * At most this many requests to each deployment in the whole comparison (--max-requests), its
   * preflight's included: a request past it is not sent, and its exchange is not compared.
   */
  maxRequests?: number;
  /** Requests each deployment's preflight already sent, counted in maxRequests. */
  preflightRequests?: number;
  /** Measure latency too. */
  latency?: { samples: number; threshold: RegressionThreshold };
  /** The route to both deployments in words (proxy, CA file, client certificate), for the reports. */
  network?: string;
  onProgress?(line: string): void;
}

/** One example of a difference: a request that shows it and how to send it to each side. */
export interface DifferenceExample {
  request: string;
  /** The concrete pointer in this request's answers. */
  pointer: string;
  candidateCurl: string;
  currentCurl: string;
}

/** A difference between the deployments, once per operation, pointer and kind. */
export interface Difference {
  /** `GET /academic/v1.0/evaluate`. */
  operation: string;
  operationId: string;
  /** Normalised pointer (array positions as `*`; '' for the status or the whole body). */
  pointer: string;
  kind: DiffKind;
  /** The candidate's value in the example (null when absent). */
  candidate: unknown;
  /** The current deployment's value in the example (null when absent). */
  current: unknown;
  /** Requests that showed it. */
  seenIn: number;
  example: DifferenceExample;
}

/** The latency comparison of one operation. */
export interface LatencyItem extends LatencyVerdict {
  operation: string;
  operationId: string;
  /** Requests that got no answer, per side (left out of the percentiles). */
  errors: { candidate: number; current: number };
}

/** The latency samples of one operation, pair j on both sides taken together (milliseconds). */
export interface LatencySamples {
  operation: string;
  candidate: number[];
  current: number[];
}

/** What `kgate compare --json` prints. */
export interface CompareResult {
  command: 'compare';
  /** pass, fail, or error: no request was compared, so the comparison judged nothing (exit 2). */
  verdict: 'pass' | 'fail' | 'error';
  exitCode: 0 | 1 | 2;
  candidate: string;
  current: string;
  seed: number;
  /** The kgate line that runs the same comparison again: both targets, the seed and the budget, never a key. */
  again?: string;
  /**
   * Requests compared, repeated to the current deployment (the share that learns its noise),
   * sent to it again to confirm a difference, and sent in all (both sides, chains, latency).
   */
  requests: { compared: number; repeated: number; confirmed: number; sent: number };
  differences: Difference[];
  /**
   * The differences grouped by cause (the same pointer and kind, on whatever operation): one change
   * seen on several operations counts once (absent in results of older runs).
   */
  causes?: number;
  /** Pointers the current deployment varied on between identical calls: differences there are its noise. */
  noise: NoisyPointer[];
  /** Differences set aside as noise. */
  ignored: number;
  latency: LatencyItem[];
  threshold: RegressionThreshold;
  /** Per operation: requests compared and differences found. */
  operations: { operation: string; requests: number; differences: number; regression: boolean }[];
  /**
   * What is no difference but worth knowing: requests a server in front of either deployment
   * refused for their size (beyond what the interface promises, so they were not compared), and
   * the route the requests took.
   */
  notes?: string[];
  durationMs: number;
}

/** A target that gave no answer to any request: exit code 2. */
export class CompareUnreachable extends Error {
  override name = 'CompareUnreachable';
}

/** A side's share of --max-requests: shared by every copy of the side (the latency schedule's unpaced one). */
interface SideBudget {
  max: number;
  sent: number;
}

/** A request the side's budget has no room for: not sent, and its exchange not compared. */
class BudgetSpent extends Error {
  override name = 'BudgetSpent';
}

interface Side {
  name: 'candidate' | 'current';
  target: CompareTarget;
  pace?: () => Promise<void>;
  budget?: SideBudget;
  /** The call volume quota of this side's key, once it ran out (nothing more is sent to it). */
  quota?: { signal: QuotaSignal; afterRequests: number };
  answered: number;
  failed: number;
  /** Transport failures by operation id: an operation that failed BROKEN_AFTER times is not asked again. */
  broken: Map<string, number>;
  /** Requests a server in front of this deployment refused for their size, and the longest that got through. */
  front: FrontLimits;
  /** Requests and latencies per operation, and what the answers said of the envelope (envelope.json). */
  timings: OperationTimings;
  observed: Observations;
}

/** Transport failures of one operation on one side after which its further requests are not sent. */
export const BROKEN_AFTER = 2;

/** An answer with its time; `front` when a server in front of the deployment refused the request for its size (not compared). */
type Sent = Answer & { elapsedMs: number; front?: FrontRefusal; spent?: boolean };

/** True when neither side's answer is a front server's refusal: only then do the answers say anything about the deployments. */
function comparable(...answers: (Sent | undefined)[]): boolean {
  return answers.every((answer) => !answer?.front);
}

function pacer(maxRps: number | undefined): (() => Promise<void>) | undefined {
  if (!maxRps) return undefined;
  let next = 0;
  return async () => {
    const now = performance.now();
    const at = Math.max(now, next);
    next = at + 1000 / maxRps;
    if (at > now) await new Promise((resolve) => setTimeout(resolve, at - now));
  };
}

function urlOf(target: CompareTarget, request: CompareRequest): string {
  return `${target.baseUrl}${request.path}${request.query ? `?${request.query}` : ''}`;
}

function headersOf(target: CompareTarget, request: CompareRequest): Record<string, string> {
  const headers: Record<string, string> = {};
  if (request.withKey && target.key) headers[SUBSCRIPTION_HEADER] = target.key;
  if (request.body !== undefined) headers['Content-Type'] = request.contentType ?? 'application/x-www-form-urlencoded';
  return headers;
}

/** The curl line of a request to one side, key masked. */
export function curlFor(target: CompareTarget, request: CompareRequest): string {
  return curlLine({
    method: request.operation.method === 'post' ? 'POST' : 'GET',
    url: urlOf(target, request),
    headers: headersOf(target, request),
    ...(request.body !== undefined ? { body: request.body } : {}),
  });
}

/** The run's counters, shared by both phases. */
interface Counters {
  sent: number;
}

async function sendOnce(side: Side, request: CompareRequest, settings: CompareSettings, counters: Counters) {
  if (side.quota && request.withKey)
    throw new BudgetSpent(`not sent: the call volume quota of the ${side.name}'s key ran out`);
  if (side.budget) {
    if (side.budget.sent >= side.budget.max)
      throw new BudgetSpent(`not sent: the ${side.name}'s request budget (--max-requests ${side.budget.max}) is spent`);
    side.budget.sent++;
  }
  await side.pace?.();
  counters.sent++;
  return sendHttp({
    method: request.operation.method === 'post' ? 'POST' : 'GET',
    url: urlOf(side.target, request),
    headers: headersOf(side.target, request),
    ...(request.body !== undefined ? { body: request.body } : {}),
    timeoutMs: settings.timeoutMs,
    maxBytes: settings.maxBytes,
  });
}

/** Sends one request to one side (a 429 to a keyed request waits and asks again) and reads the answer. */
async function send(side: Side, request: CompareRequest, settings: CompareSettings, counters: Counters): Promise<Sent> {
  const started = performance.now();
  const operationId = request.operation.operationId;
  // An operation that hangs or resets costs a few deadlines, not one per request.
  if ((side.broken.get(operationId) ?? 0) >= BROKEN_AFTER) {
    return { text: '', error: `not sent: ${operationId} gave no answer ${BROKEN_AFTER} times`, elapsedMs: 0 };
  }
  for (let attempt = 0; ; attempt++) {
    try {
      const raw = await sendOnce(side, request, settings, counters);
      recordTiming(side.timings, request.operation.label, raw.elapsedMs);
      // The key's quota ran out: the deployment's budget ending, not its answer; nothing more with that key.
      const quota = request.withKey ? quotaSignal(raw) : undefined;
      if (quota) {
        side.quota ??= { signal: quota, afterRequests: counters.sent - 1 };
        return {
          text: '',
          error: `the call volume quota of the ${side.name}'s key ran out`,
          elapsedMs: 0,
          spent: true,
        };
      }
      // Throttling however signalled (a 429, a front server's 503): wait as asked (else a second) and ask again.
      const throttled = throttleSignal(raw);
      if (throttled && request.withKey && attempt < MAX_RATE_LIMIT_RETRIES) {
        observeThrottle(side.observed, request.operation.path, request.operation.label, throttled);
        await new Promise((resolve) => setTimeout(resolve, Math.min(10_000, statedWaitMs(throttled) || 1000)));
        continue;
      }
      side.answered++;
      observeAnswer(side.observed, raw, { method: request.operation.method.toUpperCase(), sent: raw.sent });
      const refusal = frontRefusal(request.operation.method.toUpperCase(), raw.sent, raw, urlOf(side.target, request));
      if (refusal) {
        recordRefusal(side.front, refusal);
        return { status: raw.status, text: '', front: refusal, elapsedMs: performance.now() - started };
      }
      recordPassed(side.front, raw.sent);
      const text = raw.body.toString('utf8');
      let json: unknown;
      try {
        json = text === '' ? undefined : JSON.parse(text);
      } catch {
        json = undefined;
      }
      return { status: raw.status, json, text, elapsedMs: performance.now() - started };
    } catch (error) {
      if (error instanceof BudgetSpent) return { text: '', error: error.message, elapsedMs: 0, spent: true };
      if (!(error instanceof TransportError)) throw error;
      recordTiming(side.timings, request.operation.label, performance.now() - started);
      side.failed++;
      side.broken.set(operationId, (side.broken.get(operationId) ?? 0) + 1);
      return { text: '', error: `${error.problem}: ${error.message}`, elapsedMs: performance.now() - started };
    }
  }
}

/** Collects the differences, once per operation, normalised pointer and kind. */
class DifferenceSet {
  private readonly byKey = new Map<string, Difference>();
  ignored = 0;

  add(request: CompareRequest, diffs: Diff[], noise: NoiseModel, sides: { candidate: Side; current: Side }): void {
    const op = request.operation;
    for (const diff of diffs) {
      if (noise.explains(op.label, diff)) {
        this.ignored++;
        continue;
      }
      const pointer = normalizePointer(diff.pointer);
      const key = `${op.label}\u0000${pointer}\u0000${diff.kind}`;
      const known = this.byKey.get(key);
      if (known) {
        known.seenIn++;
        continue;
      }
      this.byKey.set(key, {
        operation: op.label,
        operationId: op.operationId,
        pointer,
        kind: diff.kind,
        candidate: diff.candidate ?? null,
        current: diff.current ?? null,
        seenIn: 1,
        example: {
          request: request.name,
          pointer: diff.pointer,
          candidateCurl: curlFor(sides.candidate.target, request),
          currentCurl: curlFor(sides.current.target, request),
        },
      });
    }
  }

  list(): Difference[] {
    return [...this.byKey.values()].sort(
      (a, b) => a.operation.localeCompare(b.operation) || a.pointer.localeCompare(b.pointer),
    );
  }
}

/** One request as compared: both answers, and the repeat to the current deployment when one was sent. */
interface Exchange {
  request: CompareRequest;
  candidate: Sent;
  current: Sent;
  repeat?: Sent;
}

/** Requests per difference (operation and pointer) sent again to the current deployment to confirm it. */
export const CONFIRM_REQUESTS = 3;
/** Times each of them is sent again. */
export const CONFIRM_REPEATS = 2;
/** Most requests spent confirming differences in one run. */
export const CONFIRM_LIMIT = 200;

/** Sends the requests behind unexplained differences to the current deployment again and learns from them; returns how many were sent. */
async function confirmDifferences(
  exchanges: Exchange[],
  noise: NoiseModel,
  current: Side,
  settings: CompareSettings,
  counters: Counters,
): Promise<number> {
  const byDifference = new Map<string, Exchange[]>();
  for (const done of exchanges) {
    const op = done.request.operation;
    if (!comparable(done.candidate, done.current)) continue;
    for (const diff of diffAnswers(op.operationId, done.candidate, done.current)) {
      if (diff.kind === 'transport' || noise.explains(op.label, diff)) continue;
      const key = `${op.label}\u0000${normalizePointer(diff.pointer)}`;
      const list = byDifference.get(key) ?? [];
      if (list.length < CONFIRM_REQUESTS && !list.includes(done)) list.push(done);
      byDifference.set(key, list);
    }
  }
  const jobs = [...new Set([...byDifference.values()].flat())].slice(0, Math.floor(CONFIRM_LIMIT / CONFIRM_REPEATS));
  let sent = 0;
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < jobs.length; i = next++) {
      const done = jobs[i]!;
      for (let r = 0; r < CONFIRM_REPEATS; r++) {
        const again = await send(current, done.request, settings, counters);
        // The budget has no room for it: what is not confirmed stays a difference.
        if (again.spent) return;
        sent++;
        if (comparable(again))
          noise.learn(
            done.request.operation.label,
            diffAnswers(done.request.operation.operationId, again, done.current),
          );
      }
    }
  };
  await Promise.all(Array.from({ length: COMPARE_CONCURRENCY }, worker));
  return sent;
}

/**
 * The generated requests that fit `maxRequests` to each deployment (the current one gets the repeats
 * too), the preflight's requests counted; undefined when not even the battery fits, with the
 * smallest budget that holds it.
 */
export function generatedWithin(
  maxRequests: number,
  settings: Pick<CompareSettings, 'latency'>,
  preflight: number,
): { generated: number } | { smallest: number } {
  const room = maxRequests - preflight;
  const needs = (generated: number) => estimateRequests({ requests: generated, latency: settings.latency }).current;
  if (needs(0) > room) return { smallest: needs(0) + preflight };
  let low = 0;
  let high = 1;
  while (needs(high) <= room && high < 1_000_000) high *= 2;
  while (high - low > 1) {
    const mid = Math.floor((low + high) / 2);
    if (needs(mid) <= room) low = mid;
    else high = mid;
  }
  return { generated: low };
}

/** The requests a comparison will send to each deployment, before chains, confirmations and 429 retries. */
export interface RequestEstimate {
  /** Requests compared: the battery's, the second pages, the generated ones. */
  compared: number;
  /** To the candidate: every compared request, and the latency schedule's. */
  candidate: number;
  /** To the current deployment: the same, and the repeats that learn its noise (at least). */
  current: number;
}

/** Estimates the requests of a comparison (what `kgate compare` announces before it starts). */
export function estimateRequests(settings: Pick<CompareSettings, 'requests' | 'latency'>): RequestEstimate {
  const battery = buildBattery({ exhaustedKey: false });
  const pages = OPERATIONS.filter((op) => op.paging).length;
  const generated =
    settings.requests > 0 ? [...allocate(settings.requests, OPERATION_IDS).values()].reduce((a, b) => a + b, 0) : 0;
  const compared = battery.length + pages + generated;
  const latency = settings.latency ? settings.latency.samples * OPERATIONS.length : 0;
  const repeats = Math.max(REPEAT_FIRST * OPERATIONS.length, Math.round(compared * REPEAT_SHARE));
  return { compared, candidate: compared + latency, current: compared + repeats + latency };
}

/** Runs a comparison; see CompareResult. Throws CompareUnreachable when a side answers nothing. */
export async function runCompare(settings: CompareSettings): Promise<CompareResult> {
  const started = performance.now();
  const counters: Counters = { sent: 0 };
  const budget = (): SideBudget | undefined =>
    settings.maxRequests === undefined
      ? undefined
      : { max: settings.maxRequests, sent: settings.preflightRequests ?? 0 };
  const candidate: Side = {
    name: 'candidate',
    target: settings.candidate,
    pace: pacer(settings.maxRps),
    budget: budget(),
    answered: 0,
    failed: 0,
    broken: new Map(),
    front: noFrontLimits(),
    timings: {},
    observed: noObservations(),
  };
  const current: Side = {
    name: 'current',
    target: settings.current,
    pace: pacer(settings.maxRps),
    budget: budget(),
    answered: 0,
    failed: 0,
    broken: new Map(),
    front: noFrontLimits(),
    timings: {},
    observed: noObservations(),
  };
  const repeatDraw = new Random(seedOf(settings.seed, 'compare-repeat'));
  const repeatsSoFar = new Map<string, number>();
  const shouldRepeat = (request: CompareRequest) => {
    const seen = repeatsSoFar.get(request.operation.operationId) ?? 0;
    repeatsSoFar.set(request.operation.operationId, seen + 1);
    return seen < REPEAT_FIRST || repeatDraw.next() < REPEAT_SHARE;
  };
  const exchanges: Exchange[] = [];
  const noise = new NoiseModel();
  let notCompared = 0;
  const exchange = async (request: CompareRequest): Promise<Exchange> => {
    const op = request.operation;
    // Once an operation has shown noise, every further request of it is repeated: the more pairs,
    // the closer the learned variation comes to what the deployment really varies by.
    const repeat = shouldRepeat(request) || noise.isNoisy(op.label);
    const [a, b] = await Promise.all([
      send(candidate, request, settings, counters),
      send(current, request, settings, counters),
    ]);
    const done: Exchange = { request, candidate: a, current: b };
    // A request the budget had no room for on either side is not compared: it judged nothing.
    if (a.spent || b.spent) {
      notCompared++;
      return done;
    }
    if (repeat) {
      const again = await send(current, request, settings, counters);
      if (!again.spent) done.repeat = again;
      if (done.repeat && comparable(done.repeat, done.current))
        noise.learn(op.label, diffAnswers(op.operationId, done.repeat, done.current));
    }
    exchanges.push(done);
    return done;
  };
  const guardReachable = () => {
    for (const side of [candidate, current]) {
      if (side.answered === 0 && side.failed >= 3) {
        throw new CompareUnreachable(
          `the ${side.name} deployment ${side.target.baseUrl} answered none of ${side.failed} requests`,
        );
      }
    }
  };

  // The battery, in order: later requests carry what the current deployment answered to earlier ones.
  const context: BatteryContext = {};
  let papers: Record<string, unknown>[] = [];
  const pages: CompareRequest[] = [];
  for (const item of buildBattery({ exhaustedKey: false })) {
    const built = item.build(context);
    if (!built) continue;
    const done = await exchange(fromBattery(built));
    guardReachable();
    if (done.current.status === 200 && done.current.json !== undefined) {
      item.learn?.(done.current.json, context);
      const entities = (done.current.json as { entities?: unknown }).entities;
      if (item.operationId === 'evaluateGet' && Array.isArray(entities)) papers = entities;
    }
    if (built.name.endsWith(': success')) {
      const next = secondPage(built);
      if (next) pages.push(next);
    }
  }
  settings.onProgress?.(`battery compared (${exchanges.length} requests)`);

  // Second pages and generated requests, a few at a time; chains read the current deployment.
  const read = async (operationId: string, params: Record<string, string>) => {
    const op = getOperation(operationId)!;
    const answer = await send(
      current,
      {
        name: `${operationId}: chain read`,
        operation: op,
        path: op.path,
        query: new URLSearchParams(params).toString(),
        withKey: true,
      },
      settings,
      counters,
    );
    return answer.status === 200 ? answer.json : undefined;
  };
  const queue: (() => Promise<CompareRequest>)[] = [
    ...pages.map((page) => async () => page),
    ...generatedCases(settings.seed, settings.requests, papers).map(
      (c) => async () => fromCase(await resolveChain(c, read)),
    ),
  ];
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < queue.length; i = next++) {
      await exchange(await queue[i]!());
      guardReachable();
    }
  };
  await Promise.all(Array.from({ length: COMPARE_CONCURRENCY }, worker));
  settings.onProgress?.(`${exchanges.length} requests compared`);

  // A difference the noise does not explain yet is confirmed before it is reported: its request
  // goes to the current deployment again, and whatever varies there now is noise too. A real change
  // of the release stays (the current deployment keeps its own answer); noise that the share of
  // repeats happened not to show is learned.
  const confirmed = await confirmDifferences(exchanges, noise, current, settings, counters);
  settings.onProgress?.(`${confirmed} request(s) sent again to confirm differences`);
  const differences = new DifferenceSet();
  const byOperation = new Map<string, { requests: number }>();
  for (const done of exchanges) {
    const op = done.request.operation;
    if (!comparable(done.candidate, done.current)) continue;
    const entry = byOperation.get(op.label) ?? { requests: 0 };
    entry.requests++;
    byOperation.set(op.label, entry);
    differences.add(done.request, diffAnswers(op.operationId, done.candidate, done.current), noise, {
      candidate,
      current,
    });
  }

  const threshold = settings.latency?.threshold ?? DEFAULT_THRESHOLD;
  let latency: LatencyItem[] = [];
  let samples: LatencySamples[] = [];
  if (settings.latency) {
    const measured = await measureLatency(
      exchanges.filter((done) => comparable(done.candidate, done.current)),
      candidate,
      current,
      settings,
      counters,
    );
    latency = measured.items;
    samples = measured.samples;
  }

  const list = differences.list();
  const failed = list.length > 0 || latency.some((item) => item.regression);
  const operations = [...byOperation]
    .map(([operation, entry]) => ({
      operation,
      requests: entry.requests,
      differences: list.filter((diff) => diff.operation === operation).length,
      regression: latency.some((item) => item.operation === operation && item.regression),
    }))
    .sort((a, b) => a.operation.localeCompare(b.operation));
  // A side whose key's quota ran out left requests uncompared: no verdict, unless a difference was found.
  const quotaOut = !failed && (candidate.quota !== undefined || current.quota !== undefined);
  const result: CompareResult = {
    command: 'compare',
    verdict: failed ? 'fail' : quotaOut ? 'error' : 'pass',
    exitCode: failed ? 1 : quotaOut ? 2 : 0,
    candidate: settings.candidate.baseUrl,
    current: settings.current.baseUrl,
    seed: settings.seed,
    requests: {
      compared: exchanges.filter((done) => comparable(done.candidate, done.current)).length,
      repeated: exchanges.filter((done) => done.repeat).length,
      confirmed,
      sent: counters.sent,
    },
    differences: list,
    causes: groupDifferences(list).length,
    noise: noise.list(),
    ignored: differences.ignored,
    latency,
    threshold,
    operations,
    notes: [
      ...(settings.network ? [`requests went through this route: ${settings.network}`] : []),
      ...frontLimitNotes(candidate.front).map((note) => `candidate: ${note}`),
      ...frontLimitNotes(current.front).map((note) => `current: ${note}`),
      ...[candidate, current].flatMap((side) =>
        side.quota
          ? [
              `the call volume quota of the ${side.name}'s key (${side.name === 'candidate' ? 'KGATE_KEY' : 'KGATE_AGAINST_KEY'}) ran out after ${side.quota.afterRequests} requests (${replenishedWords(side.quota.signal)}): what was not compared is not alike`,
            ]
          : [],
      ),
      ...(notCompared > 0
        ? [
            `${notCompared} request(s) not compared: the request budget (--max-requests ${settings.maxRequests}) had no room for them`,
          ]
        : []),
    ],
    durationMs: Math.round(performance.now() - started),
  };
  Object.defineProperty(result, 'samples', { value: samples, enumerable: false });
  // The envelope of each deployment, measured by the same requests, and how the candidate's differs.
  const envelopeOf = (side: Side) =>
    buildEnvelope({
      command: 'compare',
      target: side.target.baseUrl,
      timings: side.timings,
      latencyHow:
        "kgate's own client, every request sent to this deployment (the compared ones, repeats, confirmations, the latency schedule), from sending to the last byte; percentiles and the max from histograms with buckets 2 % apart",
      front: side.front,
      observed: side.observed,
    });
  const envelope = envelopeOf(candidate);
  envelope.against = envelopeOf(current);
  envelope.changes = envelopeChanges(envelope.against, envelope, LATENCY_NOISE);
  Object.defineProperty(result, 'envelope', { value: envelope, enumerable: false });
  return result;
}

/** One cause of differences: a pointer and kind, and every operation (place) where the deployments differed so. */
export interface DifferenceGroup {
  pointer: string;
  kind: DiffKind;
  /** One difference per operation, in the order given. */
  places: Difference[];
}

/** Groups differences by pointer and kind: one entry per cause, with the operations it touched, in the order first seen. */
export function groupDifferences(differences: readonly Difference[]): DifferenceGroup[] {
  const groups = new Map<string, DifferenceGroup>();
  for (const diff of differences) {
    const key = `${diff.kind}\u0000${diff.pointer}`;
    const group = groups.get(key) ?? { pointer: diff.pointer, kind: diff.kind, places: [] };
    groups.set(key, group);
    group.places.push(diff);
  }
  return [...groups.values()];
}

/** The envelope of both deployments behind a result (kept out of its JSON form; envelope.json holds it). */
export function envelopeOfCompare(result: CompareResult): Envelope | undefined {
  return (result as CompareResult & { envelope?: Envelope }).envelope;
}

/** The latency samples behind a result (kept out of its JSON form). */
export function samplesOf(result: CompareResult): LatencySamples[] {
  return (result as CompareResult & { samples?: LatencySamples[] }).samples ?? [];
}

const sleepUntil = (at: number) =>
  new Promise<void>((resolve) => setTimeout(resolve, Math.max(0, at - performance.now())));

/**
 * The latency phase: per operation, the requests both sides answered with a 2xx, cycled until
 * every operation has `samples` pairs. Pair k is due at k/rate seconds; its first request goes out
 * then and its second half an interval later, to the candidate first on even pairs and to the
 * current deployment first on odd ones, so both sides see the same moments of the network and the
 * machine. Requests are not held back by slow answers (an open schedule), and each latency counts
 * from the intended send time, so a stall is charged to the side that caused it.
 */
async function measureLatency(
  exchanges: Exchange[],
  candidate: Side,
  current: Side,
  settings: CompareSettings,
  counters: Counters,
): Promise<{ items: LatencyItem[]; samples: LatencySamples[] }> {
  const plan = settings.latency!;
  const byOperation = new Map<string, CompareRequest[]>();
  for (const done of exchanges) {
    const ok = (sent: Sent) => sent.status !== undefined && sent.status >= 200 && sent.status < 300;
    if (!done.request.withKey || !ok(done.candidate) || !ok(done.current)) continue;
    const list = byOperation.get(done.request.operation.operationId) ?? [];
    list.push(done.request);
    byOperation.set(done.request.operation.operationId, list);
  }
  const operations = [...byOperation.keys()];
  const rate = settings.maxRps ?? DEFAULT_LATENCY_RATE;
  const interval = 1000 / rate;
  const results = new Map(
    operations.map((id) => [
      id,
      { candidate: [] as number[], current: [] as number[], errors: { candidate: 0, current: 0 } },
    ]),
  );
  const pending: Promise<void>[] = [];
  // Pacing is the schedule itself here: each side gets `rate` requests per second.
  const unpaced = (side: Side): Side => ({ ...side, pace: undefined });
  const sides = { candidate: unpaced(candidate), current: unpaced(current) };
  const fire = (
    side: Side,
    request: CompareRequest,
    intended: number,
    into: { values: number[]; index: number },
    errors: () => void,
  ) => {
    // A timer may fire a little early: then the latency counts from the moment the request left.
    const from = Math.min(intended, performance.now());
    pending.push(
      send(side, request, settings, counters).then((answer) => {
        if (answer.error !== undefined && !answer.spent) errors();
        // A request without an answer has no latency; its pair is left out of the percentiles.
        into.values[into.index] = answer.error !== undefined ? Number.NaN : performance.now() - from;
      }),
    );
  };
  const t0 = performance.now() + 20;
  let k = 0;
  for (let j = 0; j < plan.samples; j++) {
    for (const id of operations) {
      const requests = byOperation.get(id)!;
      const request = requests[j % requests.length]!;
      const slot = results.get(id)!;
      const at = t0 + k * interval;
      const order = k % 2 === 0 ? (['candidate', 'current'] as const) : (['current', 'candidate'] as const);
      for (const [n, name] of order.entries()) {
        const intended = at + (n * interval) / 2;
        await sleepUntil(intended);
        fire(sides[name], request, intended, { values: slot[name], index: j }, () => slot.errors[name]++);
      }
      k++;
    }
  }
  await Promise.all(pending);
  const items: LatencyItem[] = [];
  const samples: LatencySamples[] = [];
  operations.forEach((id, index) => {
    const op = getOperation(id)!;
    const slot = results.get(id)!;
    const kept = slot.candidate.flatMap((value, j) =>
      Number.isNaN(value) || Number.isNaN(slot.current[j]!) ? [] : [j],
    );
    slot.candidate = kept.map((j) => slot.candidate[j]!);
    slot.current = kept.map((j) => slot.current[j]!);
    const verdict = judgeLatency(slot.candidate, slot.current, plan.threshold, seedOf(settings.seed, 'latency', index));
    items.push({ operation: op.label, operationId: id, ...verdict, errors: slot.errors });
    samples.push({ operation: op.label, candidate: slot.candidate, current: slot.current });
  });
  return { items, samples };
}
