import { show } from '../failure.ts';
import { objects } from '../json.ts';
import { defineCheck } from './registry.ts';
import { body, validRequest } from './support.ts';

/** Interpretations come by descending prob. */
export const check = defineCheck({
  id: 'interpretations-ordered-by-prob',
  severity: 'fail',
  verifies: 'interpretations are ordered by descending prob (higher means more likely)',
  kind: 'test',
  appliesTo: (op) => op.operationId.startsWith('interpret'),
  async run(ctx) {
    const request = await validRequest(ctx.op, ctx.data);
    const response = await ctx.api.call(ctx.op, {
      ...request,
      params: { ...request.params, count: '20' },
    });
    const interpretations = objects(body(response).interpretations) as { prob?: unknown }[];
    if (interpretations.length < 2)
      ctx.skip(
        `interpret returned ${interpretations.length} interpretation(s) for '${request.params!.query}': nothing to order`,
      );
    const probs = interpretations.map((i) => i.prob);
    const at = probs.findIndex((p, i) => i > 0 && Number(p) > Number(probs[i - 1]));
    ctx.expect(
      at === -1,
      'interpretations not by descending prob',
      () => ({
        received: `prob ${show(probs[at - 1])} then ${show(probs[at])}: ${show(probs)}`,
        documented: 'descending prob',
        pointer: `/interpretations/${at}/prob`,
      }),
      response,
    );
  },
});
