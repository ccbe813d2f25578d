import { BROWSING_MIX, type MixRequest, requestTarget } from './scenarios.ts';
import { type SimpleResponse, simpleRequest } from './target.ts';
import { targetUrl } from './target-url.ts';

/** A target that could not be reached before the run: exit code 2. */
export class TargetUnreachable extends Error {
  override name = 'TargetUnreachable';
}

/**
 * One request along the run's route, before any load: a target or proxy that cannot be reached, a
 * proxy that refuses (CONNECT refused, 407), a TLS connection that fails, or a server in front of
 * the deployment that refuses the request with a page of its own (a 4xx whose body is not JSON: a
 * client certificate it requires, a path it does not route) throws TargetUnreachable with a
 * one-line reason. Any other answer is the body returned: a 5xx is the target's to be measured.
 */
async function firstAnswer(url: string, baseUrl: string, key: string | undefined): Promise<string> {
  const headers: Record<string, string> = key ? { 'Ocp-Apim-Subscription-Key': key } : {};
  let response: SimpleResponse;
  try {
    response = await simpleRequest(url, { headers, timeoutMs: 10_000 });
  } catch (error) {
    throw new TargetUnreachable(
      `target ${baseUrl} is unreachable: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  const type = String(response.headers['content-type'] ?? '');
  if (response.status >= 400 && response.status < 500 && !/^application\/([\w.+-]+\+)?json\b/i.test(type)) {
    const page = /<title>\s*([^<]{1,120}?)\s*<\/title>/i.exec(response.body)?.[1] ?? response.body;
    const words = page.replace(/\s+/g, ' ').trim().slice(0, 80);
    throw new TargetUnreachable(
      `target ${baseUrl} refused the first request: ${response.status} ${type.split(';')[0]?.trim() || 'without a content type'} (${words ? JSON.stringify(words) : 'an empty body'}), not the interface's JSON: a server in front of the deployment refuses it (a client certificate it requires? --client-cert, --client-key; the base URL's path?)`,
    );
  }
  return response.body;
}

/** Checks the route to the target with one request of `target` (a path with its query) before a probe starts. */
export async function checkRoute(baseUrl: string, key: string | undefined, target: string): Promise<void> {
  await firstAnswer(targetUrl(baseUrl, target), baseUrl, key);
}

/**
 * Checks the target answers before any load is sent (checkRoute's rules), and discovers values
 * the mix needs from the target itself: the `{event_id}` of the news-in-an-event operation comes
 * from a hot-events answer.
 */
export async function preflight(
  baseUrl: string,
  key: string | undefined,
  mix: MixRequest[],
): Promise<Record<string, string>> {
  const needsEvent = mix.some((entry) => entry.path.includes('{event_id}'));
  // A mix that sends the news of an event but no hot events of its own (recorded traffic) still
  // needs an event id of this target: kgate's hot-events request finds one.
  const hot =
    mix.find((entry) => entry.operationId === 'hotEvents') ??
    (needsEvent ? BROWSING_MIX.find((entry) => entry.operationId === 'hotEvents') : undefined);
  const body = await firstAnswer(targetUrl(baseUrl, hot ? requestTarget(hot) : '/'), baseUrl, key);
  const pathParams: Record<string, string> = {};
  if (needsEvent) {
    pathParams.event_id = firstEventId(body) ?? 'unknown-event';
  }
  return pathParams;
}

function firstEventId(body: string): string | undefined {
  try {
    const parsed = JSON.parse(body) as { value?: { eventId?: unknown; id?: unknown }[] };
    const first = parsed.value?.[0];
    const id = first?.eventId ?? first?.id;
    return typeof id === 'string' ? id : undefined;
  } catch {
    return undefined;
  }
}
