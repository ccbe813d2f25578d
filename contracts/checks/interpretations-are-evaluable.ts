import { op } from '../api.ts';
import { show } from '../failure.ts';
import { objects } from '../json.ts';
import { defineCheck } from './registry.ts';
import { body, validRequest } from './support.ts';

/** Every interpretation's output expression is accepted by evaluate and calchistogram. */
export const check = defineCheck({
  id: 'interpretations-are-evaluable',
  severity: 'fail',
  verifies:
    "every interpretation's rules[0].output.value is accepted (200) by evaluate and calchistogram (for generated queries: the most likely interpretation's)",
  kind: 'test',
  appliesTo: (o) => o.operationId.startsWith('interpret'),
  reads: () => ['evaluateGet', 'calchistogramGet'],
  async run(ctx) {
    const request = await validRequest(ctx.op, ctx.data);
    const response = await ctx.api.call(ctx.op, request);
    const interpretations = objects(body(response).interpretations) as {
      rules?: { output?: { value?: string } }[];
    }[];
    if (interpretations.length === 0)
      ctx.skip(`interpret returned no interpretation for '${request.params!.query}': nothing to evaluate`);
    const outputs = interpretations.slice(0, 5).map((i) => i.rules?.[0]?.output?.value);
    for (const [i, expr] of outputs.entries()) {
      await ctx.step(`output ${i}`, async () => {
        ctx.expect(
          typeof expr === 'string' && expr !== '',
          'interpretation without an output expression',
          () => ({
            received: show(expr),
            documented: 'rules[0].output.value: a query expression',
            pointer: `/interpretations/${i}/rules/0/output/value`,
          }),
          response,
        );
        for (const target of ['evaluateGet', 'calchistogramGet']) {
          const answer = await ctx.api.call(op(target), { params: { expr: expr!, attributes: 'Y' }, intent: 'error' });
          ctx.expect(
            answer.status === 200,
            `${target.replace('Get', '')} rejects an interpretation's output`,
            () => ({
              received: `status ${answer.status} for expr ${show(expr)}`,
              documented: 'an output expression usable as expr in evaluate and calchistogram (interface 2.1)',
              pointer: `/interpretations/${i}/rules/0/output/value`,
            }),
            answer,
          );
        }
      });
    }
  },
});
