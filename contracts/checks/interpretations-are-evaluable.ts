import { op } from '../api.ts';
import { show } from '../failure.ts';
import { objects } from '../json.ts';
import { judgeOutputs, outputsAreEvaluable, outputsOf } from '../properties/relations.ts';
import { defineCheck } from './registry.ts';
import { body, validRequest } from './support.ts';

/** Every interpretation's output expression is accepted by evaluate and calchistogram. */
export const check = defineCheck({
  id: 'interpretations-are-evaluable',
  severity: 'fail',
  verifies:
    "every interpretation's rules[0].output.value, of the chosen query and of generated ones, is accepted (200) by evaluate and calchistogram (all of an answer's outputs at once as one Or, each alone when that is refused)",
  kind: 'test',
  appliesTo: (o) => o.operationId.startsWith('interpret'),
  reads: () => ['evaluateGet', 'calchistogramGet'],
  async run(ctx) {
    const request = await validRequest(ctx.op, ctx.data);
    const response = await ctx.api.call(ctx.op, request);
    const interpretations = objects(body(response).interpretations);
    if (interpretations.length === 0)
      ctx.skip(`interpret returned no interpretation for '${request.params!.query}': nothing to evaluate`);
    const outputs = outputsOf(response.json);
    const missing = interpretations.findIndex((_, i) => !outputs.some((output) => output.index === i));
    ctx.expect(
      missing < 0,
      'interpretation without an output expression',
      () => ({
        received: show(interpretations[missing]),
        documented: 'rules[0].output.value: a query expression',
        pointer: `/interpretations/${missing}/rules/0/output/value`,
      }),
      response,
    );
    const violations = await ctx.step(`${outputs.length} output(s)`, () =>
      judgeOutputs(
        outputs,
        async (operationId, sent) => {
          const answer = await ctx.api.call(op(operationId), { params: sent.params, intent: 'error' });
          return { operationId, status: answer.status, json: answer.json, curl: answer.curl };
        },
        outputsAreEvaluable.name,
      ),
    );
    const [first] = violations;
    if (first) ctx.fail(first.title, first, response);
  },
});
