// The plan of an operation's generated requests: which requests carry which input items. Every item
// has one canonical carrier, a case of the generator (kind and variant) found by a greedy cover of
// the operation's items, so an item's request depends on (seed, operation, item) and the value pools
// alone: a finding replays from its seed and items. Requests are then packed: a valid case takes the
// valid classes of other inputs from other cases where they cannot mask each other (no input twice,
// the answer still carrying every class each case was chosen for); an invalid class always goes
// alone (one rule broken per request), an open one with only valid background.
import {
  type CaseParam,
  type GeneratedCase,
  type Intent,
  kindCase,
  pairsOf,
  planKinds,
  rawSafe,
  valueText,
} from '../generative/cases.ts';
import type { ValuePools } from '../generative/values.ts';
import { type ClassIntent, REQUEST_INPUT } from './classes.ts';
import { classifyRequest } from './classify.ts';
import { allInputItems, inputId, intentOf, parseItemId } from './inputs.ts';
import { declaredClasses, sentAlone } from './kinds.ts';

/** Variants of each kind the cover looks through first. */
export const VARIANTS = 4;
/** Further variants it tries, of the kinds that showed an input, for a class of that input none showed yet. */
export const MORE_VARIANTS = 96;

/** The class intent each case intent judges. */
const JUDGES: Record<Intent, ClassIntent> = { positive: 'valid', negative: 'invalid', edge: 'open' };

/** Every class a case shows: its values' (classify.ts) and its kinds' declared ones. */
export function shownItems(c: GeneratedCase): string[] {
  const out = new Set(
    classifyRequest({
      operationId: c.operationId,
      pairs: pairsOf(c.params),
      ...(c.pathParams ? { pathParams: c.pathParams } : {}),
      ...(c.body === undefined ? { encoding: c.encoding } : {}),
      ...(c.contentType ? { contentType: c.contentType } : {}),
    }),
  );
  for (const kind of [c.kind, ...(c.packed ?? []).map((entry) => entry.split('#')[0]!)]) {
    for (const pair of declaredClasses(kind)) {
      const at = pair.indexOf(':');
      out.add(inputId(c.operationId, pair.slice(0, at), pair.slice(at + 1)));
    }
  }
  return [...out];
}

/**
 * The input items a case carries: those its answer judges. A valid request judges its valid classes,
 * a request breaking one rule that rule's class, a request of an open form its open classes (a chain's
 * own values come from another answer, so before it is sent it carries what its kind declares).
 */
export function caseItems(c: GeneratedCase): string[] {
  const shown = c.chain && !c.items ? declaredItems(c) : shownItems(c);
  const wanted = JUDGES[c.intent];
  return shown.filter((item) => intentOf(item) === wanted);
}

function declaredItems(c: GeneratedCase): string[] {
  return declaredClasses(c.kind).map((pair) => {
    const at = pair.indexOf(':');
    return inputId(c.operationId, pair.slice(0, at), pair.slice(at + 1));
  });
}

/** One case the cover may choose. */
interface Candidate {
  case: GeneratedCase;
  items: string[];
  /** Kind order, then variant: ties go to the earlier. */
  order: number;
}

/** The canonical carrier of every input item of an operation it can carry. */
export interface Cover {
  operationId: string;
  /** Item -> the candidate that carries it. */
  carriers: Map<string, Candidate>;
  /** Items of the operation no case of the generator carries. */
  uncovered: string[];
}

/** The operation's input items. */
export function inputItemsOf(operationId: string): string[] {
  return allInputItems()
    .filter((item) => item.operationId === operationId)
    .map((item) => item.id);
}

/**
 * The greedy cover of an operation's input items by the generator's cases: the case carrying the
 * most items not yet carried first (ties: the earlier kind and variant), until no case carries more.
 */
