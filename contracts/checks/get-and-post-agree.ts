import { op } from '../api.ts';
import { show } from '../failure.ts';
import { agreeWithNoise, describeTolerance, toleranceNote } from '../properties/tolerance.ts';
import { defineCheck } from './registry.ts';
import { baseName, validRequest } from './support.ts';

/** The POST variant answers as the GET variant for the same parameters (scores within single-precision rounding). */
export const check = defineCheck({
  id: 'get-and-post-agree',
  severity: 'fail',
  verifies:
    'interpret, evaluate, calchistogram and similarity answer a form POST as the GET with the same parameters (the same JSON: integers exactly, scores within a relative 4.8e-7, four single-precision epsilons, for methods or replicas that compute in float32 or in another order, or where they differ more, within 100 times the spread of three identical GETs, at most 1e-6), for chosen and for generated inputs, long ones included up to a 12,000-character query string',
  kind: 'test',
  appliesTo: (o) => o.method === 'post',
  reads: (o) => [`${baseName(o)}Get`],
  async run(ctx) {
    const get = op(`${baseName(ctx.op)}Get`);
    const request = await validRequest(get, ctx.data);
    const variants = [request.params!];
    if (ctx.op.paging) {
      variants.push({ ...request.params!, [ctx.op.paging.count]: '1' });
      variants.push({ ...request.params!, [ctx.op.paging.count]: '2', [ctx.op.paging.offset]: '1' });
    }
    for (const params of variants) {
      await ctx.step(new URLSearchParams(params).toString().slice(0, 80), async () => {
        const viaGet = await ctx.api.call(get, { params });
        const viaPost = await ctx.api.call(ctx.op, { params });
        const agreement =
          viaGet.status === viaPost.status
            ? await agreeWithNoise(viaGet.json, viaPost.json, async () => (await ctx.api.call(get, { params })).json)
            : undefined;
        if (agreement?.learned) ctx.note(toleranceNote(get.label, agreement));
        ctx.expect(
          agreement?.agree === true,
          'POST answers differently from GET',
          () => ({
            received: `POST status ${viaPost.status} ${show(viaPost.json, 160)}`,
            documented: `same as GET${agreement ? ` (numbers within ${describeTolerance(agreement)})` : ''}: status ${viaGet.status} ${show(viaGet.json, 160)}`,
          }),
          viaPost,
        );
      });
    }
  },
});
