// Throttling as deployments signal it. The interface's own signal is a 429 whose JSON message states
// the seconds to wait; the servers in front of a deployment say it their own ways: nginx's
// `limit_req` answers 503 with an HTML page (429 with `limit_req_status 429`), Apache and HAProxy
// send pages of their own, a gateway its own JSON, with or without `Retry-After` (seconds, or an
// HTTP-date). Every such answer is throttling: it says "not now", not what the interface answers,
// so kgate slows down and asks again instead of judging it.
//
// A 503 is ambiguous: it is also what a server says when it is broken. How kgate tells them apart:
// throttling is *repeatable under a slower pace* (the path slows down and asks again, and the
// request, or others to the same path, get through), a fault is *persistent at any pace* (the same
// request throttled at every retry while the path's pace backs off to its slowest). A persistent
// answer is judged as the answer it is (a 503 fails what expects otherwise); only a 429 persistent
// on a path that never let anything through is "not run: throttled" (the target throttles it
// throughout: there is nothing to judge).

import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { withFileLock } from './pacing.ts';

/** The statuses that say "not now": 429 Too Many Requests, and 503 Service Unavailable as front servers use it. */
export const THROTTLE_STATUSES: readonly number[] = [429, 503];

/** How an answer said how long to wait. */
export type RetryAfterForm = 'seconds' | 'http-date' | 'absent' | 'invalid';

/** The Retry-After of an answer, read as RFC 9110 10.2.3 allows it. */
export interface RetryAfter {
  form: RetryAfterForm;
  /** The seconds to wait it states (an HTTP-date counted from `now`), when it states any. */
  seconds?: number;
}

/** Reads a Retry-After header: delay-seconds or an HTTP-date. */
export function retryAfterOf(header: string | undefined, now = Date.now()): RetryAfter {
  if (header === undefined || header.trim() === '') return { form: 'absent' };
  const text = header.trim();
  if (/^\d+$/.test(text)) return { form: 'seconds', seconds: Number(text) };
  // An HTTP-date names a day of the week and GMT (IMF-fixdate, or the obsolete forms Date.parse reads too).
  if (/[A-Za-z]{3}/.test(text) && !Number.isNaN(Date.parse(text)))
    return { form: 'http-date', seconds: Math.max(0, Math.ceil((Date.parse(text) - now) / 1000)) };
  return { form: 'invalid' };
}

/** A throttling answer, as it was signalled. */
export interface ThrottleSignal {
  status: number;
  /** The media type, lower case, without parameters; `no content type` when there was none. */
  contentType: string;
  retryAfter: RetryAfter;
  /** The seconds to wait the body states ("Try again in N seconds"), when it states any. */
  messageSeconds?: number;
  /** True when it is the interface's own signal: a 429 whose JSON body is `{error:{statusCode:429,message}}` stating the seconds. */
  conforms: boolean;
  /** The `Server` header, when the answer carried one (who answered). */
  server?: string;
  /** The `Via` header, when the answer carried one (what it passed through). */
  via?: string;
}

/** The media type of a Content-Type header, lower case, or `no content type`. */
export function mediaTypeOf(contentType: string | undefined): string {
  return contentType?.split(';')[0]?.trim().toLowerCase() || 'no content type';
}

