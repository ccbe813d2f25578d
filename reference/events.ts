import type { components } from '../openapi/generated/schema.d.ts';
import { errorResult, MESSAGES } from './errors.ts';
import type { HandlerResult } from './faults/types.ts';
import type { NamedEntity } from './names.ts';
import { intParam, ParameterError, requiredParam } from './paging.ts';
import { Random, randomFor } from './random.ts';

/** First and last day (inclusive, UTC) that carry events. */
export const EVENT_RANGE = { first: '2019-01-01', last: '2026-12-31' } as const;
/** Default and maximum of `$top`. */
export const TOP = { default: 10, max: 100 } as const;

const DAY_MS = 86_400_000;
const SOURCES = [
  'The Harbor Ledger',
  'Northwind Daily',
  'Cedar Post',
  'Glacier Times',
  'Summit Weekly',
  'Open Atlas News',
  'River Digest',
  'The Lantern',
  'Meridian Wire',
  'Tidewater Courier',
];
const HAPPENINGS = [
  'announces new plan',
  'opens exhibition',
  'wins award',
  'signs agreement',
  'hosts summit',
  'faces criticism',
  'publishes report',
  'launches project',
  'marks anniversary',
  'holds election',
  'reports record results',
  'visits region',
];

interface EventRecord {
  eventId: string;
  day: string;
  fromMs: number;
  from: string;
  to: string;
  toMs: number;
  entities: NamedEntity[];
  documentCount: number;
}

/** One news document of an event, as serialized. */
export type EventDocumentJson = components['schemas']['EventDocument'];

