// The plan of a run priced for the deployment it gates: given its limits (--max-rps,
// --max-rps-by-path) and a budget (--max-duration, --max-requests), which cells and input items
// the run judges, in which order, and what that costs per path. What does not fit is not judged in
// this run; a budget that cannot hold the cells only their own tests can judge is refused.
import { CHECKS, getCheck } from '../contracts/checks/index.ts';
import { cellId, intentOf } from '../contracts/coverage/inputs.ts';
import { chainCost, coverOf, inputItemsOf, OperationPlan } from '../contracts/coverage/plan.ts';
import { DEFAULT_POOLS } from '../contracts/generative/values.ts';
import { RELATIONS } from '../contracts/properties/relations.ts';
import { getOperation, OPERATIONS } from '../openapi/spec.ts';
import { DEFERRED_CHECKS, defaultTargets, fixedCarriedItems, type RunPlan } from './plan.ts';
import {
  budgetKey,
  DISCOVERY_MAX_REQUESTS,
  type RequestBudget,
  requestBudget,
  type SelectedTest,
} from './request-budget.ts';

/** The limits and budget of a run. */
export interface Limits {
  maxRps?: number;
  maxRpsByPath?: Record<string, number>;
  /** --max-duration (or maxDuration) as given: a budget; the default time limit is none. */
  maxDurationMs?: number;
  maxRequests?: number;
}

/** What a ledger says of an item (see ledger.ts). */
export interface ItemHistory {
  /** Runs since the item was last judged (0: the last run judged it); absent: never judged. */
  runsAgo?: number;
  /** The item failed the last time it was judged. */
  failed?: boolean;
}

/** What a plan is made from. */
export interface PlanInput {
  selected: readonly SelectedTest[];
  limits: Limits;
  seed: number;
  table?: RequestBudget;
  /** The ledger's view of each item, when the run keeps one. */
  history?: ReadonlyMap<string, ItemHistory>;
  /** The faults of the reference server's catalogue each item caught (run/revealing.json). */
  revealing?: Readonly<Record<string, readonly string[]>>;
  /** Open items the target refused before (sent alone). */
  refused?: ReadonlySet<string>;
}

/** What the plan costs, as announced before the run. */
export interface PlanEstimate {
  /** Requests of the run: the planned tests and generated requests, discovery and the key preflight. */
  requests: number;
  /** The same by path of the spec (discovery and preflight not included). */
  byPath: Record<string, number>;
  /** The time the paces need for them, plus the start and end of a run; 0 when unpaced. */
  seconds: number;
  /** Requests by the key they carry: the run's key, the unsubscribed and the exhausted one, none or a wrong one. */
  perKey?: Record<string, number>;
}

/** A run's plan with its price. */
export interface PricedPlan extends RunPlan {
  /** Whether a budget shaped it (else every item of the selection is planned). */
  budgeted: boolean;
  /** The budget and limits it was priced for, in words. */
  budget?: string;
  /** Items of the selection the run does not judge: what did not fit the budget. */
  notPlanned: string[];
  /** Items of the selection the run judges. */
  planned: number;
  estimate: PlanEstimate;
}

/** A budget too small for the cells only their own tests judge: what would hold them. */
export class BudgetTooSmall extends Error {
  override name = 'BudgetTooSmall';
  constructor(
    message: string,
    readonly smallest: { maxRequests?: number; maxDurationMs?: number },
  ) {
    super(message);
  }
}

/**
 * What a run spends beside the paced requests' own time: Playwright's start, the first discovery
 * reads, the last test's end (about 6 s under a pace on the reference server).
 */
export const RUN_OVERHEAD_S = 8;
/**
 * Of a duration budget, the share the plan fills, less a margin: what absorbs a slower start, answers
 * slower than the pace, a retry.
 */
