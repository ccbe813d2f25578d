// The plan of a run priced for the deployment it gates: given its limits (--max-rps,
// --max-rps-by-path) and a budget (--max-duration, --max-requests), which cells and input items
// the run judges, in which order, and what that costs per path. What does not fit is not judged in
// this run; every item rotates through the runs of a ledger (rotation.ts). A budget too small for
// one judged answer is refused.
import { CHECKS, getCheck } from '../contracts/checks/index.ts';
import { cellId, intentOf } from '../contracts/coverage/inputs.ts';
import { type Cover, chainCost, coverOf, inputItemsOf, OperationPlan } from '../contracts/coverage/plan.ts';
import { DEFAULT_POOLS } from '../contracts/generative/values.ts';
import { getOperation, OPERATIONS, type OperationInfo } from '../openapi/spec.ts';
import { DISCOVERY_REQUESTS, DISCOVERY_SOURCES, type DiscoveryItem } from './discovery.ts';
import { DEFERRED_CHECKS, defaultTargets, fixedCarriedItems, RELATION_CHECKS, type RunPlan } from './plan.ts';
import { describeQuota, type QuotaShare, quotaText } from './quota.ts';
import {
  budgetKey,
  type KeysGiven,
  needsMissingKey,
  type RequestBudget,
  requestBudget,
  type SelectedTest,
  withNeeds,
} from './request-budget.ts';
import {
  addCost,
  type Choice,
  type Cost,
  chooseUnits,
  dueSentinels,
  type ItemHistory,
  itemWeight,
  SENTINEL_CHECKS,
  type Sentinel,
  totalOf,
  WEIGHT,
} from './rotation.ts';

export type { KeysGiven } from './request-budget.ts';
export type { ItemHistory } from './rotation.ts';

/** The limits and budget of a run. */
export interface Limits {
  maxRps?: number;
  maxRpsByPath?: Record<string, number>;
  /** --max-duration (or maxDuration) as given: a budget; the default time limit is none. */
  maxDurationMs?: number;
  maxRequests?: number;
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
  /** The keys given (default: every key, as on the embedded server). */
  keys?: KeysGiven;
  /** The run's ledger, named in the announcement: its file and the runs it holds. */
  ledger?: { file: string; runs: number };
  /** Whether the plan says how many runs a full cycle of every item takes at this budget (a ledger's, a quota's). */
  cycle?: boolean;
  /** Of a ledger's runs, the items they judged of those they planned: a target on which fewer come through takes more runs. */
  judgedShare?: number;
  /** The run's share of the deployment's quota (its maxRequests is limits.maxRequests). */
  quota?: QuotaShare;
}

/** What the plan costs, as announced before the run. */
export interface PlanEstimate {
  /** Requests of the run: the planned tests and generated requests, discovery and the key preflight. */
  requests: number;
  /** The same by path of the spec (the key preflight not included). */
  byPath: Record<string, number>;
  /** The time the paces need for them, plus the start and end of a run; 0 when unpaced. */
  seconds: number;
  /** Requests by the key they carry: the run's key, the unsubscribed and the exhausted one, none or a wrong one. */
  perKey?: Record<string, number>;
}

/** What a budgeted run with a ledger sends first: items that failed last time, never judged, judged before. */
export interface SendsFirst {
  failed: number;
  /** Items an earlier run planned and a quota that ran out kept it from judging. */
  cutShort?: number;
  never: number;
  before: number;
  /** Runs since the oldest of `before` was judged. */
  oldest?: number;
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
  /** With a ledger: what the run sends first. */
  sendsFirst?: SendsFirst;
  /** The ledger it was planned from. */
  ledger?: { file: string; runs: number };
  /** The run's share of the deployment's quota. */
  quota?: QuotaShare;
}

/** A budget too small for one judged answer: what would hold one. */
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
/** Requests the key preflight sends at most (kept free in a request budget); under a budget it asks one at a time, and one answer usually settles it. */
export const PREFLIGHT_REQUESTS = 4;
/** Requests the key preflight usually sends, as announced. */
const PREFLIGHT_TYPICAL = 1;
/** Most runs a full cycle is worked out for: a budget that needs more says so. */
export const CYCLE_MOST_RUNS = 60;

/**
 * Requests each relation sends per operation in a planned run, by path (`own`: the case's), as
 * measured on the reference server: event-documents-agree follows each event of an answer to its
 * documents (6 to 10 requests there: counted at the most, so that a run's last relation is not cut
 * short by its budget), the others send one request per path they read.
 */
