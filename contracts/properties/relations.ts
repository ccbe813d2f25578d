// Metamorphic relations and chains across operations: properties judged by sending related
// requests, the relation named in each failure.
import { getOperation, OPERATIONS } from '../../openapi/spec.ts';
import { show } from '../failure.ts';
import { field, objects } from '../json.ts';
import { at, baseOf, intParam } from './responses.ts';
import { type Agreement, agreeWithNoise, describeTolerance } from './tolerance.ts';
import type { Exchange, Relation, RelationViolation, Reply } from './types.ts';

export { agree } from './tolerance.ts';

/**
 * The longest query string a relation sends by GET. facts.md says about 16,000 characters of expr
 * were accepted in real GET query strings; a common server limit on the request head is 16 KiB, so
 * relations stay well below both. Longer inputs go by POST only.
 */
export const GET_SAFE_QUERY = 12_000;

/** The largest offset + count a page relation reads in one larger page. */
const LARGEST_SLICE = 100;
/** Page size and most pages read when a chain pages a list to its end. */
const DOCUMENT_PAGE = 100;
const DOCUMENT_PAGES = 3;

/** The member that names an item of a list, where it has one: a page's url, a paper's Id, an event's id, an interpretation's parse. */
const NAMING_MEMBERS = ['url', 'Id', 'eventId', 'parse'] as const;

/**
 * What makes two items of a list the same result, so that two answers can be compared item by item
 * (pages against a larger page, shards of a list): the member that names the item, a histogram
 * entry's value, else the item without its position-dependent `id`. Scores a target computes (prob,
 * logprob, counts' shares) are left out of the names, and rounded to 9 significant digits where an
 * item has nothing else: two replicas may differ in their last digits for the same result.
 */
export function identity(item: unknown): string {
  if (item === null || typeof item !== 'object' || Array.isArray(item)) return JSON.stringify(item, roundScores);
  const record = item as Record<string, unknown>;
  for (const name of NAMING_MEMBERS) {
    const value = record[name];
    if (typeof value === 'string' || typeof value === 'number') return `${name} ${JSON.stringify(value)}`;
  }
  if ('value' in record && 'count' in record) return `value ${JSON.stringify(record.value)}`;
  const { id: _position, prob, logprob, ...rest } = record;
  // Scores name nothing: an item with other members is those members; one with scores only, its rounded scores.
  return Object.keys(rest).length > 0
    ? JSON.stringify(rest, roundScores)
    : JSON.stringify({ prob, logprob }, roundScores);
}

/** A JSON.stringify replacer that writes a fraction to 9 significant digits (integers as they are). */
function roundScores(_key: string, value: unknown): unknown {
  return typeof value === 'number' && !Number.isInteger(value) ? Number(value.toPrecision(9)) : value;
}

/** The request's parameters as a form-encoded query string. */
export function encoded(params: Record<string, string>): string {
  return new URLSearchParams(params).toString();
}

/** True when the answer says it was cut short by a time-out: its content is not comparable. */
function cutShort(json: unknown): boolean {
  return field(json, 'aborted') === true || field(json, 'timed_out') === true;
}

const ok = (reply: Reply | undefined): reply is Reply => reply !== undefined && reply.status === 200;

const PAGED = OPERATIONS.filter((op) => op.paging).map((op) => op.operationId as string);

