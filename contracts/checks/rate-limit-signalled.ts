import { show } from '../failure.ts';
import { defineCheck } from './registry.ts';
import { body, validRequest } from './support.ts';

/**
 * Requests of the burst, sent in waves of concurrent requests, the first of BURST_WAVE and each
 * after it twice the last; the burst stops at the first 429. A limiter refills while this process
 * judges a wave's answers, which a loaded machine does slowly: waves of one size could each find it
 * refilled, however many were sent, while a growing wave soon outruns any bucket it can refill.
 */
const BURST_LIMIT = 1_000;
const BURST_WAVE = 50;
/** The longest wait the suite honours before checking recovery. */
const MAX_WAIT_S = 10;

/** A bounded burst yields 429 in the documented shape, stating the seconds to wait, and the target recovers after them. */
export const check = defineCheck({
  id: 'rate-limit-signalled',
  severity: 'fail',
  verifies: `a burst (at most ${BURST_LIMIT} requests) is answered 429 {error:{statusCode:429,message}} whose message states the seconds to wait, and a request after that wait succeeds`,
  kind: 'test',
  tag: '@rate-limit',
  appliesTo: (op) => op.operationId === 'answerSearch' || op.operationId === 'urlPreview',
  async run(ctx) {
    const request = await validRequest(ctx.op, ctx.data);
    const limited = await ctx.step('burst until 429', async () => {
      for (let sent = 0, size = BURST_WAVE; sent < BURST_LIMIT; size *= 2) {
        const count = Math.min(size, BURST_LIMIT - sent);
        const wave = await Promise.all(
          Array.from({ length: count }, () => ctx.api.call(ctx.op, { ...request, retryRateLimited: false })),
        );
        sent += count;
        const hit = wave.find((response) => response.status === 429);
        if (hit) return hit;
      }
      return undefined;
    });
    if (!limited) {
      return ctx.fail(
        'no 429 under a burst',
        {
          received: `${BURST_LIMIT} requests, none answered 429`,
          documented: 'rate limit exceeded yields 429 (interface 7.3, 8)',
        },
        ctx.api.sent.at(-1),
      );
    }
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
      const after = await ctx.api.call(ctx.op, { ...request, retryRateLimited: false });
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
