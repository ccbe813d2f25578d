// What the interface itself leaves free: scores in another precision on one method, fewer results
// where "the number delivered may be smaller", estimates that vary from call to call, orders it
// does not state, entity lists that "may be empty", an Id that is a "number or string".
import { child, editNumber, editOk, isObject, jsonOf, OPS, objects, withBody } from '../faults/transform.ts';
import type { HandlerResult, RequestContext } from '../faults/types.ts';
import type { Variation } from './types.ts';

/**
 * A score computed in single precision: the double times a normalization computed in float32 two
 * units in its last place below 1, rounded to float32. Within three float32 epsilons (about 3e-7)
 * of the double, never larger in magnitude (a similarity of 1 stays within [-1, 1]), and monotonic:
 * an answer's order by score is kept. The same input gives the same bits every time.
 */
export function singlePrecision(score: number): number {
  return Math.fround(score * (1 - 2 ** -22));
}

/** Every fractional score (prob, logprob) of a JSON value, in single precision; counts and ids are integers and stay. */
function scoresInSinglePrecision(value: unknown): void {
  if (Array.isArray(value)) for (const item of value) scoresInSinglePrecision(item);
  else if (isObject(value))
    for (const [key, inner] of Object.entries(value)) {
      if ((key === 'prob' || key === 'logprob') && typeof inner === 'number' && !Number.isInteger(inner))
        value[key] = singlePrecision(inner);
      else scoresInSinglePrecision(inner);
    }
}

/** The most web pages the fewer-results variation delivers in one answer, whatever count asks. */
export const FEWER_RESULTS = 5;

/** How far the varying estimate moves from one call to the next, relative to it. */
export const ESTIMATE_SPREAD = 0.2;

/**
 * Answers a paged list in another consistent order: the whole list is fetched from the clean server
 * (offset 0, the largest page), reordered, and the page the request asked for is cut from it, so
 * that pages still join into the larger page.
 */
async function reorderedPage(
  ctx: RequestContext,
  result: HandlerResult,
  names: { count: string; offset: string; most: number },
  reorder: (items: Record<string, unknown>[]) => Record<string, unknown>[],
): Promise<HandlerResult> {
  if (result.status !== 200) return result;
  const whole = await ctx.call(
    ctx.operationId,
    { ...ctx.params, [names.count]: String(names.most), [names.offset]: '0' },
    ctx.pathParams,
  );
  const first = await ctx.call(ctx.operationId, { ...ctx.params, [names.offset]: '0' }, ctx.pathParams);
  const body = jsonOf(result);
  if (!isObject(body) || whole.status !== 200 || first.status !== 200) return result;
  const all = objects(listOf(whole));
  // The page size the request asked for, or the default one (what the clean first page holds of a longer list).
  const asked = ctx.params[names.count];
  const firstLength = objects(listOf(first)).length;
  const size = asked !== undefined ? Number(asked) : firstLength < all.length ? firstLength : all.length;
  const skip = Number(ctx.params[names.offset] ?? 0);
  body.value = reorder(all).slice(skip, skip + size);
  return withBody(result, body);
}

/** The `value` list of a list answer. */
function listOf(result: HandlerResult): unknown {
  const json = jsonOf(result);
  return isObject(json) ? json.value : undefined;
}