/** The throttling an answer signals, or undefined for any other answer. */
export function throttleSignal(answer: {
  status: number;
  headers: Record<string, string>;
  body: Buffer | string;
}): ThrottleSignal | undefined {
  if (!THROTTLE_STATUSES.includes(answer.status)) return undefined;
  const contentType = mediaTypeOf(answer.headers['content-type']);
  const text = typeof answer.body === 'string' ? answer.body : answer.body.subarray(0, 64 * 1024).toString('utf8');
  let messageSeconds: number | undefined;
  let shaped = false;
  if (/json/.test(contentType)) {
    try {
      const json = JSON.parse(text) as { error?: { statusCode?: unknown; message?: unknown }; message?: unknown };
      const message = json?.error?.message ?? json?.message;
      shaped = json?.error?.statusCode === 429 && typeof json.error.message === 'string';
      const seconds = typeof message === 'string' ? /(\d+(?:\.\d+)?)\s*seconds?/i.exec(message) : null;
      if (seconds) messageSeconds = Number(seconds[1]);
    } catch {
      // Not JSON after all: a front server's page under a JSON label.
    }
  }
  return {
    status: answer.status,
    contentType,
    retryAfter: retryAfterOf(answer.headers['retry-after']),
    ...(messageSeconds !== undefined ? { messageSeconds } : {}),
    conforms: answer.status === 429 && shaped && messageSeconds !== undefined,
    ...(answer.headers.server ? { server: answer.headers.server } : {}),
    ...(answer.headers.via ? { via: answer.headers.via } : {}),
  };
}

/** `503 text/html without Retry-After`, `429 application/json with Retry-After in seconds`. */
export function describeSignal(signal: Pick<ThrottleSignal, 'status' | 'contentType' | 'retryAfter'>): string {
  const after = {
    seconds: 'with Retry-After in seconds',
    'http-date': 'with Retry-After as an HTTP-date',
    absent: 'without Retry-After',
    invalid: 'with a Retry-After that is neither seconds nor an HTTP-date',
  }[signal.retryAfter.form];
  return `${signal.status} ${signal.contentType} ${after}`;
}

/** Who sent a throttling answer, in words: `the interface`, `a front server (nginx/1.22.1)`. */
export function signalledBy(signal: Pick<ThrottleSignal, 'conforms' | 'server' | 'via' | 'contentType'>): string {
  if (signal.conforms) return 'the interface';
  const names = [signal.server && `Server: ${signal.server}`, signal.via && `Via: ${signal.via}`].filter(Boolean);
  const who = /json/.test(signal.contentType) ? 'the interface or a gateway in front of it' : 'a front server';
  return `${who}${names.length > 0 ? ` (${names.join('; ')})` : ''}`;
}

/** The wait an answer asks for, in milliseconds: Retry-After first, else the seconds its message states. */
export function statedWaitMs(signal: Pick<ThrottleSignal, 'retryAfter' | 'messageSeconds'>): number | undefined {
  const seconds = signal.retryAfter.seconds ?? signal.messageSeconds;
  return seconds === undefined ? undefined : seconds * 1000;
}

/** The slowest pace the adaptive pace backs off to: one request to the path every this many milliseconds. */
export const SLOWEST_INTERVAL_MS = 4_000;
/** The first interval after a throttled answer on a path that was not paced yet. */
export const FIRST_INTERVAL_MS = 100;
/** Each answer that gets through shortens the interval by this factor; under FIRST_INTERVAL_MS the path is unpaced again. */
export const RECOVERY_FACTOR = 0.93;

/** What a path's adaptive pace knows, shared by every process of a run. */
export interface ThrottleState {
  /** What the state is kept under: the run's scope (its target) and the path. */
  key: string;
  /** The spec's path (`/answersearch/v7.0/search`). */
  path: string;
  /** Earliest time (epoch ms) the next request to the path may leave. */
  next: number;
  /** Current interval between requests to the path; 0 when it is not paced. */
  intervalMs: number;
  /** Throttled answers the path got, and answers that got through since its first throttled one. */
  throttled: number;
  accepted: number;
  /** Answers that got through before the path was first throttled. */
  acceptedBefore: number;
  /** When the path was first and last throttled, and when an answer last got through. */
  firstAt: number;
  lastAt: number;
  lastAcceptedAt: number;
  /** The most the path's interval grew to (its slowest pace so far). */
  widestMs: number;
  /** When the interval last grew: answers throttled together (concurrent requests) make it grow once. */
  grewAt?: number;
  /** Throttled answers since the last answer that got through (or since the first): how stuck the path is. */
  sinceAccepted?: number;
  /** The first signal the path met. */
  signal?: ThrottleSignal;
  /** Set once a throttle proved persistent at every pace (a 503 nothing got past, a 429 lockout): later throttled answers of the path are judged at once. */
  persistent?: boolean;
  /** Set once a 429 proved persistent on a path that let nothing through: later requests to it are not run. */
  throttledOut?: boolean;
}

