// Input-triggered semantic faults: each breaks a property of the answer (a size, a page, an order,
// an echo, a bound, an agreement between GET and POST or between operations) only for some inputs,
// and answers everything else exactly as the clean server does. The fixed battery's chosen requests
// do not hold those inputs; the properties judging every generated valid request find them.
import { errorResult } from '../errors.ts';
import { TOP } from '../events.ts';
import { editNumber, editOk, isObject, jsonOf, OPS, objects, shiftIntParam, withBody } from './transform.ts';
import type { Fault } from './types.ts';

/** Characters of expr beyond which evaluate's echo is cut (the fault's trigger). */
const ECHO_CUT = 1_000;
/** Characters of s1 and s2 together beyond which the POST answer of similarity is rounded. */
const LONG_INPUT = 2_000;

/** One decimal place: what a server that formats its number wrongly would send. */
const oneDecimal = (value: number) => Math.round(value * 10) / 10;

/** Entities per page from which evaluate ignores `attributes` in the fault below (a page the generator never asks for). */
const LARGE_PAGE = 1_000;

/** Semantic deviations only some inputs trigger, one per property family. */
export function semanticFaults(): Fault[] {
  return [
    {
      name: 'interpret-count-ignored-complete-0',
      group: 'academic',
      operations: [...OPS.interpret],
      deviation: 'forbidden',
      description:
        'interpret honours count with complete=1 only: with complete=0 (or none) it returns every interpretation',
      request(ctx) {
        // A valid count only: an invalid one is still rejected, so only the size of the page is wrong.
        if (ctx.params.complete?.trim() !== '1' && /^\s*\d+\s*$/.test(ctx.params.count ?? '')) delete ctx.params.count;
      },
    },
    {
      name: 'evaluate-offset-skips-one-from-5',
      group: 'academic',
      operations: [...OPS.evaluate],
      deviation: 'forbidden',
      description: 'evaluate skips one entity too many for offset=5 and above: the page starts at entity offset+1',
      request(ctx) {
        const offset = ctx.params.offset?.trim();
        if (offset !== undefined && /^\d+$/.test(offset) && Number(offset) >= 5) shiftIntParam(ctx.params, 'offset', 1);
      },
    },
    {
      name: 'evaluate-orderby-cc-ignored',
      group: 'academic',
      operations: [...OPS.evaluate],
      deviation: 'forbidden',
      description:
        'evaluate ignores orderby on CC and ECC (orderby on Y and D is honoured): entities stay in prob order',
      request(ctx) {
        if (/^\s*E?CC\b/.test(ctx.params.orderby ?? '')) delete ctx.params.orderby;
      },
    },
    {
      name: 'evaluate-long-expr-echo-cut',
      group: 'academic',
      operations: [...OPS.evaluate],
      deviation: 'forbidden',
      description: `evaluate echoes an expr longer than ${ECHO_CUT} characters cut to its first ${ECHO_CUT}`,
      response: editOk((body) => {
        if (typeof body.expr === 'string' && body.expr.length > ECHO_CUT) body.expr = body.expr.slice(0, ECHO_CUT);
      }),
    },
    {
      name: 'calchistogram-or-num-entities-off',
      group: 'academic',
      operations: [...OPS.calchistogram],
      deviation: 'forbidden',
      description: 'calchistogram counts one entity too many in num_entities for an expr holding an Or(...)',
      response: editOk((body, ctx) => {
        if (/\bor\s*\(/i.test(ctx.params.expr ?? '') && typeof body.num_entities === 'number') body.num_entities += 1;
      }),
    },
    {
      name: 'calchistogram-author-distinct-values-one',
      group: 'academic',
      operations: [...OPS.calchistogram],
      deviation: 'forbidden',
      description: 'calchistogram reports distinct_values 1 for AA.AuN and AA.AfN histograms, whatever their entries',
      response: editOk((body) => {
        for (const histogram of objects(body.histograms)) {
          if (histogram.attribute === 'AA.AuN' || histogram.attribute === 'AA.AfN') histogram.distinct_values = 1;
        }
      }),
    },
    {
      name: 'similarity-asymmetric-for-long-s1',
      group: 'similarity',
      operations: [...OPS.similarity],
      deviation: 'forbidden',
      description: 'similarity scores 0.9 of the clean value when s1 is longer than s2 by more than 500 characters',
      response: editNumber((value, ctx) =>
        (ctx.params.s1 ?? '').length - (ctx.params.s2 ?? '').length > 500 ? value * 0.9 : value,
      ),
    },
    {
      name: 'similarity-post-long-differs',
      group: 'similarity',
      operations: ['similarityPost'],
      deviation: 'forbidden',
      description: `POST similarity is rounded to one decimal place when s1 and s2 hold more than ${LONG_INPUT} characters together (GET and short inputs are exact)`,
      response: editNumber((value, ctx) =>
        ctx.method === 'POST' && (ctx.params.s1 ?? '').length + (ctx.params.s2 ?? '').length > LONG_INPUT
          ? oneDecimal(value)
          : value,
      ),
    },
    {
      name: 'answersearch-strict-500',
      group: 'answerSearch',
      operations: [...OPS.answerSearch],
      deviation: 'forbidden',
      description: 'answer search answers 500 to safesearch=Strict, a value the real service accepted (facts.md)',
      response: (ctx, result) =>
        ctx.params.safesearch?.trim() === 'Strict' ? errorResult('answerSearch', 500, 'Internal server error') : result,
    },
    {
      // Triggered only by a request of the fixed battery that another check's test sends
      // (histogram-agrees-with-evaluate reads evaluate count=1000): the property judging that
      // answer catches it, attributes-are-honoured's own test and the generated requests do not.
      name: 'evaluate-large-page-attributes-ignored',
      group: 'academic',
      operations: [...OPS.evaluate],
      deviation: 'forbidden',
      description: `evaluate ignores attributes for count=${LARGE_PAGE} and above: such a page carries every paper attribute`,
      request(ctx) {
        const count = ctx.params.count?.trim();
        if (count !== undefined && /^\d{1,9}$/.test(count) && Number(count) >= LARGE_PAGE)
          ctx.params.attributes = 'Id,Ti,Y,D,CC,ECC,AA.AuN,F.FN,J.JN';
      },
    },
    {
      name: 'hotevents-top-document-foreign',
      group: 'eventKnowledge',
      operations: ['hotEvents'],
      deviation: 'forbidden',
      description:
        'hotevents gives every event of a date but the hottest the topDocument of the event ranked just above it, a document not among its own',
      async response(ctx, result) {
        if (result.status !== 200) return result;
        const body = jsonOf(result);
        const whole = jsonOf(await ctx.call('hotEvents', { date: ctx.params.date ?? '', $top: String(TOP.max) }));
        if (!isObject(body) || !isObject(whole)) return result;
        const ranked = objects(whole.value);
        const rank = new Map(ranked.map((event, i) => [event.eventId, i]));
        for (const event of objects(body.value)) {
          const r = rank.get(event.eventId) ?? 0;
          if (r >= 1) event.topDocument = ranked[r - 1]!.topDocument;
        }
        return withBody(result, body);
      },
    },
  ];
}
