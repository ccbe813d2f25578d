// Invariants: properties judged from one answer alone, on every answer where they apply.
import { getOperation, type PagingInfo } from '../../openapi/spec.ts';
import { show } from '../failure.ts';
import { field, isObject, objects } from '../json.ts';
import { interpretationMatchesParse, resultsMatchExpr } from './consistency.ts';
import type { Exchange, ResponseProperty, Violation } from './types.ts';

const DAY_MS = 86_400_000;

/**
 * An ISO 8601 UTC timestamp as the spec's UtcTimestamp states it (RFC 3339, section 5.6): `Z` or
 * `+00:00` (`-00:00` says the offset to local time is unknown, RFC 3339 section 4.3, not UTC).
 */
export const UTC_TIMESTAMP = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|\+00:00)$/;

/** Where the timestamps the interface calls UTC stand in an answer of each operation (2.5, 2.7). */
const TIMESTAMPS: Record<string, readonly (readonly string[])[]> = {
  answerSearch: [['webPages', 'value', '*', 'dateLastCrawled']],
  hotEvents: [
    ['value', '*', 'from'],
    ['value', '*', 'to'],
    ['value', '*', 'topDocument', 'publishDate'],
  ],
  relatedEvents: [
    ['value', '*', 'from'],
    ['value', '*', 'to'],
    ['value', '*', 'topDocument', 'publishDate'],
  ],
  eventDocuments: [['value', '*', 'publishDate']],
};

/** The timestamps of an answer the interface calls UTC that are not written so (Z or +00:00), with their JSON pointers. */
export function nonUtcTimestamps(operationId: string, json: unknown): { pointer: string; value: unknown }[] {
  const out: { pointer: string; value: unknown }[] = [];
  const walk = (value: unknown, path: readonly string[], pointer: string) => {
    if (path.length === 0) {
      if (value !== undefined && !(typeof value === 'string' && UTC_TIMESTAMP.test(value)))
        out.push({ pointer, value });
      return;
    }
    const [step, ...rest] = path;
    if (step === '*') {
      if (Array.isArray(value)) for (let i = 0; i < value.length; i++) walk(value[i], rest, `${pointer}/${i}`);
    } else if (isObject(value)) walk(value[step!], rest, `${pointer}/${step}`);
  };
  for (const path of TIMESTAMPS[operationId] ?? []) walk(json, path, '');
  return out;
}

/**
 * The instant of an ISO 8601 UTC timestamp as RFC 3339 writes it (`Z` or an offset of 00:00, any
 * fraction, T and Z in either case), in milliseconds, a leap second as the end of the second before
 * it; NaN for anything else (another offset, another form: the schema's finding, not an order's).
 */
export function instantOf(text: unknown): number {
  if (typeof text !== 'string' || !UTC_TIMESTAMP.test(text)) return Number.NaN;
  const parsed = Date.parse(text);
  if (!Number.isNaN(parsed)) return parsed;
  // Date.parse refuses second 60, which RFC 3339 allows for a leap second.
  const leap = /^(.{16}):60(.*)$/.exec(text);
  return leap ? Date.parse(`${leap[1]}:59${leap[2]}`) + 1000 : Number.NaN;
}

/** The paper attributes of facts.md as evaluate groups them in an entity (scores are not attributes). */
export const PAPER_ATTRIBUTES: ReadonlySet<string> = new Set([
  'Id',
  'Ti',
  'W',
  'Y',
  'D',
  'CC',
  'ECC',
  'AA',
  'F',
  'J',
  'C',
  'RId',
  'DOI',
]);

/** Attributes with one value per paper: the ones an order can be judged on. */
const SINGLE_VALUED = new Set(['Id', 'Ti', 'Y', 'D', 'CC', 'ECC', 'DOI']);

/** interpret, evaluate... without the GET/POST suffix. */
export function baseOf(operationId: string): string {
  let base = BASES.get(operationId);
  if (base === undefined) {
    base = operationId.replace(/(Get|Post)$/, '');
    BASES.set(operationId, base);
  }
  return base;
}

/** Bases worked out once: every answer of a run asks for its operation's. */
const BASES = new Map<string, string>();