export function coverOf(seed: number, operationId: string, pools: ValuePools): Cover {
  const candidates: Candidate[] = [];
  planKinds(operationId).forEach((kind, k) => {
    for (let variant = 0; variant < VARIANTS; variant++) {
      const c = kindCase(seed, operationId, kind.name, variant, pools);
      candidates.push({ case: c, items: caseItems(c), order: k * (VARIANTS + MORE_VARIANTS) + variant });
    }
  });
  const universe = new Set(inputItemsOf(operationId));
  // A class a kind shows only for some draws (a direction of orderby, one spelling among several) is
  // looked for in more variants of the kinds that showed its input at all.
  const seen = new Set(candidates.flatMap((candidate) => candidate.items));
  const missing = [...universe].filter((item) => !seen.has(item));
  if (missing.length > 0) {
    const kinds = planKinds(operationId);
    const inputs = new Set(missing.map(inputOfItem));
    const showing = [
      ...new Set(
        candidates
          .filter((candidate) =>
            shownItems(candidate.case).some((item) => inputs.has(inputOfItem(item)) && universe.has(item)),
          )
          .map((candidate) => candidate.case.kind),
      ),
    ];
    const wanted = new Set(missing);
    for (let variant = VARIANTS; variant < VARIANTS + MORE_VARIANTS && wanted.size > 0; variant++) {
      for (const name of showing) {
        const c = kindCase(seed, operationId, name, variant, pools);
        const items = caseItems(c);
        if (!items.some((item) => wanted.has(item))) continue;
        for (const item of items) wanted.delete(item);
        const k = kinds.findIndex((kind) => kind.name === name);
        candidates.push({ case: c, items, order: k * (VARIANTS + MORE_VARIANTS) + variant });
      }
    }
  }
  const carriers = new Map<string, Candidate>();
  for (;;) {
    let best: Candidate | undefined;
    let gain = 0;
    for (const candidate of candidates) {
      let count = 0;
      for (const item of candidate.items) if (universe.has(item) && !carriers.has(item)) count++;
      if (count > gain || (count === gain && count > 0 && best && candidate.order < best.order)) {
        best = candidate;
        gain = count;
      }
    }
    if (!best) break;
    for (const item of best.items) if (universe.has(item) && !carriers.has(item)) carriers.set(item, best);
  }
  return { operationId, carriers, uncovered: [...universe].filter((item) => !carriers.has(item)) };
}

/** The input of an item (`expr`, `(request)`). */
function inputOfItem(item: string): string {
  const parsed = parseItemId(item);
  return parsed?.kind === 'input' ? parsed.input : '';
}

/** One request of the plan. */
export interface PlannedRequest {
  case: GeneratedCase;
  /** The candidates packed into it, first its own. */
  carriers: Candidate[];
  /** The items each candidate was chosen for (the plan's promises), by candidate order. */
  assigned: Set<string>;
}

/** The request a chain sends first (the other operation's answer it reads), counted with the case. */
export function chainCost(c: GeneratedCase): number {
  return c.chain ? 1 : 0;
}

/**
 * An operation's plan, built item by item: each added item costs the requests it adds (none when a
 * planned request already carries it, or its case is packed into one).
 */
export class OperationPlan {
  readonly requests: PlannedRequest[] = [];
  private readonly promised = new Set<string>();

  constructor(readonly cover: Cover) {}

  /** Whether a planned request carries the item. */
  carries(item: string): boolean {
    return this.requests.some((request) => request.case.items?.includes(item));
  }

  /** The requests (and chain reads) adding `item` would cost, without adding it; undefined when no case carries it. */
  costOf(item: string): number | undefined {
    if (this.promised.has(item) || this.carries(item)) return 0;
    const carrier = this.cover.carriers.get(item);
    if (!carrier) return undefined;
    if (this.packInto(carrier, item, false) !== undefined) return 0;
    return 1 + chainCost(carrier.case);
  }

  /** Adds an item to the plan; returns the requests it added (see costOf), undefined when no case carries it. */
  add(item: string): number | undefined {
    if (this.promised.has(item) || this.carries(item)) {
      this.promised.add(item);
      return 0;
    }
    const carrier = this.cover.carriers.get(item);
    if (!carrier) return undefined;

    this.promised.add(item);
    if (this.packInto(carrier, item, true) !== undefined) return 0;
    this.requests.push({
      case: { ...carrier.case, items: carrier.items },
      carriers: [carrier],
      assigned: new Set([item]),
    });
    return 1 + chainCost(carrier.case);
  }