const RELATION_COST: Record<string, Record<string, number>> = {
  'paging-is-consistent': { own: 1 },
  'get-and-post-agree': { own: 1 },
  'similarity-is-symmetric': { own: 1 },
  'interpretations-are-evaluable': { '/academic/v1.0/evaluate': 1, '/academic/v1.0/calchistogram': 1 },
  'histogram-agrees-with-evaluate': { '/academic/v1.0/evaluate': 1 },
  'event-documents-agree': { '/eventknowledge/v1.0/events/{event_id}/documents': 10 },
  'encoding-does-not-matter': { own: 1 },
};

/** The path a chain reads before its case is sent. */
const CHAIN_PATH: Record<string, string> = {
  'interpret-output': '/academic/v1.0/interpret',
  'hot-event': '/eventknowledge/v1.0/hotevents',
  'answer-url': '/answersearch/v7.0/search',
};

/** The generative check whose test reports each intent of case. */
const CHECK_OF_INTENT: Record<string, string> = {
  positive: 'positive-input-accepted',
  negative: 'negative-input-rejected',
  edge: 'no-server-error',
};
const GENERATIVE = Object.values(CHECK_OF_INTENT);

/** The API each operation's group belongs to, as a subscription covers it (similarity is academic). */
function apiOf(op: OperationInfo): string {
  return op.group === 'similarity' ? 'academic' : op.group;
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
  const all = limits.maxRps ? totalOf(byPath) / limits.maxRps : 0;
  return Math.max(0, all, ...perPath);
}

/** Whether a plan must fit a budget: a time budget with a pace to price it, or a request budget. */
export function isBudgeted(limits: Limits): boolean {
  const paced = limits.maxRps !== undefined || Object.keys(limits.maxRpsByPath ?? {}).length > 0;
  return limits.maxRequests !== undefined || (limits.maxDurationMs !== undefined && paced);
}

/** The path of an operation label (`GET /academic/v1.0/evaluate` -> `/academic/v1.0/evaluate`). */
function pathOfLabel(label: string): string {
  return label.slice(label.indexOf(' ') + 1);
}

/** The requests a test sends by path, as measured. */
function testCost(test: Pick<SelectedTest, 'operation' | 'check'>, table: RequestBudget): Cost {
  const row = table.tests[budgetKey(test)];
  if (!row) return {};
  if (row.paths) return { ...row.paths };
  return row.requests > 0 ? { [pathOfLabel(test.operation)]: row.requests } : {};
}

/** The path a discovery item's own requests go to. */
function discoveryPath(item: DiscoveryItem): string {
  const sources = DISCOVERY_SOURCES[item];
  return getOperation(sources[sources.length - 1]!)!.path;
}

/** The discovery items a test's data needs, those it is derived from included. */
function needsOf(data: readonly string[]): Set<DiscoveryItem> {
  const out = new Set<DiscoveryItem>();
  for (const item of data) if (item in DISCOVERY_REQUESTS) withNeeds(item as DiscoveryItem, out);
  return out;
}

/**
 * Plans a run: every cell the selection holds and every input item once when no budget shapes it;
 * else what fits the budget, every item rotating through the runs of a ledger (planBudgeted).
 */
export function planRun(input: PlanInput): PricedPlan {
  const table = input.table ?? requestBudget();
  const limits = input.limits;
  if (!isBudgeted(limits)) return planWhole(input, table);
  const context = contextOf(input, table);
  const plan = planBudgeted(context, input.history);
  if (input.cycle || input.quota) plan.cycle = cycleOf(context, input.judgedShare);
  if (input.quota) {
    plan.quota = input.quota;
    plan.budget = `${quotaText(input.quota)}${input.quota.maxRequests < input.quota.left ? `, --max-requests ${input.quota.maxRequests}` : ''}`;
  }
  if (input.ledger) {
    plan.ledger = input.ledger;
    plan.sendsFirst = sendsFirstOf(context, plan, input.history);
  }
  return plan;
}

/** The run's items, as its reports count them (run/ledger.ts selectionOf), and the fixture's cells of each operation. */
function selectionOf(selected: readonly SelectedTest[]): { selection: string[]; fixtureCells: Map<string, string[]> } {
  const operations = new Set(selected.map((test) => operationIdOf(test.operation)));
  const fixtureCells = new Map(
    OPERATIONS.filter((op) => operations.has(op.operationId)).map((op) => [
      op.operationId,
      CHECKS.filter((check) => check.kind === 'fixture' && !check.run && check.appliesTo(op)).map((check) =>
        cellId(op.operationId, check.id),
      ),
    ]),
  );
  const cells = selected.map((test) => cellId(operationIdOf(test.operation), test.check));
  const selection = [
    ...new Set([...cells, ...[...fixtureCells.values()].flat()]),
    ...OPERATIONS.filter((op) => operations.has(op.operationId)).flatMap((op) => inputItemsOf(op.operationId)),
  ];
  return { selection, fixtureCells };
}

