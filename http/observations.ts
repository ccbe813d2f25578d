// What a command saw of a deployment's envelope while it talked to it, beside what it judged: the
// HTTP and TLS versions of its answers, the servers, proxies and caches their headers named, the
// longest requests that reached the interface, and the throttling it met per path. Small and
// mergeable, so that a test, a worker, a run and the shards of a run add up by merging.
import { infrastructureOf } from './infrastructure.ts';
import type { ThrottleSignal } from './throttle.ts';

/** At most this many distinct values are kept per kind (a target varying its Server header per answer stays small). */
const MAX_DISTINCT = 8;

/** One throttled path as a command met it. */
export interface ThrottleSeen {
  /** The spec's path. */
  path: string;
  /** Operation labels whose requests were throttled there. */
  operations: string[];
  /** The first signal met. */
  signal: ThrottleSignal;
  /** Throttled answers. */
  count: number;
  /** Set when the path's 503s proved persistent at every pace: a server failing, its 503s judged as answers. */
  persistent?: boolean;
}

/** What a command saw of the envelope (see the file comment). */
export interface Observations {
  /** `HTTP/1.1` -> answers. */
  versions: Record<string, number>;
  /** `TLSv1.3` -> answers (https only). */
  tls: Record<string, number>;
  /** Server header values -> answers. */
  servers: Record<string, number>;
  /** Via header values -> answers. */
  via: Record<string, number>;
  /** Cache header names seen (`x-varnish`, `age`...) -> answers carrying one; and answers the headers said a cache served. */
  cacheHeaders: Record<string, number>;
  cacheHits: number;
  /** An example of a cache hit's headers (the cache headers, Server and Via), when one was seen. */
  cacheExample?: Record<string, string>;
  /** Bytes of the request line and headers of the longest GET the interface answered (not refused in front of it). */
  longestGet: number;
  /** Bytes of the body of the longest POST the interface answered. */
  longestPostBody: number;
  /** Throttled paths, by path. */
  throttled: Record<string, ThrottleSeen>;
  /** Rate limits measured on purpose (the rate-limit tests, the probe), by path. */
  rateLimits: Record<string, RateLimitMeasured>;
}

/** A rate limit measured on purpose, with how. */
export interface RateLimitMeasured {
  path: string;
  operation: string;
  signal: ThrottleSignal;
  /** Accepted requests per second while the limiter was saturated; null when not measured. */
  rps: number | null;
  /** How the figure was measured, in words. */
  how: string;
}

/** An empty record. */
export function noObservations(): Observations {
  return {
    versions: {},
    tls: {},
    servers: {},
    via: {},
    cacheHeaders: {},
    cacheHits: 0,
    longestGet: 0,
    longestPostBody: 0,
    throttled: {},
    rateLimits: {},
  };
}

function count(into: Record<string, number>, key: string | undefined, n = 1): void {
  if (key === undefined || key === '') return;
  if (into[key] === undefined && Object.keys(into).length >= MAX_DISTINCT) return;
  into[key] = (into[key] ?? 0) + n;
}

/** Records one answer that came back: its versions and the infrastructure its headers name. */
export function observeAnswer(
  into: Observations,
  answer: { headers: Record<string, string>; version?: string; tls?: string },
  request?: { method: string; sent: { headBytes: number; bodyBytes: number } },
): void {
  count(into.versions, answer.version ? `HTTP/${answer.version}` : undefined);
  count(into.tls, answer.tls);
  const infra = infrastructureOf(answer.headers);
  count(into.servers, infra.server);
  count(into.via, infra.via);
  for (const name of Object.keys(infra.cache)) count(into.cacheHeaders, name);
  if (infra.hit) {
    into.cacheHits++;
    into.cacheExample ??= {
      ...infra.cache,
      ...(infra.server ? { server: infra.server } : {}),
      ...(infra.via ? { via: infra.via } : {}),
    };
  }
  if (request?.method === 'GET') into.longestGet = Math.max(into.longestGet, request.sent.headBytes);
  if (request?.method === 'POST') into.longestPostBody = Math.max(into.longestPostBody, request.sent.bodyBytes);
}

/** Records a throttled answer of `operation` on `path`. */
export function observeThrottle(into: Observations, path: string, operation: string, signal: ThrottleSignal): void {
  const seen = into.throttled[path] ?? { path, operations: [], signal, count: 0 };
  into.throttled[path] = seen;
  seen.count++;
  if (!seen.operations.includes(operation)) seen.operations.push(operation);
}

/** True when the record holds anything. */
export function hasObservations(o: Observations): boolean {
  return (
    Object.keys(o.versions).length > 0 || Object.keys(o.throttled).length > 0 || Object.keys(o.rateLimits).length > 0
  );
}

/** Adds `from` into `into` (returns `into`). */
export function mergeObservations(into: Observations, from: Observations | undefined): Observations {
  if (!from) return into;
  for (const kind of ['versions', 'tls', 'servers', 'via', 'cacheHeaders'] as const)
    for (const [key, n] of Object.entries(from[kind] ?? {})) count(into[kind], key, n);
  into.cacheHits += from.cacheHits ?? 0;
  into.cacheExample ??= from.cacheExample;
  into.longestGet = Math.max(into.longestGet, from.longestGet ?? 0);
  into.longestPostBody = Math.max(into.longestPostBody, from.longestPostBody ?? 0);
  for (const seen of Object.values(from.throttled ?? {})) {
    const known = into.throttled[seen.path];
    if (!known) into.throttled[seen.path] = { ...seen, operations: [...seen.operations] };
    else {
      known.count += seen.count;
      if (seen.persistent) known.persistent = true;
      for (const operation of seen.operations)
        if (!known.operations.includes(operation)) known.operations.push(operation);
    }
  }
  for (const limit of Object.values(from.rateLimits ?? {})) {
    const known = into.rateLimits[limit.path];
    if (!known || (known.rps === null && limit.rps !== null)) into.rateLimits[limit.path] = limit;
  }
  return into;
}
