import { show } from '../failure.ts';
import { mayDeliverFewer, orderIn, sameItem } from '../properties/relations.ts';
import type { PagedList } from '../properties/responses.ts';
import { identity, page, pagedRequest, showIds } from './paging.ts';
import { defineCheck } from './registry.ts';
import { baseName } from './support.ts';

/** An offset past the end of any test data set. */
const PAST_END = 100_000;

/** Consecutive pages join into the larger page, never overlap, and an offset past the end is empty. */
export const check = defineCheck({
  id: 'paging-is-consistent',
  severity: 'fail',
  verifies:
    'pages [0,k) and [k,2k) join into page [0,2k) without overlap, an offset past the end gives an empty page, and a generated page (count c, offset o) is the slice [o, o+c) of the page (count o+c+2, offset 0; o+c up to 1,000 on evaluate, 100 elsewhere), in every list the answer pages (each histogram of calchistogram); items are matched by what names them (url, Id, eventId, parse, the value of a histogram entry), else as JSON with scores within the tolerance; where answer search or interpret deliver fewer than asked (interface 4.9, 4.1), pages are judged by what they delivered: every item in the larger page, in its order, none on two pages of one walk',
  kind: 'test',
  appliesTo: (op) => op.paging !== undefined,
  async run(ctx) {
    const request = await pagedRequest(ctx.op, ctx.data);
    const paging = ctx.op.paging!;
    const whole = await ctx.step(`${paging.count}=6 ${paging.offset}=0`, () => page(ctx, request, 6, 0));
    const longest = Math.max(0, ...whole.lists.map((list) => list.items.length));
    if (longest < 2) ctx.skip(`${paging.items} held ${longest} item(s): nothing to page through`);
    const size = Math.min(3, Math.floor(longest / 2));
    const first = await ctx.step(`${paging.count}=${size} ${paging.offset}=0`, () => page(ctx, request, size, 0));
    const second = await ctx.step(`${paging.count}=${size} ${paging.offset}=${size}`, () =>
      page(ctx, request, size, size),
    );
    // Every list the answer pages (calchistogram: each histogram, named by its attribute).
    const byKey = (lists: readonly PagedList[], key: string) => lists.find((list) => list.key === key)?.items ?? [];
    for (const list of whole.lists) {
      const where = whole.lists.length > 1 ? ` (the list of ${show(list.key)})` : '';
      // Items beyond the page size are paging-respects-size's finding: one defect, one failure.
      const firstItems = byKey(first.lists, list.key).slice(0, size);
      const secondItems = byKey(second.lists, list.key).slice(0, size);
      const firstIds = firstItems.map(identity);
      const overlap = secondItems.map(identity).filter((id) => firstIds.includes(id));
      ctx.expect(
        overlap.length === 0,
        'consecutive pages overlap',
        () => ({
          received: `${overlap.length} item(s) on both pages${where}: ${showIds(secondItems.filter((i) => overlap.includes(identity(i))))}`,
          documented: `${paging.offset}=${size} starts right after the first ${size} items`,
          pointer: list.pointer,
        }),
        second.response,
      );
      const joined = [...firstItems, ...secondItems];
      // Where the interface lets a page deliver fewer and one did, the pages are judged by what they
      // delivered: every item of theirs in the larger page, in its order (no item on both: above).
      if (
        mayDeliverFewer(ctx.op.operationId) &&
        (firstItems.length < size || secondItems.length < size || list.items.length < 2 * size)
      ) {
        const found = orderIn(joined, list.items, list.items.length < 6);
        ctx.expect(
          found.missing === undefined && found.outOfOrder === undefined,
          'consecutive pages do not join into the larger page',
          () => ({
            received: `pages of ${size}${where} (fewer delivered): ${showIds(joined)}`,
            documented: `every item the pages deliver in ${paging.count}=6, in its order: ${showIds(list.items)}`,
            pointer: list.pointer,
          }),
          second.response,
        );
        continue;
      }
      const expected = list.items.slice(0, 2 * size);
      ctx.expect(
        joined.length === expected.length && joined.every((item, i) => sameItem(item, expected[i])),
        'consecutive pages do not join into the larger page',
        () => ({
          received: `pages of ${size}${where}: ${showIds(joined)}`,
          documented: `the first ${2 * size} items of ${paging.count}=6: ${showIds(expected)}`,
          pointer: list.pointer,
        }),
        second.response,
      );
    }
    await ctx.step(`${paging.offset}=${PAST_END}`, async () => {
      // A broad expression may match more than PAST_END papers on a real deployment; one author's do not.
      const narrow = ['evaluate', 'calchistogram'].includes(baseName(ctx.op))
        ? { ...request, params: { ...request.params, expr: await ctx.data.narrowExpr() } }
        : request;
      const past = await page(ctx, narrow, 3, PAST_END);
      const filled = past.lists.find((list) => list.items.length > 0);
      ctx.expect(
        filled === undefined,
        'offset past the end is not empty',
        () => ({
          received: `${filled!.items.length} items`,
          documented: 'an empty page',
          pointer: filled!.pointer,
        }),
        past.response,
      );
    });
  },
});
