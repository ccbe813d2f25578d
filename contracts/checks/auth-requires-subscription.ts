import { OPERATIONS } from '../../openapi/spec.ts';
import type { Operation } from '../api.ts';
import { defineCheck } from './registry.ts';
import { expectStatus, validRequest } from './support.ts';

/** The API an operation belongs to, as its path names it (academic search holds similarity too: interface 1). */
export function apiOf(op: Pick<Operation, 'path'>): string {
  return op.path.split('/')[1]!;
}

/**
 * The operation of the same API an operation's answer to a key is compared with: the API's last
 * operation, and for that one its first (a subscription is per API, interface 5.2); none when the
 * API has one operation only.
 */
export function siblingOf(op: Operation): Operation | undefined {
  const same = OPERATIONS.filter((other) => apiOf(other) === apiOf(op));
  if (same.length < 2) return undefined;
  return same.at(-1)!.operationId === op.operationId ? same[0] : same.at(-1);
}

/**
 * A valid key without a subscription to the operation's API is answered 401, and every operation
 * of one API answers a key alike: a subscription is per API.
 */
export const check = defineCheck({
  id: 'auth-requires-subscription',
  severity: 'fail',
  verifies:
    "a valid key not subscribed to the API is answered 401 in the group's shape, and 200 where it is subscribed; every operation of one API answers the key alike, accepted or refused with 401, whichever keys were given (needs KGATE_KEY_UNSUBSCRIBED; exact per operation once KGATE_KEY_UNSUBSCRIBED_COVERS or unsubscribedKeyCovers says which APIs the key covers, and on the reference server)",
  kind: 'test',
  appliesTo: () => true,
  reads: (op) => {
    const sibling = siblingOf(op);
    return sibling ? [sibling.operationId] : [];
  },
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
      'auth-requires-subscription could not be exact: kgate does not know which APIs KGATE_KEY_UNSUBSCRIBED covers, so it accepted 200 or 401 from each operation and required the operations of one API to agree. Set KGATE_KEY_UNSUBSCRIBED_COVERS (or unsubscribedKeyCovers in kgate.config.json) to the APIs the key is subscribed to.',
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
    // A subscription covers an API, not an operation (interface 5.2): another operation of the API
    // answers the same key the same way.
    const sibling = siblingOf(ctx.op);
    if (!sibling) return;
    const other = await ctx.step(`the key on ${sibling.label}`, async () =>
      ctx.api.call(sibling, { ...(await validRequest(sibling, ctx.data)), key: 'unsubscribed' }),
    );
    // Another status there (a 403, a 5xx) is that operation's own test's finding.
    if (![200, 401].includes(other.status)) return;
    ctx.expect(
      (response.status === 200) === (other.status === 200),
      'operations of one API answer one key differently',
      () => ({
        received: `status ${response.status} here, ${other.status} from ${sibling.label} for the same key`,
        documented: `a subscription is per API (interface 5.2): every operation of /${apiOf(ctx.op)} accepts a key or refuses it with 401 alike`,
      }),
      response,
    );
  },
});
