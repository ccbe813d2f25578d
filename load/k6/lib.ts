// The k6 side of the scenarios: the iteration every script runs and the setup that discovers an
// event id. Only k6 modules and relative imports (k6 1.x runs this TypeScript natively).
import { check } from 'k6';
import http from 'k6/http';
import { type MixRequest, requestBody, requestTarget } from '../scenarios.ts';
import { basePath, targetUrl } from '../target-url.ts';
import { scenarioFor, validateShareNote } from './options.ts';
import { shapeProblem } from './shape.ts';

/** What setup() hands to every iteration. */
export interface SetupData {
  baseUrl: string;
  pathParams: Record<string, string>;
}

function baseUrl(): string {
  const url = __ENV.BASE_URL || __ENV.KGATE_BASE_URL;
  if (!url) throw new Error('set the target with -e BASE_URL=http://host:port');
  // Refuses a query or fragment here, once, rather than in every iteration.
  basePath(url);
  return url.replace(/\/+$/, '');
}

/** k6's console (its global; @types/k6 does not declare it). */
declare const console: { warn(...parts: unknown[]): void };

/** kgate's version, set when `kgate k6 bundle` bundles the script (esbuild's define); absent when k6 runs the sources. */
declare const KGATE_VERSION: string | undefined;
/** The User-Agent of every request, as `kgate load` sends `kgate/<version>`. */
const USER_AGENT = typeof KGATE_VERSION === 'string' ? `kgate/${KGATE_VERSION} (k6)` : 'kgate (k6)';
/** An HTTP token (RFC 9110): what a header name may hold. */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** A byte HTTP forbids in a header value (RFC 9110 field-value), or whitespace at either end. */
const FORBIDDEN = /[^\t\x20-\x7e\x80-\xff]|^[ \t]|[ \t]$/;

let added: Record<string, string> | undefined;

/**
 * The headers every request carries besides the key: the User-Agent, then KGATE_HEADERS, a JSON
 * object of names and values (`-e KGATE_HEADERS='{"Authorization":"Bearer ...","X-Tenant":"acme"}'`),
 * as `--header` adds them to `kgate load`'s requests; an empty value sends none of that name.
 * Credentials in BASE_URL (`https://user:password@host/api`) are sent as Basic authorization by k6.
 */
function addedHeaders(): Record<string, string> {
  if (added) return added;
  const out: Record<string, string> = { 'User-Agent': USER_AGENT };
  const raw = __ENV.KGATE_HEADERS;
  if (raw) {
    let given: unknown;
    try {
      given = JSON.parse(raw);
    } catch (_) {
      given = undefined;
    }
    if (!given || typeof given !== 'object' || Array.isArray(given))
      throw new Error('KGATE_HEADERS takes a JSON object of header names and values, e.g. {"X-Tenant":"acme"}');
    const values = given as Record<string, unknown>;
    // Object.keys, not newer helpers: k6's older runtimes run ES2015 and its library.
    for (const name of Object.keys(values)) {
      const value = values[name];
      if (!TOKEN.test(name)) throw new Error(`KGATE_HEADERS: '${name}' is not a header name (an HTTP token)`);
      if (typeof value !== 'string' || FORBIDDEN.test(value))
        throw new Error(
          `KGATE_HEADERS: the value of ${name} must be a string of visible characters, spaces and tabs (RFC 9110 field-value: no line break or control character, no whitespace at either end)`,
        );
      for (const known in out) if (known.toLowerCase() === name.toLowerCase()) delete out[known];
      if (value !== '') out[name] = value;
    }
  }
  added = out;
  return out;
}

function headers(request?: MixRequest): Record<string, string> {
  const out: Record<string, string> = {};
  const extra = addedHeaders();
  for (const name in extra) out[name] = extra[name] as string;
  const key = __ENV.KGATE_KEY;
  if (key) out['Ocp-Apim-Subscription-Key'] = key;
  if (request?.form) out['Content-Type'] = 'application/x-www-form-urlencoded';
  return out;
}

/** Fetches one hot-events page to find a real event id for the news-in-an-event operation. */
export function discover(name: string): SetupData {
  const url = baseUrl();
  const scenario = scenarioFor(name, __ENV);
  // Said once, in setup: the init code runs in every VU.
  const note = validateShareNote(__ENV);
  if (note) console.warn(note);
  const pathParams: Record<string, string> = { event_id: 'unknown-event' };
  const hot = scenario.mix.find((entry) => entry.operationId === 'hotEvents');
  if (hot) {
    const res = http.get(targetUrl(url, requestTarget(hot)), { headers: headers(), tags: { name: 'setup' } });
    try {
      const body = res.json() as { value?: { eventId?: string }[] } | null;
      const id = body?.value?.[0]?.eventId;
      if (typeof id === 'string') pathParams.event_id = id;
    } catch (_) {
      // No event id: the documents operation then answers 404 and counts as failed, as in kgate.
    }
  }
  return { baseUrl: url, pathParams };
}

function pick(mix: MixRequest[]): MixRequest {
  const total = mix.reduce((sum, entry) => sum + entry.weight, 0);
  let draw = Math.random() * total;
  for (const entry of mix) {
    draw -= entry.weight;
    if (draw < 0) return entry;
  }
  return mix[mix.length - 1] as MixRequest;
}

/** One arrival: a request drawn from the weighted mix, checked on the scenario's validation share. */
export function iteration(name: string, data: SetupData): void {
  const scenario = scenarioFor(name, __ENV);
  const request = pick(scenario.mix);
  const url = targetUrl(data.baseUrl, requestTarget(request, data.pathParams));
  const params = { headers: headers(request), tags: { name: request.operationId } };
  const res = http.request(request.method, url, requestBody(request) ?? null, params);
  if (Math.random() >= scenario.validateShare) return;
  check(
    res,
    {
      'status is 200': (r) => r.status === 200,
      'content type is JSON': (r) => String(r.headers['Content-Type'] ?? '').startsWith('application/json'),
      'body has the documented shape': (r) => {
        try {
          return shapeProblem(request.operationId, JSON.parse(String(r.body))) === undefined;
        } catch (_) {
          return false;
        }
      },
    },
    { operation: request.operationId },
  );
}
