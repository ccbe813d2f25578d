// The k6 side of the scenarios: the iteration every script runs and the setup that discovers an
// event id. Only k6 modules and relative imports (k6 1.x runs this TypeScript natively).
import { check } from 'k6';
import http from 'k6/http';
import { type MixRequest, requestBody, requestTarget } from '../scenarios.ts';
import { basePath, targetUrl } from '../target-url.ts';
import { scenarioFor } from './options.ts';
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

function headers(request?: MixRequest): Record<string, string> {
  const out: Record<string, string> = {};
  const key = __ENV.KGATE_KEY;
  if (key) out['Ocp-Apim-Subscription-Key'] = key;
  if (request?.form) out['Content-Type'] = 'application/x-www-form-urlencoded';
  return out;
}

/** Fetches one hot-events page to find a real event id for the news-in-an-event operation. */
export function discover(name: string): SetupData {
  const url = baseUrl();
  const scenario = scenarioFor(name, __ENV);
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