/** File prefix of the paths' states in a run's folder. */
export const THROTTLE_FILE_PREFIX = '.throttle';

/** How long a key found never throttled is taken as such without looking again. */
const ABSENT_FOR_MS = 20;

/**
 * The adaptive pace of a run: per path of the spec, a pace that starts when the path is first
 * throttled (Retry-After first: the next request waits as long as the answer asked; else one
 * FIRST_INTERVAL_MS apart, doubling with each throttled answer, at most once per interval, up to
 * SLOWEST_INTERVAL_MS) and
 * recovers as answers get through (each shortens the interval by RECOVERY_FACTOR, until the path
 * is unpaced again). It is kept in one small file per path in the run's folder, under a lock, so
 * every worker and discovery slow down together; a process without a folder keeps it in memory.
 */
export class AdaptivePace {
  /** The paths' states when there is no folder. */
  private readonly memory = new Map<string, ThrottleState>();
  /** Keys found never throttled, until when: a path is asked about several times a request, other processes' throttling is seen within ABSENT_FOR_MS. */
  private readonly absent = new Map<string, number>();
  /** Paths known to this process as throttled (so a path never throttled costs nothing on acceptance). */
  private readonly known = new Set<string>();

  /** `dir`: the run's folder, where every process of the run keeps the paths' states; none: this process's memory. */
  constructor(readonly dir?: string) {}

  private file(key: string): string {
    return join(this.dir!, `${THROTTLE_FILE_PREFIX}-${createHash('sha1').update(key).digest('hex').slice(0, 12)}`);
  }

  /** The state of a path, or undefined while it was never throttled. */
  state(key: string): ThrottleState | undefined {
    if (!this.dir) return this.memory.get(key);
    const until = this.absent.get(key);
    if (until !== undefined && Date.now() < until) return undefined;
    const file = this.file(key);
    try {
      // existsSync first: a failed read throws, and an exception costs several times a stat.
      if (existsSync(file)) return JSON.parse(readFileSync(file, 'utf8')) as ThrottleState;
    } catch {
      // Being replaced: read as absent this once.
    }
    if (this.absent.size > 1_000) this.absent.clear();
    this.absent.set(key, Date.now() + ABSENT_FOR_MS);
    return undefined;
  }

  /**
   * Waits until the next request to `path` may leave, and claims that slot; at once for a path
   * never throttled. Resolves false, claiming nothing, when the wait would pass `deadlineAt` or
   * `signal` is aborted.
   */
  async wait(key: string, deadlineAt?: number, signal?: AbortSignal): Promise<boolean> {
    // A path never throttled (nearly every request) costs one read, no lock.
    if (!this.state(key)) return true;
    for (;;) {
      if (signal?.aborted) return false;
      const claimed = this.update(key, (state) => {
        // A path that proved persistent is no longer paced: its answers are judged (or not run) at once.
        if (!state || state.persistent || state.throttledOut) return { result: 0 };
        const now = Date.now();
        if (now < state.next) return { result: state.next - now };
        if (state.intervalMs > 0) state.next = now + state.intervalMs;
        return { result: 0, state };
      });
      if (claimed === 0) return true;
      if (deadlineAt !== undefined && Date.now() + claimed >= deadlineAt) return false;
      await sleep(Math.min(claimed, 250), undefined, { signal }).catch(() => {});
    }
  }

