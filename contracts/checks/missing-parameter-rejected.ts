import { defineCheck } from './registry.ts';
import { expectParameterRejected, validRequest } from './support.ts';

/** Leaving out each required query parameter gets the group's documented "bad parameter" error. */
export const check = defineCheck({
  id: 'missing-parameter-rejected',
  severity: 'fail',
  verifies:
    'leaving out a required parameter gets the documented error: academic 400 Bad Argument naming it, answer search / URL preview 400 ErrorResponse naming it, similarity 400, event knowledge a 4xx',
  kind: 'test',
  appliesTo: (op) => op.parameters.some((p) => p.required && p.in === 'query') || op.requestMediaType !== undefined,
  async run(ctx) {
    const request = await validRequest(ctx.op, ctx.data);
    const required = Object.keys(request.params ?? {}).filter((name) =>
      ctx.op.requestMediaType
        ? isRequiredField(ctx.op, name)
        : ctx.op.parameters.some((p) => p.name === name && p.required),
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

/** Required fields of a form body: the same names as the GET variant's required query parameters. */
function isRequiredField(op: { requestSchema?: Record<string, unknown> }, name: string): boolean {
  const required = (op.requestSchema?.required as string[] | undefined) ?? REQUIRED_FORM_FIELDS;
  return required.includes(name);
}

const REQUIRED_FORM_FIELDS = ['query', 'expr', 's1', 's2'];
