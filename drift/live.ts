import { MASK } from '../config/redact.ts';
import { beyondJsonLimits } from '../contracts/json-bounds.ts';
import { type OperationTimings, recordTiming } from '../contracts/timings.ts';
import { currentNetwork, sendHttp, TransportError } from '../http/client.ts';
import { type FrontLimits, frontRefusal, noFrontLimits, recordPassed, recordRefusal } from '../http/front-limits.ts';
import { curlHeaderArgs, withoutCredentials } from '../http/headers.ts';
import { curlNetworkArgs } from '../http/network.ts';
import { noObservations, type Observations, observeAnswer, observeThrottle } from '../http/observations.ts';
import { type QuotaSignal, quotaSignal, replenishedWords } from '../http/quota.ts';
import { statedWaitMs, throttleSignal } from '../http/throttle.ts';
import { buildEnvelope, type Envelope } from '../reporting/envelope.ts';
import { type BatteryContext, type BatteryRequest, buildBattery } from './battery.ts';
import { compareExchange } from './compare.ts';
import { applyBaseline, type Baseline, causeCounts, type DriftFinding, FindingSet, groupByCause } from './findings.ts';

/** What `runLiveDrift` needs: the target and its keys. */
export interface LiveOptions {
  /** Base URL of the target, without a trailing slash (it may carry a path prefix). */
  baseUrl: string;
  /** The subscribed key, and optionally an exhausted one (adds the documented 403 cases). */
  keys: { full: string; exhausted?: string };
  /** Per-request time limit; default 10 s. */
  timeoutMs?: number;
  /** Time limit of the whole battery; default 120 s. Cases left when it runs out are skipped. */
  deadlineMs?: number;
  /** Largest body read; default 5 MB. */
  maxBodyBytes?: number;
  /** At most this many requests per second (--max-rps): the battery waits for each one's slot. */
  maxRps?: number;
  baseline?: Baseline;
  /** Called after every case: cases done of the battery, requests sent. */
  onProgress?(done: number, total: number, requests: number): void;
  /** The route to the target in words (proxy, CA file, client certificate), for the reports. */
  network?: string;
  /** The target as envelope.json names it (default the base URL; the embedded server by name). */
  envelopeTarget?: string;
}

/** How one battery request went. */
export interface CaseOutcome {
  name: string;
  operation: string;
  status?: number;
  mediaType?: string;
  /** Number of issues this response showed (before merging repeats). */
  issues: number;
  /** A transport failure (timeout, reset, oversized body) or the reason the case was skipped. */
  error?: string;
  /** True when the case was not sent (after repeated transport failures, or past the deadline). */
  skipped?: boolean;
  durationMs: number;
  /** A curl line reproducing the request, key masked. */
  curl: string;
}

/** The result of one `kgate drift live` run. */
export interface LiveResult {
  kind: 'drift-live';
  /** The run's verdict, as its exit code says it: fail when a change is new to the baseline (set by the command). */
  verdict?: 'pass' | 'fail';
  baseUrl: string;
  /** The route the requests took (proxy masked, CA file, client certificate), when not direct. */
  network?: string;
  startedAt: string;
  durationMs: number;
  findings: DriftFinding[];
  cases: CaseOutcome[];
  summary: {
    requests: number;
    findings: number;
    new: number;
    known: number;
    /** Baseline fingerprints this run no longer saw. */
    resolved: string[];
    /**
     * The findings grouped by cause (one change on many operations and statuses counts once): all
     * of them, the new ones (a place the baseline does not list: the change fails the run) and the
     * known ones (absent in older runs).
     */
    causes?: { total: number; new: number; known: number };
    transportErrors: number;
    /** Cases not sent (after repeated transport failures, or past the deadline). */
    skipped: number;
  };
}

/** What a drift run measured of the envelope (envelope.json), kept out of its JSON form. */
export function envelopeOfLive(result: LiveResult): Envelope | undefined {
  return (result as LiveResult & { envelope?: Envelope }).envelope;
}

/** What the live battery saw of the envelope while it ran. */
interface Seen {
  timings: OperationTimings;
  front: FrontLimits;
  observed: Observations;
}

/** The target did not answer at all (connection refused, unknown host): exit code 2. */
export class UnreachableError extends Error {
  override name = 'UnreachableError';
}

const CONSECUTIVE_FAILURES_TO_STOP = 3;
/** A throttled battery request is asked again at most this many times. */
const MAX_THROTTLE_RETRIES = 3;

/**
 * Sends the live battery to a target and compares every response with the spec. Requests run one
 * at a time, each bounded in time and body size; after three transport failures in a row the
 * remaining cases are skipped, so a hanging target costs at most a few timeouts.
 */
