import {
  type Api,
  type ApiResponse,
  type CallOptions,
  op,
  ResponseUnusable,
  TargetBroken,
  Throttled,
} from '../contracts/api.ts';
import { excerpt, type Failure } from '../contracts/failure.ts';
import { field, objects } from '../contracts/json.ts';
import { DataUnavailable, type DiscoveredEvent, type DiscoveredPaper, type TestData } from '../contracts/test-data.ts';
import { validateResponse } from '../openapi/validator.ts';
import type { SharedDiscovery } from './discovery-share.ts';

/** How many request deadlines a worker waits for an item another worker is finding, before it finds it itself. */
const WAIT_DEADLINES = 4;

/** A broad expression every academic deployment should match many papers with. */
export const BROAD_EXPR = 'Y>1900';
const DISCOVERY_ATTRIBUTES = 'Id,Ti,Y,CC,AA.AuN,AA.AuId,F.FN';
/** Every queryable attribute facts.md lists: the values generated requests are built from. */
const VALUE_ATTRIBUTES = 'Id,Ti,W,Y,D,AA.AuN,AA.AuId,AA.AfN,F.FN,F.FId,J.JN,C.CN,DOI';
const ANSWER_QUERIES = ['knowledge graph', 'machine learning', 'weather'];
/** Days back from today tried for trending events, then a few fixed dates for deployments frozen in the past. */
const EVENT_DAYS_BACK = [0, 1, 7, 30];
const EVENT_FIXED_DATES = ['2026-11-01', '2024-06-03', '2021-03-15'];

/**
 * The operations each discovery item reads. A test that uses an item depends on these operations:
 * the fault sweep runs it against every fault of them, to prove a broken operation never fails a
 * test of another. `discovery.test.ts` checks the list against the requests each item really sends.
 */
export const DISCOVERY_SOURCES = {
  papers: ['evaluateGet'],
  paperValues: ['evaluateGet'],
  authors: ['evaluateGet'],
  narrowExpr: ['evaluateGet'],
  titles: ['evaluateGet'],
  interpretQuery: ['evaluateGet', 'interpretGet'],
  answerQuery: ['answerSearch'],
  previewUrl: ['answerSearch'],
  hotDate: ['hotEvents'],
  eventId: ['hotEvents'],
  wikipediaId: ['hotEvents', 'relatedEvents'],
} as const satisfies Record<string, readonly string[]>;

/** A discovery item: one kind of test data. */
export type DiscoveryItem = keyof typeof DISCOVERY_SOURCES;

/** The items each item is derived from (fetching it fetches them first). */
export const DISCOVERY_NEEDS: Partial<Record<DiscoveryItem, readonly DiscoveryItem[]>> = {
  authors: ['papers'],
  narrowExpr: ['authors'],
  titles: ['papers'],
  // Not derived from papers, but sent with them (see paperValues).
  paperValues: ['papers'],
  interpretQuery: ['authors'],
  previewUrl: ['answerQuery'],
  eventId: ['hotDate'],
  wikipediaId: ['hotDate'],
};

/**
 * Requests each item sends itself, the items it is derived from not included (429 retries not
 * included): `first` when its first candidate serves, `most` when every fallback is tried. What
 * `kgate conform` announces its discovery requests from; `request-budget.test.ts` checks `most`.
 */
export const DISCOVERY_REQUESTS: Record<DiscoveryItem, { first: number; most: number }> = {
  papers: { first: 1, most: 1 },
  paperValues: { first: 1, most: 1 },
  authors: { first: 0, most: 0 },
  narrowExpr: { first: 0, most: 0 },
  titles: { first: 0, most: 0 },
  // Two candidates for each of the first two authors, then the first author's full name.
  interpretQuery: { first: 1, most: 5 },
  answerQuery: { first: 1, most: ANSWER_QUERIES.length },
  previewUrl: { first: 1, most: 1 },
  hotDate: { first: 1, most: EVENT_DAYS_BACK.length + EVENT_FIXED_DATES.length },
  eventId: { first: 0, most: 0 },
  // The entities of the date's events, at most four.
  wikipediaId: { first: 1, most: 4 },
};

/** Short description of an answer, for the skip reason of a test that found no data in it. */
function answered(response: ApiResponse): string {
  return `status ${response.status}, ${excerpt(response.text, 120)}`;
}

