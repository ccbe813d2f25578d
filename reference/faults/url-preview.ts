import { editOk, editStatus, OPS, objects, withBody } from './transform.ts';
import type { Fault, HandlerResult, RequestContext } from './types.ts';

/** How long a key stays locked out after a real 429 on the no-recovery fault. */
export const NO_RECOVERY_LOCKOUT_MS = 20_000;

/**
 * A response hook that, once a key got a real 429, keeps answering that key 429 (with the same
 * stated wait) for NO_RECOVERY_LOCKOUT_MS, so waiting the stated seconds does not help.
 */
function lockoutAfter429(): NonNullable<Fault['response']> {
  const lockedUntil = new Map<string, { until: number; answer: HandlerResult }>();
  return (ctx: RequestContext, result: HandlerResult) => {
    const key = ctx.key ?? '';
    const now = Date.now();
    if (result.status === 429) {
      lockedUntil.set(key, { until: now + NO_RECOVERY_LOCKOUT_MS, answer: result });
      return result;
    }
    const lock = lockedUntil.get(key);
    if (!lock) return result;
    if (lock.until <= now) {
      lockedUntil.delete(key);
      return result;
    }
    return lock.answer;
  };
}

/** Forbidden deviations of URL preview. */
export function urlPreviewFaults(): Fault[] {
  return [
    {
      name: 'urlpreview-invalid-url-accepted',
      group: 'urlPreview',
      operations: [...OPS.urlPreview],
      deviation: 'forbidden',
      description: 'URL preview answers 200 with a made-up page for a q that is not a URL (q=not a url) instead of 400',
      response(ctx, result) {
        const q = ctx.params.q?.trim() ?? '';
        if (result.status !== 400 || q === '') return result;
        return withBody(
          { status: 200 },
          { _type: 'WebPage', name: q, url: q, description: '', primaryImageOfPage: { contentUrl: '' } },
        );
      },
    },
    {
      name: 'urlpreview-content-type-html',
      group: 'urlPreview',
      operations: [...OPS.urlPreview],
      deviation: 'forbidden',
      description: 'URL preview 200 answers carry Content-Type text/html; charset=utf-8 for their JSON body',
      response(_ctx, result) {
        return result.status === 200 ? { ...result, contentType: 'text/html; charset=utf-8' } : result;
      },
    },
    {
      name: 'urlpreview-image-missing',
      group: 'urlPreview',
      operations: [...OPS.urlPreview],
      deviation: 'forbidden',
      description: 'URL preview drops the documented primaryImageOfPage (and its contentUrl)',
      response: editOk((body) => {
        delete body.primaryImageOfPage;
      }),
    },
    {
      name: 'urlpreview-400-academic-shape',
      group: 'urlPreview',
      operations: [...OPS.urlPreview],
      deviation: 'forbidden',
      description:
        "URL preview 400 body is the academic {error:{code:'Bad Argument',message}} instead of an ErrorResponse",
      response: editStatus(400, (body) => {
        const message = objects(body.errors)[0]?.message ?? '';
        return { error: { code: 'Bad Argument', message } };
      }),
    },
    {
      name: 'urlpreview-exhausted-key-429',
      group: 'urlPreview',
      operations: [...OPS.urlPreview],
      deviation: 'forbidden',
      description: 'URL preview answers a key whose quota is used up with 429 (rate limit) instead of 403',
      response(_ctx, result) {
        if (result.status !== 403) return result;
        const message = 'Rate limit is exceeded. Try again in 86400 seconds.';
        return withBody({ status: 429, headers: { 'Retry-After': '86400' } }, { error: { statusCode: 429, message } });
      },
    },
    {
      name: 'urlpreview-429-no-recovery',
      group: 'urlPreview',
      operations: [...OPS.urlPreview],
      deviation: 'forbidden',
      description:
        'URL preview keeps answering a key 429 for 20 s after its first 429, well past the wait the 429 message states',
      response: lockoutAfter429(),
    },
  ];
}
