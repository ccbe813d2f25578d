import { defineCheck } from './registry.ts';
import { expectStatus, validRequest } from './support.ts';

/** No key and a wrong key are both answered 401, in the group's documented shape. */
export const check = defineCheck({
  id: 'auth-required',
  severity: 'fail',
  verifies: "a request without a key, and one with a wrong key, is answered 401 in the group's documented error shape",
  kind: 'test',
  appliesTo: () => true,
  async run(ctx) {
    const request = await validRequest(ctx.op, ctx.data);
    await ctx.step('no key', async () => {
      const response = await ctx.api.call(ctx.op, { ...request, key: 'none' });
      expectStatus(ctx, response, 401, 'a request without Ocp-Apim-Subscription-Key must be refused');
    });
    await ctx.step('wrong key', async () => {
      const response = await ctx.api.call(ctx.op, { ...request, key: 'wrong' });
      expectStatus(ctx, response, 401, 'a request with an invalid key must be refused');
    });
  },
});
