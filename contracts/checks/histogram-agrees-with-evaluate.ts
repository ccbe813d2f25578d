import { op } from '../api.ts';
import { objects } from '../json.ts';
import { histogramAgreesWithEvaluate, judgeHistogramAgreement } from '../properties/relations.ts';
import { defineCheck } from './registry.ts';
import { body } from './support.ts';

/** The attributes the fixed test histograms: a number and a field of study (the generated requests histogram the others). */
const ATTRIBUTES = 'Y,F.FN';

/** calchistogram's totals match what evaluate returns for the same expression. */
export const check = defineCheck({
  id: 'histogram-agrees-with-evaluate',
  severity: 'fail',
  verifies:
    "for the same expr (an author's, and generated ones matching fewer than 1,000 papers), num_entities equals the number of entities evaluate returns, and every histogram's total_count, distinct_values, counts and probs (the sum of those entities' probs, within a relative 2e-3) match those entities",
  kind: 'test',
  appliesTo: (o) => o.operationId.startsWith('calchistogram'),
  reads: () => ['evaluateGet'],
  async run(ctx) {
    const expr = await ctx.data.narrowExpr();
    const evaluated = await ctx.step('evaluate', () =>
      ctx.api.call(op('evaluateGet'), { params: { expr, attributes: `Id,${ATTRIBUTES}`, count: '1000' } }),
    );
    if (evaluated.status !== 200)
      ctx.skip(`evaluate answered status ${evaluated.status} for ${expr}: nothing to compare with`);
    const entities = objects(body(evaluated).entities);
    if (entities.length === 0) ctx.skip(`evaluate returned no entities for ${expr}: nothing to compare with`);
    if (entities.length >= 1000)
      ctx.skip(`${expr} matches 1000 papers or more: too many to compare in one evaluate page`);
    const histogram = await ctx.step('calchistogram', () =>
      ctx.api.call(ctx.op, { params: { expr, attributes: ATTRIBUTES, count: '1000' } }),
    );
    if (histogram.status !== 200) ctx.skip(`calchistogram answered status ${histogram.status} for ${expr}`);
    const [first] = judgeHistogramAgreement(
      histogram.json,
      entities,
      `(relation: ${histogramAgreesWithEvaluate.name}; expr ${expr})`,
    );
    if (first) ctx.fail(first.title, first, histogram);
  },
});
