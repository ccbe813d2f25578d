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

/**
 * The normalization the real service applied to the interpret echo: lower case, punctuation
 * removed, spaces collapsed (its documented sample echoes the query that way).
 */
export function normalizeQuery(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s]/gu, '')
    .replace(/\s+/g, ' ')
    .trim();
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** interpret echoes `query`, evaluate and calchistogram echo `expr`, answer search echoes `q`. */
export const check = defineCheck({
  id: 'request-is-echoed',
  severity: 'fail',
  verifies:
    'interpret echoes query (compared after the lower-casing and punctuation removal the real service applied: such an echo is a warning), evaluate and calchistogram echo expr, answer search echoes q as queryContext.originalQuery; an echo in another Unicode form, or with the white space at its ends trimmed, is a warning (the interface does not say either is kept)',
  kind: 'test',
  appliesTo: (op) => baseName(op) in ECHO,
  async run(ctx) {
    const { param, pointer } = ECHO[baseName(ctx.op)]!;
    const request = await validRequest(ctx.op, ctx.data);
    // A capital letter makes an echo normalized by the target visible (a warning, not a failure).
    if (param === 'query') request.params!.query = capitalize(request.params!.query!);
    const response = await ctx.api.call(ctx.op, request);
    const sent = request.params![param]!;
    const echoed = at(response.json, pointer);
    if (echoed === sent) return;
    const detail = {
      received: `${pointer} ${show(echoed)}`,
      documented: `the ${param} parameter as sent: ${show(sent)}`,
      pointer,
    };
    if (param === 'query' && typeof echoed === 'string' && normalizeQuery(echoed) === normalizeQuery(sent)) {
      ctx.warn(`${param} echoed normalized`, detail, response);
      return;
    }
    ctx.fail(`${param} not echoed`, detail, response);
  },
});