/** A non-negative integer parameter, or undefined when absent or not one. */
export function intParam(params: Record<string, string>, name: string): number | undefined {
  const text = params[name];
  if (text === undefined) return undefined;
  // What /^\d{1,9}$/ says of the trimmed text, without making a trimmed copy (every answer is read so).
  let start = 0;
  let end = text.length;
  while (start < end && isSpace(text.charCodeAt(start))) start++;
  while (end > start && isSpace(text.charCodeAt(end - 1))) end--;
  if (end === start || end - start > 9) return undefined;
  let value = 0;
  for (let i = start; i < end; i++) {
    const digit = text.charCodeAt(i) - 48;
    if (digit < 0 || digit > 9) return undefined;
    value = value * 10 + digit;
  }
  return value;
}

/** Whether a character code is white space as String.prototype.trim removes it. */
function isSpace(code: number): boolean {
  return code === 32 || (code >= 9 && code <= 13) || (code > 127 && /\s/.test(String.fromCharCode(code)));
}

/** The value at a JSON pointer. */
export function at(json: unknown, pointer: string): unknown {
  let keys = POINTERS.get(pointer);
  if (!keys) {
    keys = pointer
      .split('/')
      .slice(1)
      .map((key) => key.replace(/~1/g, '/').replace(/~0/g, '~'))
      // An array index as a number: the same member, found without reading the text as one each time.
      .map((key) => (/^(0|[1-9]\d{0,8})$/.test(key) ? Number(key) : key));
    POINTERS.set(pointer, keys);
  }
  let node = json;
  for (const key of keys) {
    if (node === null || typeof node !== 'object') return undefined;
    // An object's member, or an array's element (`/histograms/0/histogram`).
    node = (node as Record<string | number, unknown>)[key];
  }
  return node;
}

/** Pointers split once: the same few are read from every answer. */
const POINTERS = new Map<string, (string | number)[]>();

/** One paged list of an answer: where it is, what names it among the answer's lists, its items. */
export interface PagedList {
  /** The JSON pointer of the list (`/histograms/1/histogram`). */
  pointer: string;
  /** What names the list among the answer's lists: the `attribute` of a histogram, else its position. */
  key: string;
  items: unknown[];
}

const NO_LISTS: readonly PagedList[] = Object.freeze([]);

/**
 * The paged lists of an answer at a paging pointer: one list, or where the pointer holds a `*`
 * segment (`/histograms/*\/histogram`), the list of every element of that array, each named by its
 * `attribute` where it has one (the histograms of one answer may come in any order).
 */
export function pagedLists(json: unknown, pointer: string): readonly PagedList[] {
  const star = pointer.indexOf('/*/');
  if (star < 0) {
    const items = at(json, pointer);
    return Array.isArray(items) ? [{ pointer, key: '0', items }] : NO_LISTS;
  }
  const parents = at(json, pointer.slice(0, star));
  if (!Array.isArray(parents)) return NO_LISTS;
  const rest = pointer.slice(star + 2);
  const out: PagedList[] = [];
  for (let i = 0; i < parents.length; i++) {
    const parent = parents[i];
    const items = at(parent, rest);
    if (!Array.isArray(items)) continue;
    const name = isObject(parent) && typeof parent.attribute === 'string' ? parent.attribute : String(i);
    out.push({ pointer: `${pointer.slice(0, star)}/${i}${rest}`, key: name, items });
  }
  return out;
}

/** The first index i > 0 where `ok(values[i - 1], values[i])` fails, or -1. */
function breaks<T>(values: T[], ok: (before: T, after: T) => boolean): number {
  return values.findIndex((value, i) => i > 0 && !ok(values[i - 1]!, value));
}

const NO_ITEMS: readonly unknown[] = [];

/**
 * A JSON value's items if it is an array (none otherwise), not copied: the fast paths below judge
 * every answer of a run by walking them with plain loops, skipping the items that are not objects
 * (`isObject`), and build the lists a failure shows only once they have found one.
 */
function items(value: unknown): readonly unknown[] {
  return Array.isArray(value) ? value : NO_ITEMS;
}

