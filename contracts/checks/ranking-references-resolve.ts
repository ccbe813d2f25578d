import { show } from '../failure.ts';
import { defineCheck } from './registry.ts';
import { body, validRequest } from './support.ts';

const ANSWER_FIELDS: Record<string, string> = { WebPages: 'webPages', Entities: 'entities', Facts: 'facts' };

/** Every ranking item points at an answer (and result) the response contains. */
export const check = defineCheck({
  id: 'ranking-references-resolve',
  severity: 'fail',
  verifies:
    "every rankingResponse item names an answer present in the response; its resultIndex indexes that answer's value array and its value.id is the id of that answer or one of its results",
  kind: 'test',
  appliesTo: (op) => op.operationId === 'answerSearch',
  async run(ctx) {
    const response = await ctx.api.call(ctx.op, await validRequest(ctx.op, ctx.data));
    const json = body(response);
    const ranking = (json.rankingResponse ?? {}) as Record<string, { items?: Record<string, unknown>[] }>;
    for (const [section, { items = [] } = {}] of Object.entries(ranking)) {
      items.forEach((item, i) => {
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
        const values = answer!.value ?? [];
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
          const ids = [answer!.id, ...values.map((v) => v.id)];
          ctx.expect(
            ids.includes(id as string),
            'ranking value.id dangles',
            () => ({
              received: `value.id ${show(id)}`,
              documented: `the id of ${field} or of one of its results`,
              pointer: `${pointer}/value/id`,
            }),
            response,
          );
        }
      });
    }
  },
});
