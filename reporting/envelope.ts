// The deployment's envelope: what a run measured of the limits a deployment actually has, beside
// what it judged against the interface. Per operation the latency (p50, p95, p99, max, samples);
// the longest GET that reached the interface and the shortest one refused in front of it; the body
// limit where probed; the rate limit per path where met or probed, with its signal; the score
// tolerance learned; the front server, proxy and cache the answers named; the HTTP and TLS
// versions. Every figure says how it was measured. Every command that talks to a target writes it
// (`envelope.json`, valid against `envelope.schema.json` beside this file), the report page shows
// it, and `kgate drift live --history` and `kgate compare` track it between runs and deployments.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { redactSecrets } from '../config/redact.ts';
import { bucketBound, mergeTimings, type OperationTimings, percentileMs } from '../contracts/timings.ts';
import { type FrontLimits, mergeFrontLimits, noFrontLimits } from '../http/front-limits.ts';
import { mergeObservations, noObservations, type Observations } from '../http/observations.ts';
import {
  acceptedRate,
  describeSignal,
  signalledBy,
  type ThrottleSignal,
  type ThrottleState,
  throttleStates,
} from '../http/throttle.ts';
import { table } from '../page/components.ts';
import type { PageSection } from '../page/page.ts';

/** The file every command that talks to a target writes into its report folder. */
export const ENVELOPE_FILE = 'envelope.json';
/** Version of the format. */
export const ENVELOPE_VERSION = 1;

/** One operation's latency. */
export interface LatencyFigure {
  operation: string;
  samples: number;
  p50Ms: number;
  p95Ms: number;
  p99Ms: number;
  maxMs: number;
}

/** A request refused in front of the interface. */
export interface Refusal {
  bytes: number;
  status: number;
  contentType: string;
  /** Who refused it: `a front server`, `the interface`... */
  refusedBy: string;
}

/** A rate limit, where met or probed. */
export interface RateLimitFigure {
  path: string;
  operations: string[];
  status: number;
  contentType: string;
  retryAfter: ThrottleSignal['retryAfter']['form'];
  /** True when it is the interface's own signal (429, its JSON error stating the seconds). */
  conforms: boolean;
  signalledBy: string;
  /** Accepted requests per second; null when not measured. */
  rps: number | null;
  how: string;
}

/** What one command measured of a deployment's envelope. */
export interface Envelope {
  kgateEnvelope: typeof ENVELOPE_VERSION;
  /** The command that measured it: `conform`, `fuzz`, `drift live`, `compare`, `load`, `probe rate-limit`, `probe body-limit`. */
  command: string;
  /** The target (base URL, credentials and key masked), or `embedded reference server`. */
  target: string;
  measuredAt: string;
  latency: { operations: LatencyFigure[]; how: string };
  urlLimit: {
    /** Bytes of the request line and headers of the longest GET that reached the interface. */
    longestPassed: number | null;
    shortestRefused: Refusal | null;
    /** The limit the two bound, as a front server sets it (the largest round size between them), in bytes. */
    limitBytes: number | null;
    how: string;
  };
  bodyLimit: {
    limitBytes: number | null;
    longestPassed: number | null;
    shortestRefused: Refusal | null;
    how: string;
  } | null;
  rateLimits: RateLimitFigure[];
  scoreTolerance: {
    relative: number;
    learned: boolean;
    operations: { operation: string; relative: number }[];
    how: string;
  };
  infrastructure: {
    servers: string[];
    via: string[];
    cacheHeaders: string[];
    cacheHits: number;
    cacheExample?: Record<string, string>;
    /** What a front server refused for characters of a URL, with its answer and name. */
    refuses?: string[];
    how: string;
  };
  protocol: { http: string[]; tls: string[]; how: string };
  /** A compare's current deployment, measured by the same requests. */
  against?: Envelope;
  /** Changes between `against` and this one (compare), or since the previous run (drift history). */
  changes?: EnvelopeChange[];
  /** Bounds of the configuration file (`envelope`) this one breaks. */
  breaches?: string[];
  /** A key's call volume quota that ran out during the run, in words: which key, after how many requests, replenished when. */
  quota?: { seen: string };
}