/** The items of a selection of tests, as a run's reports count them (run/ledger.ts selectionOf). */
export function itemsOf(selected: readonly SelectedTest[]): string[] {
  return selectionOf(selected).selection;
}

/** The plan without a budget: every cell of the selection and every input item once, as measured. */
function planWhole(input: PlanInput, table: RequestBudget): PricedPlan {
  const carried = fixedCarriedItems(table);
  const generativeOps = new Set(
    input.selected.filter((test) => getCheck(test.check)?.kind === 'generative').map((test) => test.operation),
  );
  const operations = OPERATIONS.filter((op) => generativeOps.has(op.label));
  const allCells = input.selected.map((test) => cellId(operationIdOf(test.operation), test.check));
  const { selection } = selectionOf(input.selected);
  const keys = input.keys ?? { unsubscribed: true, exhausted: true };
  const targets = Object.fromEntries(operations.map((op) => [op.operationId, defaultTargets(op.operationId, carried)]));
  const byPath: Cost = {};
  const sending = input.selected.filter((test) => !needsMissingKey(test.check, keys));
  for (const test of sending) addCost(byPath, testCost(test, table));
  const discovery = 7;
  const requests = totalOf(byPath) + discovery + PREFLIGHT_TYPICAL;
  const judgedAnyway = (item: string) => item.startsWith('cell:') || carried.has(item);
  return {
    kgatePlan: 1,
    targets,
    cells: allCells,
    budgeted: false,
    notPlanned: [],
    planned: selection.filter(
      (item) => judgedAnyway(item) || operations.some((op) => item.startsWith(`input:${op.operationId}:`)),
    ).length,
    estimate: { requests, byPath, seconds: secondsOf(byPath, input.limits), perKey: keysOf(sending, table, requests) },
    ...(input.refused ? { refused: [...input.refused] } : {}),
  };
}

/** One thing a budgeted run can plan: a fixed test, a request of the unbudgeted plan, a relation. */
interface Unit extends Choice {
  operationId: string;
  /** Input items the operation's generated requests must carry for it. */
  items: string[];
  /** Requests it sends beside the generated ones: a fixed test's own, a relation's reads. */
  own: Cost;
  /** Test data it needs found. */
  data: readonly string[];
  /** A fixed test that sends its own requests: its cell is planned. */
  test?: SelectedTest;
  /** A relation the generated requests run: its cell. */
  relation?: string;
}

/** What every budgeted plan of one input shares: the units, what they judge, the room. */
interface Context {
  input: PlanInput;
  table: RequestBudget;
  limits: Limits;
  selection: string[];
  selectionSet: ReadonlySet<string>;
  fixtureCells: ReadonlyMap<string, readonly string[]>;
  /** The operations whose generated requests the run sends, with the cover of their items. */
  covers: ReadonlyMap<string, Cover>;
  carried: ReadonlySet<string>;
  units: Unit[];
  sentinels: Sentinel[];
  /** Cells whose tests run whatever the plan (they need a key that was not given and skip themselves). */
  alwaysCells: string[];
  /** Room for requests, and for paced time. */
  capRequests: number;
  seconds: number;
  /** A unit's share of the tightest room. */
  shareOf: (cost: Cost) => number;
}

const covers = new Map<string, Cover>();

/** The cover of an operation's items for a seed on the default values (kept: it takes a while to work out). */
function coverFor(seed: number, operationId: string): Cover {
  const key = `${seed} ${operationId}`;
  let cover = covers.get(key);
  if (!cover) {
    cover = coverOf(seed, operationId, DEFAULT_POOLS);
    covers.set(key, cover);
  }
  return cover;
}