export const pageIsSliceOfLargerPage: Relation = {
  check: 'paging-is-consistent',
  name: 'page(count=c, offset=o) = page(count=o+c+2, offset=0)[o, o+c)',
  operations: PAGED,
  reads: [],
  appliesTo(x) {
    const paging = getOperation(x.operationId)?.paging;
    if (!paging || x.status !== 200 || x.params.timeout !== undefined || cutShort(x.json)) return false;
    const size = intParam(x.params, paging.count);
    const start = x.params[paging.offset] === undefined ? 0 : intParam(x.params, paging.offset);
    return (
      size !== undefined &&
      size >= 1 &&
      start !== undefined &&
      start + size <= LARGEST_SLICE &&
      Array.isArray(at(x.json, paging.items))
    );
  },
  priority(x) {
    const paging = getOperation(x.operationId)!.paging!;
    // A page with items first: an empty page past the end equals the empty slice whatever the paging does.
    const items = at(x.json, paging.items);
    const filled = Array.isArray(items) && items.length > 0 ? 1_000_000_000 : 0;
    return filled + (intParam(x.params, paging.offset) ?? 0) * 1000 + (intParam(x.params, paging.count) ?? 0);
  },
  decisive(x) {
    const paging = getOperation(x.operationId)!.paging!;
    const items = at(x.json, paging.items);
    return (intParam(x.params, paging.offset) ?? 0) > 0 && Array.isArray(items) && items.length > 0;
  },
  async run(x, send) {
    const paging = getOperation(x.operationId)!.paging!;
    const size = intParam(x.params, paging.count)!;
    const start = intParam(x.params, paging.offset) ?? 0;
    const larger = await send(x.operationId, {
      params: { ...x.params, [paging.count]: String(start + size + 2), [paging.offset]: '0' },
      pathParams: x.pathParams,
    });
    if (!ok(larger) || cutShort(larger.json)) return [];
    const page = at(x.json, paging.items) as unknown[];
    const whole = at(larger.json, paging.items);
    if (!Array.isArray(whole)) return [];
    const slice = whole.slice(start, start + size);
    const relation = `${paging.count}=${size} ${paging.offset}=${start} against ${paging.count}=${start + size + 2} ${paging.offset}=0 (relation: ${this.name.replace(/count/g, paging.count).replace(/offset/g, paging.offset)})`;
    const differs = page.findIndex((item, i) => i >= slice.length || identity(item) !== identity(slice[i]));
    if (differs >= 0)
      return [
        {
          title: 'page differs from the matching slice of a larger page',
          received: `item ${differs} of the page: ${show(identity(page[differs]), 120)}`,
          documented: `item ${start + differs} of the larger page: ${show(slice[differs] === undefined ? 'none' : identity(slice[differs]), 120)}; ${relation}`,
          pointer: paging.items,
        },
      ];
    // Answer search may deliver fewer results than asked (interface 4.9); the other operations fill the page.
    if (x.operationId !== 'answerSearch' && page.length < slice.length)
      return [
        {
          title: 'page shorter than the matching slice of a larger page',
          received: `${page.length} item(s)`,
          documented: `${slice.length}: the larger page holds them; ${relation}`,
          pointer: paging.items,
        },
      ];
    return [];
  },
};

/** A POST answer that differs from the GET twin's, as a finding. */
function postDiffers(x: Exchange, get: Reply, within: string, relation: string): RelationViolation {
  const length = Object.values(x.params).reduce((sum, value) => sum + value.length, 0);
  return {
    title: 'POST answers differently from GET',
    received: `POST status ${x.status} ${show(x.json, 160)}`,
    documented: `same as GET with the same parameters (${length} characters of input; ${within}): status ${get.status} ${show(get.json, 160)} (relation: ${relation}; reproduce the GET: ${get.curl.slice(0, 200)})`,
  };
}

export const postAgreesWithGet: Relation = {
  check: 'get-and-post-agree',
  name: 'POST(params) = GET(params)',
  operations: OPERATIONS.filter((op) => op.method === 'post').map((op) => op.operationId as string),
  reads: OPERATIONS.filter((op) => op.method === 'get' && op.group !== 'answerSearch')
    .map((op) => op.operationId as string)
    .filter((id) => ['interpret', 'evaluate', 'calchistogram', 'similarity'].includes(baseOf(id))),
  appliesTo(x) {
    return (
      x.status === 200 &&
      x.params.timeout === undefined &&
      !cutShort(x.json) &&
      encoded(x.params).length <= GET_SAFE_QUERY
    );
  },
  priority: (x) => encoded(x.params).length,
  // Where the operation pages, only a POST that pages past the start and fills a page of its size
  // shows what the GET twin would answer otherwise (a POST ignoring offset or count).
  decisive(x) {
    const paging = getOperation(x.operationId)?.paging;
    // A similarity of exactly -1, 0 or +1 survives many a wrong POST (a rounding, a truncation).
    if (typeof x.json === 'number') return !Number.isInteger(x.json);
    if (!paging) return true;
    const size = intParam(x.params, paging.count);
    const items = at(x.json, paging.items);
    return (
      (intParam(x.params, paging.offset) ?? 0) > 0 &&
      size !== undefined &&
      size > 0 &&
      Array.isArray(items) &&
      items.length === size
    );
  },
  async run(x, send, record) {
    const twin = `${baseOf(x.operationId)}Get`;
    const get = await send(twin, { params: x.params });
    if (!get || cutShort(get.json)) return [];
    if (get.status !== x.status) return [postDiffers(x, get, 'the same status', this.name)];
    const agreement = await agreeWithNoise(
      get.json,
      x.json,
      async () => (await send(twin, { params: x.params }))?.json,
    );
    record?.(agreement);
    return agreement.agree ? [] : [postDiffers(x, get, `numbers within ${describeTolerance(agreement)}`, this.name)];
  },
};