export const DURATION_SHARE = 0.95;
/** Seconds of a duration budget kept free besides the run's overhead. */
export const DURATION_MARGIN_S = 10;
/** Requests the key preflight sends at most. */
const PREFLIGHT_REQUESTS = 4;

/** Requests each relation sends per operation in a planned run, by path (`own`: the case's). */
const RELATION_COST: Record<string, Record<string, number>> = {
  'paging-is-consistent': { own: 1 },
  'get-and-post-agree': { own: 1 },
  'similarity-is-symmetric': { own: 1 },
  'interpretations-are-evaluable': { '/academic/v1.0/evaluate': 1, '/academic/v1.0/calchistogram': 1 },
  'histogram-agrees-with-evaluate': { '/academic/v1.0/evaluate': 1 },
  'event-documents-agree': { '/eventknowledge/v1.0/events/{event_id}/documents': 1 },
  'encoding-does-not-matter': { own: 1 },
};

/** The path a chain reads before its case is sent. */
const CHAIN_PATH: Record<string, string> = {
  'interpret-output': '/academic/v1.0/interpret',
  'hot-event': '/eventknowledge/v1.0/hotevents',
  'answer-url': '/answersearch/v7.0/search',
};

type Cost = Record<string, number>;

function add(into: Cost, cost: Cost): void {
  for (const [path, n] of Object.entries(cost)) into[path] = (into[path] ?? 0) + n;
}

function total(cost: Cost): number {
  return Object.values(cost).reduce((sum, n) => sum + n, 0);
}

/** The rate a path is held to: its own, or the run's, whichever is lower. */
function rateOf(limits: Limits, path: string): number | undefined {
  const rates = [limits.maxRpsByPath?.[path], limits.maxRps].filter((rate): rate is number => rate !== undefined);
  return rates.length > 0 ? Math.min(...rates) : undefined;
}

/** Seconds the paces need for requests by path (the slowest path, or the run's pace over all). */
export function pacedSecondsOf(byPath: Cost, limits: Limits): number {
  const perPath = Object.entries(byPath).map(([path, n]) => {
    const rate = limits.maxRpsByPath?.[path];
    return rate ? n / rate : 0;
  });
  const all = limits.maxRps ? total(byPath) / limits.maxRps : 0;
  return Math.max(0, all, ...perPath);
}

/** Whether a plan must fit a budget: a time budget with a pace to price it, or a request budget. */
export function isBudgeted(limits: Limits): boolean {
  const paced = limits.maxRps !== undefined || Object.keys(limits.maxRpsByPath ?? {}).length > 0;
  return limits.maxRequests !== undefined || (limits.maxDurationMs !== undefined && paced);
}

/**
 * The order items are planned in: what failed the last time first, then what was never judged, then
 * what was judged longest ago; within each, the items that caught the faults of the reference
 * server's catalogue (each fault by its first item, then by how many faults an item caught), then
 * the model's order.
 */
export function priorityOrder(
  items: readonly string[],
  history?: ReadonlyMap<string, ItemHistory>,
  revealing?: Readonly<Record<string, readonly string[]>>,
): string[] {
  const rank = new Map<string, number>();
  const pending = new Set(items);
  const caught = new Set<string>();
  let position = 0;
  // Each fault by the first item that catches it, the item catching most faults not yet caught first.
  for (;;) {
    let best: string | undefined;
    let gain = 0;
    for (const item of pending) {
      const faults = revealing?.[item] ?? [];
      const count = faults.filter((fault) => !caught.has(fault)).length;
      if (count > gain) {
        best = item;
        gain = count;
      }
    }
    if (!best) break;
    for (const fault of revealing?.[best] ?? []) caught.add(fault);
    rank.set(best, position++);
    pending.delete(best);
  }
  const rest = [...pending].sort((a, b) => (revealing?.[b]?.length ?? 0) - (revealing?.[a]?.length ?? 0));
  for (const item of rest) rank.set(item, position++);
  const group = (item: string): number => {
    const seen = history?.get(item);
    if (!history) return 0;
    if (seen?.failed) return -1_000_000;
    if (seen?.runsAgo === undefined) return -100_000;
    return -seen.runsAgo;
  };
  return [...items].sort((a, b) => group(a) - group(b) || rank.get(a)! - rank.get(b)!);
}