/** Whether an array holds at least `least` objects (what `objects(value).length >= least` says, without the copy). */
function holdsObjects(value: unknown, least: number): boolean {
  let found = 0;
  for (const item of items(value)) if (isObject(item) && ++found >= least) return true;
  return false;
}

/**
 * Where the objects of an array first rise in `key` read as a number: the index among the objects,
 * or -1 when they never do (descending; ties in any order; NaN breaks nothing).
 */
function firstRise(value: unknown, key: string): number {
  let previous = Number.NaN;
  let index = 0;
  for (const item of items(value)) {
    if (!isObject(item)) continue;
    const next = Number(item[key]);
    if (next > previous) return index;
    previous = next;
    index++;
  }
  return -1;
}

/** Whether a calchistogram answer has a histogram of at least `least` entries. */
function someHistogramHolds(json: unknown, least: number): boolean {
  for (const histogram of items(field(json, 'histograms')))
    if (isObject(histogram) && holdsObjects(histogram.histogram, least)) return true;
  return false;
}

/** Compares two attribute values of one type: numbers by value, anything else as text. */
function compare(a: unknown, b: unknown): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  return String(a) < String(b) ? -1 : String(a) > String(b) ? 1 : 0;
}

/** The normalization the real service applied to the interpret echo: lower case, punctuation removed, spaces collapsed. */
export function normalizeQuery(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s]/gu, '')
    .replace(/\s+/g, ' ')
    .trim();
}

/**
 * Whether two texts differ only in Unicode form (composed or decomposed accents) or in white space
 * at their ends and runs of it: the interface does not say a deployment keeps either as sent, so an
 * echo that changed only those is a warning, not a failure.
 */
function sameText(a: string, b: string): boolean {
  const plain = (text: string) => text.normalize('NFC').replace(/\s+/g, ' ').trim();
  return plain(a) === plain(b);
}

const ECHO: Record<string, { param: string; pointer: string }> = {
  interpret: { param: 'query', pointer: '/query' },
  evaluate: { param: 'expr', pointer: '/expr' },
  calchistogram: { param: 'expr', pointer: '/expr' },
  answerSearch: { param: 'q', pointer: '/queryContext/originalQuery' },
};

/**
 * What one property reads of an operation, looked up once for a run of answers of the same operation
 * (a map lookup per answer and property costs about what judging a small answer does).
 */
function lastOf<T>(lookup: (operationId: string) => T): (operationId: string) => T {
  let lastId: string | undefined;
  let last: T;
  return (operationId) => {
    if (operationId !== lastId) {
      last = lookup(operationId);
      lastId = operationId;
    }
    return last;
  };
}

/** An operation's echo (request-is-echoed applies only where there is one). */
const echoOf = lastOf((operationId) => ECHO[baseOf(operationId)]!);

/** An operation's paging (paging-respects-size applies only where there is one). */
const pagingOf = lastOf((operationId): PagingInfo => getOperation(operationId)!.paging!);

const ok200 = (x: Exchange) => x.status === 200;

/** What a property finds in an answer that keeps it: one empty list, shared (judging every answer allocates nothing then). */
const NONE: readonly Violation[] = Object.freeze([]);

export const pagingRespectsSize: ResponseProperty = {
  check: 'paging-respects-size',
  claims: 'a page holds at most count / $top items (calchistogram: each of its histograms)',
  appliesTo: (id) => getOperation(id)?.paging !== undefined,
  reads(x) {
    const paging = pagingOf(x.operationId);
    const size = intParam(x.params, paging.count);
    if (!ok200(x) || size === undefined || size <= 0) return false;
    // A full page: had the limit been ignored, more would have come.
    for (const list of pagedLists(x.json, paging.items)) if (list.items.length >= size) return true;
    return false;
  },
  judge(x) {
    const paging = pagingOf(x.operationId);
    const size = intParam(x.params, paging.count);
    if (!ok200(x) || size === undefined) return NONE;
    let out: Violation[] | undefined;
    for (const list of pagedLists(x.json, paging.items)) {
      if (list.items.length <= size) continue;
      out ??= [];
      out.push({
        title: `page larger than ${paging.count}`,
        received: `${list.items.length} items at ${list.pointer}`,
        documented: `at most ${size} items (${paging.count}=${size}${list.pointer === paging.items ? '' : ', in every list the answer pages'})`,
        pointer: list.pointer,
      });
    }
    return out ?? NONE;
  },
};