/** The units of a budgeted run and its room. */
function contextOf(input: PlanInput, table: RequestBudget): Context {
  const limits = input.limits;
  const keys = input.keys ?? { unsubscribed: true, exhausted: true };
  const carried = fixedCarriedItems(table);
  const { selection, fixtureCells } = selectionOf(input.selected);
  const selectionSet = new Set(selection);
  const generativeOps = new Set(
    input.selected.filter((test) => getCheck(test.check)?.kind === 'generative').map((test) => test.operation),
  );
  const selectedCells = new Set(input.selected.map((test) => cellId(operationIdOf(test.operation), test.check)));
  const seconds =
    limits.maxDurationMs !== undefined
      ? (limits.maxDurationMs / 1000) * DURATION_SHARE - RUN_OVERHEAD_S - DURATION_MARGIN_S
      : Number.POSITIVE_INFINITY;
  const capRequests =
    limits.maxRequests !== undefined ? limits.maxRequests - PREFLIGHT_REQUESTS : Number.POSITIVE_INFINITY;
  const shareOf = (cost: Cost) =>
    Math.max(
      Number.isFinite(capRequests) ? totalOf(cost) / Math.max(1, capRequests) : 0,
      Number.isFinite(seconds) ? pacedSecondsOf(cost, limits) / Math.max(1, seconds) : 0,
    );
  const judgedBy = (label: string): Record<string, string[]> =>
    Object.assign(
      {},
      ...GENERATIVE.map((check) => table.tests[budgetKey({ operation: label, check })]?.judgedBy ?? {}),
    );
  const generativeData = (label: string) => [
    ...new Set(GENERATIVE.flatMap((check) => table.tests[budgetKey({ operation: label, check })]?.data ?? [])),
  ];

  const units: Unit[] = [];
  const coversOf = new Map<string, Cover>();
  const sent = intentsSent(input.selected);
  // The requests of each operation's unbudgeted plan: a unit each, judging what it carries, the
  // fixture's cells of its operation and the generative cell of its intent.
  const requestsOf = new Map<string, Unit[]>();
  for (const op of OPERATIONS.filter((entry) => generativeOps.has(entry.label))) {
    const cover = coverFor(input.seed, op.operationId);
    coversOf.set(op.operationId, cover);
    const whole = wholePlanOf(op.operationId, cover, carried, input.refused, sent.get(op.label)!);
    // An item another request of the plan was made for is left to that request: on the target's own
    // values this one may not carry it. What no request was made for (it came with one) goes with it.
    const assigned = new Set(whole.requests.flatMap((request) => [...request.assigned]));
    const targets = new Set(defaultTargets(op.operationId, carried).filter((item) => !assigned.has(item)));
    const own = whole.requests.map((request, index): Unit => {
      const carries = (request.case.items ?? []).filter((item) => request.assigned.has(item) || !assigned.has(item));
      const generative = cellId(op.operationId, CHECK_OF_INTENT[request.case.intent]!);
      const cost: Cost = { [op.path]: 1 };
      if (request.case.chain) addCost(cost, { [CHAIN_PATH[request.case.chain.kind]!]: chainCost(request.case) });
      return {
        id: `request ${op.operationId}#${index}`,
        operationId: op.operationId,
        // With what it was made for, the targets it carries that no request was made for: on the
        // target's own values it may carry less, and what it no longer carries gets a request of its own.
        items: [...new Set([...request.assigned, ...carries.filter((item) => targets.has(item))])],
        judges: [
          ...new Set([
            ...carries,
            ...(fixtureCells.get(op.operationId) ?? []),
            ...(selectedCells.has(generative) ? [generative] : []),
          ]),
        ],
        own: {},
        data: generativeData(op.label),
        share: shareOf(cost),
      };
    });
    requestsOf.set(op.operationId, own);
    units.push(...own);
  }

  const alwaysCells: string[] = [];
  const sentinelCells = new Map<string, { cell: string; cost: number }[]>();
  for (const test of input.selected) {
    const check = getCheck(test.check);
    if (!check || check.kind === 'generative') continue;
    const operationId = operationIdOf(test.operation);
    const cell = cellId(operationId, test.check);
    if (needsMissingKey(test.check, keys)) {
      alwaysCells.push(cell);
      continue;
    }
    const row = table.tests[budgetKey(test)];
    const fixture = fixtureCells.get(operationId) ?? [];
    const generated = generativeOps.has(test.operation);
    if (!DEFERRED_CHECKS.has(test.check) || !generated) {
      // A test that sends its own requests: all of them when no generated request can judge its cell.
      const own =
        DEFERRED_CHECKS.has(test.check) && row?.alone !== undefined
          ? { [pathOfLabel(test.operation)]: row.alone }
          : testCost(test, table);
      const unit: Unit = {
        id: `test ${budgetKey(test)}`,
        operationId,
        items: [],
        judges: [cell, ...(row?.items ?? []).filter((item) => selectionSet.has(item)), ...fixture],
        own,
        data: (DEFERRED_CHECKS.has(test.check) ? row?.aloneData : undefined) ?? row?.data ?? [],
        test,
        share: shareOf(own),
      };
      units.push(unit);
      if (SENTINEL_CHECKS.includes(test.check)) {
        const key = `${apiOf(getOperation(operationId)!)} ${test.check}`;
        sentinelCells.set(key, [...(sentinelCells.get(key) ?? []), { cell, cost: totalOf(own) }]);
      }
      continue;
    }
    // A cell the generated answers judge: on the request that judged it on the reference server.
    const anchors = (judgedBy(test.operation)[`${test.check} ${test.operation}`] ?? []).filter(
      (item) => intentOf(item) !== undefined,
    );
    const requests = requestsOf.get(operationId) ?? [];
    if (RELATION_CHECKS.has(test.check)) {
      const valid = anchors.length > 0 ? anchors : firstValid(operationId, carried);
      const own: Cost = {};
      for (const [where, n] of Object.entries(RELATION_COST[test.check] ?? {}))
        addCost(own, { [where === 'own' ? pathOfLabel(test.operation) : where]: n });
      units.push({
        id: `relation ${cell}`,
        operationId,
        items: valid,
        judges: [cell, ...fixture],
        own,
        data: generativeData(test.operation),
        relation: cell,
        share: shareOf({ ...own, [pathOfLabel(test.operation)]: (own[pathOfLabel(test.operation)] ?? 0) + 1 }),
      });
      continue;
    }
    // An invariant of one answer: judged, for nothing more, by the request that carries what it reads.
    const carrier =
      anchors.length > 0
        ? (requests.find((unit) => anchors.every((item) => unit.items.includes(item))) ??
          requests.find((unit) => unit.items.includes(anchors[0]!)))
        : undefined;
    if (carrier) (carrier.judges as string[]).push(cell);
    else if (test.check === 'response-matches-spec' || anchors.length === 0)
      // Any valid answer judges it.
      for (const unit of requests)
        if (unit.items.some((item) => intentOf(item) === 'valid')) (unit.judges as string[]).push(cell);
    if (!carrier && anchors.length > 0)
      units.push({
        id: `anchored ${cell}`,
        operationId,
        items: anchors,
        judges: [cell, ...fixture],
        own: {},
        data: generativeData(test.operation),
        share: shareOf({ [pathOfLabel(test.operation)]: 1 }),
      });
  }
  const sentinels = [...sentinelCells].map(([key, cells]) => {
    const [group, check] = key.split(' ') as [string, string];
    return { group, check, cells };
  });
  return {
    input,
    table,
    limits,
    selection,
    selectionSet,
    fixtureCells,
    covers: coversOf,
    carried,
    units,
    sentinels,
    alwaysCells,
    capRequests,
    seconds,
    shareOf,
  };
}

