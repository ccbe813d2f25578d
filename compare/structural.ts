// Structural comparison of two answers to the same request: status, then JSON values by pointer.
// Numbers agree within a small relative tolerance; arrays are lists where the interface orders
// them and sets everywhere else, so an order the interface leaves open is never a difference.

/** How two answers differ at one pointer. */
export type DiffKind =
  /** Different statuses (the bodies are then not compared). */
  | 'status'
  /** One side gave no answer at all (timeout, reset, oversized body). */
  | 'transport'
  /** Different JSON types at the pointer. */
  | 'type'
  /** Different values (numbers beyond the tolerance, strings, booleans; a body that is not JSON). */
  | 'value'
  /** The key is absent from the candidate's answer. */
  | 'absent-in-candidate'
  /** The key is absent from the current deployment's answer. */
  | 'absent-in-current'
  /** An ordered list holds another element at this position (compared by its identity). */
  | 'order'
  /** An ordered list of another length. */
  | 'length'
  /** An unordered array holds other elements. */
  | 'set';

/** One difference between the candidate's and the current deployment's answer. */
export interface Diff {
  /** JSON pointer into the body ('' for the status or the whole body). */
  pointer: string;
  kind: DiffKind;
  /** The candidate's value at the pointer (undefined when absent). */
  candidate: unknown;
  /** The current deployment's value at the pointer (undefined when absent). */
  current: unknown;
}

/** One side's answer to a request, as the comparison sees it. */
export interface Answer {
  /** The status, or undefined when no answer came. */
  status?: number;
  /** The body parsed as JSON; undefined when it is not JSON. */
  json?: unknown;
  /** The body as text. */
  text: string;
  /** Why no answer came (transport failure). */
  error?: string;
}

/** Relative tolerance within which two numbers are the same (absolute below 1e-9). */
export const NUMBER_TOLERANCE = 1e-6;

/**
 * Normalised pointers of the arrays whose order the interface states, by operation id prefix:
 * interpretations by probability, evaluate's results (by orderby, else by probability) and their
 * author sequence, histogram buckets by count, answer search's rankings and results, hot events by
 * hotness, related events by time. Every other array is a set (an event's documents included: the
 * interface states no order for them).
 */
export const ORDERED_ARRAYS: Readonly<Record<string, readonly string[]>> = {
  interpret: ['/interpretations', '/interpretations/*/rules'],
  evaluate: ['/entities', '/entities/*/AA'],
  calchistogram: ['/histograms/*/histogram'],
  answerSearch: [
    '/webPages/value',
    '/rankingResponse/mainline/items',
    '/rankingResponse/sidebar/items',
    '/rankingResponse/pole/items',
  ],
  hotEvents: ['/value'],
  relatedEvents: ['/value'],
};

/**
 * The fields an ordered list is sorted by, tried in this order (the first every element has wins):
 * elements with equal values are ties, which the interface lets come in any order.
 */
export const SORT_KEYS = ['logprob', 'prob', 'count', 'from', 'publishDate', 'documentCount'] as const;

/** Fields that name an element of an array, tried in this order (the first every element has wins). */
export const IDENTITY_KEYS = ['Id', 'eventId', 'documentId', 'url', 'AuId', 'FId', 'attribute', 'id', 'value'] as const;

/** `/entities/3/AA/0/AuN` -> `/entities/*\/AA/*\/AuN`: array positions become `*`. */
export function normalizePointer(pointer: string): string {
  return pointer.replace(/\/\d+(?=\/|$)/g, '/*');
}

