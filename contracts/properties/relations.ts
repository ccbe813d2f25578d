// Metamorphic relations and chains across operations: properties judged by sending related
// requests, the relation named in each failure.
import { getOperation, OPERATIONS } from '../../openapi/spec.ts';
import { show } from '../failure.ts';
import { field, objects } from '../json.ts';
import { baseOf, instantOf, intParam, pagedLists } from './responses.ts';
import { type Agreement, agree, agreeWithNoise, describeTolerance, SCORE_TOLERANCE } from './tolerance.ts';
import type { Exchange, Relation, RelationViolation, Reply, Send } from './types.ts';

export { agree } from './tolerance.ts';

/**
 * The longest query string a relation sends by GET. facts.md says about 16,000 characters of expr
 * were accepted in real GET query strings; a common server limit on the request head is 16 KiB, so
 * relations stay well below both. Longer inputs go by POST only.
 */
export const GET_SAFE_QUERY = 12_000;

/**
 * The largest offset + count a page relation reads in one larger page: 100, and 1,000 on evaluate,
 * whose pages of 1,000 the real service answered (facts.md), so that deep pages are judged too.
 * The maximum of count is not shown, so other operations are not asked for more than a hundred.
 */
const LARGEST_SLICE = 100;
const LARGEST_EVALUATE_SLICE = 1_000;

/** The largest offset + count the page relation reads in one larger page of an operation. */
export function largestSlice(operationId: string): number {
  return baseOf(operationId) === 'evaluate' ? LARGEST_EVALUATE_SLICE : LARGEST_SLICE;
}

/** Page size and most pages read when a chain pages a list to its end. */
const DOCUMENT_PAGE = 100;
const DOCUMENT_PAGES = 3;

/** The member that names an item of a list, where it has one: a page's url, a paper's Id, an event's id, an interpretation's parse. */
const NAMING_MEMBERS = ['url', 'Id', 'eventId', 'parse'] as const;

/**
 * What makes two items of a list the same result, so that two answers can be compared item by item
 * (pages against a larger page, shards of a list): the member that names the item, a histogram
 * entry's value, else the item without its position-dependent `id`. Scores a target computes (prob,
 * logprob) name nothing; an item with scores only is named by them, rounded to 6 significant digits
 * for display (sameItem compares such items within the tolerance). Members are read in sorted
 * order: JSON leaves the order of an object's members to the writer (RFC 8259, section 4).
 */
export function identity(item: unknown): string {
  if (item === null || typeof item !== 'object' || Array.isArray(item)) return canonical(item, true);
  const record = item as Record<string, unknown>;
  const name = namingMember(record);
  if (name !== undefined) return name;
  const { id: _position, prob, logprob, ...rest } = record;
  // Scores name nothing: an item with other members is those members; one with scores only, its rounded scores.
  return Object.keys(rest).length > 0 ? canonical(rest, true) : canonical({ prob, logprob }, true);
}

/** The name of an item by the member that names it (url, Id, eventId, parse; a histogram entry's value), if it has one. */
function namingMember(record: Record<string, unknown>): string | undefined {
  for (const name of NAMING_MEMBERS) {
    const value = record[name];
    if (typeof value === 'string' || typeof value === 'number') return `${name} ${JSON.stringify(value)}`;
  }
  if ('value' in record && 'count' in record) return `value ${JSON.stringify(record.value)}`;
  return undefined;
}

/**
 * Whether two items of two answers are the same result: by the member that names them where they
 * have one, else as JSON values without their position-dependent `id`, scores within the tolerance
 * and members in any order.
 */