/** The path of an operation label (`GET /academic/v1.0/evaluate` -> `/academic/v1.0/evaluate`). */
function pathOfLabel(label: string): string {
  return label.slice(label.indexOf(' ') + 1);
}

/** The requests a test sends by path, as measured. */
function testCost(test: SelectedTest, table: RequestBudget): Cost {
  const row = table.tests[budgetKey(test)];
  if (!row) return {};
  if (row.paths) return { ...row.paths };
  return row.requests > 0 ? { [pathOfLabel(test.operation)]: row.requests } : {};
}

/**
 * Plans a run: every cell the selection holds and every input item once when no budget shapes it;
 * else, in order, the cells only their own tests judge (refused when they do not fit), the other
 * cells (by the generated requests that judged them on the reference server), then the input items
 * by priority, as long as each fits the budget.
 */
export function planRun(input: PlanInput): PricedPlan {
  const table = input.table ?? requestBudget();
  const limits = input.limits;
  const budgeted = isBudgeted(limits);
  const carried = fixedCarriedItems(table);
  const generativeOps = new Set(
    input.selected.filter((test) => getCheck(test.check)?.kind === 'generative').map((test) => test.operation),
  );
  const operations = OPERATIONS.filter((op) => generativeOps.has(op.label));
  const allCells = input.selected.map((test) => cellId(operationIdOf(test.operation), test.check));
  // The run's items, as its reports count them (run/ledger.ts selectionOf): the cells of its tests and
  // the request fixture's on their operations, and every input item of those operations.
  const selected = new Set(input.selected.map((test) => operationIdOf(test.operation)));
  const fixtureCells = OPERATIONS.filter((op) => selected.has(op.operationId)).flatMap((op) =>
    CHECKS.filter((check) => check.kind === 'fixture' && !check.run && check.appliesTo(op)).map((check) =>
      cellId(op.operationId, check.id),
    ),
  );
  const selection = [
    ...new Set([...allCells, ...fixtureCells]),
    ...OPERATIONS.filter((op) => selected.has(op.operationId)).flatMap((op) => inputItemsOf(op.operationId)),
  ];
  const judgedAnyway = (item: string) => item.startsWith('cell:') || carried.has(item);
  const tests = input.selected.filter((test) => getCheck(test.check)?.kind !== 'generative');
  const mandatory = tests.filter((test) => !DEFERRED_CHECKS.has(test.check));
  const discovery = 7;
  if (!budgeted) {
    const targets = Object.fromEntries(
      operations.map((op) => [op.operationId, defaultTargets(op.operationId, carried)]),
    );
    const byPath: Cost = {};
    for (const test of input.selected) add(byPath, testCost(test, table));
    const requests = total(byPath) + discovery + 1;
    const perKey = keysOf(input.selected, table, requests);
    return {
      kgatePlan: 1,
      targets,
      cells: allCells,
      budgeted: false,
      notPlanned: [],
      planned: selection.filter(
        (item) => judgedAnyway(item) || operations.some((op) => item.startsWith(`input:${op.operationId}:`)),
      ).length,
      window: 1,
      estimate: { requests, byPath, seconds: secondsOf(byPath, limits), perKey },
      ...(input.refused ? { refused: [...input.refused] } : {}),
    };
  }

  // The capacity of the budget, by path and in all.
  const seconds =
    limits.maxDurationMs !== undefined
      ? (limits.maxDurationMs / 1000) * DURATION_SHARE - RUN_OVERHEAD_S - DURATION_MARGIN_S
      : Infinity;
  const reserve = DISCOVERY_MAX_REQUESTS + PREFLIGHT_REQUESTS;
  const capRequests = limits.maxRequests !== undefined ? limits.maxRequests - reserve : Infinity;
  const used: Cost = {};
  const fits = (cost: Cost): boolean => {
    if (total(used) + total(cost) > capRequests) return false;
    const next = { ...used };
    add(next, cost);
    return pacedSecondsOf(next, limits) <= seconds;
  };

  // The cells only their own tests judge: all of them, or the run is refused.
  const mandatoryCost: Cost = {};
  for (const test of mandatory) add(mandatoryCost, testCost(test, table));
  if (!fits(mandatoryCost)) throw tooSmall(mandatory, mandatoryCost, limits, reserve);
  add(used, mandatoryCost);
  const cells = new Set(mandatory.map((test) => cellId(operationIdOf(test.operation), test.check)));

  // The generated requests of each operation, item by item.
  const plans = new Map<string, OperationPlan>();
  const planOf = (operationId: string) => {
    let plan = plans.get(operationId);
    if (!plan) {
      plan = new OperationPlan(coverOf(input.seed, operationId, DEFAULT_POOLS), input.refused);
      plans.set(operationId, plan);
    }
    return plan;
  };
  const targets: Record<string, string[]> = {};
  const related = new Set<string>();
  // What an operation's generated requests send beyond its cases (relations, chains, the cases of a
  // refused pack sent alone), as measured on the reference server: what its full plan sent there,
  // less its cases; paid once its plan has a valid request (relations start from valid answers).
  const overheads = new Map<string, Cost>();
  const overheadOf = (operationId: string): Cost => {
    let overhead = overheads.get(operationId);
    if (overhead) return overhead;
    const op = getOperation(operationId)!;
    const full = new OperationPlan(planOf(operationId).cover, input.refused);
    for (const item of defaultTargets(operationId, carried)) full.add(item);
    const planned: Cost = {};
    for (const request of full.requests) {
      add(planned, { [op.path]: 1 });
      if (request.case.chain) add(planned, { [CHAIN_PATH[request.case.chain.kind]!]: 1 });
    }
    const measured: Cost = {};
    for (const check of ['positive-input-accepted', 'negative-input-rejected', 'no-server-error'])
      add(measured, testCost({ project: 'conformance', operation: op.label, check }, table));
    overhead = Object.fromEntries(
      Object.entries(measured)
        .map(([path, n]) => [path, Math.max(0, n - (planned[path] ?? 0))] as const)
        .filter(([, n]) => n > 0),
    );
    if (Object.keys(overhead).length === 0) overhead = relationCost(operationId, op.path, input.selected);
    overheads.set(operationId, overhead);
    return overhead;
  };
  /** The cost of adding items to an operation's plan (with its relations when it gets its first valid request). */
  const costOfItems = (operationId: string, items: readonly string[], commit: boolean): Cost | undefined => {
    const op = getOperation(operationId)!;
    const plan = planOf(operationId);
    const cost: Cost = {};
    const trial = commit ? plan : plan.clone();
    let valid = trial.requests.some((request) => request.case.intent === 'positive');
    for (const item of items) {
      const carrier = trial.cover.carriers.get(item);
      const added = trial.add(item);
      if (added === undefined) return undefined;
      if (added > 0) {
        const chain = carrier ? chainCost(carrier.case) : 0;
        add(cost, { [op.path]: added - chain });
        if (chain > 0 && carrier?.case.chain) add(cost, { [CHAIN_PATH[carrier.case.chain.kind]!]: chain });
      }
      if (!valid && trial.requests.some((request) => request.case.intent === 'positive')) {
        valid = true;
        if (!related.has(operationId)) add(cost, overheadOf(operationId));
      }
    }
    if (commit) {
      if (valid) related.add(operationId);
      targets[operationId] = [
        ...(targets[operationId] ?? []),
        ...items.filter((item) => !targets[operationId]?.includes(item)),
      ];
    }
    return cost;
  };
  const tryItems = (operationId: string, items: readonly string[], extra: Cost = {}): boolean => {
    const cost = costOfItems(operationId, items, false);
    if (!cost) return false;
    add(cost, extra);
    if (!fits(cost)) return false;
    costOfItems(operationId, items, true);
    add(used, cost);
    return true;
  };

  const ordered = (operationId: string) =>
    priorityOrder(defaultTargets(operationId, carried), input.history, input.revealing);
  const orders = new Map<string, string[]>(operations.map((op) => [op.operationId, ordered(op.operationId)]));

  // The cells the generated requests judge: each by the requests that judged it on the reference
  // server (its generative test's judgedBy), the generative checks' by a first item of their intent.
  const intentOfCheck: Record<string, 'valid' | 'invalid' | 'open'> = {
    'positive-input-accepted': 'valid',
    'negative-input-rejected': 'invalid',
    'no-server-error': 'open',
  };
  const judgedBy = (label: string): Record<string, string[]> =>
    Object.assign(
      {},
      ...['positive-input-accepted', 'negative-input-rejected', 'no-server-error'].map(
        (check) => table.tests[budgetKey({ operation: label, check })]?.judgedBy ?? {},
      ),
    );
  // The other cells (each with the generated requests that judged it on the reference server, or
  // its own test where none did), then the input items, each in priority order: what failed last
  // time, what was never or longest ago judged, the most revealing first (priorityOrder).
  type Unit = { id: string; plan: () => boolean; rotates: boolean };
  const units: Unit[] = [];
  for (const test of input.selected.filter((entry) => !mandatory.includes(entry))) {
    const operationId = operationIdOf(test.operation);
    const id = cellId(operationId, test.check);
    const generative = getCheck(test.check)?.kind === 'generative';
    let anchors: string[] | undefined;
    if (generative) {
      const first = orders.get(operationId)?.find((item) => intentOf(item) === intentOfCheck[test.check]);
      anchors = first ? [first] : [];
    } else {
      anchors = judgedBy(test.operation)[`${test.check} ${test.operation}`];
      if (!anchors && test.check === 'response-matches-spec')
        anchors = orders
          .get(operationId)
          ?.filter((item) => intentOf(item) === 'valid')
          .slice(0, 1);
    }
    // A generative test's requests are the plan's own: priced item by item. A deferred test whose
    // cell no generated request judged on the reference server sends its own requests in full.
    const row = table.tests[budgetKey(test)];
    const own = generative
      ? {}
      : anchors
        ? testCost(test, table)
        : row?.alone !== undefined
          ? { [pathOfLabel(test.operation)]: row.alone }
          : testCost(test, table);
    const judgedBy_ = anchors;
    units.push({
      id,
      rotates: false,
      plan: () => {
        if (judgedBy_ && generativeOps.has(test.operation)) {
          if (
            !tryItems(
              operationId,
              judgedBy_.filter((item) => intentOf(item) !== undefined),
              own,
            )
          )
            return false;
        } else {
          if (!fits(own)) return false;
          add(used, own);
        }
        cells.add(id);
        return true;
      },
    });
  }
  for (const op of operations)
    for (const item of orders.get(op.operationId) ?? [])
      units.push({
        id: item,
        rotates: true,
        plan: () => targets[op.operationId]?.includes(item) || tryItems(op.operationId, [item]),
      });
  // The cells first, then the input items; each in that order (cells rotate too, where a budget
  // cannot hold them all).
  const byId = new Map(units.map((unit) => [unit.id, unit]));
  let rotating = 0;
  for (const rotates of [false, true]) {
    const ids = units.filter((unit) => unit.rotates === rotates).map((unit) => unit.id);
    let ordered = priorityOrder(ids, input.history, input.revealing);
    // Each operation's first valid request before the cells that need more of it: that request
    // judges most of the operation's cells at once, and on a slow path the others may not fit.
    if (!rotates) {
      const first = (id: string) => id.endsWith(':positive-input-accepted');
      ordered = [...ordered.filter(first), ...ordered.filter((id) => !first(id))];
    }
    for (const id of ordered) {
      const unit = byId.get(id)!;
      if (unit.plan() && unit.rotates) rotating++;
    }
  }

  // Each operation's requests are made from its chosen items in the model's order, as an unbudgeted
  // run makes them, where the budget still holds them: an operation whose every item fits sends what
  // the unbudgeted plan sends, packed as it packs them (a packing can be what reveals a fault: a
  // year range ordered by citations brings a later year to the first page).
  for (const [operationId, plan] of plans) {
    const chosen = new Set(targets[operationId] ?? []);
    const canonical = defaultTargets(operationId, carried).filter((item) => chosen.has(item));
    const rest = [...chosen].filter((item) => !canonical.includes(item));
    const rebuilt = new OperationPlan(plan.cover, input.refused);
    for (const item of [...canonical, ...rest]) rebuilt.add(item);
    const op = getOperation(operationId)!;
    const before = pathsOfPlan(plan, op.path);
    const after = pathsOfPlan(rebuilt, op.path);
    const next = { ...used };
    for (const path of new Set([...Object.keys(before), ...Object.keys(after)]))
      next[path] = (next[path] ?? 0) - (before[path] ?? 0) + (after[path] ?? 0);
    if (total(next) > capRequests || pacedSecondsOf(next, limits) > seconds) continue;
    for (const path of Object.keys(next)) used[path] = next[path]!;
    plans.set(operationId, rebuilt);
    targets[operationId] = [...canonical, ...rest];
  }

  // What the run judges: the planned cells, the items the planned requests carry, and those the
  // fixed tests of the planned cells carry (as measured).
  const plannedItems = new Set([...cells, ...Object.values(targets).flat()]);
  for (const plan of plans.values())
    for (const request of plan.requests) for (const item of request.case.items ?? []) plannedItems.add(item);
  for (const test of input.selected)
    if (getCheck(test.check)?.kind !== 'generative' && cells.has(cellId(operationIdOf(test.operation), test.check)))
      for (const item of table.tests[budgetKey(test)]?.items ?? []) plannedItems.add(item);
  for (const item of fixtureCells) plannedItems.add(item);
  const notPlanned = selection.filter((item) => !plannedItems.has(item) && !carriedByMandatory(item, mandatory, table));
  return {
    kgatePlan: 1,
    targets,
    cells: [...cells],
    budgeted: true,
    budget: budgetText(limits),
    notPlanned,
    planned: selection.length - notPlanned.length,
    // The runs a gate of this budget needs to judge every item once: this one, then what each run
    // has room for beyond the items it always judges (the ledger sends the oldest first).
    window: 1 + Math.ceil(notPlanned.length / Math.max(1, rotating)),
    order: orderBySlowest(used, limits),
    estimate: {
      requests: total(used) + discovery + 1,
      byPath: used,
      seconds: secondsOf(used, limits),
      perKey: keysOf(
        input.selected.filter((test) => cells.has(cellId(operationIdOf(test.operation), test.check))),
        table,
        total(used) + discovery + 1,
      ),
    },
    ...(input.refused ? { refused: [...input.refused] } : {}),
  };
}

