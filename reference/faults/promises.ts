// Faults of promises the gate once judged on some inputs only (the first of several lists of one
// answer, the first pages, short texts) or not at all (one histogram per attribute asked for, the
// default model, the latest news, the shape of a parse). Each breaks exactly one promise of the
// interface, and only the property that judges that promise on every answer it applies to sees it.
import { namespaceAttributes } from './academic.ts';
import { child, editNumber, editOk, isObject, jsonOf, OPS, objects, withBody } from './transform.ts';
import type { Fault, HandlerResult, RequestContext } from './types.ts';

/** Characters of a text compared with itself from which `similarity-self-not-one-for-long-texts` scores it 0.9. */
export const LONG_SELF = 500;

/** The offset from which `evaluate-offset-from-100-skips-one` starts a page one entity late. */
export const DEEP_OFFSET = 100;

/** The histograms of an answer for the same request with other parameters, from the clean server. */
async function histogramsFor(ctx: RequestContext, params: Record<string, string>): Promise<unknown[] | undefined> {
  const clean = await ctx.call('calchistogramGet', params);
  const body = jsonOf(clean);
  return clean.status === 200 && isObject(body) && Array.isArray(body.histograms) ? body.histograms : undefined;
}

/** Replaces every histogram but the first with the one of the same attribute from `others`. */
function laterFrom(result: HandlerResult, others: unknown[] | undefined): HandlerResult {
  const body = jsonOf(result);
  if (!others || !isObject(body) || !Array.isArray(body.histograms)) return result;
  const attributeOf = (histogram: unknown) => (isObject(histogram) ? histogram.attribute : undefined);
  body.histograms = body.histograms.map((histogram, i) =>
    i === 0 ? histogram : (others.find((other) => attributeOf(other) === attributeOf(histogram)) ?? histogram),
  );
  return withBody(result, body);
}

/** Composite attributes: parts of AA, F, J and C (facts.md). */
const COMPOSITE = /^(AA|F|J|C)\./;

/** The answer of evaluate or calchistogram for `expr`, computed by the clean server and echoing the expr sent. */
async function answerFor(ctx: RequestContext, result: HandlerResult, expr: string): Promise<HandlerResult> {
  if (result.status !== 200 || expr === ctx.params.expr) return result;
  const computed = await ctx.call(ctx.operationId.replace(/Post$/, 'Get'), { ...ctx.params, expr });
  const body = jsonOf(computed);
  if (computed.status !== 200 || !isObject(body)) return result;
  body.expr = ctx.params.expr;
  return withBody(result, body);
}