/** Escapes one key for a JSON pointer (RFC 6901). */
export function pointerKey(key: string): string {
  return key.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** True when the array at this normalised pointer is ordered by the interface for this operation. */
export function isOrdered(operationId: string, normalized: string): boolean {
  const prefix = Object.keys(ORDERED_ARRAYS).find((name) => operationId.startsWith(name));
  return prefix !== undefined && ORDERED_ARRAYS[prefix]!.includes(normalized);
}

/**
 * True when two numbers agree within NUMBER_TOLERANCE. Two whole numbers (ids, counts, years) agree
 * only when equal: an id off by one is another paper, however large the id.
 */
export function sameNumber(a: number, b: number): boolean {
  if (a === b) return true;
  if (Number.isInteger(a) && Number.isInteger(b)) return false;
  return Math.abs(a - b) <= Math.max(1e-9, NUMBER_TOLERANCE * Math.max(Math.abs(a), Math.abs(b)));
}

/** Relative difference of two numbers (0 for equal ones). */
export function relativeDifference(a: number, b: number): number {
  if (a === b) return 0;
  return Math.abs(a - b) / Math.max(Math.abs(a), Math.abs(b));
}

function typeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

function canonical(value: unknown): string {
  const sort = (inner: unknown): unknown => {
    if (Array.isArray(inner)) return inner.map(sort);
    if (inner !== null && typeof inner === 'object') {
      return Object.fromEntries(
        Object.keys(inner)
          .sort()
          .map((key) => [key, sort((inner as Record<string, unknown>)[key])]),
      );
    }
    return inner;
  };
  return JSON.stringify(sort(value));
}

/** The identity field every object element of both arrays has (string or number, unique per array), if any. */
function identityKey(a: unknown[], b: unknown[]): string | undefined {
  const all = [...a, ...b];
  if (all.length === 0 || !all.every((item) => typeOf(item) === 'object')) return undefined;
  return IDENTITY_KEYS.find((key) => {
    const ok = (list: unknown[]) => {
      const values = list.map((item) => (item as Record<string, unknown>)[key]);
      return (
        values.every((value) => typeof value === 'string' || typeof value === 'number') &&
        new Set(values).size === values.length
      );
    };
    return ok(a) && ok(b);
  });
}

/** Compares two JSON values (candidate first) and returns every difference, by pointer. */
export function diffJson(operationId: string, candidate: unknown, current: unknown, pointer = ''): Diff[] {
  const out: Diff[] = [];
  walk(operationId, candidate, current, pointer, out);
  return out;
}

function walk(operationId: string, a: unknown, b: unknown, pointer: string, out: Diff[]): void {
  const ta = typeOf(a);
  const tb = typeOf(b);
  if (ta !== tb) {
    out.push({ pointer, kind: 'type', candidate: a, current: b });
    return;
  }
  if (ta === 'number') {
    if (!sameNumber(a as number, b as number)) out.push({ pointer, kind: 'value', candidate: a, current: b });
    return;
  }
  if (ta === 'object') {
    const ao = a as Record<string, unknown>;
    const bo = b as Record<string, unknown>;
    for (const key of new Set([...Object.keys(bo), ...Object.keys(ao)])) {
      const at = `${pointer}/${pointerKey(key)}`;
      if (!(key in ao)) out.push({ pointer: at, kind: 'absent-in-candidate', candidate: undefined, current: bo[key] });
      else if (!(key in bo))
        out.push({ pointer: at, kind: 'absent-in-current', candidate: ao[key], current: undefined });
      else walk(operationId, ao[key], bo[key], at, out);
    }
    return;
  }
  if (ta === 'array') {
    const aa = a as unknown[];
    const ba = b as unknown[];
    if (isOrdered(operationId, normalizePointer(pointer))) list(operationId, aa, ba, pointer, out);
    else set(operationId, aa, ba, pointer, out);
    return;
  }
  if (a !== b) out.push({ pointer, kind: 'value', candidate: a, current: b });
}

function sameKey(x: unknown, y: unknown): boolean {
  return typeof x === 'number' && typeof y === 'number' ? sameNumber(x, y) : x === y;
}

/**
 * The candidate's list with each run of ties put in the current deployment's order: where both
 * lists hold a run of equal sort values at the same positions, the candidate's elements of the run
 * are matched to the current ones (by identity, else canonical JSON) and taken in that order.
 */
export function alignTies(a: unknown[], b: unknown[]): unknown[] {
  const all = [...a, ...b];
  if (all.length === 0 || !all.every((item) => typeOf(item) === 'object')) return a;
  const field = (item: unknown, key: string) => (item as Record<string, unknown>)[key];
  const sortKey = SORT_KEYS.find((key) => all.every((item) => ['number', 'string'].includes(typeof field(item, key))));
  if (sortKey === undefined) return a;
  const id = identityKey(a, b);
  const name = (item: unknown) => (id !== undefined ? field(item, id) : canonical(item));
  const out = [...a];
  for (let start = 0; start < b.length; ) {
    let end = start + 1;
    while (end < b.length && sameKey(field(b[end], sortKey), field(b[start], sortKey))) end++;
    const run = out.slice(start, end);
    const tied =
      end - start > 1 &&
      end <= out.length &&
      run.every((item) => sameKey(field(item, sortKey), field(b[start], sortKey)));
    if (tied) {
      const left = [...run];
      const ordered = b.slice(start, end).map((item) => {
        const at = left.findIndex((candidate) => name(candidate) === name(item));
        return at < 0 ? undefined : left.splice(at, 1)[0];
      });
      // Elements of the run the current deployment does not have keep their places, in their order.
      const rest = [...left];
      out.splice(start, end - start, ...ordered.map((item) => item ?? rest.shift()));
    }
    start = end;
  }
  return out;
}

function list(operationId: string, a: unknown[], b: unknown[], pointer: string, out: Diff[]): void {
  a = alignTies(a, b);
  const key = identityKey(a, b);
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const at = `${pointer}/${i}`;
    if (key !== undefined) {
      const ia = (a[i] as Record<string, unknown>)[key];
      const ib = (b[i] as Record<string, unknown>)[key];
      if (ia !== ib) {
        // Another element at this position: one difference, not one per field of it.
        out.push({ pointer: at, kind: 'order', candidate: ia, current: ib });
        continue;
      }
    }
    walk(operationId, a[i], b[i], at, out);
  }
  if (a.length !== b.length) out.push({ pointer, kind: 'length', candidate: a.length, current: b.length });
}

