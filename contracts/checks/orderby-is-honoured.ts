import { show } from '../failure.ts';
import { defineCheck } from './registry.ts';
import { body } from './support.ts';

/** evaluate sorts by `orderby` in the direction asked. */
export const check = defineCheck({
  id: 'orderby-is-honoured',
  severity: 'fail',
  verifies: 'evaluate with orderby=Y:asc returns years in ascending order, Y:desc in descending order',
  kind: 'test',
  appliesTo: (op) => op.operationId.startsWith('evaluate'),
  async run(ctx) {
    const expr = await ctx.data.broadExpr();
    for (const direction of ['asc', 'desc'] as const) {
      await ctx.step(`orderby=Y:${direction}`, async () => {
        const response = await ctx.api.call(ctx.op, {
          params: { expr, attributes: 'Id,Y', orderby: `Y:${direction}`, count: '20' },
        });
        const years = ((body(response).entities ?? []) as { Y?: number }[]).map((entity) => entity.Y);
        const sign = direction === 'asc' ? 1 : -1;
        const at = years.findIndex((y, i) => i > 0 && sign * (Number(y) - Number(years[i - 1])) < 0);
        ctx.expect(
          years.length > 1,
          `orderby=Y:${direction} needs several entities`,
          () => ({
            received: `${years.length} entities`,
            documented: `the entities of ${expr}`,
          }),
          response,
        );
        ctx.expect(
          at === -1,
          `entities not in ${direction}ending order of Y`,
          () => ({
            received: `Y ${show(years[at - 1])} then ${show(years[at])}: ${show(years)}`,
            documented: `orderby=Y:${direction} sorts by Y, ${direction}ending`,
            pointer: `/entities/${at}/Y`,
          }),
          response,
        );
      });
    }
  },
});
