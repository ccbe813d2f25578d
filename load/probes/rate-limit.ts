import { performance } from 'node:perf_hooks';
import { beyondJsonLimits } from '../../contracts/json-bounds.ts';
import { TransportError } from '../../http/client.ts';
import {
  describeSignal,
  rateBelowLimit,
  signalledBy,
  type ThrottleSignal,
  throttleSignal,
} from '../../http/throttle.ts';
import type { ResponseValidator } from '../runner.ts';
import { BROWSING_MIX, requestTarget } from '../scenarios.ts';
import { exchange } from '../target.ts';
import { targetUrl } from '../target-url.ts';

/** Largest answer the probe reads; a larger one counts as no answer. */
const PROBE_MAX_BYTES = 1024 * 1024;

/** The operations that carry a rate limit. */
export type RateLimitedOperation = 'answerSearch' | 'urlPreview';

/** Bounds and target of a rate-limit probe. */
export interface RateLimitProbeOptions {
  baseUrl: string;
  key?: string;
  operation: RateLimitedOperation;
  /** Highest arrival rate the probe may use (default 1000/s). */
  maxRate?: number;
  /** Most requests the probe may send in total (default 10,000). */
  maxRequests?: number;
  /** Longest the probe may run, waiting included, in seconds (default 30). */
  maxDurationS?: number;
  /** Validates each 429 body against the spec. */
  validate?: ResponseValidator;
  /** Receives one line per step. */
  log?: (line: string) => void;
}

/** One constant-rate step of the probe. */
export interface ProbeStep {
  phase: 'ramp' | 'hold' | 'recovery';
  rate: number;
  sent: number;
  ok: number;
  throttled: number;
  other: number;
  /** Seconds from the step's first answer to its last: the time over which the target answered it (ramp and hold steps). */
  answeredOverS?: number;
}

/** What the rate-limit probe found. */
export interface RateLimitProbeResult {
  operation: RateLimitedOperation;
  /** Accepted requests per second while 429s were sustained: the limit's refill rate; null when none was found. */
  thresholdRps: number | null;
  /**
   * True when the rate was measured below the limit instead: a limiter that let (almost) nothing
   * through while pressed counts its refusals too (HAProxy's stick table), so its rate is the
   * highest offered rate it took, from 1/s doubling.
   */
  measuredBelow?: boolean;
  /** The arrival rate at which 429s first appeared. */
  first429AtRate: number | null;
  requests: number;
  durationS: number;
  /** Seconds the probe waited before checking recovery (from the 429 message, or Retry-After). */
  waitSeconds: number | null;
  /** Seconds stated by the last 429 message, and by its Retry-After header. */
  messageSeconds: number | null;
  retryAfterSeconds: number | null;
  /** True when requests succeeded again after the wait; null when the probe could not check. */
  recovered: boolean | null;
  throttledResponses: number;
  /** 429 bodies that did not match the spec (at most 3 examples kept). */
  invalid429: { count: number; examples: string[] };
  steps: ProbeStep[];
  /** How the limit was signalled (the first throttled answer): 429 or 503, its content type, its Retry-After, who sent it. */
  signal: {
    status: number;
    contentType: string;
    retryAfter: ThrottleSignal['retryAfter']['form'];
    /** True when it is the interface's own: 429, its JSON error stating the seconds to wait. */
    conforms: boolean;
    signalledBy: string;
  } | null;
  /** Named problems found; an empty list means the probe passed. */
  problems: string[];
}

/** The status an outcome records for a throttled answer (429 or 503 alike). */
const THROTTLED = 429;
const START_RATE = 10;
const STEP_S = 1;
const HOLD_S = 4;
const TICK_MS = 5;

interface Outcome {
  status: number;
  sentAt: number;
  /** When the answer (or the failure) came. */
  doneAt: number;
}

/**
 * Finds where a rate limit starts. The arrival rate doubles every second until 429s appear, then
 * holds that rate for a few seconds: once the limiter is saturated, the requests it still accepts
 * per second are its refill rate, which is the limit (for a token bucket, a leaky bucket or a
 * sliding window alike). Then it waits as long as the 429 says and checks the target recovers.
 */
