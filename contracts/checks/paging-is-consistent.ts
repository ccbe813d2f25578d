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
    'pages [0,k) and [k,2k) join into page [0,2k) without overlap, an offset past the end gives an empty page, and a generated page (count c, offset o) is the slice [o, o+c) of the page (count o+c+2, offset 0); items are matched by what names them (url, Id, eventId, parse, the value of a histogram entry), so scores may differ in their last digits',
  kind: 'test',
  appliesTo: (op) => op.paging !== undefined,
  async run(ctx) {
    const request = await pagedRequest(ctx.op, ctx.data);
    const paging = ctx.op.paging!;
    const whole = await ctx.step(`${paging.count}=6 ${paging.offset}=0`, () => page(ctx, request, 6, 0));
    if (whole.items.length < 2) ctx.skip(`${paging.items} held ${whole.items.length} item(s): nothing to page through`);
    const size = Math.min(3, Math.floor(whole.items.length / 2));
    const first = await ctx.step(`${paging.count}=${size} ${paging.offset}=0`, () => page(ctx, request, size, 0));
    const second = await ctx.step(`${paging.count}=${size} ${paging.offset}=${size}`, () =>
      page(ctx, request, size, size),
    );
    const firstIds = first.items.map(identity);
    const overlap = second.items.map(identity).filter((id) => firstIds.includes(id));
    ctx.expect(
      overlap.length === 0,
      'consecutive pages overlap',
      () => ({
        received: `${overlap.length} item(s) on both pages: ${showIds(second.items.filter((i) => overlap.includes(identity(i))))}`,
        documented: `${paging.offset}=${size} starts right after the first ${size} items`,
        pointer: paging.items,
      }),
      second.response,
    );
    const joined = [...first.items, ...second.items].map(identity);
    const expected = whole.items.slice(0, 2 * size).map(identity);
    ctx.expect(
      joined.join('\n') === expected.join('\n'),
      'consecutive pages do not join into the larger page',
      () => ({
        received: `pages of ${size}: ${showIds([...first.items, ...second.items])}`,
        documented: `the first ${2 * size} items of ${paging.count}=6: ${showIds(whole.items.slice(0, 2 * size))}`,
        pointer: paging.items,
      }),
      second.response,
    );
    await ctx.step(`${paging.offset}=${PAST_END}`, async () => {
      // A broad expression may match more than PAST_END papers on a real deployment; one author's do not.
      const narrow = ['evaluate', 'calchistogram'].includes(baseName(ctx.op))
        ? { ...request, params: { ...request.params, expr: await ctx.data.narrowExpr() } }
        : request;
      const past = await page(ctx, narrow, 3, PAST_END);
      ctx.expect(
        past.items.length === 0,
        'offset past the end is not empty',
        () => ({
          received: `${past.items.length} items`,
          documented: 'an empty page',
          pointer: paging.items,
        }),
        past.response,
      );
    });
  },
});
