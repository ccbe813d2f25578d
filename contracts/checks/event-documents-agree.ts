import { op } from '../api.ts';
import { objects } from '../json.ts';
import { eventDocumentsAgree, judgeEventDocuments } from '../properties/relations.ts';
import { defineCheck } from './registry.ts';
import { body, validRequest } from './support.ts';

/** An event's topDocument is among its documents, and documentCount counts them. */
export const check = defineCheck({
  id: 'event-documents-agree',
  severity: 'fail',
  verifies:
    "an event's topDocument is among the documents events/{id}/documents lists for it, and its documentCount equals the documents listed when paged to the end (at most 3 pages of 100)",
  kind: 'test',
  appliesTo: (o) => o.operationId === 'hotEvents' || o.operationId === 'relatedEvents',
  reads: () => ['eventDocuments'],
  async run(ctx) {
    const response = await ctx.api.call(ctx.op, await validRequest(ctx.op, ctx.data));
    // The top event: the generated requests' chains follow the last event of their pages.
    const event = objects(body(response).value).find((candidate) => typeof candidate.eventId === 'string');
    if (!event) return ctx.skip('no event with an id returned to follow to its documents');
    const documents = op('eventDocuments');
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
  },
});