/** The class intent each intent of case judges. */
const CLASS_OF_INTENT: Record<string, string> = { positive: 'valid', negative: 'invalid', edge: 'open' };

/**
 * The intents of case each operation's generated requests send: those of its generative tests the
 * run selects (positive-input-accepted carries the valid ones whenever a property runs).
 */
function intentsSent(selected: readonly SelectedTest[]): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const test of selected) {
    const intent = Object.keys(CHECK_OF_INTENT).find((key) => CHECK_OF_INTENT[key] === test.check);
    if (!intent) continue;
    const intents = out.get(test.operation) ?? new Set<string>();
    intents.add(intent);
    out.set(test.operation, intents);
  }
  return out;
}

/** An operation's unbudgeted plan of generated requests, of the intents the run sends. */
function wholePlanOf(
  operationId: string,
  cover: Cover,
  carried: ReadonlySet<string>,
  refused: ReadonlySet<string> | undefined,
  intents: ReadonlySet<string>,
): OperationPlan {
  const classes = new Set([...intents].map((intent) => CLASS_OF_INTENT[intent]));
  const whole = new OperationPlan(cover, refused);
  for (const item of defaultTargets(operationId, carried)) if (classes.has(intentOf(item) ?? '')) whole.add(item);
  return whole;
}

/**
 * What the generated requests of each operation send where the run sends only some of their intents
 * (--checks, --exclude-checks): the requests of those intents in its unbudgeted plan, their chains'
 * reads, and the relations of the checks the run selects (each from a valid answer). Undefined for
 * an operation that sends every intent: the measured table holds what it sends.
 */
export function generatedOf(
  selected: readonly SelectedTest[],
  seed: number,
  refused?: ReadonlySet<string>,
  table: RequestBudget = requestBudget(),
): (label: string) => Cost | undefined {
  const sent = intentsSent(selected);
  const carried = fixedCarriedItems(table);
  const costs = new Map<string, Cost | undefined>();
  return (label) => {
    if (costs.has(label)) return costs.get(label);
    const intents = sent.get(label);
    const op = OPERATIONS.find((entry) => entry.label === label);
    let cost: Cost | undefined;
    if (op && intents && intents.size < GENERATIVE.length) {
      cost = pathsOfPlan(
        wholePlanOf(op.operationId, coverFor(seed, op.operationId), carried, refused, intents),
        op.path,
      );
      if (intents.has('positive'))
        for (const test of selected)
          if (test.operation === label && RELATION_CHECKS.has(test.check) && DEFERRED_CHECKS.has(test.check))
            for (const [where, n] of Object.entries(RELATION_COST[test.check] ?? {}))
              addCost(cost, { [where === 'own' ? op.path : where]: n });
    }
    costs.set(label, cost);
    return cost;
  };
}

