import { performance } from 'node:perf_hooks';
import autocannon from 'autocannon';
import { beyondJsonLimits } from '../contracts/json-bounds.ts';
import { currentNetwork, TransportError } from '../http/client.ts';
import { addedHeadersFor, withoutCredentials } from '../http/headers.ts';
import { noObservations, type Observations, observeAnswer, observeThrottle } from '../http/observations.ts';
import { throttleSignal } from '../http/throttle.ts';
import { getOperation } from '../openapi/spec.ts';
import { ArrivalSchedule } from './arrivals.ts';
import { LatencyHistogram, LatencyReservoir, type LatencySamples, type LatencySummary } from './latency.ts';
import { type MixRequest, type RateStage, requestBody, requestTarget } from './scenarios.ts';
import { exchange } from './target.ts';
import { basePath, joinPath, originOf } from './target-url.ts';

/** What one load run does: the target, the arrival profile (or maximum rate), the mix. */
export interface LoadPlan {
  baseUrl: string;
  /** Sent as Ocp-Apim-Subscription-Key; never printed. */
  key?: string;
  /** Open model: arrivals follow this profile. Ignored when `maxRate` is set. */
  startRate: number;
  stages: RateStage[];
  /** Closed model: every connection sends its next request as soon as the previous answer arrives. */
  maxRate?: { durationS: number };
  connections: number;
  /**
   * Share of requests whose responses are validated, 0..1. Those requests go through kgate's shared
   * client (the transport of every command) instead of autocannon, in the same arrival schedule.
   */
  validateShare: number;
  mix: MixRequest[];
  /** Values for path placeholders such as `{event_id}`. */
  pathParams?: Record<string, string>;
  /** Seconds before an unanswered request counts as a timeout (default 10). */
  timeoutS?: number;
  /** Percentiles to report beyond the usual ones (50, 90, 95, 99, 99.9, 100): those the thresholds ask for. */
  percentiles?: number[];
}

/** A validator for sampled responses: the spec's `validateResponse` in the CLI, a stub in tests. */
export type ResponseValidator = (
  operationId: string,
  status: number,
  contentType: string | undefined,
  body: unknown,
) => { valid: boolean; errors: { pointer: string; message: string }[] };

/** One second of the run, for the live progress line and the report timeline. */
export interface SecondSnapshot {
  /** Seconds since the start, at the end of this second. */
  t: number;
  /** Requests sent during this second. */
  sent: number;
  /** Responses (any status) received during this second. */
  completed: number;
  /** Failed requests during this second (non-2xx, transport errors, timeouts). */
  failed: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
  /** Cumulative totals, for the progress line. */
  totalSent: number;
  totalFailed: number;
  /** Status counts within this second. */
  statuses: Record<string, number>;
}

/** One response that failed validation (at most a few are kept). */
export interface InvalidSample {
  operationId: string;
  status: number;
  errors: { pointer: string; message: string }[];
}

/** Per-operation figures. */
export interface OperationFigures {
  count: number;
  failed: number;
  /** Answers of this operation validated against the spec, and those that matched it. */
  validated: number;
  valid: number;
  latencyMs: LatencySummary;
}

/** What the validated share's answers said of the envelope (kept out of the result's JSON form). */
export function observedOfLoad(result: LoadResult): Observations | undefined {
  return (result as LoadResult & { observed?: Observations }).observed;
}

/** Each operation's reservoir of latencies with their times (kept out of the result's JSON form: the run folder's latency-samples.json holds them). */
export function samplesOfLoad(result: LoadResult): Record<string, LatencySamples> | undefined {
  return (result as LoadResult & { samples?: Record<string, LatencySamples> }).samples;
}

