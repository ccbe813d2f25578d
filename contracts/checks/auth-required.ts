import { describeCache, hasCache, isCacheHit, nameCache } from '../../http/infrastructure.ts';
import type { ApiResponse } from '../api.ts';
import { defineCheck } from './registry.ts';
import { expectStatus, validRequest } from './support.ts';

/**
 * No key and a wrong key are both answered 401, in the group's documented shape. A GET first asks
 * its URL with the key, so that a cache in front of the interface that keys its entries on the URL
 * alone holds the keyed answer when the very same URL comes without a key: such a cache is caught
 * on purpose, named from its headers, not by the chance of an earlier test asking the same URL.
 */
export const check = defineCheck({
  id: 'auth-required',
  severity: 'fail',
  verifies:
    "a request without a key, and one with a wrong key, is answered 401 in the group's documented error shape; a GET's URL is asked with the key first, so a cache in front that serves a keyed answer to anyone fails, named from its headers (Age, Via, X-Cache, X-Varnish, CF-Cache-Status...)",
  kind: 'test',
  appliesTo: () => true,
  async run(ctx) {
    const request = await validRequest(ctx.op, ctx.data);
    let keyed =
      ctx.op.method === 'get' ? await ctx.step('with the key', () => ctx.api.call(ctx.op, request)) : undefined;
    // Headers that name a cache on an answer it did not serve from its store: asked once more, the
    // URL is a hit if the cache keeps it (a proxy that names itself but keeps nothing is no cache).
    if (keyed && hasCache(keyed.headers) && !isCacheHit(keyed.headers) && keyed.status < 300)
      keyed = await ctx.step('with the key, again', () => ctx.api.call(ctx.op, request));
    const refused = (response: ApiResponse, why: string) => {
      if (keyed && response.status === keyed.status && response.status < 300 && isCacheHit(response.headers)) {
        ctx.fail(
          'a cache in front serves the keyed answer to another key',
          {
            received: `status ${response.status} from a cache in front of the interface (${describeCache(response.headers)}) for the very URL just asked with the key`,
            documented: `${why}: status 401 (interface 5, 7); a cache in front must key its entries on Ocp-Apim-Subscription-Key, or not keep keyed answers`,
          },
          response,
        );
      }
      expectStatus(ctx, response, 401, why);
    };
    await ctx.step('no key', async () => {
      refused(
        await ctx.api.call(ctx.op, { ...request, key: 'none' }),
        'a request without Ocp-Apim-Subscription-Key must be refused',
      );
    });
    await ctx.step('wrong key', async () => {
      refused(
        await ctx.api.call(ctx.op, { ...request, key: 'wrong' }),
        'a request with an invalid key must be refused',
      );
    });
    if (keyed && isCacheHit(keyed.headers))
      ctx.note(
        `auth-required: a cache in front of the interface (${nameCache(keyed.headers)}) keys its answers on the subscription key: each GET's URL asked with the key was refused without a key and with a wrong one`,
      );
  },
});
