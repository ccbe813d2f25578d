import { show } from '../failure.ts';
import { defineCheck } from './registry.ts';
import { body, validRequest } from './support.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Answer search ids have the documented forms: `<answer_url>#WebPages.<i>`, `#Entities.<i>`, `#Facts`, UUID engine ids. */
export const check = defineCheck({
  id: 'ids-have-documented-form',
  severity: 'fail',
  verifies:
    'web page ids are <answer_url>#WebPages.<index>, entity ids <answer_url>#Entities.<index>, the facts id <answer_url>#Facts, and the entity engine id (bingId) a UUID',
  kind: 'test',
  appliesTo: (op) => op.operationId === 'answerSearch',
  async run(ctx) {
    const response = await ctx.api.call(ctx.op, await validRequest(ctx.op, ctx.data));
    const json = body(response) as Record<string, { value?: Record<string, unknown>[]; id?: unknown } | undefined>;
    const forms: [string, string][] = [
      ['webPages', 'WebPages'],
      ['entities', 'Entities'],
    ];
    for (const [field, kind] of forms) {
      (json[field]?.value ?? []).forEach((item, i) => {
        const pointer = `/${field}/value/${i}/id`;
        ctx.expect(
          typeof item.id === 'string' && new RegExp(`^\\S+#${kind}\\.\\d+$`).test(item.id),
          `${kind} id malformed`,
          () => ({
            received: `id ${show(item.id)}`,
            documented: `<answer_url>#${kind}.<index> (interface 2.5)`,
            pointer,
          }),
          response,
        );
      });
    }
    (json.entities?.value ?? []).forEach((entity, i) => {
      const engineId = entity.bingId;
      if (engineId === undefined) return;
      ctx.expect(
        typeof engineId === 'string' && UUID.test(engineId),
        'entity engine id is not a UUID',
        () => ({
          received: `bingId ${show(engineId)}`,
          documented: 'a UUID string (interface 2.5, engineId)',
          pointer: `/entities/value/${i}/bingId`,
        }),
        response,
      );
    });
    if (json.facts?.id !== undefined) {
      ctx.expect(
        typeof json.facts.id === 'string' && /^\S+#Facts$/.test(json.facts.id),
        'facts id malformed',
        () => ({
          received: `id ${show(json.facts?.id)}`,
          documented: '<answer_url>#Facts (interface 2.5)',
          pointer: '/facts/id',
        }),
        response,
      );
    }
  },
});