export const interpretationsOrderedByProb: ResponseProperty = {
  check: 'interpretations-ordered-by-prob',
  claims: 'interpretations come by descending prob (ties in any order)',
  appliesTo: (id) => baseOf(id) === 'interpret',
  reads: (x) => ok200(x) && holdsObjects(field(x.json, 'interpretations'), 2),
  judge(x) {
    if (!ok200(x)) return NONE;
    const i = firstRise(field(x.json, 'interpretations'), 'prob');
    if (i < 0) return NONE;
    const probs = objects(field(x.json, 'interpretations')).map((interpretation) => interpretation.prob);
    return [
      {
        title: 'interpretations not by descending prob',
        received: `prob ${show(probs[i - 1])} then ${show(probs[i])}: ${show(probs)}`,
        documented: 'descending prob',
        pointer: '/interpretations',
      },
    ];
  },
};

/** `Y:desc` -> { attribute: 'Y', direction: 'desc' }; no direction: either, consistently. */
export function parseOrderby(text: string | undefined): { attribute: string; direction?: 'asc' | 'desc' } | undefined {
  if (text === undefined) return undefined;
  if (ORDERS.has(text)) return ORDERS.get(text);
  const match = /^\s*([A-Za-z.]+)\s*(?::\s*(asc|desc)\s*)?$/.exec(text);
  const order = match ? { attribute: match[1]!, direction: match[2] as 'asc' | 'desc' | undefined } : undefined;
  if (ORDERS.size > 1000) ORDERS.clear();
  ORDERS.set(text, order);
  return order;
}

/** orderby values parsed once (generated runs repeat a few). */
const ORDERS = new Map<string, { attribute: string; direction?: 'asc' | 'desc' } | undefined>();

export const orderbyIsHonoured: ResponseProperty = {
  check: 'orderby-is-honoured',
  claims:
    'evaluate with orderby=A:asc / A:desc returns the entities carrying A in that order (ties in any order; no direction: one direction throughout)',
  appliesTo: (id) => baseOf(id) === 'evaluate',
  reads(x) {
    const order = parseOrderby(x.params.orderby);
    return (
      ok200(x) &&
      order !== undefined &&
      SINGLE_VALUED.has(order.attribute) &&
      holdsObjects(field(x.json, 'entities'), 2)
    );
  },
  judge(x) {
    const order = parseOrderby(x.params.orderby);
    if (!ok200(x) || !order || !SINGLE_VALUED.has(order.attribute)) return NONE;
    // One walk, no copies: where the values (the entities carrying the attribute) first rise and first fall.
    let previous: unknown;
    let index = -1;
    let rise = -1;
    let fall = -1;
    for (const entity of items(field(x.json, 'entities'))) {
      if (!isObject(entity)) continue;
      const value = entity[order.attribute];
      if (value === undefined || value === null) continue;
      index++;
      if (index > 0) {
        const step = compare(previous, value);
        if (step < 0 && rise < 0) rise = index;
        else if (step > 0 && fall < 0) fall = index;
      }
      previous = value;
      if (rise >= 0 && fall >= 0) break;
    }
    const wrong =
      order.direction === 'asc'
        ? fall
        : order.direction === 'desc'
          ? rise
          : rise < 0 || fall < 0
            ? -1
            : Math.min(rise, fall);
    if (wrong < 0) return NONE;
    const values = objects(field(x.json, 'entities'))
      .map((entity) => entity[order.attribute])
      .filter((value) => value !== undefined && value !== null);
    const direction = order.direction ?? 'one';
    return [
      {
        title: `entities not in ${order.direction ? `${direction}ending` : 'one'} order of ${order.attribute}`,
        received: `${order.attribute} ${show(values[wrong - 1])} then ${show(values[wrong])}: ${show(values, 160)}`,
        documented: `orderby=${x.params.orderby!.trim()} sorts by ${order.attribute}${order.direction ? `, ${direction}ending` : ''}`,
        pointer: '/entities',
      },
    ];
  },
};