/** The first valid input item of an operation's unbudgeted targets: a request a relation can start from. */
function firstValid(operationId: string, carried: ReadonlySet<string>): string[] {
  const first = defaultTargets(operationId, carried).find((item) => intentOf(item) === 'valid');
  return first ? [first] : [];
}

/**
 * Plans a budgeted run (rotation.ts): each unit in turn, the one that judges most of what the ledger
 * ranks first for what it costs, as long as it fits the budget (its test data, the key preflight and
 * every paced path's time included). Each operation's generated requests are then made from the
 * items chosen in the model's order, as the unbudgeted plan makes them, where the budget still holds
 * that (a packing can be what shows a fault: a year range with an order by citations brings a later
 * year to the first page). A budget that holds no unit at all is refused (BudgetTooSmall).
 */
function planBudgeted(context: Context, history: ReadonlyMap<string, ItemHistory> | undefined): PricedPlan {
  const { input, limits, capRequests, seconds } = context;
  const used: Cost = {};
  const fits = (cost: Cost): boolean => {
    if (totalOf(used) + totalOf(cost) > capRequests) return false;
    const next = { ...used };
    addCost(next, cost);
    return pacedSecondsOf(next, limits) <= seconds;
  };
  const plans = new Map<string, OperationPlan>();
  const planOf = (operationId: string) => {
    let plan = plans.get(operationId);
    if (!plan) {
      plan = new OperationPlan(context.covers.get(operationId)!, input.refused);
      plans.set(operationId, plan);
    }
    return plan;
  };
  const targets: Record<string, string[]> = {};
  const found = new Set<DiscoveryItem>();
  const cells = new Set<string>();
  const relations = new Set<string>();
  /** The requests adding items to an operation's plan costs (none when planned requests carry them or they pack into one). */
  const costOfItems = (operationId: string, items: readonly string[], commit: boolean): Cost | undefined => {
    if (items.length === 0) return {};
    const op = getOperation(operationId)!;
    const plan = planOf(operationId);
    const trial = commit ? plan : plan.clone();
    const cost: Cost = {};
    for (const item of items) {
      const carrier = trial.cover.carriers.get(item);
      const added = trial.add(item);
      if (added === undefined) return undefined;
      if (added === 0) continue;
      const chain = carrier ? chainCost(carrier.case) : 0;
      addCost(cost, { [op.path]: added - chain });
      if (chain > 0 && carrier?.case.chain) addCost(cost, { [CHAIN_PATH[carrier.case.chain.kind]!]: chain });
    }
    if (commit)
      targets[operationId] = [
        ...(targets[operationId] ?? []),
        ...items.filter((item) => !targets[operationId]?.includes(item)),
      ];
    return cost;
  };
  const tryUnit = (unit: Unit): boolean => {
    const cost = costOfItems(unit.operationId, unit.items, false);
    if (!cost) return false;
    addCost(cost, unit.own);
    const data = [...needsOf(unit.data)].filter((item) => !found.has(item));
    for (const item of data)
      if (DISCOVERY_REQUESTS[item].first > 0) addCost(cost, { [discoveryPath(item)]: DISCOVERY_REQUESTS[item].first });
    if (!fits(cost)) return false;
    costOfItems(unit.operationId, unit.items, true);
    for (const item of data) found.add(item);
    addCost(used, cost);
    if (unit.test) cells.add(cellId(unit.operationId, unit.test.check));
    if (unit.relation) relations.add(unit.relation);
    return true;
  };

  // What the ledger ranks first: failures, then due sentinels, then never judged, then the oldest.
  const forced = new Set(
    dueSentinels(context.sentinels, history, Number.isFinite(capRequests) ? capRequests : Number.POSITIVE_INFINITY),
  );
  const weightOf = (item: string) =>
    context.selectionSet.has(item) ? (forced.has(item) ? WEIGHT.due : 0) + itemWeight(history, item) : 0;
  const chosen = chooseUnits(context.units, weightOf, input.revealing ?? {}, tryUnit);
  if (chosen.length === 0) throw tooSmall(context);

  // Each operation's requests from its chosen items in the model's order, where the budget holds that.
  for (const [operationId, plan] of plans) {
    const chosenItems = new Set(targets[operationId] ?? []);
    const canonical = defaultTargets(operationId, context.carried).filter((item) => chosenItems.has(item));
    const rest = [...chosenItems].filter((item) => !canonical.includes(item));
    const rebuilt = new OperationPlan(plan.cover, input.refused);
    for (const item of [...canonical, ...rest]) rebuilt.add(item);
    const op = getOperation(operationId)!;
    const before = pathsOfPlan(plan, op.path);
    const after = pathsOfPlan(rebuilt, op.path);
    const next = { ...used };
    for (const path of new Set([...Object.keys(before), ...Object.keys(after)]))
      next[path] = (next[path] ?? 0) - (before[path] ?? 0) + (after[path] ?? 0);
    if (totalOf(next) > capRequests || pacedSecondsOf(next, limits) > seconds) continue;
    for (const path of Object.keys(next)) used[path] = next[path]!;
    plans.set(operationId, rebuilt);
    targets[operationId] = [...canonical, ...rest];
  }

  // What the run judges: what its units judge, and what its generated requests carry.
  const judged = new Set<string>(chosen.flatMap((unit) => unit.judges));
  for (const [operationId, plan] of plans) {
    for (const request of plan.requests) {
      for (const item of request.case.items ?? []) judged.add(item);
      const generative = cellId(operationId, CHECK_OF_INTENT[request.case.intent]!);
      if (context.selectionSet.has(generative)) {
        judged.add(generative);
        cells.add(generative);
      }
    }
    if (plan.requests.length > 0) for (const cell of context.fixtureCells.get(operationId) ?? []) judged.add(cell);
  }
  for (const cell of context.alwaysCells) cells.add(cell);
  const notPlanned = context.selection.filter((item) => !judged.has(item));
  const requests = totalOf(used) + PREFLIGHT_TYPICAL;
  return {
    kgatePlan: 1,
    targets,
    cells: [...cells],
    relations: [...relations],
    budgeted: true,
    budget: budgetText(limits),
    notPlanned,
    planned: context.selection.length - notPlanned.length,
    order: orderBySlowest(used, limits),
    estimate: {
      requests,
      byPath: used,
      seconds: secondsOf(used, limits),
      perKey: keysOf(
        input.selected.filter(
          (test) =>
            cells.has(cellId(operationIdOf(test.operation), test.check)) &&
            !needsMissingKey(test.check, input.keys ?? { unsubscribed: true, exhausted: true }),
        ),
        context.table,
        requests,
      ),
    },
    ...(input.refused ? { refused: [...input.refused] } : {}),
  };
}

