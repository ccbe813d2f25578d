import { show } from '../failure.ts';
import { objects } from '../json.ts';
import { attributesAreHonoured } from '../properties/responses.ts';
import { defineCheck } from './registry.ts';
import { body, judgeByProperty } from './support.ts';

/**
 * The paper attributes of facts.md, grouped as evaluate returns them. Scores (`prob`, and the
 * `logprob` of later versions) are not attributes: the real service sent them whatever
 * `attributes` asked for. Any other undocumented field is drift, reported by `kgate drift live`.
 */
export const PAPER_ATTRIBUTES = ['Id', 'Ti', 'W', 'Y', 'D', 'CC', 'ECC', 'AA', 'F', 'J', 'C', 'RId', 'DOI'];

/** evaluate returns only the requested paper attributes, matching names case-sensitively. */
export const check = defineCheck({
  id: 'attributes-are-honoured',
  severity: 'fail',
  verifies:
    'evaluate returns only the requested paper attributes (scores such as prob and logprob are not attributes), the requested ones when they have values, and treats names case-sensitively; calchistogram returns one histogram per attribute requested (of chosen and generated requests alike)',
  kind: 'test',
  appliesTo: (op) => op.operationId.startsWith('evaluate') || op.operationId.startsWith('calchistogram'),
  async run(ctx) {
    const expr = await ctx.data.broadExpr();
    if (ctx.op.operationId.startsWith('calchistogram')) {
      const params = { expr, attributes: 'Y,F.FN', count: '3' };
      const response = await ctx.api.call(ctx.op, { params });
      if (response.status !== 200) ctx.skip(`calchistogram answered status ${response.status} for ${expr}`);
      judgeByProperty(ctx, attributesAreHonoured, params, response, 'calchistogram returned no histograms array');
      return;
    }
    await ctx.step('attributes=Ti,Y', async () => {
      const response = await ctx.api.call(ctx.op, { params: { expr, attributes: 'Ti,Y', count: '5' } });
      const entities = objects(body(response).entities);
      if (entities.length === 0) ctx.skip(`evaluate ${expr} returned no entities to inspect`);
      entities.forEach((entity, i) => {
        const extra = Object.keys(entity).filter(
          (name) => PAPER_ATTRIBUTES.includes(name) && !['Ti', 'Y'].includes(name),
        );
        ctx.expect(
          extra.length === 0,
          'attributes not requested were returned',
          () => ({
            received: `entity ${i} has ${show(extra)} beside ${show(Object.keys(entity).filter((name) => !extra.includes(name)))}`,
            documented: 'only the paper attributes Ti and Y (attributes=Ti,Y), plus scores such as prob',
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
      const entities = objects(body(response).entities);
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