function isoSeconds(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 19)}Z`;
}

function slugify(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
}

/** True when text is a real calendar date written yyyy-mm-dd. */
export function isCalendarDate(text: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(text)) return false;
  const ms = Date.parse(`${text}T00:00:00Z`);
  return Number.isFinite(ms) && new Date(ms).toISOString().slice(0, 10) === text;
}

/** The event knowledge corpus: several events per day over EVENT_RANGE, linked to wikipedia slugs. */
export class EventCorpus {
  private readonly byDay = new Map<string, EventRecord[]>();
  private readonly bySlug = new Map<string, EventRecord[]>();
  private readonly byId = new Map<string, EventRecord>();
  private readonly documentCache = new Map<string, EventDocumentJson[]>();
  private readonly bodyCache = new Map<string, string>();

  constructor(
    readonly seed: number,
    readonly entities: readonly NamedEntity[],
  ) {
    const random = new Random(seed ^ 0xe7e7);
    const first = Date.parse(`${EVENT_RANGE.first}T00:00:00Z`);
    const last = Date.parse(`${EVENT_RANGE.last}T00:00:00Z`);
    for (let dayMs = first; dayMs <= last; dayMs += DAY_MS) {
      const day = new Date(dayMs).toISOString().slice(0, 10);
      const events: EventRecord[] = [];
      const perDay = random.int(2, 6);
      for (let n = 0; n < perDay; n++) {
        const fromMs = dayMs + random.int(0, DAY_MS / 1000 - 1) * 1000 + (random.chance(0.35) ? random.int(1, 999) : 0);
        const toMs = fromMs - (fromMs % 1000) + random.int(1, 72) * 3600_000;
        const linked: NamedEntity[] = [];
        for (let k = random.int(0, 3); k > 0; k--) {
          // Squaring skews choices towards the front of the list, so well-known names have many events.
          const entity = entities[Math.floor(random.next() ** 2 * entities.length)]!;
          if (!linked.includes(entity)) linked.push(entity);
        }
        const record: EventRecord = {
          eventId: random.hex(32),
          day,
          fromMs,
          from: new Date(fromMs).toISOString().replace(/\.000Z$/, 'Z'),
          toMs,
          to: isoSeconds(toMs),
          entities: linked,
          documentCount: random.int(1, 60),
        };
        events.push(record);
        this.byId.set(record.eventId, record);
        for (const entity of linked) {
          const list = this.bySlug.get(entity.slug) ?? [];
          list.push(record);
          this.bySlug.set(entity.slug, list);
        }
      }
      // Hotness is the number of documents: the busiest story first, ties by id.
      events.sort((a, b) => b.documentCount - a.documentCount || (a.eventId < b.eventId ? -1 : 1));
      this.byDay.set(day, events);
    }
    for (const list of this.bySlug.values()) {
      list.sort((a, b) => b.fromMs - a.fromMs || (a.eventId < b.eventId ? -1 : 1));
    }
  }

  /** Some values that exist in the corpus, for tests, examples and the server banner. */
  samples(): { date: string; wikipediaId: string; eventId: string } {
    const wikipediaId = 'Barack_Obama';
    const event = this.bySlug.get(wikipediaId)?.[0] ?? this.byDay.get('2026-11-01')![0]!;
    return { date: '2026-11-01', wikipediaId, eventId: event.eventId };
  }

  /** All documents of an event, newest first (documentCount of them). */
  documents(event: EventRecord): EventDocumentJson[] {
    let docs = this.documentCache.get(event.eventId);
    if (docs) return docs;
    const random = randomFor(this.seed, 'docs', event.eventId);
    const subject = event.entities[0]?.name ?? random.pick(['City council', 'Regional league', 'Research team']);
    docs = Array.from({ length: event.documentCount }, (_, i) => {
      const source = random.pick(SOURCES);
      const publishMs =
        event.fromMs - (event.fromMs % 1000) + random.int(1, Math.floor((event.toMs - event.fromMs) / 1000)) * 1000;
      const title = `${subject} ${random.pick(HAPPENINGS)}`;
      return {
        documentId: `${event.eventId.slice(0, 16)}${i.toString(16).padStart(4, '0')}`,
        source,
        publishDate: isoSeconds(publishMs),
        title,
        summary: `${title}, ${source} reports. Story ${i + 1} of ${event.documentCount} on this event.`,
        url: `https://news.${slugify(source)}.test/${event.day.replaceAll('-', '/')}/${slugify(title)}-${i + 1}`,
        entities: event.entities.map((entity) => entity.name),
      };
    });
    docs.sort((a, b) => (a.publishDate < b.publishDate ? 1 : a.publishDate > b.publishDate ? -1 : 0));
    if (this.documentCache.size >= 2000) this.documentCache.delete(this.documentCache.keys().next().value!);
    this.documentCache.set(event.eventId, docs);
    return docs;
  }

  private eventJson(event: EventRecord): components['schemas']['Event'] {
    return {
      eventId: event.eventId,
      relatedEntities: event.entities.map((entity) => entity.name),
      from: event.from,
      to: event.to,
      topDocument: this.documents(event)[0]!,
      documentCount: event.documentCount,
    };
  }

  private cached(key: string, build: () => unknown): string {
    let body = this.bodyCache.get(key);
    if (body === undefined) {
      body = JSON.stringify(build());
      if (this.bodyCache.size >= 5000) this.bodyCache.delete(this.bodyCache.keys().next().value!);
      this.bodyCache.set(key, body);
    }
    return body;
  }

  /** GET hotevents: events of a date by hotness (documentCount) descending. */
  hotEvents(params: Record<string, string>): HandlerResult {
    return guarded(() => {
      const date = requiredParam('eventKnowledge', params, 'date').trim();
      if (!isCalendarDate(date)) {
        return errorResult(
          'eventKnowledge',
          400,
          `Invalid parameter date: '${date.slice(0, 40)}' is not a yyyy-mm-dd date`,
        );
      }
      const { top, skip } = paging(params);
      return {
        status: 200,
        rawBody: this.cached(`hot|${date}|${top}|${skip}`, () => ({
          value: (this.byDay.get(date) ?? []).slice(skip, skip + top).map((event) => this.eventJson(event)),
        })),
      };
    });
  }

  /** GET relatedevents: events linked to a wikipedia id, newest first; an unknown id has no events. */
  relatedEvents(params: Record<string, string>): HandlerResult {
    return guarded(() => {
      const id = requiredParam('eventKnowledge', params, 'wikipediaid').trim();
      const { top, skip } = paging(params);
      return {
        status: 200,
        rawBody: this.cached(`rel|${id}|${top}|${skip}`, () => ({
          value: (this.bySlug.get(id) ?? []).slice(skip, skip + top).map((event) => this.eventJson(event)),
        })),
      };
    });
  }

  /** GET events/{event_id}/documents: the event's documents, newest first; unknown id: 404. */
  eventDocuments(params: Record<string, string>, eventId: string): HandlerResult {
    return guarded(() => {
      const event = this.byId.get(eventId);
      if (!event) return errorResult('eventKnowledge', 404, MESSAGES.notFound);
      const { top, skip } = paging(params);
      return {
        status: 200,
        rawBody: this.cached(`docs|${eventId}|${top}|${skip}`, () => ({
          value: this.documents(event).slice(skip, skip + top),
        })),
      };
    });
  }
}

function paging(params: Record<string, string>): { top: number; skip: number } {
  return {
    top: intParam('eventKnowledge', params, '$top', TOP.default, TOP.max),
    skip: intParam('eventKnowledge', params, '$skip', 0),
  };
}

function guarded(run: () => HandlerResult): HandlerResult {
  try {
    return run();
  } catch (error) {
    if (error instanceof ParameterError) return error.result;
    throw error;
  }
}