/** What the measurements of a command are made of (each part optional: commands measure different things). */
export interface EnvelopeInputs {
  command: string;
  target: string;
  timings?: OperationTimings;
  /** How the latencies were timed, when not kgate's client from sending to the last byte. */
  latencyHow?: string;
  /** Latencies given as figures (load's own histograms) instead of timings. */
  latency?: LatencyFigure[];
  front?: FrontLimits;
  observed?: Observations;
  throttleStates?: ThrottleState[];
  bodyLimit?: Envelope['bodyLimit'];
  /** Notes of the run (the score tolerances learned are read from them). */
  notes?: readonly string[];
  /** Score tolerances learned, by operation label (the generative engine's), beside those of the notes. */
  tolerances?: Record<string, number>;
  measuredAt?: Date;
}

const DEFAULT_LATENCY_HOW =
  "kgate's own client, every request to the operation (tests, test data, generated requests, retries), from sending to the last byte of the answer or the transport failure; percentiles and the max from histograms with buckets 2 % apart (each within 2 %)";

/** The sizes front servers set their request-head limits to, in KB. */
const ROUND_KB = [1, 2, 4, 8, 16, 32, 64, 128, 256];

/** The largest round limit between what got through and what was refused. */
function roundLimit(passed: number, refused: number): number | null {
  const round = ROUND_KB.filter((kb) => kb * 1024 > passed && kb * 1024 <= refused).at(-1);
  return round === undefined ? null : round * 1024;
}

/** Builds the envelope of what a command measured. */
export function buildEnvelope(inputs: EnvelopeInputs): Envelope {
  const observed = inputs.observed;
  const front = inputs.front;
  const latency = inputs.latency ?? latencyFigures(inputs.timings ?? {});
  const headRefusals = Object.values(front?.refused ?? {}).filter((refusal) => refusal.part === 'head');
  const shortestHead = headRefusals.sort((a, b) => a.bytes - b.bytes)[0];
  const longestGet = Math.max(observed?.longestGet ?? 0, front?.passed.head ?? 0) || null;
  const bodyRefusals = Object.values(front?.refused ?? {}).filter((refusal) => refusal.part === 'body');
  const shortestBody = bodyRefusals.sort((a, b) => a.bytes - b.bytes)[0];
  const bodyLimit =
    inputs.bodyLimit ??
    (shortestBody
      ? {
          limitBytes: null,
          longestPassed: Math.max(observed?.longestPostBody ?? 0, front?.passed.body ?? 0) || null,
          shortestRefused: {
            bytes: shortestBody.bytes,
            status: shortestBody.status,
            contentType: shortestBody.contentType,
            refusedBy: 'a server in front of the interface',
          },
          how: 'the bodies the run sent: the longest the interface answered and the shortest refused in front of it (kgate probe body-limit finds the exact limit)',
        }
      : null);
  return {
    kgateEnvelope: ENVELOPE_VERSION,
    command: inputs.command,
    target: inputs.target,
    measuredAt: (inputs.measuredAt ?? new Date()).toISOString(),
    latency: { operations: latency, how: inputs.latencyHow ?? DEFAULT_LATENCY_HOW },
    urlLimit: {
      longestPassed: longestGet,
      shortestRefused: shortestHead
        ? {
            bytes: shortestHead.bytes,
            status: shortestHead.status,
            contentType: shortestHead.contentType,
            refusedBy: 'a server in front of the interface',
          }
        : null,
      limitBytes: shortestHead ? roundLimit(longestGet ?? 0, shortestHead.bytes) : null,
      how: 'bytes of the request line and headers of the GETs the run sent: the longest the interface answered, and the shortest a server in front refused with 414 or 431 (or a 400 that is not JSON); the limit is the largest round size (1, 2, 4, 8, 16... KB) between them',
    },
    bodyLimit,
    rateLimits: rateLimitFigures(observed, inputs.throttleStates ?? []),
    scoreTolerance: toleranceOf(inputs.notes ?? [], inputs.tolerances),
    infrastructure: {
      servers: Object.keys(observed?.servers ?? {}),
      via: Object.keys(observed?.via ?? {}),
      cacheHeaders: Object.keys(observed?.cacheHeaders ?? {}),
      cacheHits: observed?.cacheHits ?? 0,
      ...(observed?.cacheExample ? { cacheExample: observed.cacheExample } : {}),
      ...(characterRefusals(front).length > 0 ? { refuses: characterRefusals(front) } : {}),
      how: 'the Server and Via headers of every answer, and the cache headers (Age, X-Cache, X-Varnish, CF-Cache-Status, Cache-Status...); a hit is an Age above 0, an X-Varnish with two ids, or a cache header saying HIT',
    },
    protocol: {
      http: Object.keys(observed?.versions ?? {}).sort(),
      tls: Object.keys(observed?.tls ?? {}).sort(),
      how: "the version of every answer's status line, and the TLS version each https connection negotiated (kgate speaks HTTP/1.1)",
    },
  };
}

