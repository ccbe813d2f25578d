import { op } from '../api.ts';
import { defineCheck } from './registry.ts';
import { baseName, expectParameterRejected, validRequest } from './support.ts';

/** Leaving out each required query parameter gets the group's documented "bad parameter" error. */
export const check = defineCheck({
  id: 'missing-parameter-rejected',
  severity: 'fail',
  verifies:
    "leaving out a required parameter gets 400 (event knowledge: a 4xx) whose error names it (the academic message, an answer search / URL preview error's parameter); the error body's shape is response-matches-spec's",
  kind: 'test',
  appliesTo: (op) => op.parameters.some((p) => p.required && p.in === 'query') || op.requestMediaType !== undefined,
  async run(ctx) {
    const request = await validRequest(ctx.op, ctx.data);
    // A form POST carries the same fields as its GET twin, so the twin's required parameters apply.
    const declaring = ctx.op.method === 'post' ? op(`${baseName(ctx.op)}Get`) : ctx.op;
    const required = Object.keys(request.params ?? {}).filter((name) =>
      declaring.parameters.some((p) => p.name === name && p.required),
    );
    for (const name of required) {
      await ctx.step(`without ${name}`, async () => {
        const params = { ...request.params };
        delete params[name];
        const response = await ctx.api.call(ctx.op, { ...request, params, intent: 'error' });
        expectParameterRejected(ctx, response, name, `a request without ${name} must be rejected`);
      });
    }
  },
});
