// Faults that only values of the world trigger: text in another script or Unicode form, an emoji,
// an apostrophe, spaces at the ends, an encyclopedia id with punctuation, a market in another case,
// a URL with a port, a century date; and faults that break a stated range or what an answer says
// about itself only for some inputs. Every other request is answered as the clean server does.
import { errorResult } from '../errors.ts';
import { serverError } from './input.ts';
import { child, editNumber, editOk, isObject, jsonOf, OPS, objects, withBody } from './transform.ts';
import type { Fault, HandlerResult, RequestContext } from './types.ts';

const COMBINING_MARK = /\p{M}/u;
const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;
const RIGHT_TO_LEFT = /[\p{Script=Arabic}\p{Script=Hebrew}]/u;
const EMOJI = /\p{Extended_Pictographic}|\p{Regional_Indicator}/u;
const LINE_BREAK_OR_TAB = /[\n\r\t]/;
/** Whether a quoted value of an expression (the text between a pair of quotes) matches `pattern`. */
function someQuotedValue(expr: string | undefined, pattern: RegExp): boolean {
  return (expr ?? '').split("'").some((part, i) => i % 2 === 1 && pattern.test(part));
}
/** A parenthesis or a comma (inside a quoted value). */
const PUNCTUATION = /[(),]/;
/** A capital letter (inside a quoted value). */
const CAPITAL = /\p{Lu}/u;

/** Expressions a fault rewrites before computing: the answer is computed for `expr`, echoed as sent. */
async function answerFor(ctx: RequestContext, result: HandlerResult, expr: string): Promise<HandlerResult> {
  if (result.status !== 200 || expr === ctx.params.expr) return result;
  const computed = await ctx.call(ctx.operationId.replace(/Post$/, 'Get'), { ...ctx.params, expr });
  const body = jsonOf(computed);
  if (computed.status !== 200 || !isObject(body)) return result;
  if (isObject(body)) body.expr = ctx.params.expr;
  return withBody(result, body);
}

/** The arguments of an And/Or body, split at its own commas (not those inside parentheses or quotes). */
function topLevelArguments(text: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let quoted = false;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (ch === "'" && text[i - 1] !== '\\') quoted = !quoted;
    else if (!quoted && (ch === '(' || ch === '[')) depth++;
    else if (!quoted && (ch === ')' || ch === ']')) depth--;
    else if (!quoted && depth === 0 && ch === ',') {
      out.push(text.slice(start, i));
      start = i + 1;
    }
  }
  out.push(text.slice(start));
  return out;
}