export function sameItem(a: unknown, b: unknown, tolerance = SCORE_TOLERANCE): boolean {
  const recordA = isRecord(a) ? a : undefined;
  const recordB = isRecord(b) ? b : undefined;
  if (recordA && recordB) {
    const nameA = namingMember(recordA);
    const nameB = namingMember(recordB);
    if (nameA !== undefined || nameB !== undefined) return nameA === nameB;
    const { id: _a, ...restA } = recordA;
    const { id: _b, ...restB } = recordB;
    return agree(restA, restB, tolerance);
  }
  return agree(a, b, tolerance);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** JSON text of a value with every object's members sorted, fractions to 6 significant digits when `round`. */
function canonical(value: unknown, round: boolean): string {
  return JSON.stringify(value, (_key, inner: unknown) => {
    if (round && typeof inner === 'number' && !Number.isInteger(inner)) return Number(inner.toPrecision(6));
    if (isRecord(inner)) {
      const sorted: Record<string, unknown> = {};
      for (const key of Object.keys(inner).sort()) sorted[key] = inner[key];
      return sorted;
    }
    return inner;
  });
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
      start + size <= largestSlice(x.operationId) &&
      pagedLists(x.json, paging.items).length > 0
    );
  },
  priority(x) {
    const paging = getOperation(x.operationId)!.paging!;
    // A page with items first: an empty page past the end equals the empty slice whatever the paging does.
    const filled = pagedLists(x.json, paging.items).some((list) => list.items.length > 0) ? 1_000_000_000 : 0;
    return filled + (intParam(x.params, paging.offset) ?? 0) * 1000 + (intParam(x.params, paging.count) ?? 0);
  },
  decisive(x) {
    const paging = getOperation(x.operationId)!.paging!;
    return (
      (intParam(x.params, paging.offset) ?? 0) > 0 &&
      pagedLists(x.json, paging.items).some((list) => list.items.length > 0)
    );
  },
  async run(x, send) {
    const paging = getOperation(x.operationId)!.paging!;
    const size = intParam(x.params, paging.count)!;
    const start = intParam(x.params, paging.offset) ?? 0;
    const asked = start + size + 2;
    const larger = await send(x.operationId, {
      params: { ...x.params, [paging.count]: String(asked), [paging.offset]: '0' },
      pathParams: x.pathParams,
    });
    if (!ok(larger) || cutShort(larger.json)) return [];
    const wholes = new Map(pagedLists(larger.json, paging.items).map((list) => [list.key, list]));
    const relation = `${paging.count}=${size} ${paging.offset}=${start} against ${paging.count}=${asked} ${paging.offset}=0 (relation: ${this.name.replace(/count/g, paging.count).replace(/offset/g, paging.offset)})`;
    const out: RelationViolation[] = [];
    for (const list of pagedLists(x.json, paging.items)) {
      // A list the larger answer lacks is attributes-are-honoured's finding, not this relation's.
      const whole = wholes.get(list.key);
      if (!whole) continue;
      // Items beyond the page size are paging-respects-size's finding: one defect, one failure.
      const page = list.items.slice(0, size);
      const where = list.pointer === paging.items ? '' : ` (${list.pointer}, the list of ${show(list.key)})`;
      // Where the interface lets a page deliver fewer and one did, what was delivered is judged: the
      // page's items stand in the larger page in the same order, at most `start` of its items before them.
      if (mayDeliverFewer(x.operationId) && (page.length < size || whole.items.length < asked)) {
        const found = orderIn(page, whole.items, whole.items.length < asked);
        if (found.missing !== undefined)
          out.push({
            title: 'page holds an item the larger page does not',
            received: `item ${found.missing} of the page${where}: ${show(identity(page[found.missing]), 120)}`,
            documented: `every item a page delivers is in the larger page (fewer may be delivered, none other); ${relation}`,
            pointer: list.pointer,
          });
        else if (found.outOfOrder !== undefined)
          out.push({
            title: 'page orders its items otherwise than the larger page',
            received: `item ${found.outOfOrder} of the page${where}: ${show(identity(page[found.outOfOrder]), 120)} comes after one the larger page puts later`,
            documented: `the items a page delivers in the order of the larger page; ${relation}`,
            pointer: list.pointer,
          });
        else if (found.first !== undefined && found.first > start)
          out.push({
            title: 'page starts past its offset in the larger page',
            received: `the first item of the page${where} is item ${found.first} of the larger page: ${show(identity(page[0]), 120)}`,
            documented: `at most ${start} item(s) before it (${paging.offset}=${start}); ${relation}`,
            pointer: list.pointer,
          });
        continue;
      }
      const slice = whole.items.slice(start, start + size);
      const differs = page.findIndex((item, i) => i >= slice.length || !sameItem(item, slice[i]));
      if (differs >= 0) {
        out.push({
          title: 'page differs from the matching slice of a larger page',
          received: `item ${differs} of the page${where}: ${show(identity(page[differs]), 120)}`,
          documented: `item ${start + differs} of the larger page: ${show(slice[differs] === undefined ? 'none' : identity(slice[differs]), 120)}; ${relation}`,
          pointer: list.pointer,
        });
        continue;
      }
      // Where the interface does not let a page deliver fewer, it holds the whole slice.
      if (!mayDeliverFewer(x.operationId) && page.length < slice.length)
        out.push({
          title: 'page shorter than the matching slice of a larger page',
          received: `${page.length} item(s)${where}`,
          documented: `${slice.length}: the larger page holds them; ${relation}`,
          pointer: list.pointer,
        });
    }
    return out;
  },
};