  /**
   * Records a throttled answer of the path kept under `key` (`path`: the spec's path, for the
   * reports; `acceptedBefore`: answers of it that got through before, as this process counted
   * them): the path slows down, and waits `waitMs` first when the answer asked for it.
   */
  throttled(
    key: string,
    signal: ThrottleSignal,
    waitMs: number | undefined,
    info: { path: string; acceptedBefore?: number },
  ): ThrottleState {
    return this.update(key, (state) => {
      const now = Date.now();
      const next: ThrottleState = state ?? {
        key,
        path: info.path,
        next: 0,
        intervalMs: 0,
        throttled: 0,
        accepted: 0,
        acceptedBefore: 0,
        firstAt: now,
        lastAt: now,
        lastAcceptedAt: 0,
        widestMs: 0,
        signal,
      };
      next.throttled++;
      next.sinceAccepted = (next.sinceAccepted ?? 0) + 1;
      next.lastAt = now;
      next.acceptedBefore = Math.max(next.acceptedBefore, info.acceptedBefore ?? 0);
      // Grows once per interval: the requests that were in flight together are one signal, not many.
      if (next.grewAt === undefined || now - next.grewAt >= next.intervalMs) {
        next.intervalMs = Math.min(SLOWEST_INTERVAL_MS, Math.max(FIRST_INTERVAL_MS, next.intervalMs * 2));
        next.grewAt = now;
      }
      next.widestMs = Math.max(next.widestMs, next.intervalMs);
      next.next = Math.max(next.next, now + (waitMs ?? next.intervalMs));
      return { result: next, state: next };
    });
  }

  /** Records an answer of `path` that got through: a throttled path's pace recovers a step. */
  accepted(key: string): void {
    if (this.dir && !this.known.has(key) && !this.maybeThrottled(key)) return;
    this.update(key, (state) => {
      if (!state) return { result: undefined };
      state.accepted++;
      state.sinceAccepted = 0;
      state.lastAcceptedAt = Date.now();
      state.intervalMs = state.intervalMs * RECOVERY_FACTOR;
      if (state.intervalMs < FIRST_INTERVAL_MS) state.intervalMs = 0;
      return { result: undefined, state };
    });
  }

  /** Marks what a path proved persistent (see ThrottleState). */
  mark(key: string, what: 'persistent' | 'throttledOut'): void {
    this.update(key, (state) => {
      if (!state) return { result: undefined };
      state[what] = true;
      return { result: undefined, state };
    });
  }

  private maybeThrottled(key: string): boolean {
    const state = this.state(key);
    if (state) this.known.add(key);
    return state !== undefined;
  }

  /** Reads, changes and writes a path's state under its lock. */
  private update<T>(
    key: string,
    change: (state: ThrottleState | undefined) => { result: T; state?: ThrottleState },
  ): T {
    if (!this.dir) {
      const { result, state } = change(this.memory.get(key));
      if (state) this.memory.set(key, state);
      return result;
    }
    const file = this.file(key);
    return withFileLock(file, () => {
      this.absent.delete(key);
      const { result, state } = change(this.state(key));
      if (state) {
        this.known.add(key);
        writeFileSync(file, JSON.stringify(state));
      }
      return result;
    });
  }
}

/** The states of every path a run's folder holds (what the reports read at the end of a run). */
export function throttleStates(dir: string): ThrottleState[] {
  const states: ThrottleState[] = [];
  let names: string[] = [];
  try {
    names = readdirSync(dir);
  } catch {
    return states;
  }
  for (const name of names) {
    if (!name.startsWith(THROTTLE_FILE_PREFIX) || name.endsWith('.lock')) continue;
    try {
      const state = JSON.parse(readFileSync(join(dir, name), 'utf8')) as ThrottleState;
      // The target's own record (`*`: the paths it throttled throughout) is no path's.
      if (state.path !== '*') states.push(state);
    } catch {
      // Being written: the reports run after every request has ended, so this does not happen there.
    }
  }
  return states.sort((a, b) => a.path.localeCompare(b.path));
}

