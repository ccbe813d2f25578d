import { histogramCountsAreBounded } from '../properties/responses.ts';
import { defineCheck } from './registry.ts';

/** A histogram's counts never exceed what its totals allow. */
export const check = defineCheck({
  id: 'histogram-counts-are-bounded',
  severity: 'fail',
  verifies:
    'in every histogram no entry count exceeds num_entities, distinct_values is at least the number of entries listed, and total_count at least their counts summed',
  kind: 'test',
  appliesTo: (o) => o.operationId.startsWith('calchistogram'),
  async run(ctx) {
    const expr = await ctx.data.broadExpr();
    const response = await ctx.api.call(ctx.op, { params: { expr, attributes: 'Y,F.FN', count: '30' } });
    if (response.status !== 200) ctx.skip(`calchistogram answered status ${response.status} for ${expr}`);
    const [first] = histogramCountsAreBounded.judge({
      operationId: ctx.op.operationId,
      params: { expr, attributes: 'Y,F.FN', count: '30' },
      pathParams: {},
      status: response.status,
      json: response.json,
    });
    if (first) ctx.fail(first.title, first, response);
  },
});
