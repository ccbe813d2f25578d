// Compiles parsed expressions into plans over the corpus indexes and runs them under a time budget.
import type { CompositeGroup } from './attributes.ts';
import { type Corpus, FIRST_YEAR, LAST_YEAR, type Postings, postingsOf } from './corpus.ts';
import type { Expr } from './expression.ts';

/** Time budget of one request: loops check it every few thousand steps and stop early once it is spent. */
export class Budget {
  aborted = false;
  private readonly deadline: number;

  constructor(ms: number) {
    this.deadline = performance.now() + ms;
  }

  /** True (and remembered as aborted) once the deadline has passed. */
  expired(): boolean {
    if (this.aborted) return true;
    if (performance.now() >= this.deadline) this.aborted = true;
    return this.aborted;
  }
}

/** A compiled expression: an upper bound on its size, its documents (ascending), and a per-document test. */
export interface Plan {
  estimate: number;
  docs(budget: Budget): Int32Array;
  test(doc: number): boolean;
}

// Inside Composite: a test per slot (one author, one field, the venue) and candidate documents.
interface SlotPlan {
  estimate: number;
  /** The candidates are exactly the matching documents (no And inside), so no slot check is needed. */
  exact: boolean;
  candidates(budget: Budget): Int32Array;
  testSlot(g: number, slot: number): boolean;
}

const EMPTY = new Int32Array(0);
// Clock checks every 256 documents: cheap next to the work, and frequent enough when one test is costly.
const CHECK_MASK = 255;

/** Sorted union of ascending document arrays. */
export function unionDocs(parts: Int32Array[]): Int32Array {
  const nonEmpty = parts.filter((p) => p.length > 0);
  if (nonEmpty.length === 0) return EMPTY;
  if (nonEmpty.length === 1) return nonEmpty[0]!;
  let total = 0;
  for (const part of nonEmpty) total += part.length;
  const all = new Int32Array(total);
  let at = 0;
  for (const part of nonEmpty) {
    all.set(part, at);
    at += part.length;
  }
  all.sort();
  let write = 0;
  for (let i = 0; i < all.length; i++) if (i === 0 || all[i] !== all[i - 1]) all[write++] = all[i]!;
  return all.subarray(0, write);
}

function filterDocs(docs: Int32Array, test: (doc: number) => boolean, budget: Budget): Int32Array {
  const out = new Int32Array(docs.length);
  let write = 0;
  for (let i = 0; i < docs.length; i++) {
    if ((i & CHECK_MASK) === CHECK_MASK && budget.expired()) break;
    const doc = docs[i]!;
    if (test(doc)) out[write++] = doc;
  }
  // A copy when much was filtered out, so cached matches do not pin large buffers.
  return write * 2 < docs.length ? out.slice(0, write) : out.subarray(0, write);
}

function scanDocs(size: number, test: (doc: number) => boolean, budget: Budget): Int32Array {
  const out = new Int32Array(size);
  let write = 0;
  for (let doc = 0; doc < size; doc++) {
    if ((doc & CHECK_MASK) === CHECK_MASK && budget.expired()) break;
    if (test(doc)) out[write++] = doc;
  }
  return write === size ? out : out.slice(0, write);
}

function unionKeys(postings: Postings, keys: Iterable<number>): Int32Array {
  const parts: Int32Array[] = [];
  for (const key of keys) parts.push(postingsOf(postings, key));
  return unionDocs(parts);
}

function keyCount(postings: Postings, keys: Iterable<number>): number {
  let total = 0;
  for (const key of keys) total += postings.off[key + 1]! - postings.off[key]!;
  return total;
}

function inRange(value: number, e: Extract<Expr, { kind: 'range' }>): boolean {
  return (e.loInclusive ? value >= e.lo : value > e.lo) && (e.hiInclusive ? value <= e.hi : value < e.hi);
}