function carriedByMandatory(item: string, mandatory: readonly SelectedTest[], table: RequestBudget): boolean {
  return mandatory.some((test) => table.tests[budgetKey(test)]?.items?.includes(item));
}

/** The keys the checks of these tests send other than the run's own (KGATE_KEY). */
const KEY_OF_CHECK: Record<string, string> = {
  'auth-required': 'no key or a wrong one',
  'auth-requires-subscription': 'KGATE_KEY_UNSUBSCRIBED',
  'quota-exhausted-is-403': 'KGATE_KEY_EXHAUSTED',
};

/** A run's requests by the key they carry: its own key carries all but the auth and quota tests'. */
function keysOf(tests: readonly SelectedTest[], table: RequestBudget, requests: number): Record<string, number> {
  const out: Record<string, number> = { KGATE_KEY: requests };
  for (const test of tests) {
    const key = KEY_OF_CHECK[test.check];
    const n = table.tests[budgetKey(test)]?.requests ?? 0;
    if (!key || n === 0) continue;
    // auth-required sends no key, then a wrong one; the others one request with their key.
    out[key] = (out[key] ?? 0) + n;
    out.KGATE_KEY! -= n;
  }
  return out;
}

/** The requests of an operation's plan by path: its own, and its chains' reads. */
function pathsOfPlan(plan: OperationPlan, path: string): Cost {
  const cost: Cost = {};
  for (const request of plan.requests) {
    add(cost, { [path]: 1 });
    if (request.case.chain) add(cost, { [CHAIN_PATH[request.case.chain.kind]!]: 1 });
  }
  return cost;
}

