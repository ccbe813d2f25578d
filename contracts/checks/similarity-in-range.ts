import { defineCheck } from './registry.ts';
import { similarity } from './similarity.ts';

/** Similarity values lie in [-1, 1]. */
export const check = defineCheck({
  id: 'similarity-in-range',
  severity: 'fail',
  verifies: 'similarity is a number from -1.0 to +1.0',
  kind: 'test',
  appliesTo: (op) => op.group === 'similarity',
  async run(ctx) {
    const [a, b] = await ctx.data.titles();
    for (const [s1, s2] of [
      [a, b],
      [a, 'weather report from the harbour'],
      [a, a],
    ] as const) {
      const { value, response } = await ctx.step(`s1=${s1.slice(0, 20)}... s2=${s2.slice(0, 20)}...`, () =>
        similarity(ctx, s1, s2),
      );
      ctx.expect(
        value >= -1 && value <= 1,
        'similarity out of [-1, 1]',
        () => ({
          received: String(value),
          documented: 'a number from -1.0 to +1.0 (interface 2.4)',
        }),
        response,
      );
    }
  },
});