export const requestIsEchoed: ResponseProperty = {
  check: 'request-is-echoed',
  claims:
    'interpret echoes query (lower-cased, without punctuation: a warning), evaluate and calchistogram expr, answer search q (another Unicode form or white space at the ends: a warning)',
  appliesTo: (id) => baseOf(id) in ECHO,
  reads: (x) => ok200(x) && x.params[echoOf(x.operationId).param] !== undefined,
  judge(x) {
    const { param, pointer } = echoOf(x.operationId);
    const sent = x.params[param];
    const echoed = at(x.json, pointer);
    if (!ok200(x) || sent === undefined || echoed === sent) return NONE;
    const detail = {
      received: `${pointer} ${show(echoed)}`,
      documented: `the ${param} parameter as sent: ${show(sent)}`,
      pointer,
    };
    if (
      typeof echoed === 'string' &&
      ((param === 'query' && normalizeQuery(echoed) === normalizeQuery(sent)) || sameText(echoed, sent))
    )
      return [{ title: `${param} echoed normalized`, ...detail, warn: true }];
    return [{ title: `${param} not echoed`, ...detail }];
  },
};

export const attributesAreHonoured: ResponseProperty = {
  check: 'attributes-are-honoured',
  claims:
    'evaluate returns no paper attribute that attributes did not ask for (scores are not attributes); calchistogram returns one histogram per attribute asked for, and none for another',
  appliesTo: (id) => baseOf(id) === 'evaluate' || baseOf(id) === 'calchistogram',
  reads: (x) =>
    ok200(x) &&
    x.params.attributes !== undefined &&
    (baseOf(x.operationId) === 'evaluate'
      ? holdsObjects(field(x.json, 'entities'), 1)
      : Array.isArray(field(x.json, 'histograms'))),
  judge(x) {
    if (!ok200(x) || x.params.attributes === undefined) return NONE;
    if (baseOf(x.operationId) === 'calchistogram') return histogramsOfAttributes(x);
    const asked = askedAttributes(x.params.attributes);
    const carriesUnasked = UNASKED.get(asked)!;
    let i = 0;
    let offending: Record<string, unknown> | undefined;
    for (const entity of items(field(x.json, 'entities'))) {
      if (!isObject(entity)) continue;
      if (carriesUnasked(entity)) {
        offending = entity;
        break;
      }
      i++;
    }
    if (!offending) return NONE;
    const extra = Object.keys(offending).filter((name) => PAPER_ATTRIBUTES.has(name) && !asked.has(name));
    return [
      {
        title: 'attributes not requested were returned',
        received: `entity ${i} has ${show(extra)}`,
        documented: `only the paper attributes asked for (attributes=${x.params.attributes}), plus scores such as prob`,
        pointer: '/entities',
      },
    ];
  },
};

/**
 * calchistogram: one histogram per attribute `attributes` asks for (interface 4.5, 2.3), named by
 * its `attribute`, in any order; an attribute asked for without a histogram, or a histogram of an
 * attribute not asked for (names are case-sensitive), is a violation.
 */
function histogramsOfAttributes(x: Exchange): readonly Violation[] {
  const histograms = field(x.json, 'histograms');
  if (!Array.isArray(histograms)) return NONE;
  const asked = new Set(
    x.params
      .attributes!.split(',')
      .map((name) => name.trim())
      .filter((name) => name !== ''),
  );
  const present = new Set<string>();
  for (const histogram of histograms) if (isObject(histogram)) present.add(String(histogram.attribute));
  let complete = present.size === asked.size;
  if (complete) for (const name of asked) if (!present.has(name)) complete = false;
  if (complete) return NONE;
  const missing = [...asked].filter((name) => !present.has(name));
  const extra = [...present].filter((name) => !asked.has(name));
  return [
    {
      title:
        missing.length > 0 ? 'histogram missing for an attribute asked for' : 'histogram of an attribute not asked for',
      received: `histograms of ${show([...present])}${missing.length > 0 ? `; none of ${show(missing)}` : ''}${extra.length > 0 ? `; ${show(extra)} not asked for` : ''}`,
      documented: `one histogram per attribute requested (attributes=${x.params.attributes}; interface 4.5: case-sensitive names)`,
      pointer: '/histograms',
    },
  ];
}