/**
 * Operations whose pages may deliver fewer items than asked: answer search ("the number delivered
 * may be smaller", interface 4.9) and interpret (`count` is the maximum number of interpretations,
 * 4.1). The others deliver the page asked for, short only at the end of the list.
 */
export function mayDeliverFewer(operationId: string): boolean {
  return operationId === 'answerSearch' || baseOf(operationId) === 'interpret';
}

/**
 * Where the items of a page stand in a larger list, matched by what names them: the first item not
 * in it, or the first that comes before one the page puts ahead of it; else where the first stands.
 * With `cut` (the list delivered fewer than asked), the page's last items may lie beyond its end:
 * missing items are the list's only when an item after them is in it.
 */
export function orderIn(
  page: readonly unknown[],
  list: readonly unknown[],
  cut = false,
): { missing?: number; outOfOrder?: number; first?: number } {
  let from = 0;
  let first: number | undefined;
  for (let i = 0; i < page.length; i++) {
    const at = list.findIndex((item, j) => j >= from && sameItem(page[i], item));
    if (at >= 0) {
      first ??= at;
      from = at + 1;
      continue;
    }
    if (list.some((item) => sameItem(page[i], item))) return { outOfOrder: i };
    if (!cut || page.slice(i + 1).some((later) => list.some((item) => sameItem(later, item)))) return { missing: i };
    break;
  }
  return first === undefined ? {} : { first };
}

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
    return (
      (intParam(x.params, paging.offset) ?? 0) > 0 &&
      size !== undefined &&
      size > 0 &&
      pagedLists(x.json, paging.items).some((list) => list.items.length === size)
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
  name: 'interpret(query).interpretations[i].rules[0].output.value is accepted by evaluate and calchistogram, for every i',
  operations: ['interpretGet', 'interpretPost'],
  reads: ['evaluateGet', 'calchistogramGet'],
  appliesTo: (x) => x.status === 200 && outputsOf(x.json).length > 0,
  priority: (x) => objects(field(x.json, 'interpretations')).length,
  async run(x, send) {
    return judgeOutputs(outputsOf(x.json), send, this.name);
  },
};

/** The output expressions of every interpretation of an answer, with their positions. */
export function outputsOf(json: unknown): { index: number; expr: string }[] {
  return objects(field(json, 'interpretations')).flatMap((interpretation, index) => {
    const value = field(field(objects(field(interpretation, 'rules'))[0], 'output'), 'value');
    return typeof value === 'string' && value !== '' ? [{ index, expr: value }] : [];
  });
}

/** Statuses that answer the key, not the expression: they say nothing of it. */
const ABOUT_THE_KEY = new Set([401, 403, 429]);

/**
 * Whether evaluate and calchistogram accept every output expression. The distinct outputs are sent
 * at once as one `Or(...)` of them (facts.md: an Or takes more than two arguments), two requests
 * for the whole answer; only when that is refused is each output sent alone, so that a failure
 * names the interpretation whose output is refused, never the Or.
 */
