import type { Operation } from '../api.ts';
import { defineCheck } from './registry.ts';
import { baseName, expectParameterRejected, validRequest } from './support.ts';

/** A value the interface rules out, per operation: the parameter and the bad value. */
const INVALID: Record<string, { name: string; value: string; why: string }[]> = {
  evaluate: [{ name: 'expr', value: "Y>>'", why: 'an expression that does not parse' }],
  calchistogram: [{ name: 'expr', value: 'And(Y>2000', why: 'an expression that does not parse' }],
  answerSearch: [{ name: 'mkt', value: 'english', why: "a market not of the form '<language>-<country>'" }],
  urlPreview: [
    { name: 'q', value: 'not a url', why: 'a value that is not a URL (interface 4.10)' },
    { name: 'q', value: 'example.org/no-scheme', why: 'a relative URL' },
  ],
  hotEvents: [{ name: 'date', value: '2021-02-30', why: 'a date that does not exist' }],
};

/** Invalid parameter values get the group's documented error naming the parameter. */
export const check = defineCheck({
  id: 'invalid-parameter-rejected',
  severity: 'fail',
  verifies:
    'an invalid value (unparsable expr, malformed mkt, a q that is not a URL, an impossible date) gets 400 (event knowledge: a 4xx) whose error names the parameter',
  kind: 'test',
  appliesTo: (op: Operation) => baseName(op) in INVALID,
  async run(ctx) {
    const request = await validRequest(ctx.op, ctx.data);
    for (const invalid of INVALID[baseName(ctx.op)]!) {
      await ctx.step(`${invalid.name}=${invalid.value}`, async () => {
        const params = { ...request.params, [invalid.name]: invalid.value };
        const response = await ctx.api.call(ctx.op, { ...request, params, intent: 'error' });
        expectParameterRejected(ctx, response, invalid.name, `${invalid.why} must be rejected`);
      });
    }
  },
});