export const similarityIsSymmetric: Relation = {
  check: 'similarity-is-symmetric',
  name: 'similarity(s1, s2) = similarity(s2, s1)',
  operations: ['similarityGet', 'similarityPost'],
  reads: [],
  appliesTo: (x) =>
    x.status === 200 &&
    typeof x.json === 'number' &&
    x.params.s1 !== undefined &&
    x.params.s2 !== undefined &&
    x.params.s1 !== x.params.s2,
  priority: (x) => (x.params.s1?.length ?? 0) + (x.params.s2?.length ?? 0),
  async run(x, send, record) {
    const swapped = await send(x.operationId, { params: { ...x.params, s1: x.params.s2!, s2: x.params.s1! } });
    if (!ok(swapped) || typeof swapped.json !== 'number') return [];
    const agreement = await agreeWithNoise(x.json, swapped.json, async () => {
      const again = await send(x.operationId, { params: x.params });
      return ok(again) ? again.json : undefined;
    });
    record?.(agreement);
    if (agreement.agree) return [];
    return [
      {
        title: 'similarity is not symmetric',
        received: `sim(s1,s2) ${x.json}, sim(s2,s1) ${swapped.json}`,
        documented: `equal values within ${describeTolerance(agreement)}: cosine similarity is symmetric (relation: ${this.name})`,
      },
    ];
  },
};

export const outputsAreEvaluable: Relation = {
  check: 'interpretations-are-evaluable',
  name: 'interpret(query).interpretations[0].rules[0].output.value is accepted by evaluate and calchistogram',
  operations: ['interpretGet', 'interpretPost'],
  reads: ['evaluateGet', 'calchistogramGet'],
  appliesTo: (x) => x.status === 200 && outputOf(x.json) !== undefined,
  priority: (x) => objects(field(x.json, 'interpretations')).length,
  async run(x, send) {
    const expr = outputOf(x.json)!;
    if (expr.length > GET_SAFE_QUERY) return [];
    const out: RelationViolation[] = [];
    for (const target of ['evaluateGet', 'calchistogramGet']) {
      const answer = await send(target, { params: { expr, attributes: 'Y', count: '1' } });
      if (answer && answer.status !== 200 && answer.status !== 401 && answer.status !== 403 && answer.status !== 429)
        out.push({
          title: `${baseOf(target)} rejects an interpretation's output`,
          received: `status ${answer.status} for expr ${show(expr)}`,
          documented: `an output expression usable as expr in evaluate and calchistogram (interface 2.1; relation: ${this.name})`,
          pointer: '/interpretations/0/rules/0/output/value',
        });
    }
    return out;
  },
};

function outputOf(json: unknown): string | undefined {
  const first = objects(field(json, 'interpretations'))[0];
  const value = field(field(objects(field(first, 'rules'))[0], 'output'), 'value');
  return typeof value === 'string' && value !== '' ? value : undefined;
}

