import { show } from '../failure.ts';
import { modelDefaultsToLatest } from '../properties/relations.ts';
import { agreeWithNoise, describeTolerance, toleranceNote } from '../properties/tolerance.ts';
import { defineCheck } from './registry.ts';
import { baseName, isAcademicSearch, validRequest } from './support.ts';

/** A request without `model` is answered as the same request with model=latest. */
export const check = defineCheck({
  id: 'model-defaults-to-latest',
  severity: 'fail',
  verifies:
    'interpret, evaluate and calchistogram answer a request without model as the same request with model=latest (the same JSON, numbers within the tolerance), for chosen and for generated inputs (two per operation)',
  kind: 'test',
  appliesTo: (op) => isAcademicSearch(op),
  async run(ctx) {
    const request = await validRequest(ctx.op, ctx.data);
    // The newest papers first: where two models of the data differ, it shows there first.
    const params =
      baseName(ctx.op) === 'evaluate'
        ? { ...request.params!, attributes: 'Id,Y', orderby: 'Y:desc', count: '10' }
        : { ...request.params! };
    const without = await ctx.api.call(ctx.op, { params });
    const latest = await ctx.api.call(ctx.op, { params: { ...params, model: 'latest' } });
    const agreement =
      without.status === latest.status
        ? await agreeWithNoise(without.json, latest.json, async () => (await ctx.api.call(ctx.op, { params })).json)
        : undefined;
    if (agreement?.learned) ctx.note(toleranceNote(ctx.op.label, agreement));
    ctx.expect(
      agreement?.agree === true,
      "the default model answers differently from model='latest'",
      () => ({
        received: `without model: status ${without.status} ${show(without.json, 160)}`,
        documented: `model defaults to 'latest' (interface 4.1, 4.3, 4.5, 9): as with model=latest${agreement ? `, numbers within ${describeTolerance(agreement)}` : ''}, status ${latest.status} ${show(latest.json, 160)} (relation: ${modelDefaultsToLatest.name})`,
      }),
      without,
    );
  },
});
