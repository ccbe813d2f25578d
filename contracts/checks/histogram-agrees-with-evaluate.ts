import { op } from '../api.ts';
import { show } from '../failure.ts';
import { objects } from '../json.ts';
import { defineCheck } from './registry.ts';
import { body } from './support.ts';

/** calchistogram's totals match what evaluate returns for the same expression. */
export const check = defineCheck({
  id: 'histogram-agrees-with-evaluate',
  severity: 'fail',
  verifies:
    "for the same expr (an author's, and generated ones matching fewer than 1,000 papers), num_entities equals the number of entities evaluate returns, and a Y histogram's total_count, distinct_values and counts match those entities",
  kind: 'test',
  appliesTo: (o) => o.operationId.startsWith('calchistogram'),
  reads: () => ['evaluateGet'],
  async run(ctx) {
    const expr = await ctx.data.narrowExpr();
    const evaluated = await ctx.step('evaluate', () =>
      ctx.api.call(op('evaluateGet'), { params: { expr, attributes: 'Id,Y', count: '1000' } }),
    );
    if (evaluated.status !== 200)
      ctx.skip(`evaluate answered status ${evaluated.status} for ${expr}: nothing to compare with`);
    const entities = objects(body(evaluated).entities) as { Y?: unknown }[];
    if (entities.length === 0) ctx.skip(`evaluate returned no entities for ${expr}: nothing to compare with`);
    if (entities.length >= 1000)
      ctx.skip(`${expr} matches 1000 papers or more: too many to compare in one evaluate page`);
    const histogram = await ctx.step('calchistogram', () =>
      ctx.api.call(ctx.op, { params: { expr, attributes: 'Y', count: '1000' } }),
    );
    const json = body(histogram) as {
      num_entities?: number;
      histograms?: {
        distinct_values?: number;
        total_count?: number;
        histogram?: { value?: unknown; count?: number }[];
      }[];
    };
    ctx.expect(
      json.num_entities === entities.length,
      'num_entities disagrees with evaluate',
      () => ({
        received: `num_entities ${show(json.num_entities)}`,
        documented: `${entities.length}: the entities evaluate returns for ${expr}`,
        pointer: '/num_entities',
      }),
      histogram,
    );
    const years = entities.map((entity) => entity.Y).filter((y) => y !== undefined);
    const want = new Map<string, number>();
    for (const y of years) want.set(String(y), (want.get(String(y)) ?? 0) + 1);
    const h = json.histograms?.[0];
    ctx.expect(
      h?.total_count === years.length,
      'total_count disagrees with evaluate',
      () => ({
        received: `total_count ${show(h?.total_count)}`,
        documented: `${years.length}: Y values among the entities evaluate returns`,
        pointer: '/histograms/0/total_count',
      }),
      histogram,
    );
    ctx.expect(
      h?.distinct_values === want.size,
      'distinct_values disagrees with evaluate',
      () => ({
        received: `distinct_values ${show(h?.distinct_values)}`,
        documented: `${want.size}: distinct Y values among the entities evaluate returns`,
        pointer: '/histograms/0/distinct_values',
      }),
      histogram,
    );
    (h?.histogram ?? []).forEach((entry, i) => {
      const expected = want.get(String(entry.value)) ?? 0;
      ctx.expect(
        entry.count === expected,
        'histogram count disagrees with evaluate',
        () => ({
          received: `Y=${show(entry.value)} count ${show(entry.count)}`,
          documented: `${expected} entities with Y=${show(entry.value)} from evaluate`,
          pointer: `/histograms/0/histogram/${i}/count`,
        }),
        histogram,
      );
    });
  },
});
