import { type MixRequest, requestTarget } from './scenarios.ts';
import { simpleRequest } from './target.ts';
import { targetUrl } from './target-url.ts';

/** A target that could not be reached before the run: exit code 2. */
export class TargetUnreachable extends Error {
  override name = 'TargetUnreachable';
}

/**
 * Checks the target answers before any load is sent, and discovers values the mix needs from the
 * target itself: the `{event_id}` of the news-in-an-event operation comes from a hot-events answer.
 */
export async function preflight(
  baseUrl: string,
  key: string | undefined,
  mix: MixRequest[],
): Promise<Record<string, string>> {
  const headers: Record<string, string> = key ? { 'Ocp-Apim-Subscription-Key': key } : {};
  const hot = mix.find((entry) => entry.operationId === 'hotEvents');
  const probe = targetUrl(baseUrl, hot ? requestTarget(hot) : '/');
  let body: string;
  try {
    const response = await simpleRequest(probe, { headers, timeoutMs: 10_000 });
    body = response.body;
  } catch (error) {
    throw new TargetUnreachable(
      `target ${baseUrl} is unreachable: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  const pathParams: Record<string, string> = {};
  if (mix.some((entry) => entry.path.includes('{event_id}'))) {
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
