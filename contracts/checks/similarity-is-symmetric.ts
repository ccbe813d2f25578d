import { agreeWithNoise, describeTolerance, toleranceNote } from '../properties/tolerance.ts';
import { defineCheck } from './registry.ts';
import { similarity } from './similarity.ts';

/** Cosine similarity is symmetric: sim(a, b) equals sim(b, a). */
export const check = defineCheck({
  id: 'similarity-is-symmetric',
  severity: 'fail',
  verifies:
    'similarity(s1, s2) equals similarity(s2, s1) (cosine similarity is symmetric), for chosen titles and generated texts, long ones included',
  kind: 'test',
  appliesTo: (op) => op.group === 'similarity',
  async run(ctx) {
    const [a, b] = await ctx.data.titles();
    const forward = await ctx.step('s1=a s2=b', () => similarity(ctx, a, b));
    const backward = await ctx.step('s1=b s2=a', () => similarity(ctx, b, a));
    const agreement = await agreeWithNoise(forward.value, backward.value, async () => {
      const again = await similarity(ctx, a, b);
      return again.value;
    });
    if (agreement.learned) ctx.note(toleranceNote(ctx.op.label, agreement));
    ctx.expect(
      agreement.agree,
      'similarity is not symmetric',
      () => ({
        received: `sim(a,b) ${forward.value}, sim(b,a) ${backward.value}`,
        documented: `equal values within ${describeTolerance(agreement)}: cosine similarity is symmetric (interface 2.4)`,
      }),
      backward.response,
    );
  },
});