/** Everything one run measured. */
export interface LoadResult {
  model: 'open' | 'closed';
  startedAt: string;
  /** Wall-clock seconds from the first arrival to the end of the run. */
  elapsedS: number;
  plannedArrivals: number | null;
  sent: number;
  completed: number;
  /** Planned arrivals never sent because no connection was free before the run ended. */
  dropped: number;
  /** Requests sent but without an answer: connection errors, resets, timeouts, still in flight at the end. */
  transportErrors: number;
  timeouts: number;
  /**
   * Validated requests the shared client sent a second time, on a fresh connection, because a
   * kept-alive one was lost before any byte of the answer (autocannon's requests are never sent again).
   */
  retries: number;
  /** Failed = non-2xx + transport errors + dropped arrivals. */
  failed: number;
  statuses: Record<string, number>;
  /** Responses per second over the run. */
  throughputRps: number;
  /** Latency from the intended send time (open model) or the actual send time (closed model). */
  latencyMs: LatencySummary;
  validation: { share: number; checked: number; valid: number; invalid: number; samples: InvalidSample[] };
  operations: Record<string, OperationFigures>;
  timeline: SecondSnapshot[];
}

interface ClientState {
  /** Intended send time (performance.now() ms) of the request in flight, or null. */
  intended: number | null;
  operationId: string;
  timer: NodeJS.Timeout | null;
  pending: boolean;
  /** True while this connection's arrival is a validated request, out on the shared client. */
  shared: boolean;
}

/** Internal seams of autocannon's Client that kgate drives (autocannon 9). */
interface DrivenClient {
  _doRequest(): void;
  destroy(): void;
  destroyed: boolean;
  reqsMade: number;
  requestIterator: {
    currentRequest?: { operationId?: string };
    currentRequestIndex: number;
    requests: { operationId?: string }[];
    recordBody(request: { operationId?: string }, status: number, body: string, headers: string[]): void;
  };
  pipelinedRequests: { clear(): void };
  /** autocannon's idle timer: when it fires, the connection is dropped and a timeout counted. */
  timeoutTicker: { reschedule(ms: number): void };
  on(event: string, listener: (...args: unknown[]) => void): void;
}

const MAX_INVALID_SAMPLES = 5;

/**
 * Runs one load plan with autocannon's programmatic API.
 *
 * Open model: autocannon's own rate option sends bursts per second and corrects latency with a
 * 1 ms expected interval, which hides queueing (coordinated omission). Here each connection,
 * when free, takes the next arrival of one shared schedule and waits for its intended time; the
 * latency recorded is from that intended time, so time spent waiting for a free connection counts.
 */
