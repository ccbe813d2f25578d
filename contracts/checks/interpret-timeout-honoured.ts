import { show } from '../failure.ts';
import { agreeWithNoise, describeTolerance, toleranceNote } from '../properties/tolerance.ts';
import { defineCheck } from './registry.ts';
import { body, validRequest } from './support.ts';

/** The interpret `timeout` sent, in milliseconds. */
const TIMEOUT_MS = 100;
/** How much longer than `timeout` an answer may take (network, scheduling, serialisation). */
const SLACK_MS = 1_900;

/** interpret with `timeout` answers in bounded time: aborted true, or a complete answer. */
export const check = defineCheck({
  id: 'interpret-timeout-honoured',
  severity: 'fail',
  verifies: `interpret with timeout=${TIMEOUT_MS} answers within ${TIMEOUT_MS + SLACK_MS} ms: aborted true (or timed_out true) when cut short, else the complete answer; aborted, when present, is a boolean`,
  kind: 'test',
  appliesTo: (op) => op.operationId.startsWith('interpret'),
  async run(ctx) {
    const request = await validRequest(ctx.op, ctx.data);
    const params = request.params!;
    const full = await ctx.step('without timeout', () => ctx.api.call(ctx.op, { params }));
    const timed = await ctx.step(`timeout=${TIMEOUT_MS}`, () =>
      ctx.api.call(ctx.op, { params: { ...params, timeout: String(TIMEOUT_MS) } }),
    );
    ctx.expect(
      timed.elapsedMs <= TIMEOUT_MS + SLACK_MS,
      'timeout not honoured',
      () => ({
        received: `answer after ${Math.round(timed.elapsedMs)} ms`,
        documented: `only interpretations found before ${TIMEOUT_MS} ms are returned (allowing ${SLACK_MS} ms for transport)`,
      }),
      timed,
    );
    const answer = body(timed);
    const aborted = answer.aborted;
    ctx.expect(
      aborted === undefined || typeof aborted === 'boolean',
      'aborted is not a boolean',
      () => ({
        received: `aborted ${show(aborted)}`,
        documented:
          'aborted: boolean when present (interface 2.1; the real service left it out when nothing timed out)',
        pointer: '/aborted',
      }),
      timed,
    );
    // Cut short: aborted true, or the timed_out flag some real interpret answers carried instead.
    const cutShort = aborted === true || (aborted === undefined && answer.timed_out === true);
    if (!cutShort) {
      const agreement = await agreeWithNoise(
        body(full).interpretations,
        answer.interpretations,
        async () => body(await ctx.api.call(ctx.op, { params })).interpretations,
      );
      if (agreement.learned) ctx.note(toleranceNote(ctx.op.label, agreement));
      ctx.expect(
        agreement.agree,
        'not aborted but incomplete',
        () => ({
          received: `${aborted === false ? 'aborted false' : 'no aborted flag'} with ${show(answer.interpretations, 160)}`,
          documented: `the complete answer (numbers within ${describeTolerance(agreement)}): ${show(body(full).interpretations, 160)}`,
          pointer: '/interpretations',
        }),
        timed,
      );
    }
  },
});