/** What a front server refused for characters of a URL: `control characters in GET URLs: 400 text/html (lighttpd/1.4.69)`. */
function characterRefusals(front: FrontLimits | undefined): string[] {
  return Object.values(front?.refused ?? {})
    .filter((refusal) => refusal.part === 'characters')
    .map(
      (refusal) =>
        `${refusal.characters!.join(' and ')} in ${refusal.method} URLs: ${refusal.status} ${refusal.contentType}${refusal.server ? ` (${refusal.server})` : ''}`,
    );
}

/** The latency figures of mergeable timings, operations in label order. */
export function latencyFigures(timings: OperationTimings): LatencyFigure[] {
  return Object.entries(timings)
    .filter(([, timing]) => timing.requests > 0)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([operation, timing]) => {
      const top = Math.max(...Object.keys(timing.buckets).map(Number));
      return {
        operation,
        samples: timing.requests,
        p50Ms: percentileMs(timing, 0.5),
        p95Ms: percentileMs(timing, 0.95),
        p99Ms: percentileMs(timing, 0.99),
        maxMs: Math.round(bucketBound(top) * 10) / 10,
      };
    });
}

/** The rate limits measured on purpose, then those the run met (by its adaptive pace), one per path. */
function rateLimitFigures(observed: Observations | undefined, states: readonly ThrottleState[]): RateLimitFigure[] {
  const figures = new Map<string, RateLimitFigure>();
  const figure = (path: string, operations: string[], signal: ThrottleSignal, rps: number | null, how: string) => ({
    path,
    operations,
    status: signal.status,
    contentType: signal.contentType,
    retryAfter: signal.retryAfter.form,
    conforms: signal.conforms,
    signalledBy: signalledBy(signal),
    rps,
    how,
  });
  for (const limit of Object.values(observed?.rateLimits ?? {}))
    figures.set(limit.path, figure(limit.path, [limit.operation], limit.signal, limit.rps, limit.how));
  for (const state of states) {
    if (figures.has(state.path) || !state.signal) continue;
    const operations = observed?.throttled[state.path]?.operations ?? [];
    const rps = acceptedRate(state) ?? null;
    figures.set(
      state.path,
      figure(
        state.path,
        operations,
        state.signal,
        rps,
        `met by the run's own requests: ${state.throttled} throttled answer(s), ${state.accepted} that got through between the first throttled one and the last${rps === null ? ' (too few, or too close together, for a rate)' : ', over that time'}; kgate's pace on the path backed off to one request every ${state.widestMs} ms at its slowest, so this is what the limit let through while pressed, at most the limit`,
      ),
    );
  }
  for (const seen of Object.values(observed?.throttled ?? {})) {
    if (figures.has(seen.path)) continue;
    figures.set(
      seen.path,
      figure(
        seen.path,
        seen.operations,
        seen.signal,
        null,
        `met by the run's own requests: ${seen.count} throttled answer(s); no rate measured`,
      ),
    );
  }
  return [...figures.values()].sort((a, b) => a.path.localeCompare(b.path));
}

/** The tolerance notes of contracts/properties/tolerance.ts: `<operation>: answers differed beyond 1e-9; scores compared within relative 3.2e-7 (...)`. */
const TOLERANCE_NOTE = /^(.+?): answers differed beyond [\d.e+-]+; scores compared within relative ([\d.e+-]+)/;
const DEFAULT_TOLERANCE = 1e-9;

