// The plan of an operation's generated requests: which requests carry which input items. Every item
// has one canonical carrier, a case of the generator (kind and variant) found by a greedy cover of
// the operation's items, so an item's request depends on (seed, operation, item) and the value pools
// alone: a finding replays from its seed and items. Requests are then packed: a valid case takes the
// valid classes of other inputs from other cases where they cannot mask each other (no input twice,
// the answer still carrying every class each case was chosen for); an invalid class always goes
// alone (one rule broken per request), an open one with only valid background.

import { getOperation } from '../../openapi/spec.ts';
import {
  type CaseParam,
  type GeneratedCase,
  type HeaderForms,
  type Intent,
  kindCase,
  pairsOf,
  planKinds,
  rawSafe,
  valueText,
} from '../generative/cases.ts';
import type { ValuePools } from '../generative/values.ts';
import { ACCEPT_INPUT, type ClassIntent, CONTENT_TYPE_INPUT, KEY_HEADER_INPUT, REQUEST_INPUT } from './classes.ts';
import { classifyRequest } from './classify.ts';
import { allInputItems, inputId, intentOf, isSameValueItem, parseItemId, specInputs } from './inputs.ts';
import { declaredClasses, sentAlone } from './kinds.ts';

/** Variants of each kind the cover looks through first. */
export const VARIANTS = 4;
/** Further variants it tries, of the kinds that showed an input, for a class of that input none showed yet. */
export const MORE_VARIANTS = 96;

/** The header inputs of the model and the field of a case's HeaderForms that writes each. */
const HEADER_FIELDS: Record<string, keyof HeaderForms | undefined> = {
  [CONTENT_TYPE_INPUT]: 'contentType',
  [KEY_HEADER_INPUT]: 'keyHeader',
  [ACCEPT_INPUT]: 'accept',
};

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
      ...(c.headers ? { headers: c.headers } : {}),
      ...(c.pathEscaped ? { pathEscaped: true } : {}),
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
 * own values come from another answer, so before it is sent, `sent` false, it carries what its kind
 * declares).
 */
export function caseItems(c: GeneratedCase, sent = false): string[] {
  const shown = c.chain && !sent ? declaredItems(c) : shownItems(c);
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
  /** The items it is built around: its kind's declared classes, and those of its focus inputs. */
  focus: Set<string>;
  /** Kind order, then variant: ties go to the earlier. */
  order: number;
}

/** A candidate of the cover: a case, the items it carries, those it is built around. */
function candidateOf(c: GeneratedCase, order: number): Candidate {
  const items = caseItems(c);
  const focused = new Set(c.params.filter((param) => param.focus).map((param) => param.name));
  const declared = new Set(declaredItems(c));
  const focus = new Set(items.filter((item) => declared.has(item) || focused.has(inputOfItem(item))));
  return { case: c, items, focus, order };
}

/**
 * Inputs whose valid classes are never packed into another case's request: they narrow or change the
 * answer the other classes are judged on (a page size, an offset, a timeout, completion).
 */
const NARROWING = new Set(['count', 'offset', '$top', '$skip', 'timeout', 'complete']);

/**
 * Whether a candidate was made for an item: its kind declares the class (an expression's form, a
 * semantic class), or it sets a narrowing input to it (a paging kind). Such an item is sent by that
 * case, not left to one that carries it by chance with other values around it.
 */