export async function judgeOutputs(
  outputs: readonly { index: number; expr: string }[],
  send: Send,
  name: string,
): Promise<RelationViolation[]> {
  const distinct = [
    ...new Map(outputs.filter((o) => o.expr.length <= GET_SAFE_QUERY).map((o) => [o.expr, o])).values(),
  ];
  if (distinct.length === 0) return [];
  const accepts = async (target: string, expr: string) => {
    const answer = await send(target, { params: { expr, attributes: 'Y', count: '1' } });
    return { ok: !answer || answer.status === 200 || ABOUT_THE_KEY.has(answer.status), status: answer?.status };
  };
  const out: RelationViolation[] = [];
  for (const target of ['evaluateGet', 'calchistogramGet']) {
    const combined = `Or(${distinct.map((o) => o.expr).join(',')})`;
    if (distinct.length > 1 && combined.length <= GET_SAFE_QUERY && (await accepts(target, combined)).ok) continue;
    for (const { index, expr } of distinct) {
      const { ok: accepted, status } = await accepts(target, expr);
      if (accepted) continue;
      out.push({
        title: `${baseOf(target)} rejects an interpretation's output`,
        received: `status ${status} for expr ${show(expr)} (interpretation ${index})`,
        documented: `an output expression usable as expr in evaluate and calchistogram (interface 2.1; relation: ${name})`,
        pointer: `/interpretations/${index}/rules/0/output/value`,
      });
      // One refused output shows the defect on this operation; the others would repeat it.
      break;
    }
  }
  return out;
}

/**
 * How far a histogram entry's prob may be from the sum of the probs evaluate gives the entities
 * with its value, relative to the larger: 2e-3. The real service wrote probabilities to four
 * significant digits (`2.266e-007`, openapi/real-payloads/): each is then off by at most 5e-4 of
 * itself, and so is their sum, and the total it rounded on its own; twice the 1e-3 that makes is
 * still three orders of magnitude below a total that counts one entity twice or none.
 */
export const PROB_SUM_TOLERANCE = 2e-3;

/** An attribute name as facts.md writes them: `Y`, `AA.AuN`. */
const ATTRIBUTE_NAME = /^[A-Za-z]+(?:\.[A-Za-z]+)?$/;

/** The values an entity has for an attribute (`AA.AuN`: every author's; `W`: every word), as text, and how many there were in all. */
function valuesOfEntity(
  entity: Record<string, unknown>,
  attribute: string,
): { distinct: Set<string>; instances: number } {
  const [group, part] = attribute.split('.');
  let values: unknown[];
  if (part === undefined) {
    const value = entity[group!];
    values = value === undefined || value === null ? [] : Array.isArray(value) ? value : [value];
  } else {
    const members = entity[group!];
    const list = Array.isArray(members) ? members : members !== null && typeof members === 'object' ? [members] : [];
    values = list.map((member) => field(member, part)).filter((value) => value !== undefined && value !== null);
  }
  return { distinct: new Set(values.map(String)), instances: values.length };
}

/**
 * What calchistogram says of every histogram it returns, against the entities evaluate returns for
 * the same expression (all of them: fewer than a page of 1,000): num_entities is their number; a
 * histogram's distinct_values the number of distinct values among them, its total_count the value
 * instances among them (each value counted once per entity, or as often as the entity lists it:
 * the interface does not say which), and each entry's count the entities with its value and its
 * prob their total probability (within PROB_SUM_TOLERANCE).
 */