  /** Packs a valid case into a planned valid request where they cannot mask each other; returns the request's index. */
  private packInto(carrier: Candidate, item: string, commit: boolean): number | undefined {
    const c = carrier.case;
    if (c.intent !== 'positive' || sentAlone(c.kind)) return undefined;
    for (let i = 0; i < this.requests.length; i++) {
      const request = this.requests[i]!;
      const merged = this.merge(request, carrier, item);
      if (!merged) continue;
      if (commit) {
        request.case = merged;
        request.carriers.push(carrier);
        request.assigned.add(item);
      }
      return i;
    }
    return undefined;
  }

  /** The request with the candidate's inputs for `item` packed in, or undefined when they could mask each other. */
  private merge(request: PlannedRequest, carrier: Candidate, item: string): GeneratedCase | undefined {
    const base = request.case;
    const c = carrier.case;
    if (base.intent !== 'positive' || request.carriers.some((other) => sentAlone(other.case.kind))) return undefined;
    if (base.body !== undefined || base.contentType || c.body !== undefined || c.contentType) return undefined;
    if (JSON.stringify(base.alsoAccepted ?? []) !== JSON.stringify(c.alsoAccepted ?? [])) return undefined;
    const taken = new Set([...request.assigned].map(inputOfItem));
    const input = inputOfItem(item);
    if (taken.has(input)) return undefined;
    let params: CaseParam[] = base.params.map((param) => ({ ...param }));
    let encoding = base.encoding;
    let pathParams = base.pathParams;
    if (input === REQUEST_INPUT) encoding = c.encoding;
    else if (c.pathParams && input in c.pathParams) pathParams = { ...base.pathParams, [input]: c.pathParams[input]! };
    else {
      const incoming = c.params.filter((param) => param.name === input);
      if (incoming.length === 0) return undefined;
      params = [
        ...params.filter((param) => param.name !== input),
        ...incoming.map((param) => ({ ...param, focus: false })),
      ];
    }
    // What an answer is judged on stays visible: the attributes either case asks for are both asked for.
    const lists = [...base.params, ...c.params].filter(
      (param) => param.name === 'attributes' && input !== 'attributes',
    );
    if (lists.length > 1) {
      const names = [...new Set(lists.flatMap((param) => valueText(param.value).split(',')))].join(',');
      params = [...params.filter((param) => param.name !== 'attributes'), { name: 'attributes', value: names }];
    }
    if (encoding === 'raw' && !params.every((param) => rawSafe(valueText(param.value)))) return undefined;
    const merged: GeneratedCase = {
      ...base,
      params,
      encoding,
      ...(pathParams ? { pathParams } : {}),
      packed: [...(base.packed ?? []), `${c.kind}#${c.index}`],
    };
    const items = caseItems({ ...merged, items: undefined });
    const carried = new Set(items);
    if (![...request.assigned, item].every((promise) => carried.has(promise))) return undefined;
    // An item another promise relied on this request for must stay carried somewhere.
    const elsewhere = new Set(
      this.requests.filter((other) => other !== request).flatMap((other) => other.case.items ?? []),
    );
    for (const promise of this.promised)
      if ((base.items ?? []).includes(promise) && !carried.has(promise) && !elsewhere.has(promise)) return undefined;
    return { ...merged, items };
  }

  /** The planned cases, numbered in plan order. */
  cases(): GeneratedCase[] {
    return this.requests.map((request, index) => ({ ...request.case, index }));
  }

  /** Requests the plan sends, chain reads included. */
  cost(): number {
    return this.requests.reduce((sum, request) => sum + 1 + chainCost(request.case), 0);
  }
}

/** The planned cases of an operation carrying `targets` (in the order given), for a seed and the target's values. */
export function planCases(
  seed: number,
  operationId: string,
  targets: readonly string[],
  pools: ValuePools,
  cover: Cover = coverOf(seed, operationId, pools),
): { cases: GeneratedCase[]; uncovered: string[] } {
  const plan = new OperationPlan(cover);
  const uncovered: string[] = [];
  for (const item of targets) if (plan.add(item) === undefined) uncovered.push(item);
  return { cases: plan.cases(), uncovered };
}
