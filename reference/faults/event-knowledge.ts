import { EVENT_RANGE } from '../events.ts';
import { dropParams, editOk, editStatus, jsonOf, OPS, objects, shiftIntParam, withBody } from './transform.ts';
import type { Fault } from './types.ts';

/** `0123...` (32 hex) -> `01234567-89ab-cdef-0123-456789abcdef`. */
function dashed(id: string): string {
  const match = /^([0-9a-f]{8})([0-9a-f]{4})([0-9a-f]{4})([0-9a-f]{4})([0-9a-f]{12})$/i.exec(id);
  return match ? match.slice(1).join('-') : id;
}

/** The same instant written with a +02:00 offset instead of Z. */
function plusTwoHours(timestamp: string): string {
  const ms = Date.parse(timestamp);
  if (!Number.isFinite(ms)) return timestamp;
  return new Date(ms + 2 * 3600_000).toISOString().replace('Z', '+02:00');
}

/** The date hotevents-date-ignored answers for: the first day of the corpus, far from any date a check picks. */
export const FIXED_HOT_DATE = EVENT_RANGE.first;

/** Forbidden deviations of hotevents, relatedevents and event documents. */
export function eventKnowledgeFaults(): Fault[] {
  return [
    {
      name: 'hotevents-top-ignored',
      group: 'eventKnowledge',
      operations: ['hotEvents'],
      deviation: 'forbidden',
      description: 'hotevents ignores $top and always returns up to the default 10 events',
      request: dropParams('$top'),
    },
    {
      name: 'relatedevents-skip-off-by-one',
      group: 'eventKnowledge',
      operations: ['relatedEvents'],
      deviation: 'forbidden',
      description: 'relatedevents treats $skip as 1-based: $skip=n starts at event n-1, so consecutive pages overlap',
      request: (ctx) => shiftIntParam(ctx.params, '$skip', -1),
    },
    {
      name: 'eventdocuments-skip-ignored',
      group: 'eventKnowledge',
      operations: ['eventDocuments'],
      deviation: 'forbidden',
      description: 'event documents ignores $skip: every page starts at the first document',
      request: dropParams('$skip'),
    },
    {
      name: 'eventknowledge-no-404',
      group: 'eventKnowledge',
      operations: ['eventDocuments'],
      deviation: 'forbidden',
      description: 'event documents of an unknown event id answer 200 {value:[]} instead of 404',
      response(_ctx, result) {
        return result.status === 404 ? withBody({ status: 200 }, { value: [] }) : result;
      },
    },
    {
      name: 'eventknowledge-404-wrong-shape',
      group: 'eventKnowledge',
      operations: ['eventDocuments'],
      deviation: 'forbidden',
      description:
        "event documents 404 body is {error:{code:'NotFound',message}} instead of {statusCode:404,message:'Resource not found'}",
      response: editStatus(404, () => ({ error: { code: 'NotFound', message: 'Resource not found' } })),
    },
    {
      name: 'hotevents-top-document-missing',
      group: 'eventKnowledge',
      operations: ['hotEvents'],
      deviation: 'forbidden',
      description: 'hotevents drops the documented topDocument of every event',
      response: editOk((body) => {
        for (const event of objects(body.value)) delete event.topDocument;
      }),
    },
    {
      name: 'hotevents-document-count-as-string',
      group: 'eventKnowledge',
      operations: ['hotEvents'],
      deviation: 'forbidden',
      description: 'hotevents returns documentCount as a string ("12") instead of a number',
      response: editOk((body) => {
        for (const event of objects(body.value)) event.documentCount = String(event.documentCount);
      }),
    },
    {
      name: 'relatedevents-not-monotonic',
      group: 'eventKnowledge',
      operations: ['relatedEvents'],
      deviation: 'forbidden',
      description: 'relatedevents swaps its first two events when it returns three or more, so times are not monotonic',
      response: editOk((body) => {
        if (!Array.isArray(body.value) || body.value.length < 3) return;
        [body.value[0], body.value[1]] = [body.value[1], body.value[0]];
      }),
    },
    {
      name: 'hotevents-date-ignored',
      group: 'eventKnowledge',
      operations: ['hotEvents'],
      deviation: 'forbidden',
      description: `hotevents ignores date: every valid date is answered with the events of ${FIXED_HOT_DATE}`,
      request(ctx) {
        if (/^\s*\d{4}-\d{2}-\d{2}\s*$/.test(ctx.params.date ?? '')) ctx.params.date = FIXED_HOT_DATE;
      },
    },
    {
      name: 'eventknowledge-event-id-not-hex',
      group: 'eventKnowledge',
      operations: [...OPS.eventKnowledge],
      deviation: 'forbidden',
      description:
        'event ids are dashed UUIDs instead of 32 hex characters (documents accepts them; sample-level: a warning unless --strict)',
      request(ctx) {
        if (ctx.pathParams.event_id !== undefined)
          ctx.pathParams.event_id = ctx.pathParams.event_id.replaceAll('-', '');
      },
      response: editOk((body) => {
        for (const event of objects(body.value)) {
          if (typeof event.eventId === 'string') event.eventId = dashed(event.eventId);
        }
      }),
    },
    {
      name: 'eventdocuments-publish-date-not-iso',
      group: 'eventKnowledge',
      operations: ['eventDocuments'],
      deviation: 'forbidden',
      description:
        "event documents publishDate is an RFC 1123 date ('Sun, 01 Nov 2026 10:00:00 GMT') instead of ISO 8601 UTC",
      response: editOk((body) => {
        for (const doc of objects(body.value)) {
          const ms = typeof doc.publishDate === 'string' ? Date.parse(doc.publishDate) : Number.NaN;
          if (Number.isFinite(ms)) doc.publishDate = new Date(ms).toUTCString();
        }
      }),
    },
    {
      name: 'relatedevents-time-minus-zero',
      group: 'eventKnowledge',
      operations: ['relatedEvents'],
      deviation: 'forbidden',
      description:
        "relatedevents from/to end in -00:00 (RFC 3339: the offset to local time unknown) instead of UTC's Z or +00:00",
      response: editOk((body) => {
        for (const event of objects(body.value)) {
          if (typeof event.from === 'string') event.from = event.from.replace(/Z$/, '-00:00');
          if (typeof event.to === 'string') event.to = event.to.replace(/Z$/, '-00:00');
        }
      }),
    },
    {
      name: 'eventdocuments-local-time-off-hottest',
      group: 'eventKnowledge',
      operations: ['eventDocuments'],
      deviation: 'forbidden',
      description:
        'event documents writes publishDate with a +02:00 offset (the same instant) for every event but the hottest of its day',
      async response(ctx, result) {
        if (result.status !== 200) return result;
        // Every document of the event, whatever page was asked for.
        const all = await ctx.call('eventDocuments', { $top: '100' }, ctx.pathParams);
        const docs = objects((jsonOf(all) as { value?: unknown } | undefined)?.value);
        // The days the event's news fall on, and the day before each (an event begins before its news):
        // it is the hottest of its day if it leads any of them.
        const days = new Set(
          docs.flatMap((doc) => {
            const ms = typeof doc.publishDate === 'string' ? Date.parse(doc.publishDate) : Number.NaN;
            return Number.isFinite(ms)
              ? [new Date(ms).toISOString().slice(0, 10), new Date(ms - 86_400_000).toISOString().slice(0, 10)]
              : [];
          }),
        );
        for (const day of days) {
          const hottest = await ctx.call('hotEvents', { date: day, $top: '1' });
          const top = objects((jsonOf(hottest) as { value?: unknown } | undefined)?.value)[0];
          if (top?.eventId === ctx.pathParams.event_id) return result;
        }
        return editOk((body) => {
          for (const doc of objects(body.value))
            if (typeof doc.publishDate === 'string') doc.publishDate = plusTwoHours(doc.publishDate);
        })(ctx, result);
      },
    },
    {
      name: 'relatedevents-time-not-utc',
      group: 'eventKnowledge',
      operations: ['relatedEvents'],
      deviation: 'forbidden',
      description: "relatedevents from/to carry a +02:00 offset (same instant) instead of UTC 'Z' timestamps",
      response: editOk((body) => {
        for (const event of objects(body.value)) {
          if (typeof event.from === 'string') event.from = plusTwoHours(event.from);
          if (typeof event.to === 'string') event.to = plusTwoHours(event.to);
        }
      }),
    },
  ];
}