export function judgeHistogramAgreement(
  histogramAnswer: unknown,
  entities: readonly Record<string, unknown>[],
  relation: string,
): RelationViolation[] {
  const out: RelationViolation[] = [];
  const total = field(histogramAnswer, 'num_entities');
  if (total !== entities.length)
    out.push({
      title: 'num_entities disagrees with evaluate',
      received: `num_entities ${show(total)}`,
      documented: `${entities.length}: the entities evaluate returns ${relation}`,
      pointer: '/num_entities',
    });
  const histograms = field(histogramAnswer, 'histograms');
  if (!Array.isArray(histograms)) return out;
  histograms.forEach((histogram, h) => {
    const attribute = field(histogram, 'attribute');
    if (typeof attribute !== 'string' || !ATTRIBUTE_NAME.test(attribute)) return;
    const counts = new Map<string, number>();
    const probs = new Map<string, number>();
    let least = 0;
    let most = 0;
    for (const entity of entities) {
      const { distinct, instances } = valuesOfEntity(entity, attribute);
      least += distinct.size;
      most += instances;
      const prob = typeof entity.prob === 'number' ? entity.prob : Number.NaN;
      for (const value of distinct) {
        counts.set(value, (counts.get(value) ?? 0) + 1);
        probs.set(value, (probs.get(value) ?? 0) + prob);
      }
    }
    const named = `${attribute} histogram`;
    const totalCount = field(histogram, 'total_count');
    if (!(typeof totalCount === 'number' && totalCount >= least && totalCount <= most))
      out.push({
        title: 'total_count disagrees with evaluate',
        received: `${named}: total_count ${show(totalCount)}`,
        documented: `${least === most ? least : `${least} to ${most}`}: ${attribute} values among the entities evaluate returns ${relation}`,
        pointer: `/histograms/${h}/total_count`,
      });
    const distinctValues = field(histogram, 'distinct_values');
    if (distinctValues !== counts.size)
      out.push({
        title: 'distinct_values disagrees with evaluate',
        received: `${named}: distinct_values ${show(distinctValues)}`,
        documented: `${counts.size}: distinct ${attribute} values among the entities evaluate returns ${relation}`,
        pointer: `/histograms/${h}/distinct_values`,
      });
    const entries = objects(field(histogram, 'histogram'));
    const wrong = entries.findIndex((entry) => entry.count !== (counts.get(String(entry.value)) ?? 0));
    if (wrong >= 0) {
      const entry = entries[wrong]!;
      out.push({
        title: 'histogram count disagrees with evaluate',
        received: `${attribute}=${show(entry.value)} count ${show(entry.count)}`,
        documented: `${counts.get(String(entry.value)) ?? 0} entities with ${attribute}=${show(entry.value)} from evaluate ${relation}`,
        pointer: `/histograms/${h}/histogram/${wrong}/count`,
      });
      return;
    }
    const off = entries.findIndex((entry) => {
      const want = probs.get(String(entry.value));
      return (
        typeof entry.prob === 'number' &&
        want !== undefined &&
        Number.isFinite(want) &&
        Math.abs(entry.prob - want) > PROB_SUM_TOLERANCE * Math.max(Math.abs(entry.prob), Math.abs(want))
      );
    });
    if (off >= 0) {
      const entry = entries[off]!;
      out.push({
        title: 'histogram prob is not the total probability of its entities',
        received: `${attribute}=${show(entry.value)} prob ${show(entry.prob)}`,
        documented: `${show(probs.get(String(entry.value)))}: the probs evaluate gives the ${show(entry.count)} entities with ${attribute}=${show(entry.value)}, summed (within relative ${PROB_SUM_TOLERANCE}; interface 2.3: total probability of matching entities with this value) ${relation}`,
        pointer: `/histograms/${h}/histogram/${off}/prob`,
      });
    }
  });
  return out;
}

/** The attributes an answer's histograms are for, as evaluate's `attributes` asks for them. */
export function histogramAttributes(histogramAnswer: unknown): string[] {
  return [
    ...new Set(
      objects(field(histogramAnswer, 'histograms'))
        .map((histogram) => histogram.attribute)
        .filter((attribute): attribute is string => typeof attribute === 'string' && ATTRIBUTE_NAME.test(attribute)),
    ),
  ];
}

export const histogramAgreesWithEvaluate: Relation = {
  check: 'histogram-agrees-with-evaluate',
  name: 'calchistogram(expr).num_entities = |evaluate(expr, count=1000).entities|, and each of its histograms counts (and sums the probs of) those entities',
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
    const attributes = [...new Set(['Y', ...histogramAttributes(x.json)])].join(',');
    const params: Record<string, string> = { expr, attributes, count: '1000' };
    if (x.params.model !== undefined) params.model = x.params.model;
    const evaluated = await send('evaluateGet', { params });
    if (!ok(evaluated) || cutShort(evaluated.json)) return [];
    const entities = objects(field(evaluated.json, 'entities'));
    if (entities.length >= 1000) return [];
    return judgeHistogramAgreement(x.json, entities, `(relation: ${this.name}; expr ${show(expr, 120)})`);
  },
};

/** A document's identity across lists: its documentId, else its url. */
function documentKey(document: unknown): string | undefined {
  const id = field(document, 'documentId') ?? field(document, 'url');
  return typeof id === 'string' ? id : undefined;
}

/** Most events of one answer followed to their documents: every event of a page of ten. */
export const EVENTS_FOLLOWED = 10;