const ASKED = new Map<string, ReadonlySet<string>>();
/** For each parsed `attributes` value, whether an entity carries a paper attribute it did not ask for. */
const UNASKED = new WeakMap<ReadonlySet<string>, (entity: object) => boolean>();

/**
 * A predicate that tells whether an entity carries any of `names`, compiled with each name as a
 * constant (`"W" in entity || ...`): the engine then looks each up through the entity's shape, about
 * fifty times faster than looking up names held in variables, which is what lets this property
 * judge every entity of every answer for less than the schema validation of that answer costs. The
 * names come from PAPER_ATTRIBUTES only, never from a request or an answer.
 */
function carriesAnyOf(names: readonly string[]): (entity: object) => boolean {
  if (names.length === 0) return () => false;
  const test = names.map((name) => `${JSON.stringify(name)} in entity`).join(' || ');
  return new Function('entity', `return ${test};`) as (entity: object) => boolean;
}

/** The paper attributes an `attributes` parameter asks for (`AA.AuN` asks for `AA`), parsed once per value. */
function askedAttributes(text: string): ReadonlySet<string> {
  let found = ASKED.get(text);
  if (!found) {
    const asked = new Set(text.split(',').map((name) => name.trim().split('.')[0]!));
    UNASKED.set(asked, carriesAnyOf([...PAPER_ATTRIBUTES].filter((name) => !asked.has(name))));
    if (ASKED.size > 1000) ASKED.clear();
    ASKED.set(text, asked);
    found = asked;
  }
  return found;
}

export const histogramOrderedByCount: ResponseProperty = {
  check: 'histogram-ordered-by-count',
  claims: 'histogram entries come by descending count (samples only: a warning)',
  appliesTo: (id) => baseOf(id) === 'calchistogram',
  reads: (x) => ok200(x) && someHistogramHolds(x.json, 2),
  judge(x) {
    if (!ok200(x)) return NONE;
    const out: Violation[] = [];
    for (const histogram of items(field(x.json, 'histograms'))) {
      if (!isObject(histogram) || firstRise(histogram.histogram, 'count') < 0) continue;
      const counts = objects(histogram.histogram).map((entry) => Number(entry.count));
      out.push({
        title: 'histogram entries not by descending count',
        received: `${show(histogram.attribute)} counts ${show(counts)}`,
        documented: 'descending count (interface 2.3, samples)',
        pointer: '/histograms',
      });
    }
    return out.length > 0 ? out : NONE;
  },
};

export const histogramCountsAreBounded: ResponseProperty = {
  check: 'histogram-counts-are-bounded',
  claims:
    'in every histogram: no entry count above num_entities, distinct_values at least the entries listed, total_count at least their counts summed',
  appliesTo: (id) => baseOf(id) === 'calchistogram',
  reads: (x) => ok200(x) && someHistogramHolds(x.json, 1),
  judge(x) {
    if (!ok200(x)) return NONE;
    const total = field(x.json, 'num_entities');
    const out: Violation[] = [];
    for (const histogram of items(field(x.json, 'histograms'))) {
      if (!isObject(histogram)) continue;
      let entries = 0;
      let sum = 0;
      let over: number | undefined;
      for (const entry of items(histogram.histogram)) {
        if (!isObject(entry)) continue;
        entries++;
        const count = entry.count;
        if (typeof count !== 'number') continue;
        sum += count;
        if (over === undefined && typeof total === 'number' && count > total) over = count;
      }
      const { attribute, distinct_values: distinct, total_count: totalCount } = histogram;
      if (over !== undefined)
        out.push({
          title: 'histogram count above num_entities',
          received: `${show(attribute)} count ${over} with num_entities ${total}`,
          documented: 'a count is a number of matching entities: at most num_entities (interface 2.3)',
          pointer: '/histograms',
        });
      if (typeof distinct === 'number' && distinct < entries)
        out.push({
          title: 'distinct_values below the entries listed',
          received: `${show(attribute)} distinct_values ${distinct} with ${entries} entries listed`,
          documented: 'every entry is a distinct value: distinct_values is at least the entries listed (interface 2.3)',
          pointer: '/histograms',
        });
      if (typeof totalCount === 'number' && totalCount < sum)
        out.push({
          title: 'total_count below the counts listed',
          received: `${show(attribute)} total_count ${totalCount}, counts listed sum to ${sum}`,
          documented: 'total_count counts every value instance: at least the counts listed (interface 2.3)',
          pointer: '/histograms',
        });
    }
    return out.length > 0 ? out : NONE;
  },
};