/**
 * Test data found on the target itself, so the suite works against any deployment: papers,
 * authors, an interpret query, an answer search query, a URL, a date with events, event ids and an
 * encyclopedia id. Each item is looked up once per run, by the first worker that needs it (see
 * SharedDiscovery), and shared by every test.
 *
 * Discovery needs data, not validity: its requests are judged by nobody (the `Api` it is given
 * has `judge: false`), it takes what it needs from any answer, and when it finds nothing usable it
 * throws DataUnavailable naming the root cause, so the tests that needed the data are skipped with
 * that reason while the answering operation's own tests report what is wrong with it.
 */
export class Discovery implements TestData {
  private readonly cache = new Map<string, Promise<unknown>>();

  /** `shared`: the run's store, where the workers leave what they found for each other (none: this worker alone). */
  constructor(
    private readonly api: Api,
    private readonly shared?: SharedDiscovery,
  ) {}

  /**
   * A view for one test: every item it uses adds the item's source operations to `reads`, and
   * the item to `used` (what the request budget counts discovery by).
   */
  forTest(reads: Set<string>, used?: Set<string>): Discovery {
    return new Proxy(this, {
      get(target, property, receiver) {
        const value = Reflect.get(target, property, receiver);
        if (typeof value !== 'function' || !(property in DISCOVERY_SOURCES)) return value;
        return (...args: unknown[]) => {
          used?.add(property as string);
          for (const source of DISCOVERY_SOURCES[property as DiscoveryItem]) reads.add(source);
          return value.apply(target, args);
        };
      },
    });
  }

  private once<T>(name: DiscoveryItem, find: () => Promise<T>): Promise<T> {
    let found = this.cache.get(name) as Promise<T> | undefined;
    if (!found) {
      found = this.shared ? this.acrossWorkers(name, find, this.shared) : find();
      this.cache.set(name, found);
    }
    return found;
  }

  /**
   * An item another worker of the run found is taken as it found it, and one it found none of is
   * unavailable with its reason (its findings were reported by the test that looked). The first
   * worker to need an item finds it for all; the others wait for it, for at most WAIT_DEADLINES
   * request deadlines (an item may take a few requests, each up to the deadline) or until the
   * run's time limit, then find it themselves, as they do when the finder could not say (the run's
   * time limit, a defect of kgate).
   */
  private async acrossWorkers<T>(name: DiscoveryItem, find: () => Promise<T>, shared: SharedDiscovery): Promise<T> {
    let item = shared.read(name);
    if (!item && shared.claim(name)) {
      try {
        const value = await find();
        shared.write(name, { value });
        return value;
      } catch (error) {
        shared.write(name, error instanceof DataUnavailable ? { unavailable: error.message } : { failed: true });
        throw error;
      }
    }
    const { timeoutMs, deadlineAt } = this.api.settings;
    item ??= await shared.wait(name, Math.min(Date.now() + WAIT_DEADLINES * timeoutMs, deadlineAt ?? Infinity));
    if (!item || 'failed' in item) return find();
    if ('unavailable' in item) throw new DataUnavailable(item.unavailable);
    return item.value as T;
  }

  /**
   * Sends a discovery request; a response that cannot be read at all ends discovery with its
   * finding, and an operation kgate gave up on serves no data (the tests that need it skip, or fall
   * back to built-in values, with the reason; the operation's own tests report it).
   */
  private async fetch(operationId: string, options: CallOptions): Promise<ApiResponse> {
    try {
      return await this.api.call(op(operationId), options);
    } catch (error) {
      if (error instanceof ResponseUnusable) {
        throw new DataUnavailable(`${error.finding.operation} did not answer usably: ${error.finding.title}`, [
          { ...error.finding, origin: 'fixture' },
        ]);
      }
      if (error instanceof TargetBroken || error instanceof Throttled)
        throw new DataUnavailable(error.message.replace(/^not (run|judged)(: throttled)?: /, ''));
      throw error;
    }
  }

