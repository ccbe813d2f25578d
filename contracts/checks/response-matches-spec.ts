import { defineCheck } from './registry.ts';
import { expectStatus, validRequest } from './support.ts';

/** Every response validates against the spec; here, a valid request of each operation gets a documented 200. */
export const check = defineCheck({
  id: 'response-matches-spec',
  severity: 'fail',
  verifies:
    'every response of every request has a status the spec documents and a body matching its schema: required fields present, documented fields typed, expected fields missing only as a warning, undocumented ones allowed',
  kind: 'fixture',
  appliesTo: () => true,
  async run(ctx) {
    const response = await ctx.api.call(ctx.op, await validRequest(ctx.op, ctx.data));
    expectStatus(ctx, response, 200, 'a valid request must succeed');
  },
});