export const histogramAgreesWithEvaluate: Relation = {
  check: 'histogram-agrees-with-evaluate',
  name: 'calchistogram(expr).num_entities = |evaluate(expr, count=1000).entities|, and its Y histogram counts those entities',
  operations: ['calchistogramGet', 'calchistogramPost'],
  reads: ['evaluateGet'],
  appliesTo(x) {
    const total = field(x.json, 'num_entities');
    return (
      x.status === 200 &&
      !cutShort(x.json) &&
      typeof total === 'number' &&
      total >= 1 &&
      total < 1000 &&
      x.params.expr !== undefined &&
      x.params.expr.length <= GET_SAFE_QUERY
    );
  },
  priority: (x) => x.params.expr?.length ?? 0,
  // A Y histogram is what the relation compares beyond num_entities.
  decisive: (x) => objects(field(x.json, 'histograms')).some((histogram) => histogram.attribute === 'Y'),
  async run(x, send) {
    const expr = x.params.expr!;
    const params: Record<string, string> = { expr, attributes: 'Y', count: '1000' };
    if (x.params.model !== undefined) params.model = x.params.model;
    const evaluated = await send('evaluateGet', { params });
    if (!ok(evaluated) || cutShort(evaluated.json)) return [];
    const entities = objects(field(evaluated.json, 'entities'));
    if (entities.length >= 1000) return [];
    const relation = `(relation: ${this.name}; expr ${show(expr, 120)})`;
    const out: RelationViolation[] = [];
    const total = field(x.json, 'num_entities');
    if (total !== entities.length)
      out.push({
        title: 'num_entities disagrees with evaluate',
        received: `num_entities ${show(total)}`,
        documented: `${entities.length}: the entities evaluate returns ${relation}`,
        pointer: '/num_entities',
      });
    const years = entities.map((entity) => entity.Y).filter((y) => y !== undefined);
    const want = new Map<string, number>();
    for (const y of years) want.set(String(y), (want.get(String(y)) ?? 0) + 1);
    const h = objects(field(x.json, 'histograms')).findIndex((histogram) => histogram.attribute === 'Y');
    if (h < 0) return out;
    const histogram = objects(field(x.json, 'histograms'))[h]!;
    if (histogram.total_count !== years.length)
      out.push({
        title: 'total_count disagrees with evaluate',
        received: `total_count ${show(histogram.total_count)}`,
        documented: `${years.length}: Y values among the entities evaluate returns ${relation}`,
        pointer: `/histograms/${h}/total_count`,
      });
    if (histogram.distinct_values !== want.size)
      out.push({
        title: 'distinct_values disagrees with evaluate',
        received: `distinct_values ${show(histogram.distinct_values)}`,
        documented: `${want.size}: distinct Y values among the entities evaluate returns ${relation}`,
        pointer: `/histograms/${h}/distinct_values`,
      });
    const wrong = objects(histogram.histogram).find((entry) => entry.count !== (want.get(String(entry.value)) ?? 0));
    if (wrong)
      out.push({
        title: 'histogram count disagrees with evaluate',
        received: `Y=${show(wrong.value)} count ${show(wrong.count)}`,
        documented: `${want.get(String(wrong.value)) ?? 0} entities with Y=${show(wrong.value)} from evaluate ${relation}`,
        pointer: `/histograms/${h}/histogram`,
      });
    return out;
  },
};

/** A document's identity across lists: its documentId, else its url. */
function documentKey(document: unknown): string | undefined {
  const id = field(document, 'documentId') ?? field(document, 'url');
  return typeof id === 'string' ? id : undefined;
}

