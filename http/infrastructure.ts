// What an answer's headers say about the servers it passed through: the server that sent it
// (`Server`), the proxies on the way (`Via`), and a cache that served it (`Age`, `X-Cache`,
// `X-Varnish`, `CF-Cache-Status`, `X-Cache-Hits`, `X-Served-By`...). The interface documents none
// of these: they belong to the deployment's infrastructure, and they are how a finding names it.

/** The headers caches and CDNs mark their answers with, in the order a finding names them. */
export const CACHE_HEADERS = [
  'age',
  'x-cache',
  'x-cache-status',
  'x-cache-hits',
  'x-varnish',
  'cf-cache-status',
  'x-served-by',
  'x-proxy-cache',
  'cache-status',
] as const;

/** What an answer's headers say about the infrastructure in front of the interface. */
export interface Infrastructure {
  server?: string;
  via?: string;
  /** The cache headers the answer carried, by lower-case name. */
  cache: Record<string, string>;
  /** True when the headers say the answer came from a cache rather than from the server behind it. */
  hit: boolean;
}

/** Reads the infrastructure headers of an answer (lower-case header names, as kgate's client gives them). */
export function infrastructureOf(headers: Record<string, string>): Infrastructure {
  const cache: Record<string, string> = {};
  for (const name of CACHE_HEADERS) if (headers[name] !== undefined) cache[name] = headers[name];
  return {
    ...(headers.server ? { server: headers.server } : {}),
    ...(headers.via ? { via: headers.via } : {}),
    cache,
    hit: isCacheHit(headers),
  };
}

/**
 * True when an answer came from a cache, whatever its age: `X-Varnish` carrying two ids (this
 * request's and the one that filled the cache), an `X-Cache` or `CF-Cache-Status` saying HIT, a
 * `Cache-Status` with `hit`, a `Via` whose comment says hit, or an `Age`, even 0 (RFC 9111 5.1: an
 * Age says the answer was not made by the origin for this request; Apache's mod_cache sends `Age: 0`
 * on a hit served within the second) but from Varnish, which sends `Age: 0` on a miss too and says
 * which it was with its ids.
 */
export function isCacheHit(headers: Record<string, string>): boolean {
  const varnish = headers['x-varnish'];
  if (varnish !== undefined) return /^\s*\d+\s+\d+\s*$/.test(varnish);
  // A cache that says in words whether it served the answer is taken at its word, whatever its Age.
  const said = [headers['x-cache'], headers['x-cache-status']].filter((value) => value !== undefined);
  if (said.length > 0) return said.some((value) => /\bHIT\b/i.test(value!));
  if (headers['cf-cache-status'] !== undefined)
    return /^\s*(HIT|STALE|UPDATING|REVALIDATED)\s*$/i.test(headers['cf-cache-status']);
  if (headers['cache-status'] !== undefined) return /;\s*hit\b/i.test(headers['cache-status']);
  if (/\(([^)]*\b)?hit\b/i.test(headers.via ?? '')) return true;
  const age = Number(headers.age);
  return headers.age !== undefined && headers.age.trim() !== '' && Number.isFinite(age) && age >= 0;
}

/** True when the headers name a cache at all (a hit or a miss of one). */
export function hasCache(headers: Record<string, string>): boolean {
  return CACHE_HEADERS.some((name) => name !== 'age' && headers[name] !== undefined) || headers.age !== undefined;
}

/** The cache an answer names, in words: `Age: 3; X-Varnish: 32770 5; Via: 1.1 varnish (Varnish/7.1)`. */
export function describeCache(headers: Record<string, string>): string {
  const parts = CACHE_HEADERS.filter((name) => headers[name] !== undefined).map(
    (name) => `${displayName(name)}: ${headers[name]}`,
  );
  if (headers.via) parts.push(`Via: ${headers.via}`);
  if (headers.server) parts.push(`Server: ${headers.server}`);
  return parts.join('; ');
}

/** The cache an answer names, by its header names and its Via and Server (the same for every answer of it): `X-Varnish, Age; Via: 1.1 varnish (Varnish/7.1)`. */
export function nameCache(headers: Record<string, string>): string {
  const names = CACHE_HEADERS.filter((name) => headers[name] !== undefined).map(displayName);
  const parts = [names.join(', ')];
  if (headers.via) parts.push(`Via: ${headers.via}`);
  if (headers.server) parts.push(`Server: ${headers.server}`);
  return parts.filter(Boolean).join('; ');
}

/** `x-varnish` as `X-Varnish`, `cf-cache-status` as `CF-Cache-Status`. */
function displayName(name: string): string {
  return name
    .split('-')
    .map((part) => (part === 'cf' ? 'CF' : `${part[0]!.toUpperCase()}${part.slice(1)}`))
    .join('-');
}
