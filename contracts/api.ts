import { createHash } from 'node:crypto';
import {
  appendFileSync,
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { sendHttp, TransportError } from '../http/client.ts';
import {
  characterClassesOf,
  type FrontLimits,
  type FrontRefusal,
  frontRefusal,
  noFrontLimits,
  recordPassed,
  recordRefusal,
} from '../http/front-limits.ts';
import { noObservations, type Observations, observeAnswer, observeThrottle } from '../http/observations.ts';
import { RequestBudgetSpent, type RequestPace } from '../http/pacing.ts';
import { type QuotaSignal, quotaSignal, replenishedWords } from '../http/quota.ts';
import {
  AdaptivePace,
  describeSignal,
  SLOWEST_INTERVAL_MS,
  statedWaitMs,
  type ThrottleSignal,
  throttleSignal,
} from '../http/throttle.ts';
import { getOperation, OPERATIONS, type OperationInfo, operationLabel } from '../openapi/spec.ts';
import { validateResponse } from '../openapi/validator.ts';
import { classifyRequest, judgedByAnswer } from './coverage/classify.ts';
import {
  curlLine,
  excerpt,
  type Failure,
  NOT_RUN_DEADLINE,
  NOT_RUN_GIVEN_UP,
  NOT_RUN_QUOTA,
  NOT_RUN_THROTTLED,
  type SentRequest,
  type Severity,
  show,
} from './failure.ts';
import { escapeEveryByte, type HeaderForms } from './generative/cases.ts';
import { beyondJsonLimits, JSON_LIMITS, type JsonLimits, jsonLimitPassed } from './json-bounds.ts';
import { answerReadBy, judgeAnswer, judgedKey } from './properties/answers.ts';
import { type OperationTimings, recordTiming } from './timings.ts';

/** One operation of the spec, as the suite walks them. */
export type Operation = OperationInfo;

/** Renders `GET /academic/v1.0/evaluate`. */
export function labelOf(op: Pick<Operation, 'method' | 'path'>): string {
  return operationLabel(op);
}

/** Which key a request carries. */
export type KeyRole = 'full' | 'none' | 'wrong' | 'unsubscribed' | 'exhausted';

/** The subscription keys of a run; never printed. */
export interface Keys {
  full?: string;
  unsubscribed?: string;
  exhausted?: string;
}

/** A request of the suite, named by operation. */
export interface CallOptions {
  /** GET query parameters, or the form fields of a POST. */
  params?: Record<string, string>;
  pathParams?: Record<string, string>;
  /** A raw POST body sent instead of the encoded params (body-limit tests, generated requests). */
  rawBody?: string | Buffer;
  /** A GET query string sent as written instead of the encoded params (generated requests: repeats, encodings). */
  rawQuery?: string;
  /** The Content-Type of a POST, instead of form encoding (generated requests with the wrong one). */
  contentType?: string;
  /** How the header fields are written (generated requests: the classes of the header inputs). */
  headerForms?: HeaderForms;
  /** Path parameters go with every character percent-encoded (the same segment by RFC 3986). */
  pathEscaped?: boolean;
  /** Which key to send; `full` by default. */
  key?: KeyRole;
  /**
   * `error` marks a request the suite makes invalid on purpose: a status the spec does not
   * document is then accepted if it is a 4xx (the interface documents no error for many cases).
   */
  intent?: 'ok' | 'error';
  /**
   * False for the rate-limit tests: a throttling answer (429 or 503, see http/throttle.ts) is handed
   * back as it is, for the check to judge the signal. Otherwise (the default, for every key) it is
   * retried under the path's adaptive pace until it gets through or proves persistent.
   */
  retryRateLimited?: boolean;
  /** Not held to the run's --max-rps / --max-rps-by-path: the rate-limit tests' bursts, which exist to exceed a rate. */
  unpaced?: boolean;
  /** Overrides the run's per-request deadline. */
  timeoutMs?: number;
}

/** A response read and validated by the fixture. */
export interface ApiResponse {
  operation: string;
  status: number;
  headers: Record<string, string>;
  contentType: string | undefined;
  text: string;
  /** The parsed body (JSON). */
  json: unknown;
  elapsedMs: number;
  request: SentRequest;
  curl: string;
  excerpt: string;
  /** The coverage items this answer judged (contracts/coverage), when the request was built from its parameters. */
  items?: string[];
  /** Set when the answer signals throttling (429, or 503 as front servers use it). */
  throttled?: ThrottleSignal;
}

/** The settings the request fixture works with. */
export interface ApiSettings {
  baseUrl: string;
  keys: Keys;
  timeoutMs: number;
  maxBytes: number;
  /** Fixture checks switched off with --exclude-checks. */
  disabledChecks: ReadonlySet<string>;
  /** Folder where workers share transport failures per target (see BROKEN_OPERATION_LIMIT). */
  breakerDir?: string;
  /**
   * Who shares the breaker's findings: every request with the same scope (default: the base URL).
   * The fault sweep judges one fault twice, with and without the generative phase: each its own.
   */
  breakerScope?: string;
  /** --strict: what the spec marks expected (missing is a warning) fails instead. */
  strict?: boolean;
  /**
   * False for test-data discovery: responses are read for their data only and judged by nobody
   * (their operation's own tests judge them), so a broken answer never fails a test that merely
   * needed data from it. Default true.
   */
  judge?: boolean;
  /** --max-rps: every request (probes and retries too) waits for its slot, shared by all workers. */
  pace?: RequestPace;
  /** The adaptive pace of throttled paths, shared by every process of the run (default: one of this process's). */
  throttle?: AdaptivePace;
  /** --max-duration: when the run must end (epoch ms); no request is sent after it, none outlives it. */
  deadlineAt?: number;
  /** latency-within-budget: per path of the spec, the longest an answer may take (default: LATENCY_SHARE of the deadline). */
  latencyBudgetMs?: Record<string, number>;
  /**
   * Test data discovery: an operation given up on for slowness alone still serves its data (its
   * answers are slow, not unusable), so the tests of other operations that need the data keep it.
   * A hang or broken answers still end discovery's requests to it at once.
   */
  readsSlowOperations?: boolean;
  /** Severity overrides of the configuration file (latency-within-budget is a warning unless set to fail). */
  severity?: Record<string, 'fail' | 'warn'>;
  /**
   * The checks whose invariants (contracts/properties) judge this fixture's answers to requests
   * meant to be valid (selected and not excluded); none when absent. With `judge: false`
   * (discovery) only answers that match the spec are judged: a broken one is its operation's own
   * tests' to report.
   */
  propertyChecks?: ReadonlySet<string>;
}

/**
 * Circuit breaker shared by all workers through files: once requests have failed at the transport
 * level often enough, further requests are not sent and their tests are skipped with the reason,
 * so a target that hangs or resets is reported in seconds instead of one deadline per test. An
 * operation is broken after BROKEN_OPERATION_LIMIT failures on it. The whole target is broken
 * only when a probe of another operation gets no answer either (see probeTarget): operations that
 * hang for some inputs never silence the ones that answer.
 */
export const BROKEN_OPERATION_LIMIT = 2;
/**
 * A timeout breaks its operation at once: a hang costs one deadline, not one per request. Requests
 * already waiting on it, in every worker, read the breaker every BREAKER_POLL_MS and give up.
 */
export const BREAKER_POLL_MS = 500;
/**
 * An operation whose answers took longer than their latency budget this many times is given up on
 * like a broken one (its remaining tests are skipped naming the cause), so a target answering in 8 s
 * of a 10 s deadline is judged in about the time of a clean one, with the operation named.
 */
export const SLOW_OPERATION_LIMIT = 2;
/** Share of the per-request deadline an answer may take before latency-within-budget names it. */
export const LATENCY_SHARE = 0.75;
/** Prefix of the files that count transport failures. */
export const BREAKER_FILE_PREFIX = '.transport-failures-';
/** Breaker file names by folder and scope. */
const BREAKER_FILES = new Map<string, string>();
/** What this process claimed (see Api.claim) when the run has no breaker folder. */
const CLAIMED = new Set<string>();
/** Fixture checks whose failures feed the breaker. */
const TRANSPORT_CHECKS = new Set([
  'responds-within-timeout',
  'connection-completes',
  'body-within-size-cap',
  'body-is-json',
  'content-type-is-json',
]);
/** Fixture checks whose failures make kgate probe whether the whole target is down. */
const WHOLE_TARGET_CHECKS = new Set(['responds-within-timeout', 'connection-completes']);
/**
 * Deadline of the probe that tells a dead target from one broken operation (see probeTarget): the
 * probe asks for a 401, which any live target answers at once, but a busy machine (a CI runner, a
 * front server reading a megabyte upload) can hold one back for seconds, and a live target judged
 * down fails every test. With the watchdog's 2 s, a silent target is still judged within 7 s.
 */
export const PROBE_TIMEOUT_MS = 5_000;
/** A request still unanswered after this long makes kgate probe the target (see once). */
export const PROBE_AFTER_MS = 2_000;
/**
 * How often each process of a run marks, at most, that bytes came from the target (see noteBytes):
 * a probe that got nothing back in PROBE_TIMEOUT_MS concludes nothing when the run's other requests
 * got bytes meanwhile.
 */
export const BYTES_MARK_MS = 500;
/**
 * A request still unanswered after this long (or half its deadline, if shorter) sends the same
 * input to the other method of its path, once per operation and run (see probeTwin): a path that
 * hangs is then met by GET and POST at once, one deadline for both instead of one after the other.
 */
export const TWIN_PROBE_AFTER_MS = PROBE_AFTER_MS;
/** Under this deadline no twin is probed: too short to tell a hang from a busy moment of the machine. */
export const TWIN_PROBE_MIN_DEADLINE_MS = 1_000;

/**
 * A request not sent because the target (or its operation) already failed at the transport level
 * or answered too slowly: a test of that operation is reported as not run, any other test skipped.
 */
export class TargetBroken extends Error {
  override name = 'TargetBroken';
}

/** A request not sent, or cut short, because the run reached its --max-duration; its test is reported as not run. */
export class DeadlineReached extends Error {
  override name = 'DeadlineReached';
}

export { NOT_RUN_DEADLINE, NOT_RUN_GIVEN_UP, NOT_RUN_QUOTA, NOT_RUN_THROTTLED };

/** The variable each key role is read from (config/env.ts), as a quota's message names it. */
const KEY_VARIABLE: Partial<Record<KeyRole, string>> = {
  full: 'KGATE_KEY',
  unsubscribed: 'KGATE_KEY_UNSUBSCRIBED',
};

/**
 * A request not sent, or an answer not judged, because the call volume quota of its key ran out
 * during the run (the interface's 403, or a gateway's: http/quota.ts). Its test is not run, and
 * the run gives no verdict unless something it judged before failed. A TargetBroken: whatever waits
 * for the target's answers (discovery, generated requests) stops as it would for a dead target.
 */
export class QuotaSpent extends TargetBroken {
  override name = 'QuotaSpent';
}

/** What every process of a run knows of a key's used-up quota (a line of the breaker's, see Api.quotaOf). */
export interface QuotaSeen {
  /** The key role, and the variable it came from. */
  role: KeyRole;
  variable: string;
  /** Requests the run had sent when the first quota answer came (every process's). */
  afterRequests?: number;
  signal: QuotaSignal;
}

/** The reason of a test the quota stopped: `not run: the call volume quota of KGATE_KEY ran out after 251 requests (replenished in 23:59:59)`. */
export function quotaReason(seen: Pick<QuotaSeen, 'variable' | 'afterRequests' | 'signal'>): string {
  const after = seen.afterRequests !== undefined ? ` after ${seen.afterRequests} requests` : '';
  return `${NOT_RUN_QUOTA} ${seen.variable} ran out${after} (${replenishedWords(seen.signal)})`;
}

/** The classes of characters a front server refused, in this process when the run has no breaker folder, by scope. */
const FRONT_REFUSES = new Map<string, FrontRefusal[]>();
/** The quotas seen in this process when the run has no breaker folder, by scope and role. */
const QUOTAS = new Map<string, QuotaSeen>();
/** Requests this process sent when the run has no breaker folder (the run's count, for a quota's message). */
let SENT_HERE = 0;

/**
 * A request not sent, or given up, because the target throttled its path throughout: every retry
 * was throttled again and nothing to the path got through. Its test is reported as not run.
 */
export class Throttled extends Error {
  override name = 'Throttled';
}

/** The failure of a test whose requests the target throttled throughout: it fails the gate (nothing was judged) and catches nothing. */
export function notRunThrottled(check: string, operation: string, reason: string, level: Severity = 'fail'): Failure {
  return {
    check,
    operation,
    title: NOT_RUN_THROTTLED,
    received: `${reason}, so this test did not judge it`,
    documented:
      'every selected test judges its operation; kgate slows down and retries what a target throttles (Retry-After first, else a pace per path that backs off), and a path throttled at every pace cannot be judged',
    origin: 'not-run',
    ...(level === 'warn' ? { level } : {}),
  };
}

/**
 * A response the request fixture could not use: no complete answer (timeout, reset, oversized)
 * or a body that is not JSON. The finding it carries is reported on the response's operation
 * under its fixture check; the test that needed the response cannot judge its own check.
 */
export class ResponseUnusable extends Error {
  override name = 'ResponseUnusable';
  constructor(readonly finding: Failure) {
    super(`${finding.operation} ${finding.title}: ${finding.received} (reported under ${finding.check})`);
  }
}

/**
 * A request a server in front of the interface refused for its size (http/front-limits.ts): beyond
 * what the interface promises, so its answer is judged by nobody and counts for no breaker. The
 * fixture records it for the run's note; whoever sent the request decides what else to do (the
 * generative engine sends a GET's input through the POST variant; a check goes on without it).
 */
export class FrontServerRefused extends Error {
  override name = 'FrontServerRefused';
  constructor(
    readonly refusal: FrontRefusal,
    operation: string,
  ) {
    super(
      refusal.part === 'characters'
        ? `not judged: ${operation} with ${refusal.characters!.join(' and ')} in its URL was refused by the front server${refusal.server ? ` (${refusal.server})` : ''}: ${refusal.status} ${refusal.contentType}, not the interface's answer`
        : `not judged: a ${refusal.bytes}-byte ${refusal.part === 'head' ? 'request line and headers' : 'body'} of ${operation} got ${refusal.status} ${refusal.contentType} from a server in front of the interface (its size limit, beyond what the interface promises)`,
    );
  }
}

/** The failure of a test the run's --max-duration ended: it fails the gate, so a slow target cannot pass by running out the clock. */
export function notRunDeadline(check: string, operation: string): Failure {
  return {
    check,
    operation,
    title: NOT_RUN_DEADLINE,
    received: 'the run reached its --max-duration before this test finished',
    documented: 'every selected test runs within the run time limit (--max-duration, maxDuration)',
    origin: 'error',
  };
}

/**
 * The failure of a test that could not judge its own operation because kgate had given up on that
 * operation (`reason` says why): it fails the gate at the check's weight, so a target that hangs
 * or answers slowly cannot pass the checks it was not given. It proves nothing about the check
 * (origin `not-run`): the failures that name the cause are the operation's own.
 */
export function notRunGivenUp(check: string, operation: string, reason: string, level: Severity = 'fail'): Failure {
  return {
    check,
    operation,
    title: NOT_RUN_GIVEN_UP,
    received: `kgate gave up on ${reason}, so this test did not judge it`,
    documented:
      'every selected test judges its operation; an operation given up on for a hang, broken answers or slowness fails the tests it was not given (severity off for latency-within-budget keeps testing a slow operation, within --max-duration)',
    origin: 'not-run',
    ...(level === 'warn' ? { level } : {}),
  };
}

/**
 * True for the one caller, among every process of the run, that creates `file` first (exclusively,
 * its folder made if need be): a claim by file, as the breaker's and discovery's are.
 */
export function claimFile(file: string): boolean {
  try {
    mkdirSync(dirname(file), { recursive: true });
    closeSync(openSync(file, 'wx'));
    return true;
  } catch {
    return false;
  }
}

/** The other method of `op`'s path (POST evaluate for GET evaluate), when the spec has both. */
export function twinOf(op: Pick<Operation, 'method' | 'path'>): Operation | undefined {
  return OPERATIONS.find((other) => other.path === op.path && other.method !== op.method);
}

/** Forgets the transport failures counted by an earlier run. */
export function clearTransportFailures(dir: string): void {
  for (const name of existsSync(dir) ? readdirSync(dir) : []) {
    if (name.startsWith(BREAKER_FILE_PREFIX)) rmSync(join(dir, name), { force: true });
  }
}

/** Operations a probe may ask (no path parameters, cheap to refuse without a key). */
const PROBE_OPERATIONS = ['hotEvents', 'urlPreview'].map((id) => getOperation(id)!);

/** Key sent for the `wrong` role: well-formed, never valid. */
export const WRONG_KEY = '00000000000000000000000000000000';
const SUBSCRIPTION_HEADER = 'Ocp-Apim-Subscription-Key';

/** The key's field name by the class of its header input (contracts/coverage/classes.ts). */
const KEY_HEADER_NAMES: Record<string, string> = {
  'lower-case': SUBSCRIPTION_HEADER.toLowerCase(),
  'upper-case': SUBSCRIPTION_HEADER.toUpperCase(),
};

/** Accept as HTTP clients send it, by class; absent: none. */
const ACCEPT_VALUES: Record<string, string> = {
  any: '*/*',
  'json-and-text': 'application/json, text/plain, */*',
  browser: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8',
};

/** A POST's Content-Type by class; `absent` sends none. */
const CONTENT_TYPES: Record<string, string | undefined> = {
  form: 'application/x-www-form-urlencoded',
  charset: 'application/x-www-form-urlencoded; charset=UTF-8',
  'upper-case': 'Application/X-WWW-Form-URLEncoded',
  'quoted-charset': 'application/x-www-form-urlencoded;charset="utf-8"',
  absent: undefined,
  'other-type': 'text/plain;charset=UTF-8',
};
/**
 * A throttled request is sent again at most this many times, each after the wait its answer asked
 * for or the path's adaptive pace (which doubles with each throttled answer, so the last retries go
 * at its slowest); still throttled after that, it is persistent (see http/throttle.ts).
 */
export const MAX_THROTTLE_RETRIES = 6;
/**
 * Retries of a throttled request on a path whose pace other answers keep from its slowest (they get
 * through, so it recovers a step with each): the wait for a turn among them, bounded.
 */
export const MAX_CONTENDED_RETRIES = 4 * MAX_THROTTLE_RETRIES;
/** A stated wait longer than this is not waited for: the answer is persistent at once. */
export const MAX_THROTTLE_WAIT_MS = 30_000;
/** The adaptive pace of a process whose Api has none of its run's (compare, tests). */
const PROCESS_THROTTLE = new AdaptivePace();
/** Answers that got through, by throttle key, in this process (evidence that a path serves, see throttledCall). */
const ACCEPTED = new Map<string, number>();
/** Deferred judging of throttled answers, run when one proves persistent (see Api.call). */
const DEFERRED = new WeakMap<ApiResponse, () => ApiResponse>();

/**
 * The request fixture: builds, sends and judges every request of the suite. Each response is
 * judged by the fixture checks (transport, content type, JSON, schema) and what they find is
 * recorded in `findings` under the response's own operation, never thrown at the check that sent
 * the request: a defect is reported once, where it belongs, and the check goes on with the data.
 * Only an unusable response (no complete answer, not JSON) ends the check, as ResponseUnusable.
 */
/** Requests the Apis sent, probes and retries included (the sum of their requestCount). */
export function requestsSent(apis: readonly Api[]): number {
  return apis.reduce((sum, api) => sum + api.requestCount, 0);
}

export class Api {
  /**
   * The last response, for a check that names it. Only the last: a test that sends hundreds of
   * requests (a burst, a page walk) holds only the answers it keeps itself.
   */
  last?: ApiResponse;
  /** What the fixture checks found on the responses, each on the operation that answered. */
  readonly findings: Failure[] = [];
  /** Operation ids this Api sent requests to. */
  readonly reads = new Set<string>();
  /** HTTP requests sent, probes and retries included (what `kgate conform` counts against a quota). */
  requestCount = 0;
  /** When bytes of an answer last came from the target to this Api (epoch ms; see noteBytes). */
  private bytesAt = 0;
  /** Test data items (discovery) the test used. */
  readonly dataUsed = new Set<string>();
  /** Requests and their latencies per operation label, counted where requestCount is. */
  readonly timings: OperationTimings = {};
  /** Requests sent again on a fresh connection (a kept-alive one lost before any byte of the answer), by operation label. */
  readonly retries: Record<string, number> = {};
  /** The check of the test this fixture serves: its test judges its own property, the fixture does not again. */
  ownCheck?: string;
  /** `<check> <operation label>` of every invariant that judged an answer carrying what it reads (see judgedKey). */
  readonly judged = new Set<string>();
  /** Requests a front server refused for their size, and the longest that reached the interface. */
  readonly front: FrontLimits = noFrontLimits();
  /** The coverage items the answers of this fixture judged (contracts/coverage/classify.ts). */
  readonly judgedItems = new Set<string>();
  /** Open items the target refused (the generative phase's, for the plan of the next run). */
  readonly refusedItems = new Set<string>();
  /** The generative phase's: for each cell its generated answers judged, the items of the first case that did. */
  readonly judgedBy: Record<string, string[]> = {};
  /** What the answers said of the envelope: versions, servers, caches, throttling (http/observations.ts). */
  readonly observed: Observations = noObservations();

  constructor(readonly settings: ApiSettings) {}

  /** True when the run has a key for the role. */
  has(role: KeyRole): boolean {
    if (role === 'none' || role === 'wrong') return true;
    return Boolean(this.settings.keys[role]);
  }

  /** Sends one request of `op` and judges the response by the fixture checks (see the class comment). */
  async call(op: Operation, options: CallOptions = {}): Promise<ApiResponse> {
    const response = await this.throttledCall(op, options);
    if (this.settings.judge !== false && !response.throttled) this.coverage(op, options, response);
    if (this.settings.judge !== false && (!response.throttled || isJsonMediaType(response.contentType)))
      this.validate(op, response, options.intent ?? 'ok');
    if (!response.throttled) this.judgeProperties(op, options, response);
    this.last = response;
    return response;
  }

  /** The adaptive pace of throttled paths (the run's, shared by its processes). */
  private get throttle(): AdaptivePace {
    return this.settings.throttle ?? PROCESS_THROTTLE;
  }

  /** The target's own key in the adaptive pace: its throttled count is the paths throttled throughout. */
  private get targetKey(): string {
    return `${this.breakerScope} *`;
  }

  /** A path's key in the adaptive pace: the breaker's scope and the path (a sweep's faults each their own). */
  private throttleKey(op: Operation): string {
    return `${this.breakerScope} ${op.path}`;
  }

  /**
   * Sends a request, and again while the answer signals throttling (http/throttle.ts): the path's
   * adaptive pace slows down (the wait the answer asked for first), and the request goes again
   * when its turn comes. A throttled answer is never judged by the fixture: it is not the
   * interface's answer to the request. Still throttled after MAX_THROTTLE_RETRIES (or asking for a
   * wait over MAX_THROTTLE_WAIT_MS, or on a path stuck at its slowest pace), it is persistent: a
   * 503 that nothing got past at any pace, or a 429 while answers of the path got through before (a
   * lockout, a key the target refuses so), is the answer, judged as such; a 429 on a path that let
   * nothing through is Throttled (not run). http/README.md says why.
   */
  private async throttledCall(op: Operation, options: CallOptions): Promise<ApiResponse> {
    const key = this.throttleKey(op);
    const giveBack = options.retryRateLimited === false;
    for (let attempt = 0; ; attempt++) {
      const state = this.throttle.state(key);
      if (!giveBack && state?.throttledOut)
        throw new Throttled(`${NOT_RUN_THROTTLED}: ${throttledReason(labelOf(op), state.signal, state.throttled)}`);
      const response = await this.once(op, options);
      const signal = response.throttled;
      if (!signal) {
        this.throttle.accepted(key);
        this.throttle.accepted(this.targetKey);
        ACCEPTED.set(key, (ACCEPTED.get(key) ?? 0) + 1);
        return response;
      }
      // The rate-limit tests' bursts are throttled on purpose: the check judges what they met.
      if (giveBack) return response;
      observeThrottle(this.observed, op.path, response.operation, signal);
      const wait = statedWaitMs(signal);
      const patient = wait === undefined || wait <= MAX_THROTTLE_WAIT_MS;
      // A wait longer than kgate waits holds no one back: this request is persistent at once.
      const after = this.throttle.throttled(key, { ...signal }, patient ? wait : undefined, {
        path: op.path,
        acceptedBefore: ACCEPTED.get(key) ?? 0,
      });
      const judged = DEFERRED.get(response)!;
      const persistent = () => {
        this.observed.throttled[op.path]!.persistent = true;
        return judged();
      };
      // A path whose throttling proved persistent: its throttled answers are answers, judged at once.
      if (after.persistent) return persistent();
      const gotThrough = after.accepted + after.acceptedBefore > 0;
      // A target that throttled two paths throughout and let nothing through anywhere throttles
      // everything: a third path's second throttled answer is as persistent as six.
      const wide = this.throttle.state(this.targetKey);
      const hopeless = !gotThrough && wide !== undefined && wide.throttled >= 2 && wide.accepted === 0;
      // The path is stuck when, whoever sent them, more answers than a request's retries came back
      // throttled in a row while its pace slowed to near its slowest: concurrent requests then
      // decide together instead of each waiting out retries of its own behind the others.
      const slowest = after.intervalMs >= SLOWEST_INTERVAL_MS / 2;
      const stuck = slowest && (after.sinceAccepted ?? 0) > MAX_THROTTLE_RETRIES;
      // On a path others' answers get through, a pace kept fast by them is contention, not a
      // lockout: the request keeps its turn (up to MAX_CONTENDED_RETRIES) until the pace is slowest.
      const contended = gotThrough && !slowest && attempt < MAX_CONTENDED_RETRIES;
      if ((attempt < (hopeless ? 1 : MAX_THROTTLE_RETRIES) || contended) && patient && !stuck) continue;
      // At the path's slowest pace, still throttled: a 503 nothing ever got past is a server
      // failing; a 429 where answers got through before is a lockout, or a key refused so.
      if (signal.status === 503) {
        if (!gotThrough && (slowest || !patient)) {
          this.throttle.mark(key, 'persistent');
          return persistent();
        }
        return judged();
      }
      if (gotThrough) {
        if (slowest && patient) {
          this.throttle.mark(key, 'persistent');
          return persistent();
        }
        return judged();
      }
      this.throttle.mark(key, 'throttledOut');
      this.throttle.throttled(this.targetKey, signal, undefined, { path: '*' });
      throw new Throttled(`${NOT_RUN_THROTTLED}: ${throttledReason(labelOf(op), signal, after.throttled)}`);
    }
  }

  /**
   * Judges the answer of a request meant to be valid (intent `ok`, the full key, parameters as
   * given) by the invariants of the enabled checks, each failure recorded under its property's id
   * on the operation that answered.
   */
  private judgeProperties(op: Operation, options: CallOptions, response: ApiResponse): void {
    const checks = this.settings.propertyChecks;
    if (!checks || checks.size === 0 || options.rawBody !== undefined || options.rawQuery !== undefined) return;
    const valid = (options.intent ?? 'ok') === 'ok' && (options.key ?? 'full') === 'full';
    if (!valid || response.status < 200 || response.status >= 300) return;
    if (this.settings.judge === false) {
      const result = validateResponse(op.operationId, response.status, response.contentType, response.json);
      if (!result.documented || !result.valid) return;
    }
    const answer = {
      operationId: op.operationId,
      operation: response.operation,
      params: options.params ?? {},
      ...(options.pathParams ? { pathParams: options.pathParams } : {}),
      valid,
      status: response.status,
      json: response.json,
      curl: response.curl,
      excerpt: response.excerpt,
    };
    const enabled = (check: string) => checks.has(check) && check !== this.ownCheck;
    for (const finding of judgeAnswer(answer, enabled, this.settings.strict)) this.record(finding);
    for (const check of answerReadBy(answer, enabled)) this.judged.add(judgedKey(check, response.operation));
  }

  /**
   * The coverage items an answer judged: the classes of the request's values (a request built from
   * its parameters, with the full key), by what its answer can speak for (classify.ts). A request
   * sent raw is classed by whoever wrote it (the generative engine).
   */
  private coverage(op: Operation, options: CallOptions, response: ApiResponse): void {
    if (options.rawBody !== undefined || options.rawQuery !== undefined || (options.key ?? 'full') !== 'full') return;
    const items = judgedByAnswer(
      classifyRequest({
        operationId: op.operationId,
        pairs: Object.entries(options.params ?? {}),
        ...(options.pathParams ? { pathParams: options.pathParams } : {}),
        encoding: 'plus',
        ...(options.contentType ? { contentType: options.contentType } : {}),
      }),
      response.status,
    );
    if (items.length === 0) return;
    response.items = items;
    for (const item of items) this.judgedItems.add(item);
  }

  /** Counts a request sent a second time on a fresh connection: in the request total and the summary's notes. */
  private countRetry(operation: string): void {
    this.requestCount++;
    // The lost attempt ended before any byte of an answer: a request of (about) no time.
    recordTiming(this.timings, operation, 0);
    this.retries[operation] = (this.retries[operation] ?? 0) + 1;
  }

  /**
   * Takes over the stray bytes that arrived on connections to this target after an exchange had
   * ended (the exchange's own test may be over by then): each is reported on the operation whose
   * answer it followed, whichever test is running now.
   */
  private takeStray(): void {
    if (this.settings.judge === false || this.settings.disabledChecks.has('response-is-framed')) return;
    for (let i = LATE_STRAY.length - 1; i >= 0; i--) {
      if (LATE_STRAY[i]!.baseUrl !== this.settings.baseUrl) continue;
      this.record(LATE_STRAY[i]!.finding);
      LATE_STRAY.splice(i, 1);
    }
  }

  /** Records a fixture finding once per test (the same finding from several requests is one). */
  private record(finding: Failure): void {
    const same = (other: Failure) =>
      other.check === finding.check &&
      other.operation === finding.operation &&
      other.title === finding.title &&
      other.pointer === finding.pointer;
    if (!this.findings.some(same)) this.findings.push(finding);
  }

  /** Builds the request that `call` would send (used for curl lines and by checks that need the URL). */
  build(op: Operation, options: CallOptions = {}): SentRequest {
    let path = op.path;
    for (const [name, value] of Object.entries(options.pathParams ?? {})) {
      path = path.replace(`{${name}}`, options.pathEscaped ? escapeEveryByte(value) : encodeURIComponent(value));
    }
    const headers: Record<string, string> = {};
    const forms = options.headerForms ?? {};
    const key = this.keyFor(options.key ?? 'full');
    if (key !== undefined) headers[KEY_HEADER_NAMES[forms.keyHeader ?? ''] ?? SUBSCRIPTION_HEADER] = key;
    const accept = ACCEPT_VALUES[forms.accept ?? ''];
    if (accept) headers.Accept = accept;
    const params = new URLSearchParams(options.params ?? {}).toString();
    if (op.method === 'post') {
      const type = options.contentType ?? CONTENT_TYPES[forms.contentType ?? 'form'];
      if (type !== undefined) headers['Content-Type'] = type;
      const body = options.rawBody !== undefined ? String(options.rawBody) : params;
      return { method: 'POST', url: `${this.settings.baseUrl}${path}`, headers, body };
    }
    const query = options.rawQuery ?? params;
    return { method: 'GET', url: `${this.settings.baseUrl}${path}${query ? `?${query}` : ''}`, headers };
  }

  private keyFor(role: KeyRole): string | undefined {
    if (role === 'none') return undefined;
    if (role === 'wrong') return WRONG_KEY;
    return this.settings.keys[role];
  }

  /** What the breaker's lines are shared by: the settings' breakerScope, else the base URL. */
  private get breakerScope(): string {
    return this.settings.breakerScope ?? this.settings.baseUrl;
  }

  private breakerFile(scope: string): string | undefined {
    if (!this.settings.breakerDir) return undefined;
    const key = `${this.settings.breakerDir}\u0000${scope}`;
    let file = BREAKER_FILES.get(key);
    if (!file) {
      const id = createHash('sha1').update(scope).digest('hex').slice(0, 12);
      file = join(this.settings.breakerDir, `${BREAKER_FILE_PREFIX}${id}`);
      // Hashing three scopes per request showed in profiles of generated traffic; the names never change.
      if (BREAKER_FILES.size < 10_000) BREAKER_FILES.set(key, file);
    }
    return file;
  }

  private breakerLines(scope: string): string[] {
    const file = this.breakerFile(scope);
    return file && existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : [];
  }

  /** Throws TargetBroken when earlier requests broke the target (or this operation) often enough. */
  private checkBreaker(op: Operation): void {
    const down = this.breakerLines(`${this.breakerScope} down`);
    if (down.length > 0) throw new TargetBroken(`not run: the target stopped answering (${down[0]})`);
    const state = this.breakerState(op);
    if (state && !(state.slowness && this.settings.readsSlowOperations))
      throw new TargetBroken(`not judged: kgate gave up on ${state.reason}`);
  }

  /** The file every process of the run appends a byte to per request sent (the run's count), if the run has a breaker folder. */
  private get sentFile(): string | undefined {
    return this.settings.breakerDir ? join(this.settings.breakerDir, '.requests-sent') : undefined;
  }

  /** Counts one request of the run (for the message of a quota that runs out). */
  private countSent(): void {
    const file = this.sentFile;
    if (!file) {
      SENT_HERE++;
      return;
    }
    try {
      appendFileSync(file, '.');
    } catch {
      // The count is for a message only.
    }
  }

  /** Requests the run sent so far. */
  private sentSoFar(): number | undefined {
    const file = this.sentFile;
    if (!file) return SENT_HERE;
    try {
      return statSync(file).size;
    } catch {
      return undefined;
    }
  }

  /** Records a class of characters the front server refused, for every process of the run. */
  private frontRefuses(refusal: FrontRefusal): void {
    const scope = `${this.breakerScope} front refuses`;
    const file = this.breakerFile(scope);
    if (!file) {
      FRONT_REFUSES.set(scope, [...(FRONT_REFUSES.get(scope) ?? []), refusal]);
      return;
    }
    appendFileSync(file, `${JSON.stringify(refusal)}\n`);
  }

  /** The refusal a request would meet for characters of its URL the front server refused before, or undefined. */
  private refusedCharacters(url: string, method: string): FrontRefusal | undefined {
    const scope = `${this.breakerScope} front refuses`;
    const known: FrontRefusal[] = this.settings.breakerDir
      ? this.breakerLines(scope).flatMap((line) => {
          try {
            return [JSON.parse(line) as FrontRefusal];
          } catch {
            return [];
          }
        })
      : (FRONT_REFUSES.get(scope) ?? []);
    if (known.length === 0) return undefined;
    const classes = characterClassesOf(url);
    const met = known.find((refusal) => refusal.characters?.some((name) => classes.includes(name)));
    return met && { ...met, method, characters: met.characters!.filter((name) => classes.includes(name)) };
  }

  /** The used-up quota of a key role, as every process of the run knows it, or undefined. */
  quotaOf(role: KeyRole): QuotaSeen | undefined {
    const scope = `${this.breakerScope} quota ${role}`;
    if (!this.settings.breakerDir) return QUOTAS.get(scope);
    const [first] = this.breakerLines(scope);
    if (first === undefined) return undefined;
    try {
      return JSON.parse(first) as QuotaSeen;
    } catch {
      return undefined;
    }
  }

  /** Records that the quota of `role`'s key ran out (the first answer that said so, for every process); returns what is known. */
  private quotaRanOut(role: KeyRole, signal: QuotaSignal): QuotaSeen {
    const known = this.quotaOf(role);
    if (known) return known;
    // The request that met the quota is counted already: the run had sent the ones before it.
    const sent = this.sentSoFar();
    const seen: QuotaSeen = {
      role,
      variable: KEY_VARIABLE[role] ?? role,
      ...(sent !== undefined ? { afterRequests: Math.max(0, sent - 1) } : {}),
      signal,
    };
    const scope = `${this.breakerScope} quota ${role}`;
    const file = this.breakerFile(scope);
    if (!file) QUOTAS.set(scope, seen);
    else appendFileSync(file, `${JSON.stringify(seen)}\n`);
    return this.quotaOf(role) ?? seen;
  }

  /** Throws QuotaSpent when the quota of the key a request would carry ran out earlier in the run. */
  private checkQuota(role: KeyRole): void {
    if (role === 'exhausted' || role === 'none' || role === 'wrong') return;
    const seen = this.quotaOf(role);
    if (seen) throw new QuotaSpent(quotaReason(seen));
  }

  /** Why `op`'s path counts as throttled throughout in this run (see throttledCall), or undefined. */
  throttledOutOn(op: Operation): string | undefined {
    const state = this.throttle.state(this.throttleKey(op));
    return state?.throttledOut ? throttledReason(labelOf(op), state.signal, state.throttled) : undefined;
  }

  /**
   * Why kgate gave up on `op` in this run, in every worker (read from the shared breaker): a hang,
   * transport failures, or answers over its latency budget. Undefined while it is still judged
   * (also when the whole target stopped answering: that is no one operation's failure).
   */
  givenUpOn(op: Pick<Operation, 'operationId' | 'method' | 'path'>): string | undefined {
    return this.breakerState(op)?.reason;
  }

  private breakerState(
    op: Pick<Operation, 'operationId' | 'method' | 'path'>,
  ): { reason: string; slowness: boolean } | undefined {
    const own = this.breakerLines(`${this.breakerScope} ${op.operationId}`);
    const slow = own.filter((line) => line.startsWith('latency-within-budget'));
    const broken = own.filter((line) => !line.startsWith('latency-within-budget'));
    if (broken.length >= BROKEN_OPERATION_LIMIT || broken.some((line) => line.startsWith('responds-within-timeout'))) {
      return {
        reason: `${labelOf(op)}: ${broken.length} earlier request(s) to it failed at the transport level (${describeLines(broken)})`,
        slowness: false,
      };
    }
    if (slow.length >= SLOW_OPERATION_LIMIT) {
      return {
        reason: `${labelOf(op)}: ${slow.length} earlier answers of it took longer than its latency budget (latency-within-budget)`,
        slowness: true,
      };
    }
    // One slow answer of its own is enough when the other method of its path was given up on for
    // slowness: the path is slow, not this answer unlucky.
    const twin = twinOf(op);
    if (slow.length > 0 && twin) {
      const twinSlow = this.breakerLines(`${this.breakerScope} ${twin.operationId}`).filter((line) =>
        line.startsWith('latency-within-budget'),
      );
      if (twinSlow.length >= SLOW_OPERATION_LIMIT) {
        return {
          reason: `${labelOf(op)}: an earlier answer of it, and ${twinSlow.length} of ${labelOf(twin)}, took longer than the latency budget (latency-within-budget)`,
          slowness: true,
        };
      }
    }
    return undefined;
  }

  /**
   * True for the one caller, among every worker of the run, that claims `name` first (an exclusive
   * file in the breaker folder; within this process without one).
   */
  private claim(name: string): boolean {
    const file = this.breakerFile(`${this.breakerScope} claim ${name}`);
    if (!file) {
      if (CLAIMED.has(`${this.breakerScope} ${name}`)) return false;
      CLAIMED.add(`${this.breakerScope} ${name}`);
      return true;
    }
    return claimFile(file);
  }

  /**
   * Sends `options` to the other method of `op`'s path once per operation and run, while a request
   * to `op` is going unanswered (see TWIN_PROBE_AFTER_MS): with the twin's own deadline, counted
   * like any request of the test, its transport and latency judged (its answer is no test's). A
   * twin that hangs too is given up on with its own finding, one deadline after this request's;
   * one that answers goes on being judged.
   */
  private async probeTwin(op: Operation, options: CallOptions): Promise<void> {
    const twin = twinOf(op);
    if (!twin || options.rawBody !== undefined || options.rawQuery !== undefined || options.contentType) return;
    if (this.givenUpOn(twin) !== undefined || !this.claim(`twin ${twin.operationId}`)) return;
    try {
      await this.once(twin, options, false);
    } catch (error) {
      // Discovery judges nothing, but a hang it found on the twin is the twin's own failure.
      if (error instanceof ResponseUnusable && this.settings.judge === false) this.findings.push(error.finding);
    }
  }

  /**
   * Waits for a request's slot in the run's pace; a request the run's request budget has no room for
   * is not sent (TargetBroken: its test is skipped with the reason, its cell not judged).
   */
  private async paced(path: string): Promise<void> {
    try {
      await this.settings.pace?.wait(path);
    } catch (error) {
      if (error instanceof RequestBudgetSpent) throw new TargetBroken(error.message);
      throw error;
    }
  }

  /** Throws DeadlineReached once the run's --max-duration has passed. */
  private checkDeadline(): void {
    const at = this.settings.deadlineAt;
    if (at !== undefined && Date.now() >= at)
      throw new DeadlineReached(`${NOT_RUN_DEADLINE}: the run reached its --max-duration`);
  }

  /** The longest an answer of `op` may take before latency-within-budget names it. */
  latencyBudgetOf(op: Operation, timeoutMs: number): number {
    return this.settings.latencyBudgetMs?.[op.path] ?? Math.round(timeoutMs * LATENCY_SHARE);
  }

  /** Counts a transport-level failure for the breaker. */
  private countBroken(op: Operation, check: string): void {
    if (!TRANSPORT_CHECKS.has(check) && check !== 'latency-within-budget') return;
    const file = this.breakerFile(`${this.breakerScope} ${op.operationId}`);
    if (!file) return;
    mkdirSync(dirname(file), { recursive: true });
    appendFileSync(file, `${check} ${op.operationId}\n`);
  }

  /**
   * Asks the target for something cheap on another operation than `op` (without a key: a 401 is a
   * fine answer). Not a byte back within PROBE_TIMEOUT_MS, while the request to `op` has had none
   * either (`answering` says whether it has since), means the whole target is down: it is marked
   * so, every further request is skipped at once, and the description is returned. Any answer, or
   * any byte of one however slow, means only `op` is slow or broken (undefined).
   */
  private async probeTarget(
    op: Operation,
    problem: string,
    answering: () => boolean = () => false,
  ): Promise<string | undefined> {
    const other = PROBE_OPERATIONS.find((candidate) => candidate.operationId !== op.operationId)!;
    // A probe the request budget has no room for is not sent: it concludes nothing.
    if (
      !(await this.paced(other.path).then(
        () => true,
        () => false,
      ))
    )
      return undefined;
    this.requestCount++;
    const started = performance.now();
    const since = Date.now();
    try {
      const answer = await sendHttp({
        method: 'GET',
        url: `${this.settings.baseUrl}${other.path}`,
        headers: {},
        timeoutMs: Math.min(PROBE_TIMEOUT_MS, this.settings.timeoutMs),
        maxBytes: 64 * 1024,
        onSent: this.settings.pace && (() => this.settings.pace!.sent(other.path)),
        beforeRetry: this.settings.pace && ((signal) => this.settings.pace!.wait(other.path, signal)),
      });
      if (answer.retried) this.countRetry(labelOf(other));
      return undefined;
    } catch (error) {
      if (error instanceof RequestBudgetSpent) return undefined;
      if (!(error instanceof TransportError)) throw error;
      // Bytes that arrive slowly are a slow target, not a dead one: on this request, on the probe,
      // or on any other request of the run while the probe waited (a target busy sending others
      // its answers, a byte at a time, holds back the heads of new ones).
      if (error.received > 0 || answering() || this.bytesSince(since)) return undefined;
      const down = `${labelOf(op)} ${problem}, and ${labelOf(other)} did not answer a probe either: ${error.message}`;
      const file = this.breakerFile(`${this.breakerScope} down`);
      if (file) {
        mkdirSync(dirname(file), { recursive: true });
        appendFileSync(file, `${down}\n`);
      }
      return down;
    } finally {
      recordTiming(this.timings, labelOf(other), performance.now() - started);
    }
  }

  /**
   * Marks that bytes of an answer came from the target: in this Api, and for every process of the
   * run in the modification time of a file of the breaker folder (touched at most every
   * BYTES_MARK_MS by each Api).
   */
  private noteBytes(): void {
    const now = Date.now();
    if (now - this.bytesAt < BYTES_MARK_MS) return;
    this.bytesAt = now;
    const file = this.breakerFile(`${this.breakerScope} bytes`);
    if (!file) return;
    try {
      utimesSync(file, now / 1000, now / 1000);
    } catch {
      try {
        mkdirSync(dirname(file), { recursive: true });
        appendFileSync(file, '');
      } catch {
        // A mark that cannot be written leaves the probe to decide alone.
      }
    }
  }

  /** Whether bytes came from the target since `since` (epoch ms), in this Api or any process of the run. */
  private bytesSince(since: number): boolean {
    if (this.bytesAt >= since) return true;
    const file = this.breakerFile(`${this.breakerScope} bytes`);
    if (!file) return false;
    try {
      return statSync(file).mtimeMs >= since;
    } catch {
      return false;
    }
  }

  /** Records a fixture finding that leaves the response unusable, counts it for the breaker, and throws. */
  private unusable(op: Operation, finding: Failure): never {
    this.countBroken(op, finding.check);
    if (this.settings.judge !== false) this.record(finding);
    throw new ResponseUnusable(finding);
  }

  /** Sends one request of `op` (see call); `ownRequest` false for the probe of a twin (see probeTwin). */
  private async once(op: Operation, options: CallOptions, ownRequest = true): Promise<ApiResponse> {
    this.takeStray();
    const request = this.build(op, options);
    const curl = curlLine(request);
    const operation = labelOf(op);
    this.checkDeadline();
    this.checkBreaker(op);
    const role = options.key ?? 'full';
    this.checkQuota(role);
    // A class of characters the front server refused: not sent there again.
    const refused = this.refusedCharacters(request.url, request.method);
    if (refused) throw new FrontServerRefused(refused, operation);
    // A twin's probe is the breaker's request, not a read of the test's.
    if (ownRequest) this.reads.add(op.operationId);
    const body = op.method === 'post' && options.rawBody !== undefined ? options.rawBody : request.body;
    let raw: Awaited<ReturnType<typeof sendHttp>>;
    const ownTimeoutMs = options.timeoutMs ?? this.settings.timeoutMs;
    const paced = options.unpaced ? undefined : this.settings.pace;
    if (paced) await this.paced(op.path);
    // A throttled path's adaptive pace (the rate-limit tests' bursts go as they must: unpaced).
    if (
      options.retryRateLimited !== false &&
      !(await this.throttle.wait(this.throttleKey(op), this.settings.deadlineAt))
    )
      throw new DeadlineReached(`${NOT_RUN_DEADLINE}: the run reached its --max-duration while its path was throttled`);
    this.checkDeadline();
    this.checkBreaker(op);
    this.checkQuota(role);
    // No request outlives the run: its deadline is cut to the time the run has left.
    const left =
      this.settings.deadlineAt === undefined ? Number.POSITIVE_INFINITY : this.settings.deadlineAt - Date.now();
    const timeoutMs = Math.max(1, Math.min(ownTimeoutMs, left));
    this.requestCount++;
    this.countSent();
    const started = performance.now();
    // A request unanswered after PROBE_AFTER_MS makes kgate probe the target: a dead target is
    // judged in a few seconds whatever the deadline, while one slow operation keeps its own deadline.
    const controller = new AbortController();
    let probed = false;
    // Slow is not down: once a byte of the answer arrived, the target is there, and the answer is
    // judged by its deadline alone.
    let answering = false;
    const watchdog =
      timeoutMs > PROBE_AFTER_MS + PROBE_TIMEOUT_MS
        ? setTimeout(() => {
            if (answering) return;
            probed = true;
            void this.probeTarget(op, `had not answered after ${PROBE_AFTER_MS} ms`, () => answering).then((down) => {
              if (down) controller.abort(new Error(`no complete response: ${down}`));
            });
          }, PROBE_AFTER_MS)
        : undefined;
    let twin: Promise<void> | undefined;
    const twinWatch =
      ownRequest && timeoutMs >= TWIN_PROBE_MIN_DEADLINE_MS
        ? setTimeout(
            () => {
              twin = this.probeTwin(op, options);
            },
            Math.min(TWIN_PROBE_AFTER_MS, timeoutMs / 2),
          )
        : undefined;
    // Another request (in any worker) may find this operation hung or the target down meanwhile,
    // or the run may reach its deadline: each ends this wait within BREAKER_POLL_MS.
    let givenUp: Error | undefined;
    const watch = setInterval(() => {
      try {
        this.checkDeadline();
        this.checkBreaker(op);
      } catch (error) {
        givenUp = error as Error;
        controller.abort(givenUp);
      }
    }, BREAKER_POLL_MS);
    try {
      raw = await sendHttp({
        method: request.method,
        url: request.url,
        headers: request.headers,
        body,
        timeoutMs,
        maxBytes: this.settings.maxBytes,
        signal: controller.signal,
        onSent: paced && (() => paced.sent(op.path)),
        onFirstByte: () => {
          answering = true;
        },
        onBytes: () => this.noteBytes(),
        beforeRetry: paced && ((signal) => paced.wait(op.path, signal)),
        onStray: (detail) => {
          // Bounded: a target that sends stray bytes after every answer needs only a few reports.
          if (LATE_STRAY.length < 100)
            LATE_STRAY.push({ baseUrl: this.settings.baseUrl, finding: strayFinding(operation, curl, detail) });
        },
      });
    } catch (error) {
      if (error instanceof RequestBudgetSpent) throw new TargetBroken(error.message);
      if (!(error instanceof TransportError)) throw error;
      if (error.retried) this.countRetry(operation);
      if (givenUp) throw givenUp;
      if (error.problem === 'timeout' && timeoutMs < ownTimeoutMs) {
        throw new DeadlineReached(`${NOT_RUN_DEADLINE}: the run reached its --max-duration during a request`);
      }
      const finding = transportFailure(error, operation, curl);
      // Only a request that got nothing back asks whether the whole target is gone.
      if (!probed && WHOLE_TARGET_CHECKS.has(finding.check) && error.received === 0) {
        await this.probeTarget(
          op,
          finding.check === 'connection-completes' ? 'broke the connection' : 'did not answer in time',
        );
      }
      this.unusable(op, finding);
    } finally {
      clearTimeout(watchdog);
      clearTimeout(twinWatch);
      clearInterval(watch);
      recordTiming(this.timings, operation, performance.now() - started);
      // The twin's answer (or hang) is this test's to report: the test does not end before it.
      await twin;
    }
    const judged = this.settings.judge !== false;
    if (raw.retried) this.countRetry(operation);
    this.takeStray();
    if (raw.stray !== undefined && judged && !this.settings.disabledChecks.has('response-is-framed'))
      this.record(strayFinding(operation, curl, raw.stray));
    // A key whose quota ran out: the answer is the deployment's budget ending, not its answer to the
    // request, and nothing more is sent with that key (the exhausted key's 403 is what its checks ask).
    const quota = role !== 'exhausted' && role !== 'none' && role !== 'wrong' ? quotaSignal(raw) : undefined;
    if (quota) {
      observeAnswer(this.observed, raw, { method: request.method, sent: raw.sent });
      throw new QuotaSpent(quotaReason(this.quotaRanOut(role, quota)));
    }
    const refusal = frontRefusal(request.method, raw.sent, raw, request.url);
    if (refusal) {
      recordRefusal(this.front, refusal);
      if (refusal.characters) this.frontRefuses(refusal);
      throw new FrontServerRefused(refusal, operation);
    }
    observeAnswer(this.observed, raw, { method: request.method, sent: raw.sent });
    const signal = throttleSignal(raw);
    if (signal) {
      // Throttling is not the interface's answer to the request: nothing judges it here. The caller
      // retries it, hands it to the rate-limit check, or judges it once it proved persistent.
      const text = raw.body.toString('utf8');
      const throttled: ApiResponse = {
        operation,
        status: raw.status,
        headers: raw.headers,
        contentType: raw.headers['content-type'],
        text,
        json: parseQuietly(raw.body, text),
        elapsedMs: raw.elapsedMs,
        request,
        curl,
        excerpt: excerpt(text),
        throttled: signal,
      };
      DEFERRED.set(throttled, () => this.judgeAnswer(op, raw, request, curl, ownTimeoutMs));
      return throttled;
    }
    return this.judgeAnswer(op, raw, request, curl, ownTimeoutMs);
  }

  /** Judges an answer by the fixture checks (latency, size, content type, JSON) and makes it the response. */
  private judgeAnswer(
    op: Operation,
    raw: Awaited<ReturnType<typeof sendHttp>>,
    request: SentRequest,
    curl: string,
    ownTimeoutMs: number,
  ): ApiResponse {
    const operation = labelOf(op);
    const judged = this.settings.judge !== false;
    recordPassed(this.front, raw.sent);
    const budget = this.latencyBudgetOf(op, ownTimeoutMs);
    if (raw.elapsedMs > budget && !this.settings.disabledChecks.has('latency-within-budget')) {
      this.countBroken(op, 'latency-within-budget');
      // Named even when discovery asked: slowness gives the operation up, so it must show on it.
      this.record({
        check: 'latency-within-budget',
        operation,
        title: 'answer took longer than the latency budget',
        received: `status ${raw.status} after ${Math.round(raw.elapsedMs)} ms`,
        documented: `an answer within ${budget} ms (${this.settings.latencyBudgetMs?.[op.path] !== undefined ? 'latencyBudgetMs of the configuration file' : `${LATENCY_SHARE * 100} % of the ${ownTimeoutMs} ms deadline`}); slower answers come close to failing responds-within-timeout`,
        curl,
        origin: 'fixture',
        level: this.settings.strict || this.settings.severity?.['latency-within-budget'] === 'fail' ? 'fail' : 'warn',
      });
    }
    const beyond = jsonLimitPassed(raw.body);
    if (beyond !== undefined) {
      this.unusable(op, {
        check: 'body-within-size-cap',
        operation,
        title: BEYOND_JSON_LIMIT[beyond.limit],
        received: `status ${raw.status}, ${beyond.reason}`,
        documented: `a response body within the harness limits (${this.settings.maxBytes} bytes, nesting depth ${JSON_LIMITS.depth}, ${JSON_LIMITS.members} members per object, ${JSON_LIMITS.containers} arrays and objects)`,
        excerpt: excerpt(raw.body.subarray(0, 400).toString('utf8')),
        curl,
        origin: 'fixture',
      });
    }
    const text = raw.body.toString('utf8');
    const contentType = raw.headers['content-type'];
    const response: ApiResponse = {
      operation,
      status: raw.status,
      headers: raw.headers,
      contentType,
      text,
      json: undefined,
      elapsedMs: raw.elapsedMs,
      request,
      curl,
      excerpt: excerpt(text),
    };
    if (judged && !this.settings.disabledChecks.has('content-type-is-json') && !isJsonMediaType(contentType)) {
      this.countBroken(op, 'content-type-is-json');
      this.record({
        check: 'content-type-is-json',
        operation,
        title: 'response is not labelled JSON',
        received: `status ${raw.status}, Content-Type ${show(contentType ?? null)}`,
        documented: 'application/json (every response of the interface is JSON)',
        excerpt: response.excerpt,
        curl,
        origin: 'fixture',
      });
    }
    try {
      response.json = JSON.parse(text);
    } catch (error) {
      if (this.settings.disabledChecks.has('body-is-json')) return response;
      this.unusable(op, {
        check: 'body-is-json',
        operation,
        title: 'response body is not valid JSON',
        received: `status ${raw.status}, ${raw.body.length} bytes that do not parse (${(error as Error).message})`,
        documented: 'a JSON body',
        excerpt: response.excerpt,
        curl,
        origin: 'fixture',
      });
    }
    return response;
  }

  /** Judges a response against the spec: undocumented status, schema errors, missing expected fields. */
  private validate(op: Operation, response: ApiResponse, intent: 'ok' | 'error'): void {
    if (this.settings.disabledChecks.has('response-matches-spec')) return;
    const result = validateResponse(op.operationId, response.status, response.contentType, response.json);
    const base = {
      check: 'response-matches-spec',
      operation: response.operation,
      excerpt: response.excerpt,
      curl: response.curl,
      origin: 'fixture',
      ...(response.items ? { items: response.items } : {}),
    } as const;
    if (!result.documented) {
      if (intent === 'error' && response.status >= 400 && response.status < 500) return;
      this.record({
        ...base,
        title: 'status not documented for this operation',
        received: `status ${response.status}`,
        documented:
          intent === 'error'
            ? 'a documented status, or any 4xx where the interface documents no error for the case'
            : 'a status the spec documents for this operation',
      });
      return;
    }
    if (!result.valid) {
      const [first, ...rest] = result.errors;
      const more = rest.length + (result.unlisted?.errors ?? 0);
      this.record({
        ...base,
        title: `status ${response.status} body does not match the spec`,
        received: `${first ? `${first.message} (${first.keyword})` : 'invalid body'}${more ? ` and ${more} more error(s)` : ''}`,
        documented: first ? `schema ${first.schemaPath}` : 'the documented schema',
        pointer: first?.pointer ?? '',
      });
    }
    for (const warning of result.warnings) {
      this.record({
        ...base,
        title: `status ${response.status} body lacks a field the spec expects`,
        received: warning.message,
        documented: `expected (documented, but the real service omitted it): missing is a warning${this.settings.strict ? '; --strict makes it a failure' : ', a failure under --strict'}`,
        pointer: warning.pointer,
        level: this.settings.strict ? 'fail' : 'warn',
      });
    }
  }
}

/** The title of body-within-size-cap for a body beyond each limit of json-bounds.ts. */
const BEYOND_JSON_LIMIT: Record<keyof JsonLimits, string> = {
  depth: 'response body nested deeper than the limit',
  members: 'response body holds an object wider than the limit',
  containers: 'response body holds more arrays and objects than the limit',
};

/** Stray bytes reported after their exchange ended, waiting for the next request to the same target. */
const LATE_STRAY: { baseUrl: string; finding: Failure }[] = [];

/** The response-is-framed finding for bytes that followed an answer of `operation`. */
function strayFinding(operation: string, curl: string, detail: string): Failure {
  return {
    check: 'response-is-framed',
    operation,
    title: 'bytes after the end of an answer',
    received: `${detail}; kgate closed the connection instead of reading them as the next answer`,
    documented: 'each answer ends where its Content-Length or chunked framing says, and nothing follows it unasked',
    curl,
    origin: 'fixture',
  };
}

/** Renders breaker lines (`check operationId`) as a short list of distinct causes. */
function describeLines(lines: string[]): string {
  return [...new Set(lines)].join(', ');
}

/** A body parsed as JSON, or undefined (also when it is beyond the limits of json-bounds.ts). */
function parseQuietly(body: Buffer, text: string): unknown {
  if (beyondJsonLimits(body) !== undefined) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Why a path counts as throttled throughout: `GET /x: 7 answers were 503 text/html without Retry-After...`. */
function throttledReason(operation: string, signal: ThrottleSignal | undefined, count: number): string {
  return `the target throttled ${operation} throughout: ${count} answer(s) ${signal ? describeSignal(signal) : 'throttled'}, at every pace kgate slowed to, and nothing to it got through`;
}

/** True for `application/json` and `application/<x>+json`, with any parameters. */
export function isJsonMediaType(contentType: string | undefined): boolean {
  if (!contentType) return false;
  const type = contentType.split(';')[0]!.trim().toLowerCase();
  return type === 'application/json' || /^application\/[a-z0-9.+-]+\+json$/.test(type);
}

function transportFailure(error: TransportError, operation: string, curl: string): Failure {
  const byProblem = {
    timeout: {
      check: 'responds-within-timeout',
      title: 'no complete response within the deadline',
      documented: 'a complete response within the per-request deadline (--timeout)',
    },
    connection: {
      check: 'connection-completes',
      title: 'connection failed before a complete response',
      documented: 'a complete HTTP response',
    },
    'too-large': {
      check: 'body-within-size-cap',
      title: 'response body larger than the cap',
      documented: 'a response body within the harness size cap',
    },
  } as const;
  const known = byProblem[error.problem];
  const status = error.status === undefined ? '' : `status ${error.status}, `;
  return { ...known, operation, received: `${status}${error.message}`, curl, origin: 'fixture' };
}

/** Looks an operation up by id; the suite's own ids are always in the spec. */
export function op(operationId: string): Operation {
  const found = getOperation(operationId);
  if (!found) throw new Error(`operation ${operationId} is not in the spec`);
  return found;
}