export async function probeRateLimit(options: RateLimitProbeOptions): Promise<RateLimitProbeResult> {
  const maxRate = options.maxRate ?? 1000;
  const maxRequests = options.maxRequests ?? 10_000;
  const maxDurationS = options.maxDurationS ?? 30;
  const log = options.log ?? (() => undefined);
  const template = BROWSING_MIX.find((entry) => entry.operationId === options.operation);
  if (!template) throw new Error(`no request template for ${options.operation}`);
  const url = targetUrl(options.baseUrl, requestTarget(template));
  const headers: Record<string, string> = options.key ? { 'Ocp-Apim-Subscription-Key': options.key } : {};
  const started = performance.now();
  const elapsedS = () => (performance.now() - started) / 1000;
  const steps: ProbeStep[] = [];
  const problems: string[] = [];
  const invalid429 = { count: 0, examples: [] as string[] };
  let requests = 0;
  let throttledResponses = 0;
  let last429: { body: string; retryAfter: string | undefined } | undefined;
  let firstSignal: ThrottleSignal | undefined;

  // Through the shared client: its deadline, size cap and framing rules. A request the client sent
  // again (a kept-alive connection lost before any byte of the answer) counts twice: the target saw both.
  const sendOne = async (): Promise<Outcome> => {
    requests++;
    const sentAt = performance.now();
    try {
      const response = await exchange(url, { headers, timeoutMs: 10_000, maxBytes: PROBE_MAX_BYTES });
      if (response.retried) requests++;
      // Throttling however signalled: the interface's 429, or a front server's 503 or HTML 429.
      const signal = throttleSignal(response);
      if (signal) {
        throttledResponses++;
        firstSignal ??= signal;
        const body = response.body.toString('utf8');
        last429 = { body, retryAfter: response.headers['retry-after'] };
        if (signal.status === 429 && /json/.test(signal.contentType)) check429(body, response.headers['content-type']);
      }
      return { status: signal ? THROTTLED : response.status, sentAt, doneAt: performance.now() };
    } catch (error) {
      if (!(error instanceof TransportError)) throw error;
      if (error.retried) requests++;
      return { status: 0, sentAt, doneAt: performance.now() };
    }
  };

  const check429 = (body: string, contentType: string | undefined) => {
    if (!options.validate) return;
    let verdict: ReturnType<ResponseValidator>;
    try {
      const beyond = beyondJsonLimits(Buffer.from(body));
      if (beyond) throw new Error(beyond);
      verdict = options.validate(options.operation, 429, contentType, JSON.parse(body));
    } catch {
      verdict = { valid: false, errors: [{ pointer: '', message: 'body is not JSON' }] };
    }
    if (!verdict.valid) {
      invalid429.count++;
      if (invalid429.examples.length < 3) {
        invalid429.examples.push(verdict.errors.map((e) => `${e.pointer || '/'} ${e.message}`).join('; '));
      }
    }
  };

  const outOfBudget = () => requests >= maxRequests || elapsedS() >= maxDurationS - 1;

  // Sends at a constant rate for `seconds`, then waits for the answers of that step.
  const runStep = async (phase: ProbeStep['phase'], rate: number, seconds: number): Promise<ProbeStep> => {
    const stepStart = performance.now();
    const pending: Promise<Outcome>[] = [];
    let due = 0;
    while (performance.now() - stepStart < seconds * 1000 && !outOfBudget()) {
      due = Math.min(Math.floor(((performance.now() - stepStart) / 1000) * rate) + 1, Math.round(rate * seconds));
      while (pending.length < due && !outOfBudget()) pending.push(sendOne());
      await sleep(TICK_MS);
    }
    const outcomes = await Promise.all(pending);
    const done = outcomes.map((o) => o.doneAt);
    const step: ProbeStep = {
      phase,
      rate,
      sent: outcomes.length,
      ok: outcomes.filter((o) => o.status >= 200 && o.status < 300).length,
      throttled: outcomes.filter((o) => o.status === THROTTLED).length,
      other: outcomes.filter((o) => o.status !== 429 && (o.status < 200 || o.status >= 300)).length,
      answeredOverS: done.length > 1 ? (Math.max(...done) - Math.min(...done)) / 1000 : 0,
    };
    steps.push(step);
    log(
      `  ${phase.padEnd(8)} ${String(rate).padStart(5)}/s for ${seconds} s: ${step.ok} ok, ${step.throttled} throttled, ${step.other} other`,
    );
    return step;
  };

  let thresholdRps: number | null = null;
  let measuredBelow = false;
  let first429AtRate: number | null = null;
  let rate = START_RATE;
  let highest = 0;
  while (!outOfBudget()) {
    // At the top rate a full bucket can take longer than a second to drain: stay there for as
    // long as the budget allows while keeping room for the hold and the wait.
    const seconds =
      rate < maxRate ? STEP_S : Math.max(STEP_S, Math.min(8, Math.floor(maxDurationS - elapsedS() - HOLD_S - 3)));
    highest = rate;
    const step = await runStep('ramp', rate, seconds);
    if (step.other > step.sent / 2) {
      problems.push(
        `most requests at ${rate}/s failed without being throttled (${step.other} of ${step.sent} neither accepted nor 429 or 503)`,
      );
      break;
    }
    if (step.throttled > 0) {
      first429AtRate = rate;
      // Hold a rate clearly above what was accepted so the limiter stays saturated.
      const holdRate = Math.min(maxRate, Math.max(rate, Math.ceil((step.ok / seconds) * 1.5)));
      const hold = await runStep('hold', holdRate, HOLD_S);
      const sustained = hold.throttled >= hold.sent * 0.1;
      if (sustained && hold.sent > 0) {
        // The limiter refills while it answers: over the hold, or over longer when its answers came
        // spread over more time than that (a target, or a machine, that falls behind the hold's
        // arrivals accepts a refill's worth more for every second it lags).
        thresholdRps = Math.round((hold.ok / Math.max(HOLD_S, hold.answeredOverS ?? 0)) * 10) / 10;
        // A limiter that lets (almost) nothing through while pressed counts its refusals too: what it
        // takes is read below it instead, offered rates stepping up from 1/s.
        if (hold.ok <= 1 && !outOfBudget()) {
          log('  almost nothing got through while pressed: the limiter counts its refusals; measuring below it');
          const below = await rateBelowLimit(
            async () => {
              const outcome = await sendOne();
              return outcome.status >= 200 && outcome.status < 300;
            },
            () => !outOfBudget(),
          );
          thresholdRps = below.rps;
          measuredBelow = true;
          log(`  below the limit: ${below.rps}/s taken${below.refused ? `, ${below.refused}/s refused` : ''}`);
        }
        break;
      }
      rate = holdRate;
    }
    if (rate >= maxRate) break;
    rate = Math.min(rate * 2, maxRate);
  }
  if (thresholdRps === null) {
    problems.push(
      first429AtRate === null
        ? `no 429 (nor any throttling) up to ${highest} requests/s (bounded by --max-rps ${maxRate}, --max-requests ${maxRequests}, --max-duration ${maxDurationS} s)`
        : `throttling appeared at ${first429AtRate}/s but was not sustained`,
    );
  }
  const wait = last429 ? secondsToWait(last429.body, last429.retryAfter) : undefined;
  if (firstSignal && !(firstSignal.status === 429 && /json/.test(firstSignal.contentType)))
    problems.push(
      `the limit is signalled ${describeSignal(firstSignal)} by ${signalledBy(firstSignal)}, not as the interface's 429 with the seconds to wait`,
    );
  else if (last429 && wait?.message === null) problems.push('the 429 message does not state how many seconds to wait');
  if (invalid429.count > 0) problems.push(`${invalid429.count} 429 bodies do not match the spec`);
  let recovered: boolean | null = null;
  const waitSeconds = wait ? Math.max(wait.message ?? 0, wait.retryAfter ?? 0) || null : null;
  if (last429) {
    const waitMs = (waitSeconds ?? 1) * 1000;
    if (elapsedS() + waitMs / 1000 + 1 > maxDurationS) {
      problems.push(`waiting ${waitMs / 1000} s would exceed --max-duration ${maxDurationS} s; recovery not checked`);
    } else {
      log(`  waiting ${waitMs / 1000} s as the 429 asked`);
      await sleep(waitMs);
      const outcomes: Outcome[] = [];
      for (let i = 0; i < 3; i++) outcomes.push(await sendOne());
      const ok = outcomes.filter((o) => o.status >= 200 && o.status < 300).length;
      steps.push({
        phase: 'recovery',
        rate: 0,
        sent: 3,
        ok,
        throttled: outcomes.filter((o) => o.status === THROTTLED).length,
        other: 3 - ok,
      });
      recovered = ok === 3;
      log(`  recovery: ${ok} of 3 requests accepted after the wait`);
      if (!recovered)
        problems.push(`the target still refuses requests ${waitMs / 1000} s after the 429 (the wait it asked for)`);
    }
  }
  return {
    operation: options.operation,
    thresholdRps,
    ...(measuredBelow ? { measuredBelow } : {}),
    first429AtRate,
    requests,
    durationS: Math.round(elapsedS() * 100) / 100,
    waitSeconds,
    messageSeconds: wait?.message ?? null,
    retryAfterSeconds: wait?.retryAfter ?? null,
    recovered,
    throttledResponses,
    invalid429,
    steps,
    signal: firstSignal
      ? {
          status: firstSignal.status,
          contentType: firstSignal.contentType,
          retryAfter: firstSignal.retryAfter.form,
          conforms: firstSignal.conforms,
          signalledBy: signalledBy(firstSignal),
        }
      : null,
    problems,
  };
}

/** The seconds to wait stated by a 429: from its message ("... in N seconds") and its Retry-After header. */
export function secondsToWait(
  body: string,
  retryAfter: string | undefined,
): { message: number | null; retryAfter: number | null } {
  let message: number | null = null;
  try {
    const parsed = JSON.parse(body) as { error?: { message?: unknown }; message?: unknown };
    const text = parsed.error?.message ?? parsed.message;
    const match = typeof text === 'string' ? /(\d+(?:\.\d+)?)\s*(?:seconds?|secs?|s)\b/i.exec(text) : null;
    if (match) message = Number(match[1]);
  } catch {
    message = null;
  }
  let header: number | null = null;
  if (retryAfter !== undefined) {
    if (/^\s*\d+\s*$/.test(retryAfter)) header = Number(retryAfter);
    else if (!Number.isNaN(Date.parse(retryAfter)))
      header = Math.max(0, Math.ceil((Date.parse(retryAfter) - Date.now()) / 1000));
  }
  return { message, retryAfter: header };
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