/**
 * The rate a throttled path accepted, in requests per second: the answers that got through from
 * its first throttled answer to its last, over that time (a path throttled once has no such window:
 * undefined). This is what the limit let through while kgate's pace pressed on it, a lower bound
 * of the limit when the pace backed off below it.
 */
export function acceptedRate(state: ThrottleState): number | undefined {
  const seconds = (state.lastAt - state.firstAt) / 1000;
  if (seconds < 1 || state.accepted === 0) return undefined;
  return Math.round((state.accepted / seconds) * 10) / 10;
}

/**
 * The measurement of a limit below it: each step offers one rate for STEP_MS and judges the requests
 * sent after its first STEP_SETTLE_MS (a burst allowance left over is spent by then); a rate at
 * least TAKEN_SHARE of whose requests got through is one the limiter takes. From 1/s, doubling until
 * one is refused (at most BELOW_LIMIT_MAX_RPS), then REFINE_STEPS halvings between the last taken
 * and the first refused; before each, RECOVER_MS for the limiter to recover (a window that counts
 * the refused requests too, as HAProxy's stick table does, only empties once they stop).
 */
const STEP_MS = 2_500;
const STEP_SETTLE_MS = 1_000;
const TAKEN_SHARE = 0.9;
const REFINE_STEPS = 2;
const RECOVER_MS = 2_000;
/** The highest rate the measurement below a limit offers. */
export const BELOW_LIMIT_MAX_RPS = 400;
/** How a rate measured below the limit was measured, in words for the reports. */
export const BELOW_LIMIT_HOW = `the highest rate nearly all of whose requests got through (${TAKEN_SHARE * 100} %, each rate held ${STEP_MS / 1000} s), from 1/s doubling, refined between it and the first refused`;

/**
 * The rate a limiter lets through, measured below it (every answer counted, the refused ones too,
 * so a limiter that counts its refusals, as HAProxy's stick table does, is not read as letting
 * nothing through): offered rates step up from 1/s, doubling, until one is refused, then are refined
 * between the last taken and the first refused. A token bucket, a leaky bucket or a window alike
 * take every rate up to their refill rate. `send` sends one request and says whether it got
 * through (not throttled); `budget` stops the steps when it says no more may be sent.
 */
export async function rateBelowLimit(
  send: () => Promise<boolean>,
  budget: () => boolean = () => true,
): Promise<{ rps: number; refused?: number }> {
  await sleep(RECOVER_MS);
  let taken = 0;
  let refused: number | undefined;
  for (let rate = 1; rate <= BELOW_LIMIT_MAX_RPS && refused === undefined && budget(); rate *= 2) {
    if (await takes(send, rate, budget)) taken = rate;
    else refused = rate;
  }
  for (let step = 0; step < REFINE_STEPS && refused !== undefined && refused - taken > 1 && budget(); step++) {
    await sleep(RECOVER_MS);
    const rate = Math.round((taken + refused) / 2);
    if (await takes(send, rate, budget)) taken = rate;
    else refused = rate;
  }
  return { rps: taken, ...(refused !== undefined ? { refused } : {}) };
}

/** Whether the limiter takes `rate` requests a second: TAKEN_SHARE of those sent after the step settled got through. */
async function takes(send: () => Promise<boolean>, rate: number, budget: () => boolean): Promise<boolean> {
  const total = Math.max(1, Math.round((rate * STEP_MS) / 1000));
  const started = performance.now();
  const answers: Promise<{ settled: boolean; through: boolean }>[] = [];
  for (let i = 0; i < total && budget(); i++) {
    const due = started + (i * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 0) await sleep(wait);
    const settled = due - started >= STEP_SETTLE_MS;
    answers.push(send().then((through) => ({ settled, through })));
  }
  const judged = (await Promise.all(answers)).filter((answer) => answer.settled);
  if (judged.length === 0) return true;
  return judged.filter((answer) => answer.through).length >= TAKEN_SHARE * judged.length;
}
