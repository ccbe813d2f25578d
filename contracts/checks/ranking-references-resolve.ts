import { show } from '../failure.ts';
import { objects } from '../json.ts';
import { defineCheck } from './registry.ts';
import { body, validRequest } from './support.ts';

const ANSWER_FIELDS: Record<string, string> = { WebPages: 'webPages', Entities: 'entities', Facts: 'facts' };

/** The `#...` part of an id, if it has one. */
function fragmentOf(id: unknown): string | undefined {
  if (typeof id !== 'string') return undefined;
  const hash = id.indexOf('#');
  return hash < 0 ? undefined : id.slice(hash);
}

/** Every ranking item points at an answer (and result) the response contains. */
export const check = defineCheck({
  id: 'ranking-references-resolve',
  severity: 'fail',
  verifies:
    "every rankingResponse item names an answer present in the response; its resultIndex indexes that answer's value array and its value.id is the id of that answer or one of its results (an id that matches only by its #fragment is a warning: the real service's ids differed by a path segment)",
  kind: 'test',
  appliesTo: (op) => op.operationId === 'answerSearch',
  async run(ctx) {
    const response = await ctx.api.call(ctx.op, await validRequest(ctx.op, ctx.data));
    const json = body(response);
    const ranking = (json.rankingResponse ?? {}) as Record<string, { items?: unknown }>;
    const sections = Object.entries(ranking).filter(([, group]) => objects(group?.items).length > 0);
    if (sections.length === 0) ctx.skip('the answer carried no rankingResponse items to resolve');
    for (const [section, group] of sections) {
      objects(group.items).forEach((item, i) => {
        const pointer = `/rankingResponse/${section}/items/${i}`;
        const field = ANSWER_FIELDS[String(item.answerType)];
        if (!field) return;
        const answer = json[field] as { id?: string; value?: { id?: string }[] } | undefined;
        ctx.expect(
          answer !== undefined,
          'ranking item names an absent answer',
          () => ({
            received: `answerType ${show(item.answerType)} but no ${field} in the response`,
            documented: 'ranking items refer to answers of the response (interface 2.5)',
            pointer,
          }),
          response,
        );
        const values = objects(answer!.value) as { id?: string }[];
        if (item.resultIndex !== undefined) {
          const index = item.resultIndex as number;
          ctx.expect(
            Number.isInteger(index) && index >= 0 && index < values.length,
            'ranking resultIndex dangles',
            () => ({
              received: `resultIndex ${show(index)} with ${values.length} ${field} results`,
              documented: `an index into ${field}.value`,
              pointer: `${pointer}/resultIndex`,
            }),
            response,
          );
        }
        const id = (item.value as { id?: unknown } | undefined)?.id;
        if (id !== undefined) {
          const ids = [answer!.id, ...values.map((v) => v.id)].filter(
            (known): known is string => typeof known === 'string',
          );
          if (ids.includes(id as string)) return;
          const detail = {
            received: `value.id ${show(id)}`,
            documented: `the id of ${field} or of one of its results: ${show(ids, 160)}`,
            pointer: `${pointer}/value/id`,
          };
          const byFragment = ids.find(
            (known) => fragmentOf(known) !== undefined && fragmentOf(known) === fragmentOf(id),
          );
          // The real service referenced `.../api/v7/knowledge/#Facts` while facts.id was `.../api/v7/#Facts`.
          if (byFragment) ctx.warn('ranking value.id resolves only by its fragment', detail, response);
          else ctx.fail('ranking value.id dangles', detail, response);
        }
      });
    }
  },
});