function leafKey(e: Exclude<Expr, { kind: 'and' | 'or' | 'composite' }>): string {
  if (e.kind === 'range') return `${e.attr.name} ${e.lo} ${e.hi} ${e.loInclusive} ${e.hiInclusive}`;
  return `${e.attr.name} ${e.kind} ${e.canonicalOnly} ${typeof e.value} ${e.value}`;
}

/** Compiles a parsed expression for `corpus`. */
export function compile(corpus: Corpus, expr: Expr): Plan {
  const { byRank } = corpus;
  const size = corpus.size;

  // Identical predicates compile once: And/Or lists that repeat a predicate cost one plan, and dedupe to it.
  const leaves = new Map<string, Plan>();
  const slotLeaves = new Map<string, SlotPlan>();
  const composites = new Map<SlotPlan, Plan>();

  const fromDocs = (docs: Int32Array, test: (doc: number) => boolean): Plan => ({
    estimate: docs.length,
    docs: () => docs,
    test,
  });
  const scanning = (test: (doc: number) => boolean): Plan => ({
    estimate: size,
    docs: (budget) => scanDocs(size, test, budget),
    test,
  });

  // Years and dates are read by rank (sequential memory) rather than through byRank.
  const yearPlan = (years: number[], dateTest?: (date: number) => boolean): Plan => {
    const postings = corpus.yearPostings();
    const keys = years.filter((y) => y >= FIRST_YEAR && y <= LAST_YEAR).map((y) => y - FIRST_YEAR);
    const mask = new Uint8Array(LAST_YEAR - FIRST_YEAR + 1);
    for (const key of keys) mask[key] = 1;
    const { yearByRank, dateByRank } = corpus;
    const test = dateTest
      ? (doc: number) => mask[yearByRank[doc]! - FIRST_YEAR] === 1 && dateTest(dateByRank[doc]!)
      : (doc: number) => mask[yearByRank[doc]! - FIRST_YEAR] === 1;
    const estimate = keyCount(postings, keys);
    return {
      estimate,
      docs: (budget) => {
        if (estimate > size / 4) return scanDocs(size, test, budget);
        const docs = unionKeys(postings, keys);
        return dateTest ? filterDocs(docs, test, budget) : docs;
      },
      test,
    };
  };

  const yearsBetween = (lo: number, hi: number): number[] => {
    const out: number[] = [];
    for (let y = Math.max(FIRST_YEAR, lo); y <= Math.min(LAST_YEAR, hi); y++) out.push(y);
    return out;
  };

  const titlePlan = (value: string, prefix: boolean): Plan => {
    const words = value.split(' ');
    const complete = prefix ? words.slice(0, -1) : words;
    const wordPostings = corpus.wordPostings();
    const test = (doc: number) => {
      const title = corpus.title(byRank[doc]!);
      return prefix ? title.startsWith(value) : title === value;
    };
    let best: Int32Array | undefined;
    for (const word of complete) {
      const w = corpus.wordIndex.get(word);
      if (w === undefined) return fromDocs(EMPTY, () => false);
      const docs = postingsOf(wordPostings, w);
      if (!best || docs.length < best.length) best = docs;
    }
    if (!best) {
      if (value === '') return scanning(test);
      const first = corpus.firstWordPostings();
      const keys: number[] = [];
      corpus.words.forEach((word, w) => {
        if (word.startsWith(value)) keys.push(w);
      });
      const estimate = keyCount(first, keys);
      return { estimate, docs: (budget) => filterDocs(unionKeys(first, keys), test, budget), test };
    }
    const candidates = best;
    return { estimate: candidates.length, docs: (budget) => filterDocs(candidates, test, budget), test };
  };

  const leaf = (e: Exclude<Expr, { kind: 'and' | 'or' | 'composite' }>): Plan => {
    const name = e.attr.name;
    if (name === 'Id') {
      const doc = corpus.docById(e.kind === 'eq' ? (e.value as number) : Number.NaN);
      return fromDocs(doc >= 0 ? Int32Array.of(doc) : EMPTY, (d) => d === doc);
    }
    if (name === 'Ti') return titlePlan(String(e.kind === 'range' ? '' : e.value), e.kind === 'prefix');
    if (name === 'W') {
      const w = corpus.wordIndex.get(String(e.kind === 'eq' ? e.value : ''));
      if (w === undefined) return fromDocs(EMPTY, () => false);
      const docs = postingsOf(corpus.wordPostings(), w);
      return fromDocs(docs, (doc) => {
        const g = byRank[doc]!;
        for (let i = corpus.titleOff[g]!; i < corpus.titleOff[g + 1]!; i++) if (corpus.titleWords[i] === w) return true;
        return false;
      });
    }
    if (name === 'Y') {
      if (e.kind === 'eq') {
        const y = e.value as number;
        return yearPlan([y]);
      }
      if (e.kind === 'prefix') {
        const years = yearsBetween(FIRST_YEAR, LAST_YEAR).filter((y) => String(y).startsWith(e.value));
        return yearPlan(years);
      }
      return yearPlan(yearsBetween(FIRST_YEAR, LAST_YEAR).filter((y) => inRange(y, e)));
    }
    if (name === 'D') {
      if (e.kind === 'eq') {
        const date = e.value as number;
        return yearPlan([Math.floor(date / 10000)], (d) => d === date);
      }
      if (e.kind === 'range') {
        const lo = Number.isFinite(e.lo) ? Math.floor(e.lo / 10000) : FIRST_YEAR;
        const hi = Number.isFinite(e.hi) ? Math.floor(e.hi / 10000) : LAST_YEAR;
        return yearPlan(yearsBetween(lo, hi), (d) => inRange(d, e));
      }
    }
    if (name === 'RId') {
      const cited = corpus.docById(e.kind === 'eq' ? (e.value as number) : Number.NaN);
      if (cited < 0) return fromDocs(EMPTY, () => false);
      const citedG = byRank[cited]!;
      const docs = postingsOf(corpus.citedByPostings(), citedG);
      return fromDocs(docs, (doc) => {
        const g = byRank[doc]!;
        for (let i = corpus.refOff[g]!; i < corpus.refOff[g + 1]!; i++) if (corpus.refs[i] === citedG) return true;
        return false;
      });
    }
    if (name === 'DOI') {
      const value = String(e.kind === 'range' ? '' : e.value).toUpperCase();
      if (e.kind === 'eq') {
        const doc = corpus.docByDoi(value);
        return fromDocs(doc >= 0 ? Int32Array.of(doc) : EMPTY, (d) => d === doc);
      }
      return scanning((doc) => corpus.doi(byRank[doc]!)?.startsWith(value) ?? false);
    }
    return fromDocs(EMPTY, () => false);
  };

  const slotLeaf = (e: Exclude<Expr, { kind: 'and' | 'or' | 'composite' }>): SlotPlan => {
    const canonicalOnly = e.kind !== 'range' && e.canonicalOnly;
    const text = e.kind === 'range' ? '' : String(e.value);
    const num = e.kind === 'eq' && typeof e.value === 'number' ? e.value : Number.NaN;
    const names = (table: Corpus['authorNames']) =>
      e.kind === 'prefix' ? table.idsWithPrefix(text, canonicalOnly) : table.lookup(text, canonicalOnly);
    const keyed = (postings: () => Postings, keys: number[], testSlot: SlotPlan['testSlot']): SlotPlan => {
      const index = keys.length > 0 ? postings() : undefined;
      return {
        estimate: index ? keyCount(index, keys) : 0,
        exact: true,
        candidates: () => (index ? unionKeys(index, keys) : EMPTY),
        testSlot,
      };
    };
    // A byte mask for many keys; a short list for a few, so Or(...) of thousands of names stays small.
    const mask = (keys: number[], count: number): ((key: number) => boolean) => {
      if (keys.length <= 8) return (key) => keys.includes(key);
      const m = new Uint8Array(count);
      for (const k of keys) m[k] = 1;
      return (key) => m[key] === 1;
    };
    switch (e.attr.name) {
      case 'AA.AuN': {
        const keys = names(corpus.authorNames);
        const m = mask(keys, corpus.authorNames.values.length);
        return keyed(
          () => corpus.authorNamePostings(),
          keys,
          (_g, i) => m(corpus.authorName[corpus.authAuthor[i]!]!),
        );
      }
      case 'AA.AuId': {
        const a = corpus.authorByAuId(num);
        return keyed(
          () => corpus.authorPostings(),
          a >= 0 ? [a] : [],
          (_g, i) => corpus.authAuthor[i] === a,
        );
      }
      case 'AA.AfN': {
        const keys = names(corpus.affiliations);
        const m = mask(keys, corpus.affiliations.values.length);
        return keyed(
          () => corpus.affiliationPostings(),
          keys,
          (_g, i) => corpus.authAff[i]! >= 0 && m(corpus.authAff[i]!),
        );
      }
      case 'AA.AfId': {
        const f = corpus.affiliationByAfId(num);
        return keyed(
          () => corpus.affiliationPostings(),
          f >= 0 ? [f] : [],
          (_g, i) => corpus.authAff[i] === f,
        );
      }
      case 'AA.S': {
        const position = num;
        const test = (g: number) => corpus.authOff[g + 1]! - corpus.authOff[g]! >= position;
        return {
          estimate: position >= 1 ? size : 0,
          exact: true,
          candidates: (budget) => (position >= 1 ? scanDocs(size, (doc) => test(byRank[doc]!), budget) : EMPTY),
          testSlot: (g, i) => i - corpus.authOff[g]! + 1 === position,
        };
      }
      case 'F.FN': {
        const keys = names(corpus.fields);
        const m = mask(keys, corpus.fields.values.length);
        return keyed(
          () => corpus.fieldPostings(),
          keys,
          (_g, i) => m(corpus.fieldIds[i]!),
        );
      }
      case 'F.FId': {
        const f = corpus.fieldByFId(num);
        return keyed(
          () => corpus.fieldPostings(),
          f >= 0 ? [f] : [],
          (_g, i) => corpus.fieldIds[i] === f,
        );
      }
      case 'J.JN': {
        const keys = names(corpus.journals);
        const m = mask(keys, corpus.journals.values.length);
        return keyed(
          () => corpus.venuePostings(),
          keys,
          (g) => corpus.journal(g) >= 0 && m(corpus.journal(g)),
        );
      }
      case 'J.JId': {
        const j = corpus.journalByJId(num);
        return keyed(
          () => corpus.venuePostings(),
          j >= 0 ? [j] : [],
          (g) => j >= 0 && corpus.journal(g) === j,
        );
      }
      case 'C.CN': {
        const keys = names(corpus.conferences);
        const offset = corpus.journals.values.length;
        const m = mask(keys, corpus.conferences.values.length);
        return keyed(
          () => corpus.venuePostings(),
          keys.map((k) => k + offset),
          (g) => corpus.conference(g) >= 0 && m(corpus.conference(g)),
        );
      }
      case 'C.CId': {
        const c = corpus.conferenceByCId(num);
        const offset = corpus.journals.values.length;
        return keyed(
          () => corpus.venuePostings(),
          c >= 0 ? [c + offset] : [],
          (g) => c >= 0 && corpus.conference(g) === c,
        );
      }
    }
    return { estimate: 0, exact: true, candidates: () => EMPTY, testSlot: () => false };
  };

  const slotPlan = (e: Expr): SlotPlan => {
    if (e.kind === 'and' || e.kind === 'or') {
      const children = [...new Set(e.args.map(slotPlan))];
      if (e.kind === 'or') {
        return {
          estimate: children.reduce((sum, c) => sum + c.estimate, 0),
          exact: children.every((c) => c.exact),
          candidates: (budget) => unionDocs(children.map((c) => c.candidates(budget))),
          testSlot: (g, i) => children.some((c) => c.testSlot(g, i)),
        };
      }
      const smallest = children.reduce((a, b) => (b.estimate < a.estimate ? b : a));
      return {
        estimate: smallest.estimate,
        exact: children.length === 1 && smallest.exact,
        candidates: (budget) => smallest.candidates(budget),
        testSlot: (g, i) => children.every((c) => c.testSlot(g, i)),
      };
    }
    if (e.kind === 'composite') return { estimate: 0, exact: true, candidates: () => EMPTY, testSlot: () => false };
    const key = leafKey(e);
    let cached = slotLeaves.get(key);
    if (!cached) {
      cached = slotLeaf(e);
      slotLeaves.set(key, cached);
    }
    return cached;
  };

  const compositePlan = (group: CompositeGroup, inner: SlotPlan): Plan => {
    const anySlot = (g: number): boolean => {
      if (group === 'AA') {
        for (let i = corpus.authOff[g]!; i < corpus.authOff[g + 1]!; i++) if (inner.testSlot(g, i)) return true;
        return false;
      }
      if (group === 'F') {
        for (let i = corpus.fieldOff[g]!; i < corpus.fieldOff[g + 1]!; i++) if (inner.testSlot(g, i)) return true;
        return false;
      }
      if (group === 'J') return corpus.journal(g) >= 0 && inner.testSlot(g, g);
      return corpus.conference(g) >= 0 && inner.testSlot(g, g);
    };
    const test = (doc: number) => anySlot(byRank[doc]!);
    return {
      estimate: inner.estimate,
      docs: (budget) => (inner.exact ? inner.candidates(budget) : filterDocs(inner.candidates(budget), test, budget)),
      test,
    };
  };

  const plan = (e: Expr): Plan => {
    if (e.kind === 'composite') {
      const inner = slotPlan(e.inner);
      let cached = composites.get(inner);
      if (!cached) {
        cached = compositePlan(e.group, inner);
        composites.set(inner, cached);
      }
      return cached;
    }
    if (e.kind === 'and') {
      const children = [...new Set(e.args.map(plan))].sort((a, b) => a.estimate - b.estimate);
      const [first, ...rest] = children as [Plan, ...Plan[]];
      const test = (doc: number) => children.every((c) => c.test(doc));
      return {
        estimate: first.estimate,
        docs: (budget) =>
          rest.length === 0
            ? first.docs(budget)
            : filterDocs(first.docs(budget), (doc) => rest.every((c) => c.test(doc)), budget),
        test,
      };
    }
    if (e.kind === 'or') {
      // Or(Id=..,Id=..,...) with thousands of ids (as real clients sent) becomes one sorted list.
      const ids = e.args.filter((a) => a.kind === 'eq' && a.attr.name === 'Id');
      const others = ids.length > 8 ? e.args.filter((a) => !(a.kind === 'eq' && a.attr.name === 'Id')) : e.args;
      const children = [...new Set(others.map(plan))];
      if (ids.length > 8) {
        const docs = unionDocs(ids.map((a) => Int32Array.of(corpus.docById((a as { value: number }).value))));
        const found = docs[0] === -1 ? docs.subarray(1) : docs;
        const members = new Set(found);
        children.push(fromDocs(found, (doc) => members.has(doc)));
      }
      return {
        estimate: Math.min(
          size,
          children.reduce((sum, c) => sum + c.estimate, 0),
        ),
        docs: (budget) => unionDocs(children.map((c) => c.docs(budget))),
        test: (doc) => children.some((c) => c.test(doc)),
      };
    }
    const key = leafKey(e);
    let cached = leaves.get(key);
    if (!cached) {
      cached = leaf(e);
      leaves.set(key, cached);
    }
    return cached;
  };

  return plan(expr);
}