/** Forbidden deviations that only values of the world, or only some inputs, trigger. */
export function worldFaults(): Fault[] {
  return [
    {
      name: 'interpret-combining-mark-500',
      group: 'academic',
      operations: [...OPS.interpret],
      deviation: 'forbidden',
      description:
        'interpret answers 500 to a query holding a combining mark (an accent written decomposed, e + U+0301, or a mark with no precomposed letter)',
      response: (ctx, result) => (COMBINING_MARK.test(ctx.params.query ?? '') ? serverError(ctx) : result),
    },
    {
      name: 'interpret-apostrophe-500',
      group: 'academic',
      operations: [...OPS.interpret],
      deviation: 'forbidden',
      description: "interpret answers 500 to a query holding an apostrophe (schrödinger's cat, o'brien)",
      response: (ctx, result) => (/['’]/.test(ctx.params.query ?? '') ? serverError(ctx) : result),
    },
    {
      name: 'evaluate-cjk-value-rejected',
      group: 'academic',
      operations: [...OPS.evaluate],
      deviation: 'forbidden',
      description:
        'evaluate answers 400 to an expression whose quoted value holds CJK characters (知识图谱), valid lower-case text',
      response: (ctx, result) =>
        CJK.test(ctx.params.expr ?? '')
          ? errorResult('academic', 400, 'Missing or invalid parameter: expr (unsupported characters)', 'expr')
          : result,
    },
    {
      name: 'evaluate-quoted-parenthesis-rejected',
      group: 'academic',
      operations: [...OPS.evaluate],
      deviation: 'forbidden',
      description:
        "evaluate answers 400 to an expression whose quoted value holds a parenthesis or a comma (Ti=='graph networks (gnn)'), as a parser that does not skip quoted text would",
      response: (ctx, result) =>
        someQuotedValue(ctx.params.expr, PUNCTUATION)
          ? errorResult('academic', 400, 'Missing or invalid parameter: expr (unbalanced parentheses)', 'expr')
          : result,
    },
    {
      name: 'evaluate-capitalized-value-500',
      group: 'academic',
      operations: [...OPS.evaluate],
      deviation: 'forbidden',
      description:
        'evaluate answers 500 to an expression whose quoted value holds a capital letter (facts.md writes values lower case: a 4xx or an answer, never a 5xx)',
      response: (ctx, result) => (someQuotedValue(ctx.params.expr, CAPITAL) ? serverError(ctx) : result),
    },
    {
      name: 'calchistogram-right-to-left-500',
      group: 'academic',
      operations: [...OPS.calchistogram],
      deviation: 'forbidden',
      description: 'calchistogram answers 500 to an expression holding right-to-left script (Arabic, Hebrew)',
      response: (ctx, result) => (RIGHT_TO_LEFT.test(ctx.params.expr ?? '') ? serverError(ctx) : result),
    },
    {
      name: 'similarity-line-break-500',
      group: 'similarity',
      operations: [...OPS.similarity],
      deviation: 'forbidden',
      description: 'similarity answers 500 when s1 or s2 holds a line break or a tab (an abstract pasted as it was)',
      response: (ctx, result) =>
        LINE_BREAK_OR_TAB.test(`${ctx.params.s1 ?? ''}${ctx.params.s2 ?? ''}`) ? serverError(ctx) : result,
    },
    {
      name: 'answersearch-emoji-500',
      group: 'answerSearch',
      operations: [...OPS.answerSearch],
      deviation: 'forbidden',
      description:
        'answer search answers 500 to a query holding an emoji (a character outside the Basic Multilingual Plane)',
      response: (ctx, result) => (EMOJI.test(ctx.params.q ?? '') ? serverError(ctx) : result),
    },
    {
      name: 'answersearch-padded-query-rejected',
      group: 'answerSearch',
      operations: [...OPS.answerSearch],
      deviation: 'forbidden',
      description: 'answer search answers 400 to a query with white space at its start or end (" weather ")',
      response: (ctx, result) => {
        const q = ctx.params.q ?? '';
        return q.trim() !== '' && q.trim() !== q
          ? errorResult('answerSearch', 400, 'Parameter has invalid value.', 'q')
          : result;
      },
    },
    {
      name: 'answersearch-market-case-500',
      group: 'answerSearch',
      operations: [...OPS.answerSearch],
      deviation: 'forbidden',
      description: 'answer search answers 500 to a market written in another case than en-US (en-us, EN-US)',
      response: (ctx, result) => {
        const mkt = ctx.params.mkt ?? '';
        return mkt !== 'en-US' && mkt.toLowerCase() === 'en-us' ? serverError(ctx) : result;
      },
    },
    {
      name: 'urlpreview-port-500',
      group: 'urlPreview',
      operations: [...OPS.urlPreview],
      deviation: 'forbidden',
      description: 'URL preview answers 500 to a URL with an explicit port (https://example.com:8080/)',
      response: (ctx, result) =>
        /^[a-z]+:\/\/[^/?#]*:\d*(?:[/?#]|$)/i.test(ctx.params.q ?? '') ? serverError(ctx) : result,
    },
    {
      name: 'relatedevents-punctuated-id-rejected',
      group: 'eventKnowledge',
      operations: ['relatedEvents'],
      deviation: 'forbidden',
      description:
        'relatedevents answers 400 to an encyclopedia id holding a comma or a parenthesis (Washington,_D.C., Mercury_(planet)), ids the encyclopedia uses',
      response: (ctx, result) =>
        /[(),]/.test(ctx.params.wikipediaid ?? '')
          ? { status: 400, body: { statusCode: 400, message: 'Invalid wikipediaid' } }
          : result,
    },
    {
      name: 'hotevents-century-year-500',
      group: 'eventKnowledge',
      operations: ['hotEvents'],
      deviation: 'forbidden',
      description:
        'hotevents answers 500 to a date of a century year (1900, 2000, 2100: the leap-year rule has its exceptions there)',
      response: (ctx, result) =>
        /^\s*\d\d00-\d\d-\d\d\s*$/.test(ctx.params.date ?? '')
          ? { status: 500, body: { statusCode: 500, message: 'Internal server error' } }
          : result,
    },
    {
      name: 'evaluate-prob-above-one-by-citations',
      group: 'academic',
      operations: [...OPS.evaluate],
      deviation: 'forbidden',
      description: 'evaluate with orderby on CC or ECC gives every entity a prob of 1 plus its probability (above 1)',
      response: editOk((body, ctx) => {
        if (!/^\s*E?CC\b/.test(ctx.params.orderby ?? '')) return;
        for (const entity of objects(body.entities)) if (typeof entity.prob === 'number') entity.prob = 1 + entity.prob;
      }),
    },
    {
      name: 'calchistogram-venue-prob-above-one',
      group: 'academic',
      operations: [...OPS.calchistogram],
      deviation: 'forbidden',
      description:
        'calchistogram gives the entries of J.JN and C.CN histograms a prob of 1 plus their total probability',
      response: editOk((body) => {
        for (const histogram of objects(body.histograms)) {
          if (histogram.attribute !== 'J.JN' && histogram.attribute !== 'C.CN') continue;
          for (const entry of objects(histogram.histogram))
            if (typeof entry.prob === 'number') entry.prob = 1 + entry.prob;
        }
      }),
    },
    {
      name: 'interpret-prob-above-one-without-completion',
      group: 'academic',
      operations: [...OPS.interpret],
      deviation: 'forbidden',
      description:
        'interpret gives every interpretation of a query read without completion (complete=0) a prob of 1 plus its probability',
      response: editOk((body, ctx) => {
        if (ctx.params.complete?.trim() !== '0') return;
        for (const interpretation of objects(body.interpretations))
          if (typeof interpretation.prob === 'number') interpretation.prob = 1 + interpretation.prob;
      }),
    },
    {
      name: 'similarity-cjk-above-one',
      group: 'similarity',
      operations: [...OPS.similarity],
      deviation: 'forbidden',
      description: 'similarity of texts holding CJK characters is 1.5 above the clean value (outside -1..+1)',
      response: editNumber((value, ctx) =>
        CJK.test(`${ctx.params.s1 ?? ''}${ctx.params.s2 ?? ''}`) ? value + 1.5 : value,
      ),
    },
    {
      name: 'answersearch-negative-estimate-non-ascii',
      group: 'answerSearch',
      operations: [...OPS.answerSearch],
      deviation: 'forbidden',
      description: 'answer search reports totalEstimatedMatches -1 for a query holding a non-ASCII character',
      response: editOk((body, ctx) => {
        const pages = child(body, 'webPages');
        if (/[^\x00-\x7f]/.test(ctx.params.q ?? '') && pages) pages.totalEstimatedMatches = -1;
      }),
    },
    {
      name: 'evaluate-year-range-end-ignored',
      group: 'academic',
      operations: [...OPS.evaluate],
      deviation: 'forbidden',
      description:
        'evaluate ignores the end of a year range (Y=[a,b) and Y=[a,b] are read as Y>=a): papers of later years come back, the expr echoed as sent',
      response: (ctx, result) =>
        answerFor(ctx, result, (ctx.params.expr ?? '').replace(/\bY=\[(\d{1,4}),\d{1,4}[\])]/g, 'Y>=$1')),
    },
    {
      name: 'interpret-output-drops-year',
      group: 'academic',
      operations: [...OPS.interpret],
      deviation: 'forbidden',
      description:
        'interpret leaves the year out of the output expression of a query naming one (papers by x after 2012: the parse shows Y, the output constrains only the author)',
      response: editOk((body) => {
        for (const interpretation of objects(body.interpretations)) {
          const output = child(objects(interpretation.rules)[0], 'output');
          if (typeof output?.value !== 'string' || !/academic#Y"/.test(String(interpretation.parse))) continue;
          const inner = /^And\((.*)\)$/.exec(output.value)?.[1];
          const args = inner === undefined ? [output.value] : topLevelArguments(inner);
          const kept = args.filter((arg) => !/^Y[<>=]/.test(arg));
          if (kept.length === 0 || kept.length === args.length) continue;
          output.value = kept.length === 1 ? kept[0]! : `And(${kept.join(',')})`;
        }
      }),
    },
    {
      name: 'interpret-output-not-canonical',
      group: 'academic',
      operations: [...OPS.interpret],
      deviation: 'forbidden',
      description:
        "interpret's output expression compares an author matched by a synonym with the text as typed, not the canonical value its parse shows",
      response: editOk((body) => {
        for (const interpretation of objects(body.interpretations)) {
          const parse = String(interpretation.parse);
          const output = child(objects(interpretation.rules)[0], 'output');
          if (!output || typeof output.value !== 'string') continue;
          let value: string = output.value;
          for (const match of parse.matchAll(/<attr name="academic#AA\.AuN" canonical="([^"]*)">([^<]*)<\/attr>/g))
            value = value.replace(`'${match[1]}'`, `'${match[2]}'`);
          output.value = value;
        }
      }),
    },
    {
      name: 'interpret-rule-name-differs-for-initials',
      group: 'academic',
      operations: [...OPS.interpret],
      deviation: 'forbidden',
      description:
        "interpret names the rule of a query holding an initial (j teevan) #GetPapersByInitials in rules[0].name while its parse's rule element says #GetPapers",
      response: editOk((body, ctx) => {
        if (!/(^|\s)\p{L}(\s|$)/u.test(ctx.params.query ?? '')) return;
        for (const interpretation of objects(body.interpretations)) {
          const rule = objects(interpretation.rules)[0];
          if (rule && typeof rule.name === 'string') rule.name = '#GetPapersByInitials';
        }
      }),
    },
    {
      name: 'answersearch-lowercase-escapes-undecoded',
      group: 'answerSearch',
      operations: [...OPS.answerSearch],
      deviation: 'forbidden',
      description:
        'answer search leaves a q whose percent-escapes use lower-case hex undecoded (%6a%61%7a%7a is searched as written, not as jazz)',
      request(ctx) {
        for (const field of ctx.rawQuery.split('&')) {
          const [name = '', value = ''] = field.split('=');
          let decoded = name;
          try {
            decoded = decodeURIComponent(name);
          } catch {}
          if (decoded === 'q' && /%(?:[0-9a-f][a-f]|[a-f][0-9a-f])/.test(value))
            ctx.params.q = value.replaceAll('+', ' ');
        }
      },
    },
    {
      name: 'echoes-normalized',
      group: 'all',
      operations: [...OPS.interpret, ...OPS.evaluate, ...OPS.calchistogram, ...OPS.answerSearch],
      deviation: 'release',
      description:
        'interpret, evaluate, calchistogram and answer search echo query, expr and q in composed Unicode (NFC) with the white space at their ends trimmed',
      response: editOk((body, ctx) => {
        const plain = (text: string) => text.normalize('NFC').trim();
        if (typeof body.query === 'string') body.query = plain(body.query);
        if (typeof body.expr === 'string') body.expr = plain(body.expr);
        const context = child(body, 'queryContext');
        if (ctx.operationId === 'answerSearch' && context && typeof context.originalQuery === 'string')
          context.originalQuery = plain(context.originalQuery);
      }),
    },
    {
      name: 'answersearch-market-case-rejected',
      group: 'answerSearch',
      operations: [...OPS.answerSearch],
      deviation: 'release',
      description: 'answer search answers 400 to a market not written as its list writes it (en-us for en-US)',
      response: (ctx, result) => {
        const mkt = ctx.params.mkt ?? '';
        return mkt !== 'en-US' && mkt.toLowerCase() === 'en-us'
          ? errorResult('answerSearch', 400, 'Parameter has invalid value.', 'mkt')
          : result;
      },
    },
    {
      name: 'evaluate-capitalized-value-rejected',
      group: 'academic',
      operations: [...OPS.evaluate],
      deviation: 'release',
      description:
        'evaluate answers 400 to an expression whose quoted value holds a capital letter (facts.md writes values lower case)',
      response: (ctx, result) =>
        someQuotedValue(ctx.params.expr, CAPITAL)
          ? errorResult('academic', 400, 'Missing or invalid parameter: expr (values are lower case)', 'expr')
          : result,
    },
  ];
}