export const similarityOfIdenticalIsOne: ResponseProperty = {
  check: 'similarity-of-identical-is-one',
  claims: 'a text compared with itself scores 1 (0 for a text without academic concepts: no vector to compare)',
  appliesTo: (id) => baseOf(id) === 'similarity',
  reads: (x) => ok200(x) && x.params.s1 !== undefined && x.params.s1 === x.params.s2 && typeof x.json === 'number',
  judge(x) {
    if (!ok200(x) || x.params.s1 !== x.params.s2 || typeof x.json !== 'number') return NONE;
    if (Math.abs(x.json - 1) <= 1e-6 || x.json === 0) return NONE;
    return [
      {
        title: 'identical texts are not similarity 1',
        received: String(x.json),
        documented: '+1.0 for identical texts (cosine of a vector with itself)',
      },
    ];
  },
};

export const relatedEventsOrderedByTime: ResponseProperty = {
  check: 'related-events-ordered-by-time',
  claims: 'related events are sorted by from, in one direction',
  appliesTo: (id) => id === 'relatedEvents',
  reads: (x) => ok200(x) && holdsObjects(field(x.json, 'value'), 2),
  judge(x) {
    if (!ok200(x)) return NONE;
    const froms = objects(field(x.json, 'value')).map((event) => event.from);
    const times = froms.map(instantOf);
    if (times.some(Number.isNaN)) return NONE;
    if (breaks(times, (a, b) => b >= a) < 0 || breaks(times, (a, b) => b <= a) < 0) return NONE;
    return [
      {
        title: 'related events not monotonic in time',
        received: `from: ${show(froms, 240)}`,
        documented: 'sorted by event time, in one direction (interface 4.12)',
        pointer: '/value',
      },
    ];
  },
};

export const hotEventsMatchDate: ResponseProperty = {
  check: 'hot-events-match-date',
  claims: 'hotevents for a date returns events whose [from, to] overlaps that UTC day',
  appliesTo: (id) => id === 'hotEvents',
  reads: (x) =>
    ok200(x) && /^\d{4}-\d{2}-\d{2}$/.test(x.params.date?.trim() ?? '') && holdsObjects(field(x.json, 'value'), 1),
  judge(x) {
    const date = x.params.date?.trim() ?? '';
    const start = Date.parse(`${date}T00:00:00Z`);
    if (!ok200(x) || !/^\d{4}-\d{2}-\d{2}$/.test(date) || Number.isNaN(start)) return NONE;
    return objects(field(x.json, 'value')).flatMap((event) => {
      const from = instantOf(event.from);
      const to = Number.isNaN(instantOf(event.to)) ? from : instantOf(event.to);
      if (Number.isNaN(from) || (from < start + DAY_MS && to >= start)) return NONE;
      return [
        {
          title: 'event outside the date asked for',
          received: `from ${show(event.from)} to ${show(event.to)}`,
          documented: `an event of ${date} (interface 4.11: trending events by date)`,
          pointer: '/value',
        },
      ];
    });
  },
};

