import { interpretationMatchesParse } from '../properties/consistency.ts';
import { defineCheck } from './registry.ts';
import { judgeByProperty, validRequest } from './support.ts';

/** An interpretation's output expression is the query its parse describes. */
export const check = defineCheck({
  id: 'interpretation-output-matches-parse',
  severity: 'fail',
  verifies:
    "every interpretation's parse is a rule element with an id, its attr elements named academic#<attribute>; its output expression constrains each attribute the parse shows, comparing a string attribute with the canonical value the parse gives (else the text it matched), and rules[0].name is the rule the parse's rule element names",
  kind: 'test',
  appliesTo: (op) => op.operationId.startsWith('interpret'),
  async run(ctx) {
    const request = await validRequest(ctx.op, ctx.data);
    const params: Record<string, string> = { ...request.params!, count: '10' };
    const response = await ctx.api.call(ctx.op, { ...request, params });
    const nothing = `interpret answered status ${response.status} with no interpretation for '${params.query}'`;
    judgeByProperty(ctx, interpretationMatchesParse, params, response, nothing);
  },
});
