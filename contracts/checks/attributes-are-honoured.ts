import { show } from '../failure.ts';
import { defineCheck } from './registry.ts';
import { body } from './support.ts';

/** evaluate returns only the requested attributes plus prob, matching names case-sensitively. */
export const check = defineCheck({
  id: 'attributes-are-honoured',
  severity: 'fail',
  verifies:
    'evaluate returns only the requested attributes (plus prob), the requested ones when they have values, and treats names case-sensitively',
  kind: 'test',
  appliesTo: (op) => op.operationId.startsWith('evaluate'),
  async run(ctx) {
    const expr = await ctx.data.broadExpr();
    await ctx.step('attributes=Ti,Y', async () => {
      const response = await ctx.api.call(ctx.op, { params: { expr, attributes: 'Ti,Y', count: '5' } });
      const entities = (body(response).entities ?? []) as Record<string, unknown>[];
      entities.forEach((entity, i) => {
        const extra = Object.keys(entity).filter((name) => !['Ti', 'Y', 'prob'].includes(name));
        ctx.expect(
          extra.length === 0,
          'attributes not requested were returned',
          () => ({
            received: `entity ${i} has ${show(Object.keys(entity))}`,
            documented: 'only Ti, Y and prob (attributes=Ti,Y)',
            pointer: `/entities/${i}`,
          }),
          response,
        );
      });
      ctx.expect(
        entities.some((entity) => 'Ti' in entity && 'Y' in entity),
        'requested attributes missing',
        () => ({
          received: `keys ${show(entities.map((entity) => Object.keys(entity)))}`,
          documented: 'Ti and Y on entities that have them',
          pointer: '/entities',
        }),
        response,
      );
    });
    await ctx.step('attributes=ti (wrong case)', async () => {
      const response = await ctx.api.call(ctx.op, { params: { expr, attributes: 'ti', count: '5' }, intent: 'error' });
      if (response.status !== 200) return;
      const entities = (body(response).entities ?? []) as Record<string, unknown>[];
      const i = entities.findIndex((entity) => 'Ti' in entity);
      ctx.expect(
        i === -1,
        'attribute names matched case-insensitively',
        () => ({
          received: `attributes=ti returned Ti on entity ${i}`,
          documented: 'attribute names are case-sensitive: ti is not Ti',
          pointer: `/entities/${i}/Ti`,
        }),
        response,
      );
    });
  },
});