/** The relations an operation's first valid request starts, by path. */
function relationCost(operationId: string, path: string, selected: readonly SelectedTest[]): Cost {
  const label = OPERATIONS.find((op) => op.operationId === operationId)!.label;
  const checks = new Set(selected.filter((test) => test.operation === label).map((test) => test.check));
  const cost: Cost = {};
  for (const relation of RELATIONS) {
    if (!relation.operations.includes(operationId) || !checks.has(relation.check)) continue;
    for (const [where, n] of Object.entries(RELATION_COST[relation.check] ?? {}))
      add(cost, { [where === 'own' ? path : where]: n });
  }
  return cost;
}

/** The operation id of a label. */
function operationIdOf(label: string): string {
  return OPERATIONS.find((op) => op.label === label)?.operationId ?? label;
}

/** The time a plan takes at the deployment's limits (0 unpaced). */
function secondsOf(byPath: Cost, limits: Limits): number {
  const paced = pacedSecondsOf(byPath, limits);
  return paced > 0 ? Math.ceil(paced + RUN_OVERHEAD_S) : 0;
}

/**
 * The order operations start in: the one on the slowest path first (its requests take the whole
 * run), then every operation on another path, beside it in the other workers, then the rest of the
 * slowest path's (once the others are done, or in turn after the first).
 */