export const eventIdsAre32Hex: ResponseProperty = {
  check: 'event-ids-are-32-hex',
  claims: 'event ids are 32 hex characters (samples only: a warning)',
  appliesTo: (id) => id === 'hotEvents' || id === 'relatedEvents',
  reads: (x) => ok200(x) && holdsObjects(field(x.json, 'value'), 1),
  judge(x) {
    if (!ok200(x)) return NONE;
    const bad = objects(field(x.json, 'value'))
      .map((event) => event.eventId)
      .find((id) => !(typeof id === 'string' && /^[0-9a-f]{32}$/i.test(id)));
    if (bad === undefined) return NONE;
    return [
      {
        title: 'event id not 32 hex characters',
        received: `eventId ${show(bad)}`,
        documented: '32 hex characters (interface 2.7, samples)',
        pointer: '/value',
      },
    ];
  },
};

const ANSWER_FIELDS: Record<string, string> = { WebPages: 'webPages', Entities: 'entities', Facts: 'facts' };

function fragmentOf(id: unknown): string | undefined {
  if (typeof id !== 'string') return undefined;
  const hash = id.indexOf('#');
  return hash < 0 ? undefined : id.slice(hash);
}

export const rankingReferencesResolve: ResponseProperty = {
  check: 'ranking-references-resolve',
  claims:
    'every ranking item names an answer of the response, a resultIndex inside its value array, a value.id of it or its results (by #fragment only: a warning)',
  appliesTo: (id) => id === 'answerSearch',
  reads(x) {
    const ranking = field(x.json, 'rankingResponse');
    const sections = ranking !== null && typeof ranking === 'object' ? Object.keys(ranking) : [];
    return ok200(x) && sections.some((section) => objects(field(field(ranking, section), 'items')).length > 0);
  },
  judge(x) {
    if (!ok200(x)) return NONE;
    const json = x.json;
    const ranking = field(json, 'rankingResponse');
    const out: Violation[] = [];
    const sections = ranking !== null && typeof ranking === 'object' ? Object.keys(ranking) : [];
    for (const section of sections) {
      objects(field(field(ranking, section), 'items')).forEach((item, i) => {
        const pointer = `/rankingResponse/${section}/items/${i}`;
        const name = ANSWER_FIELDS[String(item.answerType)];
        if (!name) return;
        const answer = field(json, name);
        if (answer === undefined) {
          out.push({
            title: 'ranking item names an absent answer',
            received: `answerType ${show(item.answerType)} but no ${name} in the response`,
            documented: 'ranking items refer to answers of the response (interface 2.5)',
            pointer,
          });
          return;
        }
        const values = objects(field(answer, 'value'));
        const index = item.resultIndex;
        if (
          index !== undefined &&
          !(Number.isInteger(index) && (index as number) >= 0 && (index as number) < values.length)
        )
          out.push({
            title: 'ranking resultIndex dangles',
            received: `resultIndex ${show(index)} with ${values.length} ${name} results`,
            documented: `an index into ${name}.value`,
            pointer: `${pointer}/resultIndex`,
          });
        const id = field(item.value, 'id');
        if (id === undefined) return;
        const ids = [field(answer, 'id'), ...values.map((v) => v.id)].filter(
          (known): known is string => typeof known === 'string',
        );
        if (ids.includes(id as string)) return;
        const detail = {
          received: `value.id ${show(id)}`,
          documented: `the id of ${name} or of one of its results: ${show(ids, 160)}`,
          pointer: `${pointer}/value/id`,
        };
        const byFragment = ids.some((known) => fragmentOf(known) !== undefined && fragmentOf(known) === fragmentOf(id));
        out.push(
          byFragment
            ? { title: 'ranking value.id resolves only by its fragment', ...detail, warn: true }
            : { title: 'ranking value.id dangles', ...detail },
        );
      });
    }
    return out;
  },
};

/** Every invariant, in check order. */
export const RESPONSE_PROPERTIES: readonly ResponseProperty[] = [
  pagingRespectsSize,
  interpretationsOrderedByProb,
  orderbyIsHonoured,
  relatedEventsOrderedByTime,
  hotEventsMatchDate,
  histogramOrderedByCount,
  histogramCountsAreBounded,
  requestIsEchoed,
  attributesAreHonoured,
  resultsMatchExpr,
  interpretationMatchesParse,
  similarityOfIdenticalIsOne,
  rankingReferencesResolve,
  eventIdsAre32Hex,
];
