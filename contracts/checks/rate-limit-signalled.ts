import {
  BELOW_LIMIT_HOW,
  describeSignal,
  rateBelowLimit,
  signalledBy,
  type ThrottleSignal,
} from '../../http/throttle.ts';
import { show } from '../failure.ts';
import { type CheckContext, defineCheck } from './registry.ts';
import { body, validRequest } from './support.ts';

/**
 * Requests of the burst, sent in waves of concurrent requests, the first of BURST_WAVE and each
 * after it twice the last; the burst stops at the first throttled answer. A limiter refills while this process
 * judges a wave's answers, which a loaded machine does slowly: waves of one size could each find it
 * refilled, however many were sent, while a growing wave soon outruns any bucket it can refill.
 */
const BURST_LIMIT = 1_000;
const BURST_WAVE = 50;
/** The longest wait the suite honours before checking recovery. */
const MAX_WAIT_S = 10;

/** The operations the interface rate-limits, as the verdict names them. */
const NAMES: Record<string, string> = { answerSearch: 'answer search', urlPreview: 'URL preview' };

/**
 * A bounded burst is throttled as the interface signals it: 429 with its JSON error stating the
 * seconds to wait, and the target recovers after them. A burst throttled any other way (a front
 * server's 503, an HTML 429, with or without Retry-After) is one failure that names the limit, the
 * rate it lets through and who signalled it.
 */
export const check = defineCheck({
  id: 'rate-limit-signalled',
  severity: 'fail',
  verifies: `a burst (at most ${BURST_LIMIT} requests) is answered 429 {error:{statusCode:429,message}} whose message states the seconds to wait, and a request after that wait succeeds; throttled any other way (a front server's 503 or HTML 429), the limit is named with the rate it lets through and who signalled it`,
  kind: 'test',
  tag: '@rate-limit',
  appliesTo: (op) => op.operationId === 'answerSearch' || op.operationId === 'urlPreview',
  async run(ctx) {
    const request = await validRequest(ctx.op, ctx.data);
    const burst = { ...request, retryRateLimited: false, unpaced: true };
    let accepted = 0;
    const limited = await ctx.step('burst until throttled', async () => {
      for (let sent = 0, size = BURST_WAVE; sent < BURST_LIMIT; size *= 2) {
        const count = Math.min(size, BURST_LIMIT - sent);
        const wave = await Promise.all(Array.from({ length: count }, () => ctx.api.call(ctx.op, burst)));
        sent += count;
        accepted += wave.filter((response) => !response.throttled).length;
        const hit = wave.find((response) => response.throttled);
        if (hit) return hit;
      }
      return undefined;
    });
    if (!limited) {
      return ctx.fail(
        'no 429 under a burst',
        {
          received: `${BURST_LIMIT} requests, none throttled (no 429, no 503)`,
          documented: 'rate limit exceeded yields 429 (interface 7.3, 8)',
        },
        ctx.api.last,
      );
    }
    const signal = limited.throttled!;
    const name = NAMES[ctx.op.operationId] ?? ctx.op.label;
    if (signal.status !== 429 || !/json/.test(signal.contentType)) {
      // Not the interface speaking: a server in front of it. Its limit is measured, then named once.
      const rps = await ctx.step('measure the rate it lets through', () =>
        rateBelowLimit(() => ctx.api.call(ctx.op, burst).then((response) => !response.throttled)),
      );
      record(
        ctx,
        signal,
        rps,
        `${BELOW_LIMIT_HOW}, after a burst met the limit (first refused: ${rps.refused ?? 'none'}/s)`,
      );
      return ctx.fail(
        'rate limited, but not as the interface signals it',
        {
          received: `${name} is rate limited at about ${rps.rps} requests/s by ${signalledBy(signal)} that answers ${describeSignal(signal)}`,
          documented:
            'the interface promises 429 with the seconds to wait: {error: {statusCode: 429, message}} stating them (interface 7.3, 8)',
        },
        limited,
      );
    }
    record(
      ctx,
      signal,
      null,
      `met by a burst after ${accepted} accepted request(s); its rate is not measured here (kgate probe rate-limit measures it)`,
    );
    const rateLimited = limited;
    const error = (body(rateLimited).error ?? {}) as { statusCode?: unknown; message?: unknown };
    ctx.expect(
      error.statusCode === 429,
      '429 body is not in the documented shape',
      () => ({
        received: show(rateLimited.json),
        documented: '{error: {statusCode: 429, message}} (interface 7.3)',
        pointer: '/error/statusCode',
      }),
      rateLimited,
    );
    const seconds = /(\d+(?:\.\d+)?)\s*seconds?/i.exec(String(error.message ?? ''));
    ctx.expect(
      seconds !== null,
      '429 message does not state the seconds to wait',
      () => ({
        received: `message ${show(error.message)}`,
        documented: 'a message that states how many seconds to wait (interface 7.3)',
        pointer: '/error/message',
      }),
      rateLimited,
    );
    const wait = Number(seconds![1]);
    ctx.expect(
      wait <= MAX_WAIT_S,
      'stated wait too long to verify recovery',
      () => ({
        received: `${wait} seconds`,
        documented: `a wait of at most ${MAX_WAIT_S} s for this suite to verify recovery`,
      }),
      rateLimited,
    );
    await ctx.step(`recovery after ${wait} s`, async () => {
      await new Promise((resolve) => setTimeout(resolve, wait * 1000 + 100));
      const after = await ctx.api.call(ctx.op, burst);
      ctx.expect(
        after.status === 200,
        'no recovery after the stated wait',
        () => ({
          received: `status ${after.status}`,
          documented: `200 after waiting the ${wait} s the 429 stated`,
        }),
        after,
      );
    });
  },
});

/** Puts the limit met into the run's envelope (http/observations.ts). */
function record(ctx: CheckContext, signal: ThrottleSignal, rps: { rps: number } | null, how: string): void {
  ctx.api.observed.rateLimits[ctx.op.path] = {
    path: ctx.op.path,
    operation: ctx.op.label,
    signal,
    rps: rps ? rps.rps : null,
    how,
  };
}
