import { defineCheck } from './registry.ts';
import { similarity } from './similarity.ts';

/** A text compared with itself has similarity 1. */
export const check = defineCheck({
  id: 'similarity-of-identical-is-one',
  severity: 'fail',
  verifies: 'a text compared with itself has similarity +1.0 (most similar)',
  kind: 'test',
  appliesTo: (op) => op.group === 'similarity',
  async run(ctx) {
    const [a] = await ctx.data.titles();
    const { value, response } = await similarity(ctx, a, a);
    ctx.expect(
      Math.abs(value - 1) <= 1e-6,
      'identical texts are not similarity 1',
      () => ({
        received: String(value),
        documented: '+1.0 for identical texts (cosine of a vector with itself)',
      }),
      response,
    );
  },
});