function orderBySlowest(used: Cost, limits: Limits): string[] {
  const time = (path: string) => {
    const rate = rateOf(limits, path);
    return rate ? (used[path] ?? 0) / rate : 0;
  };
  const sorted = [...OPERATIONS].sort((a, b) => time(b.path) - time(a.path));
  const [first, ...rest] = sorted;
  if (!first || time(first.path) === 0) return OPERATIONS.map((op) => op.operationId);
  const same = rest.filter((op) => op.path === first.path);
  return [first, ...rest.filter((op) => op.path !== first.path), ...same].map((op) => op.operationId);
}

/** The refusal of a budget too small for the cells only their own tests judge, naming the smallest that would hold them. */
function tooSmall(mandatory: readonly SelectedTest[], cost: Cost, limits: Limits, reserve: number): BudgetTooSmall {
  const requests = total(cost) + reserve;
  const seconds = Math.ceil((pacedSecondsOf(cost, limits) + RUN_OVERHEAD_S + DURATION_MARGIN_S) / DURATION_SHARE);
  const checks = [...new Set(mandatory.map((test) => test.check))];
  const what = `the ${mandatory.length} tests of the cells only their own tests judge (${checks.join(', ')})`;
  const needs: string[] = [];
  const smallest: BudgetTooSmall['smallest'] = {};
  if (limits.maxRequests !== undefined && requests > limits.maxRequests) {
    needs.push(`--max-requests ${requests}`);
    smallest.maxRequests = requests;
  }
  if (limits.maxDurationMs !== undefined && seconds * 1000 > limits.maxDurationMs) {
    needs.push(`--max-duration ${seconds}s`);
    smallest.maxDurationMs = seconds * 1000;
  }
  const budget = [
    ...(limits.maxRequests !== undefined ? [`--max-requests ${limits.maxRequests}`] : []),
    ...(limits.maxDurationMs !== undefined ? [`--max-duration ${Math.round(limits.maxDurationMs / 1000)}s`] : []),
  ].join(' and ');
  return new BudgetTooSmall(
    `the budget (${budget}) cannot hold ${what}: ${total(cost)} requests${pacedSecondsOf(cost, limits) > 0 ? `, ${Math.ceil(pacedSecondsOf(cost, limits))} s at the deployment's limits` : ''}, plus test data and the key preflight; the smallest budget that would: ${needs.join(' and ')}`,
    smallest,
  );
}

