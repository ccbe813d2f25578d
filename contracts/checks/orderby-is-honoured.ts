import { show } from '../failure.ts';
import { objects } from '../json.ts';
import { defineCheck } from './registry.ts';
import { body } from './support.ts';

/** evaluate sorts by `orderby` in the direction asked. */
export const check = defineCheck({
  id: 'orderby-is-honoured',
  severity: 'fail',
  verifies:
    'evaluate with orderby=Y:asc returns years in ascending order, Y:desc in descending order; generated requests: every attribute with one value per paper (Y, D, CC, ECC), either direction, and none (one direction throughout)',
  kind: 'test',
  appliesTo: (op) => op.operationId.startsWith('evaluate'),
  async run(ctx) {
    // One author's papers span several years; the newest papers of a broad expression may all share one.
    const expr = await ctx.data.narrowExpr();
    for (const direction of ['asc', 'desc'] as const) {
      await ctx.step(`orderby=Y:${direction}`, async () => {
        const response = await ctx.api.call(ctx.op, {
          params: { expr, attributes: 'Id,Y', orderby: `Y:${direction}`, count: '100' },
        });
        // An entity without a year has no place in the order: only the years present are compared.
        const dated = objects(body(response).entities)
          .map((entity, index) => ({ index, y: entity.Y }))
          .filter((entity) => entity.y !== undefined);
        const years = dated.map((entity) => entity.y);
        if (new Set(years.map(String)).size < 2)
          ctx.skip(`orderby=Y:${direction}: fewer than two distinct years among the entities of ${expr}`);
        const sign = direction === 'asc' ? 1 : -1;
        const at = years.findIndex((y, i) => i > 0 && sign * (Number(y) - Number(years[i - 1])) < 0);
        ctx.expect(
          at === -1,
          `entities not in ${direction}ending order of Y`,
          () => ({
            received: `Y ${show(years[at - 1])} then ${show(years[at])}: ${show(years)}`,
            documented: `orderby=Y:${direction} sorts by Y, ${direction}ending`,
            pointer: `/entities/${dated[at]?.index}/Y`,
          }),
          response,
        );
      });
    }
  },
});
