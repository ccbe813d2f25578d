import { show } from '../failure.ts';
import { objects } from '../json.ts';
import { defineCheck } from './registry.ts';
import { body } from './support.ts';

/** Histogram entries come by descending count: seen only in samples, so a warning unless --strict. */
export const check = defineCheck({
  id: 'histogram-ordered-by-count',
  severity: 'warn',
  verifies:
    "histogram entries are in descending order of count (seen in the interface's samples only: a warning unless --strict)",
  kind: 'test',
  appliesTo: (op) => op.operationId.startsWith('calchistogram'),
  async run(ctx) {
    const expr = await ctx.data.broadExpr();
    const response = await ctx.api.call(ctx.op, { params: { expr, attributes: 'Y,F.FN', count: '30' } });
    const histograms = objects(body(response).histograms) as { attribute?: string; histogram?: unknown }[];
    if (!histograms.some((histogram) => objects(histogram.histogram).length >= 2))
      ctx.skip(`no histogram of ${expr} (Y, F.FN) has two entries to order`);
    histograms.forEach((histogram, h) => {
      const counts = objects(histogram.histogram).map((entry) => Number(entry.count));
      const at = counts.findIndex((c, i) => i > 0 && c > counts[i - 1]!);
      ctx.expect(
        at === -1,
        'histogram entries not by descending count',
        () => ({
          received: `${histogram.attribute} counts ${show(counts)}`,
          documented: 'descending count (interface 2.3, samples)',
          pointer: `/histograms/${h}/histogram/${at}/count`,
        }),
        response,
      );
    });
  },
});