export async function runLoad(
  plan: LoadPlan,
  hooks: { validate?: ResponseValidator; onSecond?: (snapshot: SecondSnapshot) => void } = {},
): Promise<LoadResult> {
  const closed = plan.maxRate !== undefined;
  const schedule = closed ? null : new ArrivalSchedule(plan.startRate, plan.stages);
  const plannedS = closed ? plan.maxRate!.durationS : plan.stages.reduce((sum, s) => sum + s.durationS, 0);
  const timeoutS = plan.timeoutS ?? 10;
  const overall = new LatencyHistogram();
  const second = new LatencyHistogram();
  const perOperation = new Map<
    string,
    {
      count: number;
      failed: number;
      validated: number;
      valid: number;
      histogram: LatencyHistogram;
      reservoir: LatencyReservoir;
    }
  >();
  const statuses: Record<string, number> = {};
  // Counted in a flat array per second (no string keys on the hot path), folded into `statuses`.
  const secondStatusCounts = new Uint32Array(600);
  const validation = { share: plan.validateShare, checked: 0, valid: 0, invalid: 0, samples: [] as InvalidSample[] };
  const observed = noObservations();
  const counters = { sent: 0, completed: 0, transportErrors: 0, timeouts: 0, non2xx: 0, retries: 0 };
  const secondCounters = { sent: 0, completed: 0, failed: 0 };
  const timeline: SecondSnapshot[] = [];
  const timers = new Set<NodeJS.Timeout>();
  let nextRequestIndex = 0;
  let finished = false;

  // autocannon sends what each request lists: the headers the shared client adds to every request
  // (the User-Agent, the user's, the base URL's Basic credentials) are listed with the key.
  const added = Object.fromEntries(addedHeadersFor(new URL(plan.baseUrl), {}));
  const requests = expandMix(plan.mix, plan.key, plan.pathParams ?? {}, basePath(plan.baseUrl), added);
  const origin = originOf(plan.baseUrl);
  // Sampled at random: a fixed stride would alias with the period of the request list and
  // validate the same operation every time.
  const sampled = () =>
    hooks.validate !== undefined &&
    plan.validateShare > 0 &&
    (plan.validateShare >= 1 || Math.random() < plan.validateShare);
  // Arrivals are timed from the moment every connection exists: autocannon builds its clients
  // synchronously (cloning the request list for each), and that set-up is not the target's latency.
  let t0 = performance.now();
  let started = false;
  const waiting: (() => void)[] = [];

  const operationOf = (id: string) => {
    let entry = perOperation.get(id);
    if (!entry) {
      entry = {
        count: 0,
        failed: 0,
        validated: 0,
        valid: 0,
        histogram: new LatencyHistogram(),
        reservoir: new LatencyReservoir(),
      };
      perOperation.set(id, entry);
    }
    return entry;
  };

  /** Records the latency of a request intended at `intended` and ended at `now` (performance.now() ms). */
  const recordLatency = (operationId: string, intended: number, now: number, failed: boolean) => {
    const ms = now - intended;
    second.recordMs(ms);
    const op = operationOf(operationId);
    op.count++;
    op.histogram.recordMs(ms);
    op.reservoir.record(now - t0, ms);
    if (failed) op.failed++;
  };

  const failInFlight = (state: ClientState) => {
    if (state.intended === null) return;
    counters.transportErrors++;
    secondCounters.failed++;
    recordLatency(state.operationId, state.intended, performance.now(), true);
    state.intended = null;
  };

  /** Records an answer to the request in flight on a connection; `validate` judges its body against the spec. */
  const onAnswer = (state: ClientState, operationId: string, status: number, validate?: () => void) => {
    if (state.intended === null) return;
    const intended = state.intended;
    const now = performance.now();
    state.intended = null;
    counters.completed++;
    secondCounters.completed++;
    if (status >= 0 && status < 600) secondStatusCounts[status]!++;
    const failed = status < 200 || status > 299;
    if (failed) {
      counters.non2xx++;
      secondCounters.failed++;
    }
    recordLatency(operationId, intended, now, failed);
    validate?.();
  };

  const checkResponse = (operationId: string, status: number, body: Buffer, contentType: string | undefined) => {
    validation.checked++;
    const op = operationOf(operationId);
    op.validated++;
    let result: ReturnType<ResponseValidator>;
    // A body nested past the limit costs gigabytes to parse and validate: it is judged invalid unread.
    const beyond = beyondJsonLimits(body);
    try {
      if (beyond) throw new Error(beyond);
      result = hooks.validate!(operationId, status, contentType, JSON.parse(body.toString('utf8')));
    } catch (error) {
      result = {
        valid: false,
        errors: [{ pointer: '', message: `body is not JSON: ${error instanceof Error ? error.message : error}` }],
      };
    }
    if (result.valid) {
      validation.valid++;
      op.valid++;
    } else {
      validation.invalid++;
      if (validation.samples.length < MAX_INVALID_SAMPLES) {
        validation.samples.push({ operationId, status, errors: result.errors.slice(0, 3) });
      }
    }
  };

  // A validated request goes through the shared client, with the same deadline, size cap and
  // framing rules as every other command; its connection of autocannon waits meanwhile, so at
  // most `connections` requests are in flight, and the next arrival is taken when it is answered.
  const sendShared = (client: DrivenClient, state: ClientState, request: (typeof requests)[number]) => {
    state.shared = true;
    state.operationId = request.operationId;
    // autocannon's idle timer must not drop the waiting connection and count a timeout of its own.
    client.timeoutTicker.reschedule(timeoutS * 1000 + 5000);
    exchange(`${origin}${request.path}`, {
      method: request.method as 'GET' | 'POST',
      headers: request.headers as Record<string, string>,
      body: request.body as string | undefined,
      timeoutMs: timeoutS * 1000,
    })
      .then(
        (response) => {
          // After the end (the closed model's duration, the outer bound) the books are closed.
          if (finished) return;
          if (response.retried) counters.retries++;
          // What the validated share's answers say of the envelope (versions, servers, throttling).
          observeAnswer(observed, response, { method: request.method ?? 'GET', sent: response.sent });
          const throttled = throttleSignal(response);
          const op = getOperation(request.operationId);
          if (throttled && op) observeThrottle(observed, op.path, op.label, throttled);
          onAnswer(state, request.operationId, response.status, () =>
            checkResponse(request.operationId, response.status, response.body, response.headers['content-type']),
          );
        },
        (error: unknown) => {
          if (!(error instanceof TransportError)) throw error;
          if (finished) return;
          if (error.retried) counters.retries++;
          if (error.problem === 'timeout') counters.timeouts++;
          failInFlight(state);
        },
      )
      .finally(() => {
        state.shared = false;
        if (!client.destroyed && !finished) client._doRequest();
      });
  };

  const setupClient = (raw: unknown) => {
    const client = raw as DrivenClient;
    const send = client._doRequest.bind(client);
    const state: ClientState = { intended: null, operationId: '', timer: null, pending: false, shared: false };
    const fire = (intended: number) => {
      state.timer = null;
      state.pending = false;
      if (client.destroyed || finished) return;
      // Never measure from a time that has not come yet (a timer may fire a fraction of a ms early).
      state.intended = Math.min(performance.now(), intended);
      counters.sent++;
      secondCounters.sent++;
      // The request comes from one sequence shared by all connections; a per-connection cycle
      // would let connections that advance in step send long runs of the same operation.
      const iterator = client.requestIterator;
      const index = nextRequestIndex;
      nextRequestIndex = (nextRequestIndex + 1) % requests.length;
      if (sampled()) {
        sendShared(client, state, requests[index]!);
        return;
      }
      if (client.reqsMade === 0) {
        iterator.currentRequestIndex = index;
        iterator.currentRequest = iterator.requests[index];
      } else {
        // autocannon advances the iterator by one before it sends.
        iterator.currentRequestIndex = (index + requests.length - 1) % requests.length;
      }
      send();
      state.operationId = client.requestIterator.currentRequest?.operationId ?? '';
    };
    client._doRequest = () => {
      if (!started) {
        waiting.push(() => client._doRequest());
        return;
      }
      if (state.pending || state.shared) return;
      if (state.intended !== null) {
        // A new request while one is in flight means autocannon reconnected and abandoned it.
        failInFlight(state);
        client.pipelinedRequests.clear();
      }
      if (finished) return;
      if (closed) {
        fire(Number.POSITIVE_INFINITY);
        return;
      }
      const offset = schedule!.next();
      if (offset === undefined) {
        client.destroy();
        return;
      }
      const delay = t0 + offset - performance.now();
      if (delay > 0) {
        state.pending = true;
        // Waiting for an arrival is not an unanswered request: autocannon's idle timer waits too.
        client.timeoutTicker.reschedule(delay + timeoutS * 1000);
        const timer = setTimeout(() => {
          timers.delete(timer);
          fire(t0 + offset);
        }, delay);
        timers.add(timer);
        state.timer = timer;
      } else {
        fire(t0 + offset);
      }
    };
    client.requestIterator.recordBody = (request, status) =>
      onAnswer(state, request.operationId ?? state.operationId, status);
    client.on('connError', () => failInFlight(state));
    client.on('timeout', () => {
      counters.timeouts++;
    });
  };

  const snapshotSecond = () => {
    const secondStatuses: Record<string, number> = {};
    for (let status = 0; status < 600; status++) {
      const count = secondStatusCounts[status]!;
      if (count === 0) continue;
      secondStatuses[status] = count;
      statuses[status] = (statuses[status] ?? 0) + count;
    }
    secondStatusCounts.fill(0);
    overall.add(second);
    const snapshot: SecondSnapshot = {
      t: Math.round((performance.now() - t0) / 100) / 10,
      sent: secondCounters.sent,
      completed: secondCounters.completed,
      failed: secondCounters.failed,
      p50: second.percentileMs(50),
      p95: second.percentileMs(95),
      p99: second.percentileMs(99),
      max: second.percentileMs(100),
      totalSent: counters.sent,
      totalFailed: counters.non2xx + counters.transportErrors,
      statuses: secondStatuses,
    };
    timeline.push(snapshot);
    second.reset();
    secondCounters.sent = 0;
    secondCounters.completed = 0;
    secondCounters.failed = 0;
    hooks.onSecond?.(snapshot);
  };

  // Open model: the schedule ends the run; autocannon's duration is only the outer bound (the
  // planned duration plus one request timeout for the last answers).
  const durationS = closed ? plannedS : plannedS + timeoutS + 1;
  // The client certificate of the run, for a deployment that requires mutual TLS. autocannon never
  // verifies the server's certificate; the preflight, through the shared client, has.
  const tls = currentNetwork().tls;
  const instance = autocannon(
    {
      ...(tls?.cert ? { tlsOptions: { cert: tls.cert, key: tls.key, ...(tls.ca ? { ca: tls.ca } : {}) } } : {}),
      // autocannon sends each request's path as it is: the base URL's own path is in every one of them.
      url: withoutCredentials(origin),
      connections: plan.connections,
      pipelining: 1,
      duration: durationS,
      timeout: timeoutS,
      requests: requests as autocannon.Request[],
      setupClient: setupClient as (client: autocannon.Client) => void,
    },
    () => undefined,
  );
  t0 = performance.now();
  started = true;
  const tick = setInterval(snapshotSecond, 1000);
  for (const begin of waiting.splice(0)) begin();
  const hardStop = setTimeout(() => instance.stop(), (durationS + 2) * 1000);
  // Closed model: no request starts after the duration, so throughput is requests over exactly it
  // (autocannon itself only notices the end at its next one-second tick).
  const closedEnd = closed
    ? setTimeout(() => {
        finished = true;
        instance.stop();
      }, plannedS * 1000)
    : undefined;
  await new Promise<void>((resolve) => instance.once('done', () => resolve()));
  finished = true;
  clearTimeout(hardStop);
  clearTimeout(closedEnd);
  clearInterval(tick);
  if (secondCounters.sent + secondCounters.completed + secondCounters.failed > 0) snapshotSecond();
  for (const timer of timers) clearTimeout(timer);
  const elapsedS = (performance.now() - t0) / 1000;

  // Open model: a request still unanswered when the outer bound ends the run has failed. Closed
  // model: the duration cuts the last request of each connection short, which is not its fault.
  const inFlightAtEnd = Math.max(0, counters.sent - counters.completed - counters.transportErrors);
  if (closed) counters.sent -= inFlightAtEnd;
  else counters.transportErrors += inFlightAtEnd;
  const dropped = schedule ? schedule.total - counters.sent : 0;
  const operations: Record<string, OperationFigures> = {};
  const samples: Record<string, LatencySamples> = {};
  const extra = plan.percentiles ?? [];
  for (const [id, entry] of [...perOperation.entries()].sort(([a], [b]) => a.localeCompare(b))) {
    operations[id] = {
      count: entry.count,
      failed: entry.failed,
      validated: entry.validated,
      valid: entry.valid,
      latencyMs: entry.histogram.summary(extra),
    };
    samples[id] = entry.reservoir.samples();
    entry.histogram.destroy();
  }
  const result: LoadResult = {
    model: closed ? 'closed' : 'open',
    startedAt: new Date(Date.now() - elapsedS * 1000).toISOString(),
    elapsedS: Math.round(elapsedS * 1000) / 1000,
    plannedArrivals: schedule ? schedule.total : null,
    sent: counters.sent,
    completed: counters.completed,
    dropped,
    transportErrors: counters.transportErrors,
    timeouts: counters.timeouts,
    retries: counters.retries,
    failed: counters.non2xx + counters.transportErrors + dropped,
    statuses,
    throughputRps: Math.round((counters.completed / Math.max(closed ? plannedS : elapsedS, 0.001)) * 10) / 10,
    latencyMs: overall.summary(extra),
    validation,
    operations,
    timeline,
  };
  overall.destroy();
  second.destroy();
  Object.defineProperty(result, 'observed', { value: observed, enumerable: false });
  Object.defineProperty(result, 'samples', { value: samples, enumerable: false });
  return result;
}