function toleranceOf(notes: readonly string[], given: Record<string, number> = {}): Envelope['scoreTolerance'] {
  const byOperation = new Map<string, number>(
    Object.entries(given).filter(([, relative]) => relative > DEFAULT_TOLERANCE),
  );
  for (const note of notes) {
    const match = TOLERANCE_NOTE.exec(note);
    if (match) byOperation.set(match[1]!, Math.max(byOperation.get(match[1]!) ?? 0, Number(match[2])));
  }
  const operations = [...byOperation].map(([operation, relative]) => ({ operation, relative }));
  return {
    relative: Math.max(DEFAULT_TOLERANCE, ...operations.map((item) => item.relative)),
    learned: operations.length > 0,
    operations,
    how:
      operations.length > 0
        ? "where two answers that must agree differed beyond a double's last digits, the request was sent twice more and scores compared within 100 x the spread of the three identical calls (at most 1e-6)"
        : "every pair of answers that must agree agreed within a double's last digits (1e-9): no tolerance had to be learned",
  };
}

/** Writes `envelope.json` into a report folder (redacted, as every report). */
export function writeEnvelope(dir: string, envelope: Envelope): string {
  const path = join(dir, ENVELOPE_FILE);
  writeFileSync(path, `${redactSecrets(JSON.stringify(envelope, null, 2))}\n`);
  return path;
}

/** `8 KB`, `1.0 MB`, `1,234 bytes`. */
export function sizeText(bytes: number): string {
  if (bytes >= 1024 * 1024 && bytes % 1024 === 0) return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
  if (bytes >= 1024 && bytes % 1024 === 0) return `${bytes / 1024} KB`;
  return `${bytes.toLocaleString('en-US')} bytes`;
}

/** The envelope in lines of text (the page's section, and what a terminal may print). */
export function envelopeLines(envelope: Envelope): string[] {
  const lines: string[] = [];
  const url = envelope.urlLimit;
  lines.push(
    `URL limit: ${url.limitBytes ? `about ${sizeText(url.limitBytes)}` : url.shortestRefused ? 'below the shortest refused' : 'none met'}${url.longestPassed ? `; the longest GET that got through ${url.longestPassed.toLocaleString('en-US')} bytes` : ''}${url.shortestRefused ? `; the shortest refused ${url.shortestRefused.bytes.toLocaleString('en-US')} bytes (${url.shortestRefused.status} ${url.shortestRefused.contentType}, by ${url.shortestRefused.refusedBy})` : ''}`,
  );
  if (envelope.bodyLimit) {
    const body = envelope.bodyLimit;
    lines.push(
      `Body limit: ${body.limitBytes !== null ? `${body.limitBytes.toLocaleString('en-US')} bytes` : 'not probed'}${body.longestPassed ? `; the longest body that got through ${body.longestPassed.toLocaleString('en-US')} bytes` : ''}${body.shortestRefused ? `; the shortest refused ${body.shortestRefused.bytes.toLocaleString('en-US')} bytes (${body.shortestRefused.status} ${body.shortestRefused.contentType}, by ${body.shortestRefused.refusedBy})` : ''}`,
    );
  }
  for (const limit of envelope.rateLimits)
    lines.push(
      `Rate limit of ${limit.path}: ${limit.rps === null ? 'rate not measured' : `about ${limit.rps} requests/s`}, signalled by ${limit.signalledBy} as ${describeSignal({ status: limit.status, contentType: limit.contentType, retryAfter: { form: limit.retryAfter } })}${limit.conforms ? " (the interface's own signal)" : " (not the interface's 429 with the seconds to wait)"}`,
    );
  const tolerance = envelope.scoreTolerance;
  lines.push(
    `Score tolerance: relative ${tolerance.relative.toPrecision(2)}${tolerance.learned ? ` (learned on ${tolerance.operations.map((item) => item.operation).join(', ')})` : ' (nothing to learn)'}`,
  );
  const infra = envelope.infrastructure;
  lines.push(
    `In front: ${[
      infra.servers.length > 0 ? `Server ${infra.servers.join(', ')}` : 'no Server header',
      infra.via.length > 0 ? `Via ${infra.via.join(', ')}` : 'no Via',
      infra.cacheHeaders.length > 0
        ? `cache headers ${infra.cacheHeaders.join(', ')} (${infra.cacheHits} hit(s))`
        : 'no cache headers',
      ...(infra.refuses ?? []).map((refusal) => `refuses ${refusal}`),
    ].join('; ')}`,
  );
  lines.push(
    `Protocol: ${envelope.protocol.http.join(', ') || 'no answer'}${envelope.protocol.tls.length > 0 ? `, ${envelope.protocol.tls.join(', ')}` : ', no TLS'}`,
  );
  return lines;
}

