// Input-triggered faults: each deviates only for one class of input (a 500, a hang, or an
// invalid value accepted) and answers every other request exactly as the clean server does. A
// fixed battery of requests passes them unless it happens to hold the triggering input; the
// generated requests of `kgate conform` and `kgate fuzz` are meant to find them.
import { ATTRIBUTE_BY_LOWER } from '../academic/attributes.ts';
import { errorResult } from '../errors.ts';
import { OPS, sleep, withBody } from './transform.ts';
import type { Fault, HandlerResult, RequestContext } from './types.ts';

/** How long a hanging answer is held (the connection goes away sooner: the client's deadline, or close()). */
export const INPUT_HANG_MS = 60_000;

/** The largest number of arguments of any Or(...) in an expression (quoted strings skipped). */
export function widestOr(expr: string): number {
  const frames: { or: boolean; args: number }[] = [];
  let widest = 0;
  for (let i = 0; i < expr.length; i++) {
    const ch = expr[i]!;
    if (ch === "'") {
      const end = expr.indexOf("'", i + 1);
      i = end < 0 ? expr.length : end;
    } else if (ch === '(' || ch === '[') {
      // A range's brackets, [a,b) or (a,b], open a frame too, so its comma is not an argument of the Or.
      const name = ch === '(' ? (/([A-Za-z]+)\s*$/.exec(expr.slice(Math.max(0, i - 20), i))?.[1] ?? '') : '';
      frames.push({ or: name.toLowerCase() === 'or', args: 1 });
    } else if (ch === ',' && frames.length > 0) {
      frames[frames.length - 1]!.args++;
    } else if (ch === ')' || ch === ']') {
      const frame = frames.pop();
      if (frame?.or) widest = Math.max(widest, frame.args);
    }
  }
  return widest;
}

/** A 500 in the group's shape (academic and similarity document one; the others do not). */
export function serverError(ctx: RequestContext): HandlerResult {
  return errorResult(ctx.group, 500, 'Internal server error');
}

/** Answers past the client's patience: holds the answer for INPUT_HANG_MS. */
async function hang(result: HandlerResult): Promise<HandlerResult> {
  await sleep(INPUT_HANG_MS);
  return result;
}

const NON_ASCII = /[^\x00-\x7f]/;

