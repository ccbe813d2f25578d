import { pagedRequest } from './paging.ts';
import { defineCheck } from './registry.ts';
import { expectParameterRejected } from './support.ts';

/** Paging values that are not non-negative integers. */
const INVALID_VALUES = ['-1', 'ten'];

/** Negative or non-numeric count/offset/$top/$skip get the group's documented error. */
export const check = defineCheck({
  id: 'paging-rejects-invalid',
  severity: 'fail',
  verifies:
    'a negative or non-numeric count / offset / $top / $skip gets 400 (event knowledge: any 4xx) whose error names it',
  kind: 'test',
  appliesTo: (op) => op.paging !== undefined,
  async run(ctx) {
    const request = await pagedRequest(ctx.op, ctx.data);
    const paging = ctx.op.paging!;
    for (const name of [paging.count, paging.offset]) {
      for (const value of INVALID_VALUES) {
        await ctx.step(`${name}=${value}`, async () => {
          const response = await ctx.api.call(ctx.op, {
            ...request,
            params: { ...request.params, [name]: value },
            intent: 'error',
          });
          expectParameterRejected(ctx, response, name, `${name}=${value} must be rejected`);
        });
      }
    }
  },
});
