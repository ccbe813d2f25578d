import { show } from '../failure.ts';
import { defineCheck } from './registry.ts';
import { at, baseName, validRequest } from './support.ts';

/** Where each operation echoes which parameter. */
const ECHO: Record<string, { param: string; pointer: string }> = {
  interpret: { param: 'query', pointer: '/query' },
  evaluate: { param: 'expr', pointer: '/expr' },
  calchistogram: { param: 'expr', pointer: '/expr' },
  answerSearch: { param: 'q', pointer: '/queryContext/originalQuery' },
};

/** interpret echoes `query`, evaluate and calchistogram echo `expr`, answer search echoes `q`. */
export const check = defineCheck({
  id: 'request-is-echoed',
  severity: 'fail',
  verifies:
    'interpret echoes query, evaluate and calchistogram echo expr, answer search echoes q as queryContext.originalQuery',
  kind: 'test',
  appliesTo: (op) => baseName(op) in ECHO,
  async run(ctx) {
    const { param, pointer } = ECHO[baseName(ctx.op)]!;
    const request = await validRequest(ctx.op, ctx.data);
    const response = await ctx.api.call(ctx.op, request);
    const sent = request.params![param];
    const echoed = at(response.json, pointer);
    ctx.expect(
      echoed === sent,
      `${param} not echoed`,
      () => ({
        received: `${pointer} ${show(echoed)}`,
        documented: `the ${param} parameter as sent: ${show(sent)}`,
        pointer,
      }),
      response,
    );
  },
});
