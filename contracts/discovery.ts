import { getOperation } from '../openapi/spec.ts';
import type { Api, Operation } from './api.ts';
import { CheckFailure } from './failure.ts';

/** A paper entity as evaluate returns it with the discovery attributes. */
export interface DiscoveredPaper {
  Id?: number | string;
  Ti?: string;
  Y?: number;
  CC?: number;
  AA?: { AuN?: string; AuId?: number }[];
  F?: { FN?: string }[];
  prob?: number;
}

/** A trending event as the event operations return it. */
export interface DiscoveredEvent {
  eventId: string;
  relatedEntities?: string[];
  from?: string;
}

/** A broad expression every academic deployment should match many papers with. */
export const BROAD_EXPR = 'Y>1900';
const DISCOVERY_ATTRIBUTES = 'Id,Ti,Y,CC,AA.AuN,AA.AuId,F.FN';
const ANSWER_QUERIES = ['knowledge graph', 'machine learning', 'weather'];
/** Days back from today tried for trending events, then a few fixed dates for deployments frozen in the past. */
const EVENT_DAYS_BACK = [0, 1, 7, 30];
const EVENT_FIXED_DATES = ['2026-11-01', '2024-06-03', '2021-03-15'];

/** Looks an operation up by id; the suite's own ids are always in the spec. */
export function op(operationId: string): Operation {
  const found = getOperation(operationId);
  if (!found) throw new Error(`operation ${operationId} is not in the spec`);
  return found;
}

/**
 * Test data found on the target itself, so the suite works against any deployment: papers,
 * authors, an interpret query, an answer search query, a URL, a date with events, event ids
 * and an encyclopedia id. Each lookup runs once per worker and is shared by its tests.
 */
export class Discovery {
  private readonly cache = new Map<string, Promise<unknown>>();

  constructor(private readonly api: Api) {}

  private once<T>(name: string, find: () => Promise<T>): Promise<T> {
    let found = this.cache.get(name) as Promise<T> | undefined;
    if (!found) {
      found = find();
      this.cache.set(name, found);
    }
    return found;
  }

  /** Papers matching BROAD_EXPR, with titles, years, authors and fields. */
  papers(): Promise<DiscoveredPaper[]> {
    return this.once('papers', async () => {
      const response = await this.api.call(op('evaluateGet'), {
        params: { expr: BROAD_EXPR, attributes: DISCOVERY_ATTRIBUTES, count: '40' },
      });
      const entities = (response.json as { entities?: DiscoveredPaper[] } | undefined)?.entities ?? [];
      if (response.status !== 200 || entities.length === 0) {
        throw this.noData('evaluateGet', `evaluate ${BROAD_EXPR} returned no papers (status ${response.status})`);
      }
      return entities;
    });
  }

  /** A broad expression with many matches, for paging and ordering. */
  async broadExpr(): Promise<string> {
    await this.papers();
    return BROAD_EXPR;
  }

  /** Author names that occur in the corpus, most frequent first. */
  authors(): Promise<string[]> {
    return this.once('authors', async () => {
      const counts = new Map<string, number>();
      for (const paper of await this.papers()) {
        for (const author of paper.AA ?? []) {
          if (author.AuN) counts.set(author.AuN, (counts.get(author.AuN) ?? 0) + 1);
        }
      }
      const names = [...counts.entries()].sort((a, b) => b[1] - a[1]).map(([name]) => name);
      if (names.length === 0) throw this.noData('evaluateGet', 'no paper carried an AA.AuN author name');
      return names;
    });
  }

  /** An expression matching a handful of papers: the papers of one author. */
  async narrowExpr(): Promise<string> {
    const [author] = await this.authors();
    return `Composite(AA.AuN=='${author!.replace(/'/g, '')}')`;
  }

  /** Two titles for similarity. */
  async titles(): Promise<[string, string]> {
    const titles = (await this.papers()).map((paper) => paper.Ti).filter((title): title is string => Boolean(title));
    if (titles.length < 2) throw this.noData('evaluateGet', 'fewer than two papers carried a title (Ti)');
    return [titles[0]!, titles[1]!];
  }