function set(operationId: string, a: unknown[], b: unknown[], pointer: string, out: Diff[]): void {
  const key = identityKey(a, b);
  if (key !== undefined) {
    const byId = new Map(a.map((item) => [(item as Record<string, unknown>)[key], item]));
    const missing: unknown[] = [];
    b.forEach((item, i) => {
      const id = (item as Record<string, unknown>)[key];
      if (!byId.has(id)) missing.push(id);
      else {
        walk(operationId, byId.get(id), item, `${pointer}/${i}`, out);
        byId.delete(id);
      }
    });
    const extra = [...byId.keys()];
    if (missing.length > 0 || extra.length > 0) out.push({ pointer, kind: 'set', candidate: extra, current: missing });
    return;
  }
  // Elements without identity: a multiset of their canonical forms.
  const counts = new Map<string, { n: number; value: unknown }>();
  for (const item of a) {
    const text = canonical(item);
    const entry = counts.get(text);
    if (entry) entry.n++;
    else counts.set(text, { n: 1, value: item });
  }
  const missing: unknown[] = [];
  for (const item of b) {
    const entry = counts.get(canonical(item));
    if (entry && entry.n > 0) entry.n--;
    else missing.push(item);
  }
  const extra = [...counts.values()].flatMap((entry) => Array.from({ length: entry.n }, () => entry.value));
  if (missing.length > 0 || extra.length > 0) {
    // Numbers within the tolerance still match, pairwise in sorted order.
    if (
      missing.length === extra.length &&
      [...missing, ...extra].every((value) => typeof value === 'number') &&
      pairsWithin(extra as number[], missing as number[])
    )
      return;
    out.push({ pointer, kind: 'set', candidate: extra, current: missing });
  }
}

function pairsWithin(a: number[], b: number[]): boolean {
  const sa = [...a].sort((x, y) => x - y);
  const sb = [...b].sort((x, y) => x - y);
  return sa.every((value, i) => sameNumber(value, sb[i]!));
}

/** Compares two answers to one request (candidate first): transport, status, then the body. */
export function diffAnswers(operationId: string, candidate: Answer, current: Answer): Diff[] {
  if (candidate.error !== undefined || current.error !== undefined) {
    if (candidate.error !== undefined && current.error !== undefined) return [];
    return [
      {
        pointer: '',
        kind: 'transport',
        candidate: candidate.error ?? `status ${candidate.status}`,
        current: current.error ?? `status ${current.status}`,
      },
    ];
  }
  if (candidate.status !== current.status) {
    return [{ pointer: '', kind: 'status', candidate: candidate.status, current: current.status }];
  }
  if (candidate.json !== undefined && current.json !== undefined) {
    return diffJson(operationId, candidate.json, current.json);
  }
  if (candidate.text !== current.text) {
    return [
      { pointer: '', kind: 'value', candidate: candidate.text.slice(0, 200), current: current.text.slice(0, 200) },
    ];
  }
  return [];
}
