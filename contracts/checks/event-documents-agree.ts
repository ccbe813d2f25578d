import { op } from '../api.ts';
import { eventDocumentsAgree, followedEvents, judgeEventDocuments } from '../properties/relations.ts';
import { defineCheck } from './registry.ts';
import { validRequest } from './support.ts';

/** Events of the chosen request's answer followed to their documents: the top one (the generated requests' relations follow every event of theirs). */
const FIXED_EVENTS = 1;

/** An event's topDocument is among its documents, and documentCount counts them. */
export const check = defineCheck({
  id: 'event-documents-agree',
  severity: 'fail',
  verifies:
    'for every event of an answer (up to 10; of the chosen request, the top one), its topDocument is among the documents events/{id}/documents lists for it and the latest of them (no document published after it), and its documentCount equals the documents listed when paged to the end (at most 3 pages of 100)',
  kind: 'test',
  appliesTo: (o) => o.operationId === 'hotEvents' || o.operationId === 'relatedEvents',
  reads: () => ['eventDocuments'],
  async run(ctx) {
    const response = await ctx.api.call(ctx.op, await validRequest(ctx.op, ctx.data));
    const events = followedEvents(response.json, FIXED_EVENTS);
    if (events.length === 0)
      return ctx.skip('no event with an id and a top document returned to follow to its documents');
    const documents = op('eventDocuments');
    for (const event of events) {
      const violations = await ctx.step(`documents of ${event.eventId}`, () =>
        judgeEventDocuments(
          event,
          async (_operationId, request) => {
            const reply = await ctx.api.call(documents, request);
            return { operationId: documents.operationId, status: reply.status, json: reply.json, curl: reply.curl };
          },
          eventDocumentsAgree.name,
        ),
      );
      const first = violations[0];
      if (first) ctx.fail(first.title, first, response);
    }
  },
});