/** A budget and the limits it is priced at, in words: `--max-duration 10 min at --max-rps 3, /academic/v1.0/calchistogram 0.1/s`. */
export function budgetText(limits: Limits): string {
  const budget = [
    ...(limits.maxDurationMs !== undefined ? [`--max-duration ${humanSeconds(limits.maxDurationMs / 1000)}`] : []),
    ...(limits.maxRequests !== undefined ? [`--max-requests ${limits.maxRequests}`] : []),
  ].join(', ');
  const paces = [
    ...(limits.maxRps ? [`--max-rps ${limits.maxRps}`] : []),
    ...Object.entries(limits.maxRpsByPath ?? {}).map(([path, rps]) => `${path} ${rps}/s`),
  ];
  return `${budget}${paces.length ? ` at ${paces.join(', ')}` : ''}`;
}

/** Renders seconds as `9 min 40 s`. */
function humanSeconds(seconds: number): string {
  const s = Math.ceil(seconds);
  return s < 60 ? `${s} s` : `${Math.floor(s / 60)} min${s % 60 ? ` ${s % 60} s` : ''}`;
}

/** The line `kgate conform` prints before a budgeted run: what it judges, what it sends, how long it takes. */
export function describePlan(plan: PricedPlan, limits: Limits, maxDurationMs: number | undefined): string {
  const budget = [
    ...(maxDurationMs !== undefined ? [`--max-duration ${humanSeconds(maxDurationMs / 1000)}`] : []),
    ...(limits.maxRequests !== undefined ? [`--max-requests ${limits.maxRequests}`] : []),
  ].join(', ');
  const paces = [
    ...(limits.maxRps ? [`at most ${limits.maxRps} request(s)/s`] : []),
    ...Object.entries(limits.maxRpsByPath ?? {}).map(([path, rps]) => `${path} at most ${rps}/s`),
  ];
  const slowest = Object.entries(plan.estimate.byPath)
    .map(([path, n]) => ({ path, n, seconds: limits.maxRpsByPath?.[path] ? n / limits.maxRpsByPath[path]! : 0 }))
    .sort((a, b) => b.seconds - a.seconds)[0];
  const time =
    plan.estimate.seconds > 0
      ? `, about ${humanSeconds(plan.estimate.seconds)}${paces.length ? ` with ${paces.join(', ')}` : ''}${slowest && slowest.seconds > 0 ? ` (${slowest.path}: ${slowest.n} requests)` : ''}`
      : '';
  const perKey = Object.entries(plan.estimate.perKey ?? {})
    .filter(([, n]) => n > 0)
    .map(([key, n]) => `${key} ${n}`)
    .join(', ');
  return `kgate conform: plan for the budget (${budget}): ${plan.planned} of ${plan.planned + plan.notPlanned.length} items judged in this run, about ${plan.estimate.requests} requests${perKey ? ` (per key: ${perKey})` : ''}${time}; ${plan.notPlanned.length} item(s) not judged in this run (a --ledger file sends them first next time)`;
}
