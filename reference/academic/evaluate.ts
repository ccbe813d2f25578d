// evaluate and calchistogram: expressions matched against the corpus, entities projected, histograms counted.
import { ATTRIBUTE_BY_NAME, isGroup } from './attributes.ts';
import type { Corpus } from './corpus.ts';
import { orderDocs, type Projector, parseAttributeList, parseOrderBy, projector } from './entities.ts';
import { ExpressionError, parseExpression } from './expression.ts';
import { LruCache } from './lru.ts';
import {
  BadArgument,
  checkModel,
  type EngineResult,
  MAX_COUNT,
  optionalInteger,
  optionalString,
  requiredString,
} from './params.ts';
import { Budget, compile, type Plan } from './query.ts';

/** Expressions longer than this are parsed on every request instead of being cached. */
const CACHEABLE_EXPR = 20_000;

/** The documents an expression matched, and whether the time budget cut the search short. */
export interface Match {
  docs: Int32Array;
  aborted: boolean;
}

/** Parses, compiles and runs expressions with caches for plans, matches and projections. */
export class Matcher {
  private readonly plans = new LruCache<string, Plan | ExpressionError>(2000);
  private readonly matches = new LruCache<string, Int32Array>(512, 4_000_000);
  private readonly projectors = new LruCache<string, Projector>(256);

  constructor(
    readonly corpus: Corpus,
    readonly timeBudgetMs: number,
  ) {}

  /** The compiled plan of `expr`; throws BadArgument naming `parameter` when it does not parse. */
  plan(expr: string, parameter = 'expr'): Plan {
    let plan = this.plans.get(expr);
    if (plan === undefined) {
      try {
        plan = compile(this.corpus, parseExpression(expr));
      } catch (error) {
        if (!(error instanceof ExpressionError)) throw error;
        plan = error;
      }
      if (expr.length <= CACHEABLE_EXPR) this.plans.set(expr, plan);
    }
    if (plan instanceof ExpressionError) {
      throw new BadArgument(`Missing or invalid parameter: ${parameter} is not a valid expression: ${plan.message}`);
    }
    return plan;
  }

  /** All documents matching `expr` (ascending = by descending prob) within `budget`. */
  match(expr: string, budget: Budget): Match {
    const cached = this.matches.get(expr);
    if (cached) return { docs: cached, aborted: false };
    const docs = this.plan(expr).docs(budget);
    const aborted = budget.aborted;
    if (!aborted && expr.length <= CACHEABLE_EXPR) this.matches.set(expr, docs, docs.length + 64);
    return { docs, aborted };
  }

  /** The projection for an `attributes` value (validated). */
  projector(attributes: string): Projector {
    let project = this.projectors.get(attributes);
    if (!project) {
      project = projector(this.corpus, parseAttributeList(attributes, true));
      this.projectors.set(attributes, project);
    }
    return project;
  }
}

/** GET/POST evaluate. */
export function evaluate(matcher: Matcher, params: Record<string, string>): EngineResult {
  const expr = requiredString(params, 'expr');
  checkModel(params);
  const count = optionalInteger(params, 'count', 10, MAX_COUNT);
  const offset = optionalInteger(params, 'offset', 0);
  const orderby = optionalString(params, 'orderby');
  const order = orderby === undefined ? undefined : parseOrderBy(orderby);
  const project = matcher.projector(optionalString(params, 'attributes') ?? 'Id');
  matcher.plan(expr);
  const budget = new Budget(matcher.timeBudgetMs);
  const { docs, aborted } = matcher.match(expr, budget);
  let page: ArrayLike<number>;
  if (order) {
    page = offset >= docs.length ? [] : orderDocs(matcher.corpus, docs, order, offset + count, budget).slice(offset);
  } else {
    page = docs.subarray(Math.min(offset, docs.length), Math.min(offset + count, docs.length));
  }
  const entities = new Array(page.length);
  for (let i = 0; i < page.length; i++) entities[i] = project(page[i]!);
  return { status: 200, body: { expr, entities, aborted: aborted || budget.aborted } };
}

type HistogramValue = number | string;