/** The faults of promises judged on every answer they apply to. */
export function promiseFaults(): Fault[] {
  let newest: number | undefined;
  return [
    {
      name: 'calchistogram-count-ignored-after-first',
      group: 'academic',
      operations: [...OPS.calchistogram],
      deviation: 'forbidden',
      description:
        'calchistogram honours a count below the default 10 for its first histogram only: every later histogram carries up to 10 entries',
      response: async (ctx, result) => {
        const count = Number(ctx.params.count);
        return result.status !== 200 || !Number.isInteger(count) || count >= 10
          ? result
          : laterFrom(result, await histogramsFor(ctx, { ...ctx.params, count: '10' }));
      },
    },
    {
      name: 'calchistogram-offset-ignored-after-first',
      group: 'academic',
      operations: [...OPS.calchistogram],
      deviation: 'forbidden',
      description:
        'calchistogram honours offset for its first histogram only: every later histogram starts at its first entry',
      response: async (ctx, result) =>
        result.status !== 200 || ctx.params.offset === undefined
          ? result
          : laterFrom(result, await histogramsFor(ctx, { ...ctx.params, offset: '0' })),
    },
    {
      name: 'calchistogram-composite-distinct-values-off-by-one',
      group: 'academic',
      operations: [...OPS.calchistogram],
      deviation: 'forbidden',
      description:
        'calchistogram reports distinct_values one more than the distinct values for histograms of composite attributes (AA.*, F.*, J.*, C.*); Y and the other plain attributes are right',
      response: editOk((body) => {
        for (const histogram of objects(body.histograms))
          if (COMPOSITE.test(String(histogram.attribute)) && typeof histogram.distinct_values === 'number')
            histogram.distinct_values += 1;
      }),
    },
    {
      name: 'calchistogram-entry-prob-mean',
      group: 'academic',
      operations: [...OPS.calchistogram],
      deviation: 'forbidden',
      description:
        'calchistogram gives each entry the mean probability of its matching entities instead of their total (the same for an entry of one entity)',
      response: editOk((body) => {
        for (const histogram of objects(body.histograms))
          for (const entry of objects(histogram.histogram))
            if (typeof entry.prob === 'number' && typeof entry.count === 'number' && entry.count > 0)
              entry.prob /= entry.count;
      }),
    },
    {
      name: 'calchistogram-last-attribute-dropped',
      group: 'academic',
      operations: [...OPS.calchistogram],
      deviation: 'forbidden',
      description: 'calchistogram asked for two or more attributes leaves out the histogram of the last one',
      response: editOk((body, ctx) => {
        const asked = (ctx.params.attributes ?? '')
          .split(',')
          .map((name) => name.trim())
          .filter(Boolean);
        if (asked.length < 2 || !Array.isArray(body.histograms)) return;
        body.histograms = objects(body.histograms).filter((histogram) => histogram.attribute !== asked.at(-1));
      }),
    },
    {
      name: 'interpret-later-outputs-rejected-by-evaluate',
      group: 'academic',
      operations: [...OPS.interpret],
      deviation: 'forbidden',
      description:
        'interpret writes the output expression of every interpretation but the first with academic#<attr> names (the parse form), which evaluate rejects with 400',
      response: editOk((body) => {
        objects(body.interpretations).forEach((interpretation, i) => {
          const output = child(objects(interpretation.rules)[0], 'output');
          if (i > 0 && typeof output?.value === 'string') output.value = namespaceAttributes(output.value);
        });
      }),
    },
    {
      name: 'interpret-parse-attr-unprefixed',
      group: 'academic',
      operations: [...OPS.interpret],
      deviation: 'forbidden',
      description:
        'interpret writes the attr elements of every parse with bare attribute names (name="AA.AuN") instead of name="academic#AA.AuN"',
      response: editOk((body) => {
        for (const interpretation of objects(body.interpretations))
          if (typeof interpretation.parse === 'string')
            interpretation.parse = interpretation.parse.replace(/(<attr\b[^>]*\bname=")academic#/g, '$1');
      }),
    },
    {
      name: 'academic-default-model-not-latest',
      group: 'academic',
      operations: [...OPS.evaluate, ...OPS.calchistogram],
      deviation: 'forbidden',
      description:
        "evaluate and calchistogram without model answer from a model older than 'latest': the papers of the newest year are left out (with model=latest they are there)",
      async response(ctx, result) {
        if (result.status !== 200 || ctx.params.model !== undefined || ctx.params.expr === undefined) return result;
        if (newest === undefined) {
          const found = jsonOf(
            await ctx.call('evaluateGet', { expr: 'Y>0', attributes: 'Y', orderby: 'Y:desc', count: '1' }),
          );
          const year = isObject(found) ? objects(found.entities)[0]?.Y : undefined;
          if (typeof year !== 'number') return result;
          newest = year;
        }
        return answerFor(ctx, result, `And(${ctx.params.expr},Y<${newest})`);
      },
    },
    {
      name: 'hotevents-top-document-oldest',
      group: 'eventKnowledge',
      operations: ['hotEvents'],
      deviation: 'forbidden',
      description:
        'hotevents gives every event its oldest document as topDocument (one of its own documents, not the latest news)',
      async response(ctx, result) {
        const body = jsonOf(result);
        if (result.status !== 200 || !isObject(body)) return result;
        for (const event of objects(body.value)) {
          if (typeof event.eventId !== 'string') continue;
          const documents = jsonOf(await ctx.call('eventDocuments', { $top: '100' }, { event_id: event.eventId }));
          const oldest = isObject(documents) ? objects(documents.value).at(-1) : undefined;
          if (oldest) event.topDocument = oldest;
        }
        return withBody(result, body);
      },
    },
    {
      name: 'hotevents-document-count-off-for-second',
      group: 'eventKnowledge',
      operations: ['hotEvents'],
      deviation: 'forbidden',
      description: 'hotevents reports documentCount one more than its documents for the second event of every answer',
      response: editOk((body) => {
        const second = objects(body.value)[1];
        if (second && typeof second.documentCount === 'number') second.documentCount += 1;
      }),
    },
    {
      name: 'evaluate-offset-from-100-skips-one',
      group: 'academic',
      operations: [...OPS.evaluate],
      deviation: 'forbidden',
      description: `evaluate skips one entity too many for offset=${DEEP_OFFSET} and above: a page deep in the results starts at entity offset+1`,
      request(ctx) {
        const offset = ctx.params.offset?.trim();
        if (offset !== undefined && /^\d+$/.test(offset) && Number(offset) >= DEEP_OFFSET)
          ctx.params.offset = String(Number(offset) + 1);
      },
    },
    {
      name: 'similarity-self-not-one-for-long-texts',
      group: 'similarity',
      operations: [...OPS.similarity],
      deviation: 'forbidden',
      description: `similarity of a text of ${LONG_SELF} characters or more with itself is 0.9 of the clean score (short texts score 1)`,
      response: editNumber((value, ctx) =>
        ctx.params.s1 === ctx.params.s2 && (ctx.params.s1?.length ?? 0) >= LONG_SELF ? value * 0.9 : value,
      ),
    },
  ];
}