/** The report page's section: latency per operation, then the limits and what is in front, each with how it was measured. */
export function envelopeSection(envelope: Envelope): PageSection {
  const rows = envelope.latency.operations.map((figure) => ({
    cells: [
      figure.operation,
      String(figure.samples),
      `${figure.p50Ms} ms`,
      `${figure.p95Ms} ms`,
      `${figure.p99Ms} ms`,
      `${figure.maxMs} ms`,
    ],
  }));
  const how = [
    `Latency: ${envelope.latency.how}.`,
    `URL limit: ${envelope.urlLimit.how}.`,
    ...(envelope.bodyLimit ? [`Body limit: ${envelope.bodyLimit.how}.`] : []),
    ...envelope.rateLimits.map((limit) => `Rate limit of ${limit.path}: ${limit.how}.`),
    `Score tolerance: ${envelope.scoreTolerance.how}.`,
    `In front: ${envelope.infrastructure.how}.`,
    `Protocol: ${envelope.protocol.how}.`,
  ];
  return {
    id: 'envelope',
    title: `The deployment's envelope (${ENVELOPE_FILE})`,
    tone: envelope.breaches && envelope.breaches.length > 0 ? 'fail' : 'info',
    intro:
      'What this run measured of the limits the deployment has, beside what it judged; each figure says how it was measured.',
    items: [
      ...(envelope.breaches ?? []).map((breach) => ({ text: `bound broken: ${breach}` })),
      ...(envelope.quota ? [{ text: `quota: ${envelope.quota.seen}` }] : []),
      ...envelopeLines(envelope).map((text) => ({ text })),
      ...(envelope.changes ?? []).map((change) => ({ text: `changed: ${change.text}` })),
      ...how.map((text) => ({ text: `how: ${text}` })),
    ],
    html: rows.length > 0 ? table({ columns: ['operation', 'samples', 'p50', 'p95', 'p99', 'max'], rows }) : undefined,
  };
}

/** Bounds a configuration file sets on the envelope (`envelope` in kgate.config.json). */
export interface EnvelopeBounds {
  /** The URL limit must be at least this many bytes: a refused GET shorter than it breaks the bound. */
  urlLimitMin?: number;
  /** Per operation (its id, label or path, such as `evaluate`, `evaluateGet` or `/academic/v1.0/evaluate`): the highest p95 allowed, in ms. */
  p95MsMax?: Record<string, number>;
  /** Per operation, the highest p99 allowed, in ms. */
  p99MsMax?: Record<string, number>;
}

/** True when an operation label matches a name of the configuration file (`evaluate`, `evaluateGet`, a path, a label). */
function matchesOperation(label: string, name: string): boolean {
  const [method, path] = label.split(' ');
  if (label === name || path === name) return true;
  const last = path?.split('/').filter(Boolean).at(-1) ?? '';
  const base = /^v\d/.test(last) ? (path?.split('/').filter(Boolean).at(-2) ?? '') : last;
  const id = `${base}${method === 'POST' ? 'Post' : 'Get'}`;
  return name === base || name === id || name.toLowerCase() === id.toLowerCase();
}

/** The bounds an envelope breaks, in words (none: an empty list). */
export function envelopeBreaches(envelope: Envelope, bounds: EnvelopeBounds | undefined): string[] {
  if (!bounds) return [];
  const breaches: string[] = [];
  const refused = envelope.urlLimit.shortestRefused;
  if (bounds.urlLimitMin !== undefined && refused && refused.bytes <= bounds.urlLimitMin)
    breaches.push(
      `urlLimitMin ${bounds.urlLimitMin.toLocaleString('en-US')} bytes: a GET of ${refused.bytes.toLocaleString('en-US')} bytes was refused (${refused.status} ${refused.contentType} by ${refused.refusedBy})`,
    );
  for (const [kind, key] of [
    ['p95', 'p95MsMax'],
    ['p99', 'p99MsMax'],
  ] as const) {
    for (const [name, max] of Object.entries(bounds[key] ?? {})) {
      for (const figure of envelope.latency.operations) {
        if (!matchesOperation(figure.operation, name)) continue;
        const value = kind === 'p95' ? figure.p95Ms : figure.p99Ms;
        if (value > max)
          breaches.push(
            `${key}.${name} ${max} ms: ${figure.operation} ${kind} ${value} ms over ${figure.samples} request(s)`,
          );
      }
    }
  }
  return breaches;
}