/**
 * The runs a ledger at this budget takes to judge every item of the selection once, from a new
 * ledger: its runs planned one after another, each judging what its plan holds (with `judgedShare`,
 * the share of what a ledger's runs planned that they judged, the runs stretched to match).
 */
function cycleOf(context: Context, judgedShare = 1): number {
  const reachable = new Set(context.units.flatMap((unit) => unit.judges));
  const wanted = context.selection.filter((item) => reachable.has(item));
  const history = new Map<string, ItemHistory>();
  const seen = new Set<string>();
  for (let run = 1; run <= CYCLE_MOST_RUNS; run++) {
    const plan = planBudgeted(context, history);
    for (const entry of history.values()) if (entry.runsAgo !== undefined) entry.runsAgo++;
    const left = new Set(plan.notPlanned);
    for (const item of context.selection)
      if (!left.has(item)) {
        history.set(item, { runsAgo: 0 });
        seen.add(item);
      }
    // A target on which a tenth of what is planned is not judged takes about a tenth more runs.
    if (wanted.every((item) => seen.has(item)))
      return Math.max(run, Math.round(run / Math.max(0.5, Math.min(1, judgedShare))));
  }
  return CYCLE_MOST_RUNS + 1;
}

/**
 * What a run with a ledger sends first: the items it plans that failed last time, that a quota cut
 * short, that were never judged, that were judged before.
 */