export async function runLiveDrift(options: LiveOptions): Promise<LiveResult> {
  const started = Date.now();
  const timeoutMs = options.timeoutMs ?? 10_000;
  const deadline = started + (options.deadlineMs ?? 120_000);
  const battery = buildBattery({ exhaustedKey: Boolean(options.keys.exhausted) });
  const context: BatteryContext = {};
  const findings = new FindingSet();
  const cases: CaseOutcome[] = [];
  let failuresInARow = 0;
  let sent = 0;
  const seen: Seen = { timings: {}, front: noFrontLimits(), observed: noObservations() };

  for (const [index, item] of battery.entries()) {
    options.onProgress?.(index, battery.length, sent);
    const request = item.build(context);
    if (!request) continue;
    const url = buildUrl(options.baseUrl, request);
    const curl = curlLine(url, request);
    if (failuresInARow >= CONSECUTIVE_FAILURES_TO_STOP || Date.now() > deadline) {
      const why =
        failuresInARow >= CONSECUTIVE_FAILURES_TO_STOP
          ? 'skipped after repeated transport failures'
          : 'skipped: battery deadline passed';
      cases.push({
        name: request.name,
        operation: request.operation.label,
        issues: 0,
        error: why,
        durationMs: 0,
        curl,
      });
      continue;
    }
    if (options.maxRps && sent > 0) {
      const slot = started + (sent * 1000) / options.maxRps - Date.now();
      if (slot > 0) await new Promise((resolve) => setTimeout(resolve, slot));
    }
    const begin = Date.now();
    const key =
      request.key === 'full' ? options.keys.full : request.key === 'exhausted' ? options.keys.exhausted : undefined;
    sent += 1;
    const answer = await send(url, request, key, timeoutMs, options.maxBodyBytes ?? 5_000_000, seen);
    const durationMs = Date.now() - begin;
    if ('quota' in answer)
      throw new QuotaRanOut(
        `the call volume quota of KGATE_KEY ran out after ${sent - 1} requests (${replenishedWords(answer.quota)}): ${cases.length} of the battery's ${battery.length} cases compared, the rest not sent; no verdict`,
      );
    if ('front' in answer) {
      // A server in front of the deployment refused a request beyond what the interface promises
      // (http/front-limits.ts): its answer says nothing about the interface.
      cases.push({
        name: request.name,
        operation: request.operation.label,
        issues: 0,
        error: answer.front,
        skipped: true,
        durationMs,
        curl,
      });
      continue;
    }
    if ('error' in answer) {
      if (answer.unreachable && cases.every((item) => item.status === undefined)) {
        throw new UnreachableError(`target ${options.baseUrl} is unreachable: ${answer.error}`);
      }
      failuresInARow += 1;
      cases.push({
        name: request.name,
        operation: request.operation.label,
        issues: 0,
        error: answer.error,
        durationMs,
        curl,
      });
      continue;
    }
    failuresInARow = 0;
    const comparison = compareExchange(request.operation, {
      sent: request.form ?? request.query,
      status: answer.status,
      headers: answer.headers,
      text: answer.text,
    });
    findings.add(comparison.issues, {
      operationId: request.operation.operationId,
      operation: request.operation.label,
      status: answer.status,
      mediaType: comparison.mediaType,
      seenIn: request.name,
    });
    if (answer.status === 200 && comparison.body !== undefined) item.learn?.(comparison.body, context);
    cases.push({
      name: request.name,
      operation: request.operation.label,
      status: answer.status,
      ...(comparison.mediaType ? { mediaType: comparison.mediaType } : {}),
      issues: comparison.issues.length,
      durationMs,
      curl,
    });
  }

  if (!cases.some((item) => item.status !== undefined)) {
    const first = cases.find((item) => item.error)?.error ?? 'no request was sent';
    throw new UnreachableError(`target ${options.baseUrl} gave no answer: ${first}`);
  }
  const list = findings.list();
  const resolved = options.baseline ? applyBaseline(list, options.baseline) : [];
  const known = list.filter((finding) => finding.known).length;
  const changes = groupByCause(list);
  const result: LiveResult = {
    kind: 'drift-live',
    baseUrl: options.baseUrl,
    ...(options.network ? { network: options.network } : {}),
    startedAt: new Date(started).toISOString(),
    durationMs: Date.now() - started,
    findings: list,
    cases,
    summary: {
      requests: cases.filter((item) => item.status !== undefined).length,
      findings: list.length,
      new: list.length - known,
      known,
      resolved,
      causes: causeCounts(changes),
      transportErrors: cases.filter((item) => item.error !== undefined && !item.skipped).length,
      skipped: cases.filter((item) => item.skipped).length,
    },
  };
  const envelope = buildEnvelope({
    command: 'drift live',
    target: options.envelopeTarget ?? options.baseUrl,
    timings: seen.timings,
    latencyHow:
      "kgate's own client, the live battery's requests one at a time, from sending to the last byte of the answer or the transport failure; percentiles and the max from histograms with buckets 2 % apart",
    front: seen.front,
    observed: seen.observed,
    measuredAt: new Date(started),
  });
  Object.defineProperty(result, 'envelope', { value: envelope, enumerable: false });
  return result;
}

