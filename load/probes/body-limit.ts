import { performance } from 'node:perf_hooks';
import { beyondJsonLimits } from '../../contracts/json-bounds.ts';
import { TransportError } from '../../http/client.ts';
import type { ResponseValidator } from '../runner.ts';
import { exchange } from '../target.ts';
import { targetUrl } from '../target-url.ts';

/** Target of a body-limit probe. */
export interface BodyLimitProbeOptions {
  baseUrl: string;
  key?: string;
  /** Receives one line per request. */
  log?: (line: string) => void;
  /** Milliseconds before one request counts as unanswered (default 30 s). */
  timeoutMs?: number;
  /** Validates the answer just over the limit against the spec (the interface's own error, or not). */
  validate?: ResponseValidator;
}

/** How the target answered one body size. */
export type BodyOutcome =
  | { kind: 'status'; status: number; contentType?: string; body?: string }
  | { kind: 'reset'; detail: string }
  | { kind: 'timeout'; detail: string };

/** What the body-limit probe found. */
export interface BodyLimitProbeResult {
  /** Largest body size in bytes the target accepted; null when no limit was found below the upper bound. */
  limitBytes: number | null;
  requests: number;
  /** What the target answered one byte over the limit: a status code, or 'reset' when it closed before any status. */
  overStatus: number | 'reset' | 'timeout' | null;
  overDetail: string;
  /**
   * Who answered one byte over the limit: a front server (a 4xx that is not JSON: nginx's 413 page,
   * a gateway's 400), whose limit then hides the interface's own, or the target itself (judged as
   * the interface: 400, and with a validator the body the spec documents); null when nothing answered.
   */
  overFrom: 'target' | 'front server' | null;
  /** Facts worth knowing that are not problems (a front server's limit). */
  notes: string[];
  /** True when a small, ordinary similarity request succeeded after the search. */
  healthyAfter: boolean;
  /** Which documented reading of "1 MB" the limit matches. */
  matches: '1 MB (1,000,000 bytes)' | '1 MiB (1,048,576 bytes)' | 'something else' | 'no limit found';
  /** The interval searched: [lowest size tried, upper bound]. */
  interval: [number, number];
  durationS: number;
  problems: string[];
}

/** Smallest body tried: a short but real pair of strings. */
export const LOWER_BYTES = 64;
/**
 * Upper bound of the search: 2 MiB, twice the larger reading of "1 MB". The invariant is "lower
 * accepted, upper rejected"; each request halves the interval, so an interval of width
 * 2,097,152 - 64 < 2^21 is closed in at most 21 requests. With the two requests that check the
 * ends and the one health check afterwards that is 24, within the budget of 25.
 */
export const UPPER_BYTES = 2_097_152;
/** Most requests the probe sends in total. */
export const MAX_REQUESTS = 25;

/** A similarity POST form body of exactly `size` bytes: s1 is padded with words, s2 is short. */
export function bodyOfSize(size: number): string {
  const tail = '&s2=house';
  const head = 's1=';
  const room = size - head.length - tail.length;
  if (room < 1) throw new RangeError(`a similarity body needs at least ${head.length + tail.length + 1} bytes`);
  const words = 'home+';
  const pad = words
    .repeat(Math.ceil(room / words.length))
    .slice(0, room)
    .replace(/\+$/, 'e');
  return `${head}${pad}${tail}`;
}

/** True when an outcome means the body passed the size check (2xx, or 408 from a compute time-out). */
export function accepted(outcome: BodyOutcome): boolean {
  return outcome.kind === 'status' && ((outcome.status >= 200 && outcome.status < 300) || outcome.status === 408);
}

/**
 * Finds the exact largest similarity POST body the target accepts, by binary search between a
 * small accepted body and a 2 MiB rejected one, then reports the answer just over the limit and
 * checks the target still answers an ordinary request.
 */