function sendsFirstOf(
  context: Context,
  plan: PricedPlan,
  history: ReadonlyMap<string, ItemHistory> | undefined,
): SendsFirst {
  const left = new Set(plan.notPlanned);
  const out: SendsFirst = { failed: 0, never: 0, before: 0 };
  for (const item of context.selection) {
    if (left.has(item)) continue;
    const seen = history?.get(item);
    if (seen?.failed) out.failed++;
    else if (seen?.cutShort) out.cutShort = (out.cutShort ?? 0) + 1;
    else if (seen?.runsAgo === undefined) out.never++;
    else {
      out.before++;
      out.oldest = Math.max(out.oldest ?? 0, seen.runsAgo + 1);
    }
  }
  return out;
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
    addCost(cost, { [path]: 1 });
    if (request.case.chain) addCost(cost, { [CHAIN_PATH[request.case.chain.kind]!]: 1 });
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

/** The refusal of a budget that holds no judged answer, naming the smallest that would hold one. */
function tooSmall(context: Context): BudgetTooSmall {
  const { limits } = context;
  const priced = context.units.map((unit) => {
    const cost: Cost = { ...unit.own };
    if (unit.items.length > 0) addCost(cost, { [getOperation(unit.operationId)!.path]: 1 });
    for (const item of needsOf(unit.data))
      if (DISCOVERY_REQUESTS[item].first > 0) addCost(cost, { [discoveryPath(item)]: DISCOVERY_REQUESTS[item].first });
    return cost;
  });
  const requests = Math.min(...priced.map((cost) => totalOf(cost))) + PREFLIGHT_REQUESTS;
  const seconds = Math.ceil(
    (Math.min(...priced.map((cost) => pacedSecondsOf(cost, limits))) + RUN_OVERHEAD_S + DURATION_MARGIN_S) /
      DURATION_SHARE,
  );
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
  const quota = context.input.quota;
  if (quota && limits.maxRequests === quota.left)
    return new BudgetTooSmall(
      `the month's quota (${quotaText(quota)}) cannot hold one judged answer, which needs ${requests} requests with its test data and the key preflight; the quota comes back next month`,
      smallest,
    );
  return new BudgetTooSmall(
    `the budget (${budget}) cannot hold one judged answer: the cheapest test or request of the selection, with its test data and the key preflight (at most ${PREFLIGHT_REQUESTS} requests), needs more; the smallest budget that would: ${needs.join(' and ') || 'a larger one'}`,
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

/** `n thing(s)` in words: `1 item`, `3 items`. */
function count(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** The lines a run's announcement starts with: its ledger's, and its quota's. */
export function planPreamble(plan: PricedPlan): string[] {
  return [
    ...(plan.ledger ? [describeLedger(plan)!] : []),
    ...(plan.quota ? [describeQuota(plan.quota, plan.estimate.requests, plan.cycle)] : []),
  ];
}

/**
 * The ledger's line of a run's announcement: the file, its runs so far, and what this run sends
 * first (`3 items that failed last run, 412 never judged, 40 judged before (the oldest 6 runs ago)`).
 */
export function describeLedger(plan: PricedPlan): string | undefined {
  if (!plan.ledger) return undefined;
  const runs = plan.ledger.runs === 0 ? 'a new ledger, no runs yet' : `${count(plan.ledger.runs, 'run')} so far`;
  const first = plan.sendsFirst;
  const parts = first
    ? [
        ...(first.failed > 0 ? [`${count(first.failed, 'item')} that failed the last time judged`] : []),
        ...((first.cutShort ?? 0) > 0
          ? [`${count(first.cutShort!, 'item')} a call volume quota that ran out kept an earlier run from judging`]
          : []),
        ...(first.never > 0 ? [`${first.never} never judged`] : []),
        ...(first.before > 0
          ? [
              `${first.before} judged before${first.oldest !== undefined ? ` (the oldest ${count(first.oldest, 'run')} ago)` : ''}`,
            ]
          : []),
      ]
    : [];
  return `kgate conform: ledger ${plan.ledger.file}: ${runs}; this run sends ${parts.length > 0 ? `first ${parts.join(', then ')}` : 'what its plan holds'}`;
}

/** The line `kgate conform` prints before a budgeted run: what it judges, what it sends, how long it takes. */
export function describePlan(plan: PricedPlan, limits: Limits, maxDurationMs: number | undefined): string {
  const budget = [
    ...(maxDurationMs !== undefined ? [`--max-duration ${humanSeconds(maxDurationMs / 1000)}`] : []),
    ...(plan.quota
      ? [plan.budget ?? quotaText(plan.quota)]
      : limits.maxRequests !== undefined
        ? [`--max-requests ${limits.maxRequests}`]
        : []),
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
  const items = plan.planned + plan.notPlanned.length;
  const left =
    plan.notPlanned.length === 0
      ? 'every item judged in this run'
      : `${plan.notPlanned.length} not judged in this run${plan.ledger ? '' : ' (a --ledger file rotates them through the next runs)'}`;
  const cycle =
    plan.cycle === undefined
      ? ''
      : plan.cycle > CYCLE_MOST_RUNS
        ? `; at this budget a full cycle takes more than ${CYCLE_MOST_RUNS} runs`
        : `; at this budget a full cycle takes about ${count(plan.cycle, 'run')}`;
  return `kgate conform: plan for the budget (${budget}): ${plan.planned} of ${items} items judged in this run, about ${plan.estimate.requests} requests${perKey ? ` (per key: ${perKey})` : ''}${time}; ${left}${cycle}`;
}