/** One change of the envelope between two measurements: drift of the deployment, not a conformance failure. */
export interface EnvelopeChange {
  /** What changed: `url-limit`, `body-limit`, `rate-limit`, `latency`, `server`, `cache`, `protocol`, `tolerance`. */
  kind: string;
  /** The operation or path it concerns, when one. */
  where?: string;
  /** In words: `URL limit 16 KB -> 8 KB`, `GET /academic/v1.0/evaluate p95 41 -> 97 ms, outside the run-to-run noise`. */
  text: string;
}

/** The noise rule of latency: a change counts when beyond both (compare's threshold: 10 % and 5 ms) and beyond the spread the history shows. */
export interface LatencyNoise {
  percent: number;
  ms: number;
  /** Per operation, the largest relative move of its p95 between earlier measurements (run-to-run noise), when known. */
  spread?: Record<string, number>;
}

/** The latency noise rule kgate compare judges regressions by: slower by more than 10 % and 5 ms. */
export const LATENCY_NOISE = { percent: 10, ms: 5 } as const;

/** How far beyond the run-to-run spread a p95 must move to count (compare's NUMERIC_NOISE_FACTOR). */
export const SPREAD_FACTOR = 3;

/**
 * The changes from `before` to `after`: limits that moved, a p95 that moved beyond the noise rule
 * (more than `noise.percent` and `noise.ms`, and more than SPREAD_FACTOR times the spread earlier
 * runs showed), the servers or caches in front, the protocol, a tolerance that had to grow.
 */
