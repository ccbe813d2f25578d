import { defineCheck } from './registry.ts';
import { expectStatus, validRequest } from './support.ts';

/** A valid key without a subscription to the operation's API is answered 401. */
export const check = defineCheck({
  id: 'auth-requires-subscription',
  severity: 'fail',
  verifies:
    "a valid key not subscribed to the API is answered 401 in the group's shape, and 200 where it is subscribed (needs KGATE_KEY_UNSUBSCRIBED; exact once KGATE_KEY_UNSUBSCRIBED_COVERS or unsubscribedKeyCovers says which APIs the key covers, and on the reference server)",
  kind: 'test',
  appliesTo: () => true,
  async run(ctx) {
    if (!ctx.keys.unsubscribed) ctx.skip('no unsubscribed key given (set KGATE_KEY_UNSUBSCRIBED)');
    const response = await ctx.api.call(ctx.op, { ...(await validRequest(ctx.op, ctx.data)), key: 'unsubscribed' });
    if (ctx.unsubscribedGroups) {
      const covered = !ctx.unsubscribedGroups.includes(ctx.op.group);
      // The key covers this API or not: the answer is fixed, so a target that accepts it where it must not fails.
      expectStatus(
        ctx,
        response,
        covered ? 200 : 401,
        covered ? 'the key is subscribed to this API' : 'the key is not subscribed to this API',
      );
      return;
    }
    ctx.note(
      'auth-requires-subscription could not be exact: kgate does not know which APIs KGATE_KEY_UNSUBSCRIBED covers, so it accepted 200 or 401 from each operation. Set KGATE_KEY_UNSUBSCRIBED_COVERS (or unsubscribedKeyCovers in kgate.config.json) to the APIs the key is subscribed to.',
    );
    ctx.expect(
      [200, 401].includes(response.status),
      'unsubscribed key must get 200 or 401',
      () => ({
        received: `status ${response.status}`,
        documented: '200 where the key is subscribed, else 401 (interface 5.3)',
      }),
      response,
    );
  },
});
