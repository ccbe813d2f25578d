import { defineCheck } from './registry.ts';
import { expectStatus, validRequest } from './support.ts';

/** A key whose quota is used up is answered 403 in the group's shape. */
export const check = defineCheck({
  id: 'quota-exhausted-is-403',
  severity: 'fail',
  verifies: "a key whose call volume quota is used up is answered 403 in the group's shape (needs KGATE_KEY_EXHAUSTED)",
  kind: 'test',
  appliesTo: () => true,
  async run(ctx) {
    if (!ctx.keys.exhausted) ctx.skip('no exhausted key given (set KGATE_KEY_EXHAUSTED)');
    const response = await ctx.api.call(ctx.op, { ...(await validRequest(ctx.op, ctx.data)), key: 'exhausted' });
    expectStatus(ctx, response, 403, 'a key with its quota used up must be refused');
  },
});