function builtAround(candidate: Candidate, item: string): boolean {
  return (
    candidate.focus.has(item) && (declaredClasses(candidate.case.kind).length > 0 || NARROWING.has(inputOfItem(item)))
  );
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
      candidates.push(candidateOf(c, k * (VARIANTS + MORE_VARIANTS) + variant));
    }
  });
  const universe = new Set(inputItemsOf(operationId));
  // A class a kind shows only for some draws (a direction of orderby, one spelling among several) is
  // looked for in more variants of the kinds that showed its input at all.
  const seen = new Set(
    candidates.flatMap((candidate) => (sentAlone(candidate.case.kind) ? [...candidate.focus] : candidate.items)),
  );
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
        const candidate = candidateOf(
          c,
          kinds.findIndex((kind) => kind.name === name) * (VARIANTS + MORE_VARIANTS) + variant,
        );
        if (!candidate.items.some((item) => wanted.has(item))) continue;
        for (const item of candidate.items) wanted.delete(item);
        candidates.push(candidate);
      }
    }
  }
  // Each item goes first to a case built around it (the kind the generator made for that class,
  // the simplest variant), then to any case that carries it: the greedy cover of what is left.
  const carriers = new Map<string, Candidate>();
  // A case sent alone costs a request of its own: what it carries besides what it was made for is
  // left to cases that can be packed, where one carries it.
  for (const pass of ['focus', 'any', 'alone'] as const) {
    // What a case chosen already carries costs nothing more; not a case sent alone, whose other
    // classes may be masked by what it was made for (a text compared with itself scores 1 whatever
    // its length): they go to a case that can be packed, where one carries them.
    if (pass === 'any')
      for (const chosen of new Set(carriers.values())) {
        if (sentAlone(chosen.case.kind)) continue;
        for (const item of chosen.items) if (universe.has(item) && !carriers.has(item)) carriers.set(item, chosen);
      }
    for (;;) {
      let best: Candidate | undefined;
      let gain = 0;
      for (const candidate of candidates) {
        if (pass === 'any' && sentAlone(candidate.case.kind)) continue;
        let count = 0;
        for (const item of pass === 'focus' ? candidate.focus : candidate.items)
          if (universe.has(item) && !carriers.has(item)) count++;
        if (
          count > gain ||
          (count === gain &&
            count > 0 &&
            best &&
            (candidate.items.length < best.items.length ||
              (candidate.items.length === best.items.length && candidate.order < best.order)))
        ) {
          best = candidate;
          gain = count;
        }
      }
      if (!best) break;
      for (const item of pass === 'focus' ? best.focus : best.items)
        if (universe.has(item) && !carriers.has(item)) carriers.set(item, best);
    }
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

  /**
   * `refused`: open items the target refused (4xx) before, or the reference server does (what
   * `npm run docs:requests` measured): they are sent alone, never packed.
   */
  constructor(
    readonly cover: Cover,
    private readonly refused: ReadonlySet<string> = new Set(),
  ) {}

  /** A copy to try additions on. */
  clone(): OperationPlan {
    const copy = new OperationPlan(this.cover, this.refused);
    for (const request of this.requests)
      copy.requests.push({ case: request.case, carriers: [...request.carriers], assigned: new Set(request.assigned) });
    for (const item of this.promised) copy.promised.add(item);
    return copy;
  }

  /** Whether a planned request carries the item. */
  carries(item: string): boolean {
    return this.requests.some((request) => request.case.items?.includes(item));
  }

  /**
   * Whether the item needs no request of its own: a planned request carries it, unless its canonical
   * carrier is a case built around it (a kind made for that class), which is then sent as made.
   */
  private carriedAlready(item: string, carrier: Candidate | undefined): boolean {
    if (carrier && builtAround(carrier, item))
      return this.requests.some(
        (request) => request.carriers.includes(carrier) && (request.case.items ?? []).includes(item),
      );
    return this.carries(item);
  }

  /**
   * Adds an item to the plan; returns the requests (and chain reads) it added: none when a planned
   * request carries it or its case packs into one; undefined when no case carries it.
   */
  add(item: string): number | undefined {
    const carrier = this.cover.carriers.get(item);
    if (this.promised.has(item) || this.carriedAlready(item, carrier)) {
      this.promised.add(item);
      return 0;
    }
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
    if (c.intent === 'negative' || sentAlone(c.kind)) return undefined;
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
    // Valid classes pack with valid ones; open classes of different inputs pack with each other, and
    // the engine sends each alone again when the packed request is not answered 2xx (unpack).
    if (base.intent !== c.intent || request.carriers.some((other) => sentAlone(other.case.kind))) return undefined;
    if (base.body !== undefined || base.contentType || c.body !== undefined || c.contentType) return undefined;
    if (JSON.stringify(base.alsoAccepted ?? []) !== JSON.stringify(c.alsoAccepted ?? [])) return undefined;
    // An open class the target refused before is sent alone: packed, its refusal would hide the others.
    if (c.intent === 'edge' && [...request.assigned, item].some((promise) => this.refused.has(promise)))
      return undefined;
    // Values written another way (+3, 007) are judged by every property as their canonical spelling:
    // only with each other, never beside an open class whose answer says nothing of a value.
    if (c.intent === 'edge' && isSameValueItem(item) !== [...request.assigned].every(isSameValueItem)) return undefined;
    const taken = new Set([...request.assigned].map(inputOfItem));
    const input = inputOfItem(item);
    // Open classes are judged on no 5xx alone: a page size or an offset hides nothing there.
    if (taken.has(input) || (NARROWING.has(input) && c.intent !== 'edge')) return undefined;
    let params: CaseParam[] = base.params.map((param) => ({ ...param }));
    let encoding = base.encoding;
    let pathParams = base.pathParams;
    let pathEscaped = base.pathEscaped;
    let headers = base.headers;
    const field = HEADER_FIELDS[input];
    const declared = new Set(specInputs(getOperation(base.operationId)!).map((entry) => entry.name));
    if (input === REQUEST_INPUT && item.endsWith(':unknown-parameter')) {
      const unknown = c.params.filter((param) => !declared.has(param.name));
      if (unknown.length === 0) return undefined;
      params = [...params, ...unknown.map((param) => ({ ...param, focus: false }))];
    } else if (input === REQUEST_INPUT && item.endsWith(':repeated-parameter')) {
      const names = c.params.map((param) => param.name);
      const again = c.params.filter((param, i) => names.indexOf(param.name) !== i);
      // A second value of an input another class was packed for could hide that class.
      if (again.length === 0 || again.some((param) => taken.has(param.name))) return undefined;
      params = [...params, ...again.map((param) => ({ ...param, focus: false }))];
    } else if (input === REQUEST_INPUT && item.endsWith(':empty-value')) {
      // The optional parameters the case sends empty, where the request sends none of that name.
      const empty = c.params.filter((param) => valueText(param.value) === '');
      if (empty.length === 0 || empty.some((param) => params.some((other) => other.name === param.name)))
        return undefined;
      params = [...params, ...empty.map((param) => ({ ...param, focus: false }))];
    } else if (input === REQUEST_INPUT) encoding = c.encoding;
    else if (field) {
      const value = c.headers?.[field];
      if (value === undefined) return undefined;
      headers = { ...base.headers, [field]: value };
    } else if (c.pathParams && input in c.pathParams) {
      pathParams = { ...base.pathParams, [input]: c.pathParams[input]! };
      pathEscaped = c.pathEscaped;
    } else {
      const incoming = c.params.filter((param) => param.name === input);
      if (incoming.length === 0) return undefined;
      params = [
        ...params.filter((param) => param.name !== input),
        ...incoming.map((param) => ({ ...param, focus: false })),
      ];
    }
    // What an answer is judged on stays visible: the attributes either case asks for are both asked
    // for (a list of one attribute alone is then no longer alone, and the merge is refused below).
    const lists = [...base.params, ...c.params].filter((param) => param.name === 'attributes');
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
      pathEscaped,
      headers,
      packed: [...(base.packed ?? []), `${c.kind}#${c.index}`],
      ...(c.intent === 'edge'
        ? {
            parts: [
              ...(base.parts ?? [{ ...request.carriers[0]!.case, items: request.carriers[0]!.items }]),
              { ...c, items: carrier.items },
            ],
          }
        : {}),
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
    return this.requests.map((request, index) => ({ ...request.case, index, assigned: [...request.assigned] }));
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
  refused: ReadonlySet<string> = new Set(),
): { cases: GeneratedCase[]; uncovered: string[] } {
  const plan = new OperationPlan(cover, refused);
  const uncovered: string[] = [];
  for (const item of targets) if (plan.add(item) === undefined) uncovered.push(item);
  return { cases: plan.cases(), uncovered };
}