/** The freedoms of the interface as variations. */
export function freedomVariations(): Variation[] {
  return [
    {
      name: 'scores-in-single-precision-on-post',
      group: 'academic',
      operations: ['interpretPost', 'evaluatePost', 'calchistogramPost', 'similarityPost'],
      deviation: 'legitimate',
      allowedBy:
        'interface 2.1, 2.2, 2.3, 2.4: prob and the similarity are numbers the service computes, in no stated precision; a POST path computing in float32 answers the same scores to about 3e-7',
      description:
        'the POST variants compute every score (prob, logprob, the similarity value) in single precision, the GET variants in double: the same input gives the same bits every time, and GET and POST differ in the seventh significant digit; counts and ids are exact',
      response: (ctx, result) =>
        ctx.group === 'similarity'
          ? editNumber((value) => (Number.isInteger(value) ? value : singlePrecision(value)))(ctx, result)
          : editOk((body) => {
              scoresInSinglePrecision(body);
            })(ctx, result),
    },
    {
      name: 'answersearch-fewer-results',
      group: 'answerSearch',
      operations: ['answerSearch'],
      deviation: 'legitimate',
      allowedBy: 'interface 4.9: count is the number of results to return; the number delivered may be smaller',
      description: `answer search delivers at most ${FEWER_RESULTS} web pages per answer whatever count asks (a page of count=3 from offset 4 is delivered whole, a page of count=9 only in part); the ranking refers only to the pages delivered`,
      response: editOk((body) => {
        const pages = child(body, 'webPages');
        if (!pages || !Array.isArray(pages.value) || pages.value.length <= FEWER_RESULTS) return;
        const kept = new Set(objects(pages.value.slice(0, FEWER_RESULTS)).map((page) => page.id));
        pages.value = pages.value.slice(0, FEWER_RESULTS);
        for (const section of Object.values(child(body, 'rankingResponse') ?? {})) {
          if (!isObject(section) || !Array.isArray(section.items)) continue;
          section.items = objects(section.items).filter(
            (item) =>
              item.answerType !== 'WebPages' ||
              (item.resultIndex === undefined && item.value === undefined) ||
              (typeof item.resultIndex === 'number'
                ? item.resultIndex < FEWER_RESULTS
                : kept.has(child(item, 'value')?.id)),
          );
        }
      }),
    },
    {
      name: 'answersearch-estimate-varies',
      group: 'answerSearch',
      operations: ['answerSearch'],
      deviation: 'legitimate',
      allowedBy: 'interface 2.5: totalEstimatedMatches is an estimate; a live index estimates anew for every call',
      description: `answer search's totalEstimatedMatches moves by up to ${ESTIMATE_SPREAD * 100} % from one call to the next (the results themselves stay)`,
      response: editOk((body) => {
        const pages = child(body, 'webPages');
        if (pages && typeof pages.totalEstimatedMatches === 'number')
          pages.totalEstimatedMatches = Math.max(
            0,
            Math.round(pages.totalEstimatedMatches * (1 + (Math.random() * 2 - 1) * ESTIMATE_SPREAD)),
          );
      }),
    },
    {
      name: 'relatedevents-oldest-first',
      group: 'eventKnowledge',
      operations: ['relatedEvents'],
      deviation: 'legitimate',
      allowedBy: 'interface 4.12: sorted by event time; the direction of that ordering is not shown',
      description: 'related events come oldest first (the clean server lists the newest first), paged consistently',
      response: (ctx, result) =>
        reorderedPage(ctx, result, { count: '$top', offset: '$skip', most: 100 }, (events) => [...events].reverse()),
    },
    {
      name: 'eventdocuments-oldest-first',
      group: 'eventKnowledge',
      operations: ['eventDocuments'],
      deviation: 'legitimate',
      allowedBy: 'interface 4.13: the news documents of an event, in no stated order',
      description:
        "an event's documents come oldest first (the clean server lists the newest first), paged consistently",
      response: (ctx, result) =>
        reorderedPage(ctx, result, { count: '$top', offset: '$skip', most: 100 }, (documents) =>
          [...documents].reverse(),
        ),
    },
    {
      name: 'related-entities-sometimes-empty',
      group: 'eventKnowledge',
      operations: ['hotEvents', 'relatedEvents'],
      deviation: 'legitimate',
      allowedBy: 'interface 2.7: relatedEntities, dominant entity names; may be empty',
      description: 'every other event (the second, the fourth...) of an answer carries an empty relatedEntities',
      response: editOk((body) => {
        objects(body.value).forEach((event, i) => {
          if (i % 2 === 1) event.relatedEntities = [];
        });
      }),
    },
    {
      name: 'evaluate-ids-as-strings',
      group: 'academic',
      operations: [...OPS.evaluate],
      deviation: 'legitimate',
      allowedBy: 'interface 2.2: Id, number or string',
      description: 'evaluate writes every entity Id as a string of its digits ("2576924651")',
      response: editOk((body) => {
        for (const entity of objects(body.entities)) if (typeof entity.Id === 'number') entity.Id = String(entity.Id);
      }),
    },
    {
      name: 'histograms-in-another-order',
      group: 'academic',
      operations: [...OPS.calchistogram],
      deviation: 'legitimate',
      allowedBy: 'interface 2.3 and 4.5: one histogram per attribute requested, in no stated order',
      description: 'calchistogram lists its histograms in the reverse of the order attributes names them',
      response: editOk((body) => {
        if (Array.isArray(body.histograms)) body.histograms = [...body.histograms].reverse();
      }),
    },
  ];
}