export async function probeBodyLimit(options: BodyLimitProbeOptions): Promise<BodyLimitProbeResult> {
  const log = options.log ?? (() => undefined);
  const started = performance.now();
  const url = targetUrl(options.baseUrl, '/academic/v1.0/similarity');
  let requests = 0;
  const problems: string[] = [];
  const send = async (size: number): Promise<BodyOutcome> => {
    requests++;
    const outcome = await postBody(url, bodyOfSize(size), options.key, options.timeoutMs ?? 30_000);
    if (outcome.kind === 'status' && outcome.retried) requests++;
    log(
      `  ${String(requests).padStart(2)}. ${size.toLocaleString('en-US').padStart(9)} bytes -> ${describeOutcome(outcome)}`,
    );
    return outcome;
  };

  let lower = LOWER_BYTES;
  let upper = UPPER_BYTES;
  let limitBytes: number | null = null;
  let over: BodyOutcome | null = null;
  const lowOutcome = await send(lower);
  if (!accepted(lowOutcome)) {
    problems.push(`a ${lower}-byte similarity body is refused (${describeOutcome(lowOutcome)})`);
  } else {
    const highOutcome = await send(upper);
    if (accepted(highOutcome)) {
      problems.push(`a ${upper.toLocaleString('en-US')}-byte body is accepted: no limit up to 2 MiB`);
    } else {
      over = highOutcome;
      while (upper - lower > 1 && requests < MAX_REQUESTS - 1) {
        const middle = Math.floor((lower + upper) / 2);
        const outcome = await send(middle);
        if (accepted(outcome)) {
          lower = middle;
        } else {
          upper = middle;
          over = outcome;
        }
      }
      if (upper - lower === 1) limitBytes = lower;
    }
  }

  requests++;
  const health = await postBody(url, 's1=home&s2=house', options.key, options.timeoutMs ?? 30_000);
  const healthyAfter = health.kind === 'status' && health.status === 200;
  log(`  ${String(requests).padStart(2)}. health check (s1=home&s2=house) -> ${describeOutcome(health)}`);
  if (!healthyAfter)
    problems.push(`the target no longer answers an ordinary similarity request (${describeOutcome(health)})`);

  const matches =
    limitBytes === null
      ? 'no limit found'
      : limitBytes === 1_000_000
        ? '1 MB (1,000,000 bytes)'
        : limitBytes === 1_048_576
          ? '1 MiB (1,048,576 bytes)'
          : 'something else';
  if (limitBytes !== null && matches === 'something else') {
    problems.push(`the limit is ${limitBytes.toLocaleString('en-US')} bytes, neither 1,000,000 nor 1,048,576`);
  }
  const overStatus = over === null ? null : over.kind === 'status' ? over.status : over.kind;
  const notes: string[] = [];
  const overFrom = over?.kind === 'status' ? answeredBy(over) : null;
  // The interface documents 400 for a similarity request it refuses; a reset before any status
  // is still a rejection and is reported as such (overStatus 'reset'), not as a failure. A front
  // server's own 4xx is its limit, not the interface's error: named, not a problem.
  if (over !== null && limitBytes !== null && over.kind === 'status') {
    if (overFrom === 'front server') {
      notes.push(
        `bodies over ${limitBytes.toLocaleString('en-US')} bytes get ${describeOutcome(over)} from a front server, not the interface's error: its limit hides the interface's own`,
      );
    } else if (over.status !== 400) {
      problems.push(
        `just over the limit the target answers ${over.status}, where the interface documents 400 for a refused similarity request`,
      );
    } else if (options.validate) {
      const verdict = validateOver(options.validate, over);
      if (verdict) problems.push(`just over the limit the 400 is not the interface's error: ${verdict}`);
    }
  }
  if (over !== null && limitBytes !== null && over.kind === 'timeout') {
    problems.push(`just over the limit the target does not answer (${over.detail})`);
  }
  return {
    limitBytes,
    requests,
    overStatus,
    overDetail: over === null ? '' : describeOutcome(over),
    overFrom,
    notes,
    healthyAfter,
    matches,
    interval: [LOWER_BYTES, UPPER_BYTES],
    durationS: Math.round(((performance.now() - started) / 1000) * 100) / 100,
    problems,
  };
}

/** One line for an outcome, e.g. 'HTTP 400', 'HTTP 413 (text/html)' or 'connection reset before any status (...)'. */
export function describeOutcome(outcome: BodyOutcome): string {
  if (outcome.kind === 'status') {
    const type = outcome.contentType?.split(';')[0]?.trim();
    return `HTTP ${outcome.status}${type && !isJson(outcome.contentType) ? ` (${type})` : ''}`;
  }
  if (outcome.kind === 'reset') return `connection reset before any status (${outcome.detail})`;
  return `no answer (${outcome.detail})`;
}

function isJson(contentType: string | undefined): boolean {
  return /^application\/(?:[\w.+-]+\+)?json\b/i.test(contentType?.trim() ?? '');
}

/** Who answered a refusal: a 4xx without a JSON body is a front server's own page; anything else the target's. */
export function answeredBy(outcome: { status: number; contentType?: string }): 'target' | 'front server' {
  return outcome.status >= 400 && outcome.status < 500 && !isJson(outcome.contentType) ? 'front server' : 'target';
}

/** Why a refusal's body is not the interface's error, or undefined when it matches the spec. */
function validateOver(validate: ResponseValidator, over: { status: number; contentType?: string; body?: string }) {
  try {
    const body = Buffer.from(over.body ?? '');
    const beyond = beyondJsonLimits(body);
    if (beyond) return beyond;
    const verdict = validate('similarityPost', over.status, over.contentType, JSON.parse(body.toString('utf8')));
    if (verdict.valid) return undefined;
    return verdict.errors
      .slice(0, 3)
      .map((error) => `${error.pointer || '/'} ${error.message}`)
      .join('; ');
  } catch {
    return 'the body is not JSON';
  }
}

/** Largest answer read: an answer to a similarity POST is a number or a short error. */
const ANSWER_MAX_BYTES = 64 * 1024;

// One POST through the shared client. `Connection: close` gives every request a connection of its
// own, as the search needs: a connection the target cut after a refusal never carries the next one.
async function postBody(
  url: string,
  body: string,
  key: string | undefined,
  timeoutMs: number,
): Promise<BodyOutcome & { retried?: boolean }> {
  const headers: Record<string, string> = {
    'Content-Type': 'application/x-www-form-urlencoded',
    Connection: 'close',
  };
  if (key) headers['Ocp-Apim-Subscription-Key'] = key;
  try {
    const response = await exchange(url, { method: 'POST', headers, body, timeoutMs, maxBytes: ANSWER_MAX_BYTES });
    return {
      kind: 'status',
      status: response.status,
      contentType: response.headers['content-type'],
      body: response.body.toString('utf8'),
      retried: response.retried,
    };
  } catch (error) {
    if (!(error instanceof TransportError)) throw error;
    // The status is what the search needs: an answer whose body then failed still answered.
    if (error.status !== undefined) return { kind: 'status', status: error.status, retried: error.retried };
    if (error.problem === 'timeout') return { kind: 'timeout', detail: error.message };
    return { kind: 'reset', detail: error.message };
  }
}