/** Shortest and longest request list a mix expands to: each connection walks one list, in step with the others. */
export const REQUEST_LIST_LENGTH = { min: 100, max: 1000 } as const;

/**
 * Integer slots for `weights` summing to `total` (largest remainders), each weight above 0 given
 * at least `least` slots.
 */
function apportion(weights: readonly number[], total: number, least: number): number[] {
  const sum = weights.reduce((a, b) => a + b, 0);
  const exact = weights.map((w) => (sum > 0 ? (w / sum) * total : 0));
  const slots = exact.map((x, i) => (weights[i]! > 0 ? Math.max(least, Math.floor(x)) : 0));
  let left = total - slots.reduce((a, b) => a + b, 0);
  const order = exact.map((x, i) => ({ i, rest: x - Math.floor(x) })).sort((a, b) => b.rest - a.rest || a.i - b.i);
  for (const { i } of order) {
    if (left <= 0) break;
    if (weights[i]! <= 0) continue;
    slots[i]!++;
    left--;
  }
  return slots;
}

/**
 * Expands the weighted mix into a request list, interleaved by smooth weighted round robin so each
 * connection cycles through a well-spread sequence. The list has one place per request of the mix,
 * between 100 and 1,000: first each operation gets its share of the places (at least one), then
 * its requests share the operation's places by weight, so the operations' shares hold even when a
 * mix of recorded traffic has more distinct requests than places (the first in the mix's order
 * get them). Each path starts with `prefix`, the path of the base URL; each request carries the
 * `added` headers, then the key.
 */