  /**
   * An interpret request with several interpretations, so ordering and paging show: an author's
   * first name as a prefix (`complete=1`), else the full name; the candidate with the most wins.
   */
  interpretQuery(): Promise<{ query: string; complete: string }> {
    return this.once('interpretQuery', async () => {
      const authors = await this.authors();
      const first = (name: string) => name.split(' ')[0]!;
      const candidates = [
        ...authors.slice(0, 2).flatMap((name) => [
          { query: `papers by ${first(name)}`, complete: '1' },
          { query: first(name), complete: '1' },
        ]),
        { query: `papers by ${authors[0]}`, complete: '0' },
      ];
      let best: { query: string; complete: string; found: number } | undefined;
      for (const candidate of candidates) {
        const response = await this.api.call(op('interpretGet'), { params: { ...candidate, count: '10' } });
        const found = (response.json as { interpretations?: unknown[] } | undefined)?.interpretations?.length ?? 0;
        if (response.status === 200 && found >= 6) return candidate;
        if (response.status === 200 && found > (best?.found ?? 0)) best = { ...candidate, found };
      }
      if (best) return { query: best.query, complete: best.complete };
      throw this.noData('interpretGet', `no interpretation for ${candidates.map((c) => `'${c.query}'`).join(', ')}`);
    });
  }

  /** A query whose answer search response has several web pages. */
  answerQuery(): Promise<string> {
    return this.once('answerQuery', async () => {
      let best: { q: string; pages: number } | undefined;
      for (const q of ANSWER_QUERIES) {
        const response = await this.api.call(op('answerSearch'), { params: { q, mkt: 'en-US', count: '10' } });
        const pages = (response.json as { webPages?: { value?: unknown[] } } | undefined)?.webPages?.value?.length ?? 0;
        if (response.status === 200 && pages >= 6) return q;
        if (!best || pages > best.pages) best = { q, pages };
      }
      return best!.q;
    });
  }

  /** A URL worth previewing: the first web page of the answer search, else a well-known one. */
  previewUrl(): Promise<string> {
    return this.once('previewUrl', async () => {
      const q = await this.answerQuery();
      const response = await this.api.call(op('answerSearch'), { params: { q, mkt: 'en-US', count: '1' } });
      const url = (response.json as { webPages?: { value?: { url?: string }[] } } | undefined)?.webPages?.value?.[0]
        ?.url;
      return url && /^https?:\/\//.test(url) ? url : 'https://www.example.com/';
    });
  }

  /** A date with trending events, and its events. */
  hotDate(): Promise<{ date: string; events: DiscoveredEvent[] }> {
    return this.once('hotDate', async () => {
      const recent = EVENT_DAYS_BACK.map((back) => new Date(Date.now() - back * 86_400_000).toISOString().slice(0, 10));
      for (const date of [...new Set([...recent, ...EVENT_FIXED_DATES])]) {
        const response = await this.api.call(op('hotEvents'), { params: { date, $top: '20' } });
        const events = (response.json as { value?: DiscoveredEvent[] } | undefined)?.value ?? [];
        if (response.status === 200 && events.length > 0) return { date, events };
      }
      throw this.noData(
        'hotEvents',
        `no trending events on today, ${EVENT_DAYS_BACK.length - 1} earlier days or ${EVENT_FIXED_DATES.join(', ')}`,
      );
    });
  }

  /** An event id that exists, preferring an event with several documents. */
  async eventId(): Promise<string> {
    const { events } = await this.hotDate();
    return events[0]!.eventId;
  }

  /** An encyclopedia id with several related events (the slug of an entity named by an event). */
  wikipediaId(): Promise<string> {
    return this.once('wikipediaId', async () => {
      const { events } = await this.hotDate();
      const names = [...new Set(events.flatMap((event) => event.relatedEntities ?? []))].slice(0, 4);
      let best: { id: string; count: number } | undefined;
      for (const name of names) {
        const id = name.replace(/ /g, '_');
        const response = await this.api.call(op('relatedEvents'), {
          params: { wikipediaid: id, $top: '20' },
          intent: 'error',
        });
        const count = (response.json as { value?: unknown[] } | undefined)?.value?.length ?? 0;
        if (response.status === 200 && count >= 4) return id;
        if (response.status === 200 && (!best || count > best.count)) best = { id, count };
      }
      if (best) return best.id;
      throw this.noData('relatedEvents', `no related events for the entities of trending events (${names.join(', ')})`);
    });
  }

  private noData(operationId: string, received: string): CheckFailure {
    const found = op(operationId);
    // No check id of its own: the test that needed the data reports it under its own check.
    return new CheckFailure({
      check: '',
      operation: found.label,
      title: 'could not discover test data on the target',
      received,
      documented: 'a deployment with data: the suite discovers papers, queries, events and ids from the target',
    });
  }
}