export function envelopeChanges(before: Envelope, after: Envelope, noise: LatencyNoise): EnvelopeChange[] {
  const changes: EnvelopeChange[] = [];
  const limitText = (envelope: Envelope) =>
    envelope.urlLimit.limitBytes !== null
      ? sizeText(envelope.urlLimit.limitBytes)
      : envelope.urlLimit.shortestRefused
        ? `under ${sizeText(envelope.urlLimit.shortestRefused.bytes)}`
        : undefined;
  const [urlBefore, urlAfter] = [limitText(before), limitText(after)];
  if (urlBefore !== urlAfter && (urlBefore !== undefined || urlAfter !== undefined)) {
    // A limit seen on one side only is news only when the other side sent as long a GET and got through.
    const reached = (envelope: Envelope, other: Envelope) =>
      (envelope.urlLimit.longestPassed ?? 0) >= (other.urlLimit.shortestRefused?.bytes ?? Number.POSITIVE_INFINITY);
    if ((urlBefore && urlAfter) || (urlAfter && reached(before, after)) || (urlBefore && reached(after, before)))
      changes.push({
        kind: 'url-limit',
        text: `URL limit ${urlBefore ?? `none up to ${sizeText(before.urlLimit.longestPassed ?? 0)}`} -> ${urlAfter ?? `none up to ${sizeText(after.urlLimit.longestPassed ?? 0)}`}`,
      });
  }
  const bodyBefore = before.bodyLimit?.limitBytes ?? null;
  const bodyAfter = after.bodyLimit?.limitBytes ?? null;
  if (bodyBefore !== null && bodyAfter !== null && bodyBefore !== bodyAfter)
    changes.push({ kind: 'body-limit', text: `body limit ${sizeText(bodyBefore)} -> ${sizeText(bodyAfter)}` });
  const limits = new Map(before.rateLimits.map((limit) => [limit.path, limit]));
  for (const limit of after.rateLimits) {
    const was = limits.get(limit.path);
    const signal = (item: RateLimitFigure) => `${item.status} ${item.contentType} (${item.signalledBy})`;
    if (!was)
      changes.push({
        kind: 'rate-limit',
        where: limit.path,
        text: `${limit.path} now rate limited${limit.rps !== null ? ` at about ${limit.rps} requests/s` : ''}, signalled ${signal(limit)}`,
      });
    else {
      if (signal(was) !== signal(limit))
        changes.push({
          kind: 'rate-limit',
          where: limit.path,
          text: `${limit.path} rate limit signal ${signal(was)} -> ${signal(limit)}`,
        });
      if (was.rps !== null && limit.rps !== null && Math.abs(limit.rps - was.rps) > 0.25 * Math.max(was.rps, limit.rps))
        changes.push({
          kind: 'rate-limit',
          where: limit.path,
          text: `${limit.path} rate limit about ${was.rps} -> ${limit.rps} requests/s`,
        });
    }
  }
  const latencies = new Map(before.latency.operations.map((figure) => [figure.operation, figure]));
  for (const figure of after.latency.operations) {
    const was = latencies.get(figure.operation);
    if (!was || was.samples < 5 || figure.samples < 5) continue;
    const [a, b] = [was.p95Ms, figure.p95Ms];
    const slower = Math.max(a, b);
    const faster = Math.min(a, b);
    const spread = noise.spread?.[figure.operation] ?? 0;
    const beyond =
      slower - faster > noise.ms &&
      slower > faster * (1 + noise.percent / 100) &&
      Math.abs(b - a) / Math.max(faster, 1e-9) > SPREAD_FACTOR * spread;
    if (beyond)
      changes.push({
        kind: 'latency',
        where: figure.operation,
        text: `${figure.operation} p95 ${a} -> ${b} ms, outside the run-to-run noise (beyond ${noise.percent} % and ${noise.ms} ms${spread > 0 ? `, and ${SPREAD_FACTOR} x the ${Math.round(spread * 100)} % earlier runs moved by` : ''})`,
      });
  }
  const listChange = (kind: string, label: string, a: string[], b: string[]) => {
    const [x, y] = [[...a].sort().join(', '), [...b].sort().join(', ')];
    if (x !== y) changes.push({ kind, text: `${label} ${x || 'none'} -> ${y || 'none'}` });
  };
  listChange('server', 'Server', before.infrastructure.servers, after.infrastructure.servers);
  listChange('server', 'Via', before.infrastructure.via, after.infrastructure.via);
  listChange('cache', 'cache headers', before.infrastructure.cacheHeaders, after.infrastructure.cacheHeaders);
  listChange('protocol', 'HTTP', before.protocol.http, after.protocol.http);
  listChange('protocol', 'TLS', before.protocol.tls, after.protocol.tls);
  if (after.scoreTolerance.relative > before.scoreTolerance.relative * 10)
    changes.push({
      kind: 'tolerance',
      text: `score tolerance relative ${before.scoreTolerance.relative.toPrecision(2)} -> ${after.scoreTolerance.relative.toPrecision(2)}`,
    });
  return changes;
}

/**
 * The run-to-run noise of each operation's p95 in a series of earlier envelopes of the same
 * target: the largest relative move between two consecutive ones.
 */
export function latencySpread(series: readonly Envelope[]): Record<string, number> {
  const spread: Record<string, number> = {};
  for (let i = 1; i < series.length; i++) {
    const before = new Map(series[i - 1]!.latency.operations.map((figure) => [figure.operation, figure.p95Ms]));
    for (const figure of series[i]!.latency.operations) {
      const was = before.get(figure.operation);
      if (was === undefined || was <= 0) continue;
      spread[figure.operation] = Math.max(spread[figure.operation] ?? 0, Math.abs(figure.p95Ms - was) / was);
    }
  }
  return spread;
}

/** The envelope of a conformance run, from its test records and the adaptive pace's files in its folder. */
export function runEnvelope(
  run: { baseUrl?: string; startedAt?: string; targets: { notes: string[] }[] },
  records: readonly {
    timings?: OperationTimings;
    requests?: { front?: FrontLimits; observed?: Observations };
  }[],
  dir: string | undefined,
  target: string,
): Envelope {
  const timings: OperationTimings = {};
  const front = noFrontLimits();
  const observed = noObservations();
  for (const record of records) {
    mergeTimings(timings, record.timings);
    mergeFrontLimits(front, record.requests?.front);
    mergeObservations(observed, record.requests?.observed);
  }
  return buildEnvelope({
    command: 'conform',
    target,
    timings,
    front,
    observed,
    throttleStates: dir ? throttleStates(dir) : [],
    notes: run.targets.flatMap((item) => item.notes),
    ...(run.startedAt ? { measuredAt: new Date(run.startedAt) } : {}),
  });
}