  /** DataUnavailable for a response without the data sought, with its schema errors when it has any. */
  private noData(what: string, operationId: string, response: ApiResponse): DataUnavailable {
    const result = validateResponse(operationId, response.status, response.contentType, response.json);
    const findings: Failure[] = [];
    if (result.documented && !result.valid) {
      const first = result.errors[0];
      findings.push({
        check: 'response-matches-spec',
        operation: response.operation,
        title: `status ${response.status} body does not match the spec`,
        received: first ? `${first.message} (${first.keyword})` : 'invalid body',
        documented: first ? `schema ${first.schemaPath}` : 'the documented schema',
        pointer: first?.pointer ?? '',
        excerpt: response.excerpt,
        curl: response.curl,
        origin: 'fixture',
      });
    }
    return new DataUnavailable(`${what}: ${response.operation} answered ${answered(response)}`, findings);
  }

  /** Papers matching BROAD_EXPR, with titles, years and authors as the target sent them. */
  papers(): Promise<DiscoveredPaper[]> {
    return this.once('papers', async () => {
      const response = await this.fetch('evaluateGet', {
        params: { expr: BROAD_EXPR, attributes: DISCOVERY_ATTRIBUTES, count: '40' },
      });
      const entities = objects(field(response.json, 'entities'));
      if (response.status !== 200 || entities.length === 0)
        throw this.noData(`no papers for ${BROAD_EXPR}`, 'evaluateGet', response);
      return entities;
    });
  }

  /** Papers with every queryable attribute, for generated requests (values drawn from the target). */
  paperValues(): Promise<Record<string, unknown>[]> {
    // Both searches for papers ask evaluate, and are sent together: a slow evaluate costs them one
    // wait, and its two slow answers, after which it is given up on, come within one deadline.
    // Sent in turn, papers (wanted by every run with other academic tests) went out only after the
    // generated requests the values fed, each slow in turn: an 8 s evaluate made a run of 33 s,
    // not 17. Its failure is for the tests that use papers to report.
    this.papers().catch(() => {});
    return this.once('paperValues', async () => {
      // The generated requests have built-in values to fall back on: an operation given up on for
      // slowness is not waited for again (the items no test can do without are).
      const givenUp = this.api.givenUpOn(op('evaluateGet'));
      if (givenUp !== undefined) throw new DataUnavailable(`kgate gave up on ${givenUp}`);
      const response = await this.fetch('evaluateGet', {
        params: { expr: BROAD_EXPR, attributes: VALUE_ATTRIBUTES, count: '50' },
      });
      const entities = objects(field(response.json, 'entities'));
      if (response.status !== 200 || entities.length === 0)
        throw this.noData(`no papers for ${BROAD_EXPR}`, 'evaluateGet', response);
      return entities;
    });
  }

  /** A broad expression with many matches, for paging and ordering (needs no discovery request). */
  async broadExpr(): Promise<string> {
    return BROAD_EXPR;
  }

  /** Author names that occur in the corpus, most frequent first. */
  authors(): Promise<string[]> {
    return this.once('authors', async () => {
      const counts = new Map<string, number>();
      for (const paper of await this.papers()) {
        for (const author of objects(paper.AA)) {
          if (typeof author.AuN === 'string' && author.AuN !== '')
            counts.set(author.AuN, (counts.get(author.AuN) ?? 0) + 1);
        }
      }
      const names = [...counts.entries()].sort((a, b) => b[1] - a[1]).map(([name]) => name);
      if (names.length === 0)
        throw new DataUnavailable(`no author names: no paper of evaluate ${BROAD_EXPR} carried a string AA[].AuN`);
      return names;
    });
  }

  /** An expression matching a handful of papers: the papers of one author. */
  async narrowExpr(): Promise<string> {
    const [author] = await this.authors();
    return `Composite(AA.AuN=='${author!.replace(/'/g, '')}')`;
  }

