import { resultsMatchExpr } from '../properties/consistency.ts';
import { defineCheck } from './registry.ts';
import { baseName, judgeByProperty } from './support.ts';

/** What evaluate and calchistogram return matches the expression that selected it. */
export const check = defineCheck({
  id: 'results-match-expr',
  severity: 'fail',
  verifies:
    'every entity evaluate returns satisfies expr on the attributes it carries, and every calchistogram value of a single-valued attribute (Id, Ti, Y, D, DOI) is one a matching entity can have: == values, numbers, dates, ranges and prefixes are judged, Composite parts on one object of their group; = on a string may match a synonym (facts.md), so only a match proves anything there',
  kind: 'test',
  appliesTo: (op) => baseName(op) === 'evaluate' || baseName(op) === 'calchistogram',
  async run(ctx) {
    const evaluate = baseName(ctx.op) === 'evaluate';
    const params = evaluate
      ? { expr: await ctx.data.narrowExpr(), attributes: 'Id,Ti,Y,D,AA.AuN,AA.AuId', count: '20' }
      : { expr: await ctx.data.broadExpr(), attributes: 'Y,D', count: '50' };
    const response = await ctx.api.call(ctx.op, { params });
    const nothing = `${baseName(ctx.op)} answered status ${response.status} with nothing to judge for ${params.expr}`;
    judgeByProperty(ctx, resultsMatchExpr, params, response, nothing);
  },
});