export function expandMix(
  mix: MixRequest[],
  key: string | undefined,
  pathParams: Record<string, string>,
  prefix = '',
  added: Record<string, string> = {},
): (autocannon.Request & { operationId: string })[] {
  const entries = mix.filter((entry) => entry.weight > 0);
  if (entries.length === 0) throw new Error('the operation mix is empty');
  const length = Math.max(REQUEST_LIST_LENGTH.min, Math.min(REQUEST_LIST_LENGTH.max, entries.length));
  const operations = [...new Set(entries.map((entry) => entry.operationId))];
  const ofOperation = operations.map((id) => entries.filter((entry) => entry.operationId === id));
  const operationSlots = apportion(
    ofOperation.map((list) => list.reduce((sum, entry) => sum + entry.weight, 0)),
    length,
    1,
  );
  const slotsOf = new Map<MixRequest, number>();
  ofOperation.forEach((list, i) => {
    const slots = apportion(
      list.map((entry) => entry.weight),
      operationSlots[i]!,
      0,
    );
    list.forEach((entry, j) => {
      slotsOf.set(entry, slots[j]!);
    });
  });
  const placed = entries.filter((entry) => slotsOf.get(entry)! > 0);
  const slots = placed.map((entry) => slotsOf.get(entry)!);
  const total = slots.reduce((sum, n) => sum + n, 0);
  const current = placed.map(() => 0);
  const list: (autocannon.Request & { operationId: string })[] = [];
  for (let n = 0; n < total; n++) {
    let best = 0;
    for (let i = 0; i < placed.length; i++) {
      current[i]! += slots[i]!;
      if (current[i]! > current[best]!) best = i;
    }
    current[best]! -= total;
    const entry = placed[best]!;
    const headers: Record<string, string> = { ...added };
    if (key) headers['Ocp-Apim-Subscription-Key'] = key;
    const body = requestBody(entry);
    if (body !== undefined) headers['Content-Type'] = 'application/x-www-form-urlencoded';
    list.push({
      method: entry.method,
      path: joinPath(prefix, requestTarget(entry, pathParams)),
      headers,
      ...(body !== undefined ? { body } : {}),
      operationId: entry.operationId,
    });
  }
  return list;
}