function buildUrl(baseUrl: string, request: BatteryRequest): string {
  const query = new URLSearchParams(request.query).toString();
  return `${baseUrl}${request.path}${query ? `?${query}` : ''}`;
}

function curlLine(url: string, request: BatteryRequest): string {
  const quote = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;
  const own: Record<string, string> = request.key !== 'none' ? { 'Ocp-Apim-Subscription-Key': MASK } : {};
  if (request.form) own['Content-Type'] = 'application/x-www-form-urlencoded';
  const parts = ['curl', '-sS', ...curlNetworkArgs(new URL(url), currentNetwork())];
  if (request.key !== 'none') parts.push('-H', quote(`Ocp-Apim-Subscription-Key: ${MASK}`));
  parts.push(...curlHeaderArgs(new URL(url), own));
  if (request.form) parts.push('--data', quote(new URLSearchParams(request.form).toString()));
  parts.push(quote(withoutCredentials(url)));
  return parts.join(' ');
}

type Answer =
  | { status: number; headers: Record<string, string>; text: string }
  | { error: string; unreachable: boolean }
  | { front: string }
  | { quota: QuotaSignal };

/**
 * The call volume quota of the battery's key ran out (http/quota.ts): what is left of the battery is
 * not sent, and the run gives no verdict (exit 2): it did not compare what it did not send.
 */
export class QuotaRanOut extends Error {
  override name = 'QuotaRanOut';
}

async function send(
  url: string,
  request: BatteryRequest,
  key: string | undefined,
  timeoutMs: number,
  maxBytes: number,
  seen: Seen,
): Promise<Answer> {
  const started = performance.now();
  const headers: Record<string, string> = {};
  if (key) headers['Ocp-Apim-Subscription-Key'] = key;
  let body: string | undefined;
  if (request.form) {
    headers['Content-Type'] = 'application/x-www-form-urlencoded';
    body = new URLSearchParams(request.form).toString();
  }
  // The conformance suite's client: one deadline for the whole exchange, a size cap, no decoding
  // of compressed bodies, and a nesting limit checked before anything parses the body.
  try {
    const exchange = () =>
      sendHttp({
        method: request.operation.method.toUpperCase() as 'GET' | 'POST',
        url,
        headers,
        body,
        timeoutMs,
        maxBytes,
      });
    let response = await exchange();
    // Throttling however signalled (a 429, a front server's 503) is not an answer to judge: waited
    // out as it asks (at most 10 s, else a second) and asked again, at most 3 times.
    for (let attempt = 0; attempt < MAX_THROTTLE_RETRIES; attempt++) {
      const throttled = throttleSignal(response);
      if (!throttled) break;
      observeThrottle(seen.observed, request.operation.path, request.operation.label, throttled);
      recordTiming(seen.timings, request.operation.label, response.elapsedMs);
      await new Promise((resolve) => setTimeout(resolve, Math.min(10_000, statedWaitMs(throttled) || 1000)));
      response = await exchange();
    }
    recordTiming(seen.timings, request.operation.label, response.elapsedMs);
    // The key's quota ran out: its 403 is the deployment's budget ending, not an answer to compare
    // (the exhausted key's own 403 cases ask for exactly that answer).
    const quota = request.key === 'full' ? quotaSignal(response) : undefined;
    if (quota) return { quota };
    const refusal = frontRefusal(request.operation.method.toUpperCase(), response.sent, response, url);
    if (refusal) recordRefusal(seen.front, refusal);
    else {
      recordPassed(seen.front, response.sent);
      observeAnswer(seen.observed, response, { method: request.operation.method.toUpperCase(), sent: response.sent });
    }
    if (refusal)
      return {
        front: `not judged: a server in front of the deployment refused the ${refusal.bytes}-byte ${refusal.part === 'head' ? 'request line and headers' : 'body'} with ${refusal.status} ${refusal.contentType} (its size limit, beyond what the interface promises)`,
      };
    const beyond = beyondJsonLimits(response.body);
    if (beyond) return { error: `status ${response.status}, ${beyond}`, unreachable: false };
    return { status: response.status, headers: response.headers, text: response.body.toString('utf8') };
  } catch (error) {
    if (!(error instanceof TransportError)) throw error;
    recordTiming(seen.timings, request.operation.label, performance.now() - started);
    // No route (the proxy or TLS in the way) is as final as no server: one line, exit 2.
    const unreachable =
      error.route !== undefined || /^(ECONNREFUSED|ENOTFOUND|EAI_AGAIN|EHOSTUNREACH|ENETUNREACH)\b/.test(error.message);
    const message =
      error.problem === 'too-large'
        ? `body larger than ${maxBytes} bytes`
        : error.problem === 'timeout'
          ? `no complete answer within ${timeoutMs} ms (${error.message})`
          : error.message;
    return { error: message, unreachable };
  }
}