/** Forbidden deviations that only some inputs trigger, across the four groups. */
export function inputFaults(): Fault[] {
  return [
    {
      name: 'evaluate-wide-or-500',
      group: 'academic',
      operations: [...OPS.evaluate],
      deviation: 'forbidden',
      description: 'evaluate answers 500 to an expression holding an Or(...) of more than 3 arguments',
      response: (ctx, result) => (widestOr(ctx.params.expr ?? '') > 3 ? serverError(ctx) : result),
    },
    {
      name: 'calchistogram-date-range-hang',
      group: 'academic',
      operations: [...OPS.calchistogram],
      deviation: 'forbidden',
      description: "calchistogram never answers an expression holding a date range D=['..','..'] (held 60 s)",
      response: (ctx, result) => (/\bD\s*=\s*[[(]/.test(ctx.params.expr ?? '') ? hang(result) : result),
    },
    {
      name: 'evaluate-uppercase-boolean-rejected',
      group: 'academic',
      operations: [...OPS.evaluate],
      deviation: 'forbidden',
      description: 'evaluate answers 400 to the upper-case AND(...) / OR(...) real clients wrote (facts.md)',
      response: (ctx, result) =>
        /\b(AND|OR)\(/.test(ctx.params.expr ?? '')
          ? errorResult('academic', 400, "Missing or invalid parameter: expr (unknown function 'AND' or 'OR')", 'expr')
          : result,
    },
    {
      name: 'evaluate-wrong-case-attribute-accepted',
      group: 'academic',
      operations: [...OPS.evaluate],
      deviation: 'forbidden',
      description:
        "evaluate matches attribute names in expr case-insensitively (ti='...' is read as Ti='...') instead of 400",
      request(ctx) {
        const expr = ctx.params.expr;
        if (expr === undefined) return;
        ctx.params.expr = expr.replace(
          /\b([A-Za-z]+(?:\.[A-Za-z]+)?)(?=\s*(?:==|=|>=|<=|>|<))/g,
          (name: string) => ATTRIBUTE_BY_LOWER.get(name.toLowerCase()) ?? name,
        );
      },
    },
    {
      name: 'interpret-non-ascii-500',
      group: 'academic',
      operations: [...OPS.interpret],
      deviation: 'forbidden',
      description: 'interpret answers 500 to a query holding a non-ASCII character (é, ü, 知)',
      response: (ctx, result) => (NON_ASCII.test(ctx.params.query ?? '') ? serverError(ctx) : result),
    },
    {
      name: 'similarity-punctuation-rejected',
      group: 'similarity',
      operations: [...OPS.similarity],
      deviation: 'forbidden',
      description: 'similarity answers 400 to texts holding ? ! ; : ( ) or " instead of comparing them',
      response: (ctx, result) =>
        /[?!;:()"]/.test(`${ctx.params.s1 ?? ''}${ctx.params.s2 ?? ''}`)
          ? errorResult('similarity', 400, 'Missing or invalid parameter: s1 (unsupported characters)', 's1')
          : result,
    },
    {
      name: 'similarity-get-long-text-500',
      group: 'similarity',
      operations: ['similarityGet'],
      deviation: 'forbidden',
      description: 'GET similarity answers 500 when s1 or s2 is longer than 500 characters',
      response: (ctx, result) =>
        (ctx.params.s1 ?? '').length > 500 || (ctx.params.s2 ?? '').length > 500 ? serverError(ctx) : result,
    },
    {
      name: 'answersearch-fractional-count-accepted',
      group: 'answerSearch',
      operations: [...OPS.answerSearch],
      deviation: 'forbidden',
      description: 'answer search accepts a fractional count (count=2.5 is read as 2) instead of 400',
      request(ctx) {
        const count = ctx.params.count;
        if (count !== undefined && /^\d+\.\d+$/.test(count.trim()))
          ctx.params.count = String(Math.floor(Number(count)));
      },
    },
    {
      name: 'answersearch-long-query-500',
      group: 'answerSearch',
      operations: [...OPS.answerSearch],
      deviation: 'forbidden',
      description: 'answer search answers 500 to a q longer than 200 characters',
      response: (ctx, result) => ((ctx.params.q ?? '').length > 200 ? serverError(ctx) : result),
    },
    {
      name: 'urlpreview-malformed-url-accepted',
      group: 'urlPreview',
      operations: [...OPS.urlPreview],
      deviation: 'forbidden',
      description:
        "URL preview accepts any q starting with http(s):// ('https://exa mple.com', 'http://') with a made-up page, not 400",
      response(ctx, result) {
        const q = ctx.params.q?.trim() ?? '';
        if (result.status !== 400 || !/^https?:\/\//i.test(q)) return result;
        return withBody(
          { status: 200 },
          { _type: 'WebPage', name: q, url: q, description: '', primaryImageOfPage: { contentUrl: '' } },
        );
      },
    },
    {
      name: 'hotevents-day-31-accepted',
      group: 'eventKnowledge',
      operations: ['hotEvents'],
      deviation: 'forbidden',
      description: 'hotevents answers 200 {value:[]} for the 31st of a 30-day month (2021-04-31) instead of a 4xx',
      response: (ctx, result) =>
        result.status === 400 && /^\d{4}-(04|06|09|11)-31$/.test(ctx.params.date?.trim() ?? '')
          ? withBody({ status: 200 }, { value: [] })
          : result,
    },
    {
      name: 'relatedevents-non-ascii-500',
      group: 'eventKnowledge',
      operations: ['relatedEvents'],
      deviation: 'forbidden',
      description: 'relatedevents answers 500 to a wikipediaid holding a non-ASCII character (Zürich)',
      response: (ctx, result) => (NON_ASCII.test(ctx.params.wikipediaid ?? '') ? serverError(ctx) : result),
    },
    {
      name: 'hotevents-top-zero-hang',
      group: 'eventKnowledge',
      operations: ['hotEvents'],
      deviation: 'forbidden',
      description: 'hotevents never answers $top=0 (held 60 s)',
      response: (ctx, result) => (ctx.params.$top?.trim() === '0' ? hang(result) : result),
    },
  ];
}
