import { show } from '../failure.ts';
import { objects } from '../json.ts';
import { defineCheck } from './registry.ts';
import { at, validRequest } from './support.ts';

/** Event ids are 32 hex characters: seen only in samples, so a warning unless --strict. */
export const check = defineCheck({
  id: 'event-ids-are-32-hex',
  severity: 'warn',
  verifies: "event ids are 32 hex characters (seen in the interface's samples only: a warning unless --strict)",
  kind: 'test',
  appliesTo: (op) => op.operationId === 'hotEvents' || op.operationId === 'relatedEvents',
  async run(ctx) {
    const response = await ctx.api.call(ctx.op, await validRequest(ctx.op, ctx.data));
    const events = objects(at(response.json, '/value')) as { eventId?: unknown }[];
    if (events.length === 0) ctx.skip('no events returned to inspect');
    events.forEach((event, i) => {
      ctx.expect(
        typeof event.eventId === 'string' && /^[0-9a-f]{32}$/i.test(event.eventId),
        'event id not 32 hex characters',
        () => ({
          received: `eventId ${show(event.eventId)}`,
          documented: '32 hex characters (interface 2.7, samples)',
          pointer: `/value/${i}/eventId`,
        }),
        response,
      );
    });
  },
});