/** The events of an answer that can be followed to their documents: those with an id and a top document, at most EVENTS_FOLLOWED. */
export function followedEvents(json: unknown, most = EVENTS_FOLLOWED): Record<string, unknown>[] {
  return objects(field(json, 'value'))
    .filter(
      (event) =>
        typeof event.eventId === 'string' &&
        /^[^\u0000-\u001f/?#]{1,200}$/.test(event.eventId) &&
        documentKey(event.topDocument) !== undefined,
    )
    .slice(0, most);
}

export const eventDocumentsAgree: Relation = {
  check: 'event-documents-agree',
  name: 'for every event of the answer: event.topDocument ∈ documents(event.eventId) and is the latest of them, and event.documentCount = |documents(event.eventId)| paged to the end',
  operations: ['hotEvents', 'relatedEvents'],
  reads: ['eventDocuments'],
  // Each answer's every event is followed, a request or more each: two answers of an operation suffice.
  limit: 2,
  appliesTo: (x) => x.status === 200 && followedEvents(x.json).length > 0,
  priority: (x) => objects(field(x.json, 'value')).length,
  async run(x, send) {
    const out: RelationViolation[] = [];
    for (const event of followedEvents(x.json)) {
      out.push(...(await judgeEventDocuments(event, send, this.name)));
      // One event that disagrees shows the defect; the next ones would repeat it at the cost of requests.
      if (out.length > 0) break;
    }
    return out;
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
  // The latest news (interface 4.11): no document of the event was published after the top one.
  const topDate = instantOf(field(event.topDocument, 'publishDate'));
  const later = documents.find((document) => instantOf(field(document, 'publishDate')) > topDate);
  if (!Number.isNaN(topDate) && later !== undefined)
    out.push({
      title: "topDocument is not the latest of the event's documents",
      received: `topDocument ${show(top)} published ${show(field(event.topDocument, 'publishDate'))}; ${show(documentKey(later))} published ${show(field(later, 'publishDate'))}`,
      documented: `each event carries the latest news (topDocument): no document of events/${eventId}/documents published after it (interface 4.11) ${relation}`,
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
    const items = (json: unknown) => pagedLists(json, paging.items).flatMap((list) => list.items.map(identity));
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

/** The academic search operations, whose `model` defaults to 'latest' (interface 4.1, 4.3, 4.5, 9). */
const MODELLED = [
  'interpretGet',
  'interpretPost',
  'evaluateGet',
  'evaluatePost',
  'calchistogramGet',
  'calchistogramPost',
];

export const modelDefaultsToLatest: Relation = {
  check: 'model-defaults-to-latest',
  name: "answer(params without model) = answer(params, model='latest')",
  operations: MODELLED,
  reads: [],
  // A default is the same whatever the input: a few answers of each operation show it.
  limit: 2,
  appliesTo: (x) =>
    x.status === 200 &&
    (x.params.model === undefined || x.params.model === 'latest') &&
    x.params.timeout === undefined &&
    !cutShort(x.json) &&
    encoded(x.params).length <= GET_SAFE_QUERY,
  // Answers with the most in them first: a model that differs shows in what they hold.
  priority: (x) => JSON.stringify(x.json).length,
  async run(x, send, record) {
    const { model: given, ...rest } = x.params;
    const twin: Record<string, string> = given === undefined ? { ...rest, model: 'latest' } : rest;
    const other = await send(x.operationId, { params: twin });
    if (!other || cutShort(other.json)) return [];
    if (other.status === x.status) {
      const agreement = await agreeWithNoise(x.json, other.json, async () => {
        const again = await send(x.operationId, { params: x.params });
        return ok(again) ? again.json : undefined;
      });
      record?.(agreement);
      if (agreement.agree) return [];
    }
    const [without, withLatest] = given === undefined ? [x, other] : [other, x];
    return [
      {
        title: "the default model answers differently from model='latest'",
        received: `without model: status ${without.status} ${show(without.json, 160)}`,
        documented: `model defaults to 'latest' (interface 4.1, 4.3, 4.5, 9): the same as with model=latest, status ${withLatest.status} ${show(withLatest.json, 160)} (relation: ${this.name})`,
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
  modelDefaultsToLatest,
  eventDocumentsAgree,
  encodingDoesNotMatter,
];