  /** Two titles for similarity. */
  titles(): Promise<[string, string]> {
    return this.once('titles', async () => {
      const titles = (await this.papers())
        .map((paper) => paper.Ti)
        .filter((title): title is string => typeof title === 'string' && title.trim() !== '');
      if (titles.length < 2)
        throw new DataUnavailable(`no titles: fewer than two papers of evaluate ${BROAD_EXPR} carried a string Ti`);
      return [titles[0]!, titles[1]!];
    });
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
      let last: ApiResponse | undefined;
      for (const candidate of candidates) {
        last = await this.fetch('interpretGet', { params: { ...candidate, count: '10' } });
        const found = objects(field(last.json, 'interpretations')).length;
        if (last.status === 200 && found >= 6) return candidate;
        if (last.status === 200 && found > (best?.found ?? 0)) best = { ...candidate, found };
      }
      if (best) return { query: best.query, complete: best.complete };
      throw this.noData(
        `no interpretation for ${candidates.map((c) => `'${c.query}'`).join(', ')}`,
        'interpretGet',
        last!,
      );
    });
  }

  /** A query whose answer search response has several web pages. */
  answerQuery(): Promise<string> {
    return this.once('answerQuery', async () => {
      let best: { q: string; pages: number } | undefined;
      for (const q of ANSWER_QUERIES) {
        const response = await this.fetch('answerSearch', { params: { q, mkt: 'en-US', count: '10' } });
        const pages = objects(field(field(response.json, 'webPages'), 'value')).length;
        if (response.status === 200 && pages >= 6) return q;
        if (response.status === 200 && (!best || pages > best.pages)) best = { q, pages };
      }
      // A query whose answers carry no web pages is still a valid query: its tests judge what comes back.
      return best?.q ?? ANSWER_QUERIES[0]!;
    });
  }

  /** A URL worth previewing: the first web page of the answer search, else a well-known one. */
  previewUrl(): Promise<string> {
    return this.once('previewUrl', async () => {
      const q = await this.answerQuery();
      let url: unknown;
      try {
        const response = await this.fetch('answerSearch', { params: { q, mkt: 'en-US', count: '1' } });
        url = objects(field(field(response.json, 'webPages'), 'value'))[0]?.url;
      } catch (error) {
        if (!(error instanceof DataUnavailable)) throw error;
      }
      return typeof url === 'string' && /^https?:\/\//.test(url) ? url : 'https://www.example.com/';
    });
  }

  /** A date with trending events, and its events. */
  hotDate(): Promise<{ date: string; events: DiscoveredEvent[] }> {
    return this.once('hotDate', async () => {
      const recent = EVENT_DAYS_BACK.map((back) => new Date(Date.now() - back * 86_400_000).toISOString().slice(0, 10));
      let last: ApiResponse | undefined;
      for (const date of [...new Set([...recent, ...EVENT_FIXED_DATES])]) {
        last = await this.fetch('hotEvents', { params: { date, $top: '20' } });
        const events = objects(field(last.json, 'value'))
          .filter((event) => typeof event.eventId === 'string' && event.eventId !== '')
          .map((event) => ({
            eventId: event.eventId as string,
            relatedEntities: Array.isArray(event.relatedEntities)
              ? event.relatedEntities.filter((name): name is string => typeof name === 'string')
              : [],
          }));
        if (last.status === 200 && events.length > 0) return { date, events };
      }
      throw this.noData(
        `no trending events with an eventId on today, ${EVENT_DAYS_BACK.length - 1} earlier days or ${EVENT_FIXED_DATES.join(', ')}`,
        'hotEvents',
        last!,
      );
    });
  }

  /** An event id that exists. */
  eventId(): Promise<string> {
    return this.once('eventId', async () => (await this.hotDate()).events[0]!.eventId);
  }

  /** An encyclopedia id with several related events (the slug of an entity named by an event). */
  wikipediaId(): Promise<string> {
    return this.once('wikipediaId', async () => {
      const { events } = await this.hotDate();
      const names = [...new Set(events.flatMap((event) => event.relatedEntities))].slice(0, 4);
      let best: { id: string; count: number } | undefined;
      let last: ApiResponse | undefined;
      for (const name of names) {
        const id = name.replace(/ /g, '_');
        last = await this.fetch('relatedEvents', { params: { wikipediaid: id, $top: '20' }, intent: 'error' });
        const count = objects(field(last.json, 'value')).length;
        if (last.status === 200 && count >= 4) return id;
        if (last.status === 200 && (!best || count > best.count)) best = { id, count };
      }
      if (best) return best.id;
      if (!last) throw new DataUnavailable('no encyclopedia id: no trending event named a related entity');
      throw this.noData(
        `no related events for the entities of trending events (${names.join(', ')})`,
        'relatedEvents',
        last,
      );
    });
  }
}