/** Values of `attribute` on paper g, each once. */
function valuesOf(corpus: Corpus, attribute: string): (g: number, emit: (value: HistogramValue) => void) => void {
  const slots = (g: number, pick: (i: number) => HistogramValue | undefined) => (emit: (v: HistogramValue) => void) => {
    const seen: HistogramValue[] = [];
    for (let i = corpus.authOff[g]!; i < corpus.authOff[g + 1]!; i++) {
      const value = pick(i);
      if (value !== undefined && !seen.includes(value)) {
        seen.push(value);
        emit(value);
      }
    }
  };
  switch (attribute) {
    case 'Id':
      return (g, emit) => emit(corpus.id[g]!);
    case 'Ti':
      return (g, emit) => emit(corpus.title(g));
    case 'W':
      return (g, emit) => {
        for (const w of corpus.uniqueWords(g)) emit(corpus.words[w]!);
      };
    case 'Y':
      return (g, emit) => emit(corpus.year[g]!);
    case 'D':
      return (g, emit) => emit(corpus.dateString(g));
    case 'CC':
      return (g, emit) => emit(corpus.cc[g]!);
    case 'ECC':
      return (g, emit) => emit(corpus.ecc[g]!);
    case 'AA.AuN':
      return (g, emit) => slots(g, (i) => corpus.authorNames.values[corpus.authorName[corpus.authAuthor[i]!]!])(emit);
    case 'AA.AuId':
      return (g, emit) => slots(g, (i) => corpus.auId(corpus.authAuthor[i]!))(emit);
    case 'AA.AfN':
      return (g, emit) =>
        slots(g, (i) => (corpus.authAff[i]! >= 0 ? corpus.affiliations.values[corpus.authAff[i]!] : undefined))(emit);
    case 'AA.AfId':
      return (g, emit) =>
        slots(g, (i) => (corpus.authAff[i]! >= 0 ? corpus.afId(corpus.authAff[i]!) : undefined))(emit);
    case 'AA.S':
      return (g, emit) => {
        for (let s = 1; s <= corpus.authOff[g + 1]! - corpus.authOff[g]!; s++) emit(s);
      };
    case 'F.FN':
      return (g, emit) => {
        for (let i = corpus.fieldOff[g]!; i < corpus.fieldOff[g + 1]!; i++)
          emit(corpus.fields.values[corpus.fieldIds[i]!]!);
      };
    case 'F.FId':
      return (g, emit) => {
        for (let i = corpus.fieldOff[g]!; i < corpus.fieldOff[g + 1]!; i++) emit(corpus.fId(corpus.fieldIds[i]!));
      };
    case 'J.JN':
      return (g, emit) => corpus.journal(g) >= 0 && emit(corpus.journals.values[corpus.journal(g)]!);
    case 'J.JId':
      return (g, emit) => corpus.journal(g) >= 0 && emit(corpus.jId(corpus.journal(g)));
    case 'C.CN':
      return (g, emit) => corpus.conference(g) >= 0 && emit(corpus.conferences.values[corpus.conference(g)]!);
    case 'C.CId':
      return (g, emit) => corpus.conference(g) >= 0 && emit(corpus.cId(corpus.conference(g)));
    case 'RId':
      return (g, emit) => {
        for (let i = corpus.refOff[g]!; i < corpus.refOff[g + 1]!; i++) emit(corpus.id[corpus.refs[i]!]!);
      };
    default:
      return (g, emit) => {
        const doi = corpus.doi(g);
        if (doi !== undefined) emit(doi);
      };
  }
}

/** GET/POST calchistogram. */
export function calchistogram(matcher: Matcher, params: Record<string, string>): EngineResult {
  const expr = requiredString(params, 'expr');
  checkModel(params);
  const count = optionalInteger(params, 'count', 10, MAX_COUNT);
  const offset = optionalInteger(params, 'offset', 0);
  const attributes = parseAttributeList(optionalString(params, 'attributes') ?? '', true);
  for (const name of attributes) {
    if (isGroup(name) || !ATTRIBUTE_BY_NAME.has(name)) {
      throw new BadArgument(
        `Missing or invalid parameter: attributes: '${name}' is a composite attribute; name a part such as ${name}.${name === 'AA' ? 'AuN' : name === 'F' ? 'FN' : `${name}N`}`,
      );
    }
  }
  matcher.plan(expr);
  const budget = new Budget(matcher.timeBudgetMs);
  const { docs, aborted } = matcher.match(expr, budget);
  const { corpus } = matcher;
  const histograms = attributes.map((attribute) => {
    const counts = new Map<HistogramValue, { count: number; prob: number }>();
    const each = valuesOf(corpus, attribute);
    let total = 0;
    let prob = 0;
    const emit = (value: HistogramValue) => {
      total++;
      const entry = counts.get(value);
      if (entry) {
        entry.count++;
        entry.prob += prob;
      } else counts.set(value, { count: 1, prob });
    };
    for (let i = 0; i < docs.length; i++) {
      if ((i & 4095) === 4095 && budget.expired()) break;
      const doc = docs[i]!;
      prob = corpus.probByRank[doc]!;
      each(corpus.byRank[doc]!, emit);
    }
    const entries = [...counts].sort(([va, a], [vb, b]) => b.count - a.count || (va < vb ? -1 : va > vb ? 1 : 0));
    return {
      attribute,
      distinct_values: counts.size,
      total_count: total,
      histogram: entries
        .slice(offset, offset + count)
        .map(([value, entry]) => ({ value, prob: entry.prob, count: entry.count })),
    };
  });
  return {
    status: 200,
    body: { expr, num_entities: docs.length, histograms, aborted: aborted || budget.aborted },
  };
}
