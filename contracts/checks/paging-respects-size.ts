import { page, pagedRequest } from './paging.ts';
import { defineCheck } from './registry.ts';

/** A page never holds more items than requested. */
export const check = defineCheck({
  id: 'paging-respects-size',
  severity: 'fail',
  verifies: 'a page never holds more items than count / $top asked for (calchistogram: none of its histograms)',
  kind: 'test',
  appliesTo: (op) => op.paging !== undefined,
  async run(ctx) {
    const request = await pagedRequest(ctx.op, ctx.data);
    const paging = ctx.op.paging!;
    let largest = 0;
    for (const size of [1, 2]) {
      await ctx.step(`${paging.count}=${size}`, async () => {
        const { lists, response } = await page(ctx, request, size, 0);
        for (const list of lists) {
          largest = Math.max(largest, Math.min(list.items.length, size));
          ctx.expect(
            list.items.length <= size,
            `page larger than ${paging.count}`,
            () => ({
              received: `${list.items.length} items at ${list.pointer}`,
              documented: `at most ${size} items (${paging.count}=${size}${lists.length > 1 ? ', in every list the answer pages' : ''})`,
              pointer: list.pointer,
            }),
            response,
          );
        }
      });
    }
    // With fewer than two items a page can never be too large: the test would prove nothing.
    if (largest < 2) ctx.skip(`${paging.items} held fewer than two items: a page limit cannot show`);
  },
});