/** The event a chain follows on a page: the last one with an id and a top document (the top event is the fixed test's). */
function followedEvent(json: unknown): Record<string, unknown> | undefined {
  return objects(field(json, 'value'))
    .filter(
      (event) =>
        typeof event.eventId === 'string' &&
        /^[^\u0000-\u001f/?#]{1,200}$/.test(event.eventId) &&
        documentKey(event.topDocument) !== undefined,
    )
    .at(-1);
}

export const eventDocumentsAgree: Relation = {
  check: 'event-documents-agree',
  name: 'event.topDocument ∈ documents(event.eventId), and event.documentCount = |documents(event.eventId)| paged to the end',
  operations: ['hotEvents', 'relatedEvents'],
  reads: ['eventDocuments'],
  appliesTo: (x) => x.status === 200 && followedEvent(x.json) !== undefined,
  priority: (x) => objects(field(x.json, 'value')).length,
  async run(x, send) {
    return judgeEventDocuments(followedEvent(x.json)!, send, this.name);
  },
};

/** Pages an event's documents to the end (within DOCUMENT_PAGES requests) and judges the event against them. */
export async function judgeEventDocuments(
  event: Record<string, unknown>,
  send: (
    operationId: string,
    request: { params: Record<string, string>; pathParams?: Record<string, string> },
  ) => Promise<Reply | undefined>,
  name = eventDocumentsAgree.name,
): Promise<RelationViolation[]> {
  const eventId = event.eventId as string;
  const documents: unknown[] = [];
  let end = false;
  for (let page = 0; page < DOCUMENT_PAGES && !end; page++) {
    const reply = await send('eventDocuments', {
      params: { $top: String(DOCUMENT_PAGE), $skip: String(documents.length) },
      pathParams: { event_id: eventId },
    });
    if (!ok(reply)) return [];
    const items = objects(field(reply.json, 'value'));
    documents.push(...items);
    // A page shorter than asked for is the last one.
    end = items.length < DOCUMENT_PAGE;
  }
  const keys = documents.map(documentKey);
  const top = documentKey(event.topDocument)!;
  const out: RelationViolation[] = [];
  const relation = `(relation: ${name}; event ${eventId})`;
  if (!keys.includes(top) && end)
    out.push({
      title: "topDocument not among the event's documents",
      received: `topDocument ${show(top)}; documents listed: ${show(keys, 160)}`,
      documented: `the event's top document is one of the news documents of events/${eventId}/documents (interface 4.11, 4.13) ${relation}`,
      pointer: '/value',
    });
  if (end && typeof event.documentCount === 'number' && event.documentCount !== documents.length)
    out.push({
      title: 'documentCount disagrees with the documents listed',
      received: `documentCount ${event.documentCount}`,
      documented: `${documents.length}: the documents events/${eventId}/documents lists, paged to the end ${relation}`,
      pointer: '/value',
    });
  return out;
}

/** The operations whose parameters carry free text, where how it is percent-encoded can matter to a careless decoder. */
export const TEXT_OPERATIONS: readonly string[] = [
  'interpretGet',
  'evaluateGet',
  'calchistogramGet',
  'similarityGet',
  'answerSearch',
  'urlPreview',
  'relatedEvents',
];

/**
 * What two answers to the same request must share whatever the encoding: the same status and, for
 * the academic operations and similarity, the same JSON (numbers within the tolerance); for the
 * others, the same results in the same order (a live index may move an estimate or a crawl date
 * between two calls: interface 4.9 calls the count an estimate).
 */
export async function sameAnswer(
  operationId: string,
  a: { status: number; json: unknown },
  b: { status: number; json: unknown },
  repeat: () => Promise<unknown | undefined>,
): Promise<{ same: boolean; agreement?: Agreement }> {
  if (a.status !== b.status) return { same: false };
  const paging = getOperation(operationId)?.paging;
  if (['interpret', 'evaluate', 'calchistogram', 'similarity'].includes(baseOf(operationId)) || a.status !== 200) {
    const agreement = await agreeWithNoise(a.json, b.json, repeat);
    return { same: agreement.agree, agreement };
  }
  if (paging) {
    const items = (json: unknown) => {
      const list = at(json, paging.items);
      return Array.isArray(list) ? list.map(identity) : [];
    };
    // Answer search echoes the query as sent: the same query however it was encoded.
    const echo = (json: unknown) => field(field(json, 'queryContext'), 'originalQuery');
    return { same: items(a.json).join('\u0000') === items(b.json).join('\u0000') && echo(a.json) === echo(b.json) };
  }
  return { same: field(a.json, 'url') === field(b.json, 'url') && field(a.json, 'name') === field(b.json, 'name') };
}

export const encodingDoesNotMatter: Relation = {
  check: 'encoding-does-not-matter',
  name: 'answer(params) = answer(params with every byte percent-encoded, hex in lower case)',
  operations: TEXT_OPERATIONS,
  reads: [],
  // One per operation: a decoder that mishandles escapes does so for any value that holds one.
  limit: 1,
  appliesTo: (x) =>
    x.status === 200 &&
    x.params.timeout === undefined &&
    !cutShort(x.json) &&
    encoded(x.params).length <= GET_SAFE_QUERY / 3,
  // The inputs that need the most escaping first: non-ASCII, spaces, punctuation.
  priority: (x) =>
    Object.values(x.params).reduce((sum, value) => sum + (value.match(/[^A-Za-z0-9\-._~]/g)?.length ?? 0), 0),
  async run(x, send, record) {
    const escaped = await send(x.operationId, { params: x.params, pathParams: x.pathParams, escaped: true });
    if (!escaped || cutShort(escaped.json)) return [];
    const same = await sameAnswer(x.operationId, x, escaped, async () => {
      const again = await send(x.operationId, { params: x.params, pathParams: x.pathParams });
      return ok(again) ? again.json : undefined;
    });
    if (same.agreement) record?.(same.agreement);
    if (same.same) return [];
    return [
      {
        title: 'the same request, encoded otherwise, answered differently',
        received: `every byte escaped: status ${escaped.status} ${show(escaped.json, 160)}`,
        documented: `the answer to the same parameters as the case sent them: status ${x.status} ${show(x.json, 160)} (RFC 3986: an escaped unreserved character and lower-case hex read the same; relation: ${this.name}; reproduce: ${escaped.curl.slice(0, 300)})`,
      },
    ];
  },
};

/** Every relation and chain, in check order. */
export const RELATIONS: readonly Relation[] = [
  pageIsSliceOfLargerPage,
  outputsAreEvaluable,
  histogramAgreesWithEvaluate,
  similarityIsSymmetric,
  postAgreesWithGet,
  eventDocumentsAgree,
  encodingDoesNotMatter,
];
