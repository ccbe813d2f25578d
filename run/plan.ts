// The coverage plan of a run: which fixed tests send their own requests, and which input items the
// generated requests of each operation carry (contracts/coverage/plan.ts packs them into requests).
import { readFileSync } from 'node:fs';
import { GENERATIVE_CHECK_IDS } from '../contracts/checks/index.ts';
import { intentOf } from '../contracts/coverage/inputs.ts';
import { inputItemsOf } from '../contracts/coverage/plan.ts';
import { RELATIONS } from '../contracts/properties/relations.ts';
import type { ConformOptions } from './options.ts';
import { type RequestBudget, requestBudget } from './request-budget.ts';

/**
 * Checks whose fixed test only judges answers its property judges on every generated valid answer
 * too (an invariant of one answer, or a relation the generative phase runs): in a planned run it
 * sends nothing when the operation's generated requests already judged its cell in the same worker,
 * and its own request otherwise. No request is sent twice for two checks that can judge one answer.
 */
export const DEFERRED_CHECKS: ReadonlySet<string> = new Set([
  'response-matches-spec',
  'paging-respects-size',
  'paging-is-consistent',
  'interpretations-ordered-by-prob',
  'orderby-is-honoured',
  'related-events-ordered-by-time',
  'hot-events-match-date',
  'histogram-ordered-by-count',
  'histogram-counts-are-bounded',
  'request-is-echoed',
  'results-match-expr',
  'interpretation-output-matches-parse',
  'interpretations-are-evaluable',
  'histogram-agrees-with-evaluate',
  'similarity-is-symmetric',
  'similarity-of-identical-is-one',
  'get-and-post-agree',
  'event-documents-agree',
  'encoding-does-not-matter',
  'ranking-references-resolve',
  'event-ids-are-32-hex',
]);

/** The checks a relation of the generated requests judges (a relation costs requests of its own). */
export const RELATION_CHECKS: ReadonlySet<string> = new Set(RELATIONS.map((relation) => relation.check));

/** Whether a run plans its generated requests (the default) rather than drawing `--generate N` of them. */
export function plansCoverage(options: Pick<ConformOptions, 'generate' | 'draw'>): boolean {
  return options.generate > 0 && options.draw !== true;
}

/** The plan a run's workers follow, as the CLI writes it into the run's folder. */
export interface RunPlan {
  kgatePlan: 1;
  /** Per operation id: the input items its generated requests carry, in the order planned. */
  targets: Record<string, string[]>;
  /** Open items the target refused before: sent alone. */
  refused?: string[];
  /** The cells whose tests judge them in this run; absent: every cell of the selection. */
  cells?: string[];
  /**
   * A budgeted plan's relation cells the generated requests judge: only their relations run (a
   * relation costs requests); absent: every relation of the checks the run selects.
   */
  relations?: string[];
  /** Operation ids, those whose paced requests take longest first: their tests are started first. */
  order?: string[];
  /** A budgeted plan: whether one, its budget in words, the items it leaves out, how many it judges, what it announced. */
  budgeted?: boolean;
  budget?: string;
  notPlanned?: string[];
  planned?: number;
  /** With a ledger or a quota: the runs a ledger at this budget takes to judge every item once (more than CYCLE_MOST_RUNS: that many plus one). */
  cycle?: number;
  estimate?: { requests: number; seconds: number; byPath?: Record<string, number> };
}

/** Which faults of the reference server's catalogue each coverage item caught (npm run docs:coverage). */
export const REVEALING_PATH = new URL('./revealing.json', import.meta.url);

let revealing: Record<string, string[]> | undefined;

/** The faults each item caught in the last measured fault sweep: what ranks a budgeted plan's items. */
export function revealingItems(): Record<string, string[]> {
  if (!revealing) {
    try {
      revealing = (JSON.parse(readFileSync(REVEALING_PATH, 'utf8')) as { items: Record<string, string[]> }).items;
    } catch {
      revealing = {};
    }
  }
  return revealing;
}

/** File of a run's folder holding its plan. */
export const PLAN_FILE = 'plan.json';

/**
 * The input items the fixed tests carry (measured on the reference server: request-budget.json),
 * those of the deferred checks left out: they may send nothing.
 */
export function fixedCarriedItems(table: RequestBudget = requestBudget()): Set<string> {
  const out = new Set<string>();
  for (const [key, test] of Object.entries(table.tests)) {
    const check = key.slice(key.lastIndexOf(' ') + 1);
    if (DEFERRED_CHECKS.has(check) || GENERATIVE_CHECK_IDS.includes(check)) continue;
    for (const item of test.items ?? []) out.add(item);
  }
  return out;
}

/**
 * An operation's targets in an unbudgeted run: every input item of it the fixed tests do not carry,
 * and of each intent at least one, so each generative check's cell has a request of its intent.
 */
export function defaultTargets(operationId: string, carried: ReadonlySet<string> = fixedCarriedItems()): string[] {
  const items = inputItemsOf(operationId);
  const targets = items.filter((item) => !carried.has(item));
  for (const intent of ['valid', 'invalid', 'open'] as const) {
    if (targets.some((item) => intentOf(item) === intent)) continue;
    const first = items.find((item) => intentOf(item) === intent);
    if (first) targets.push(first);
  }
  return targets;
}

let refused: Set<string> | undefined;

/**
 * Open items the target refuses, as far as kgate knows before the run: the plan's own list (from
 * the ledger of earlier runs against it), else what the reference server refused when measured.
 */
export function refusedItems(options: Pick<ConformOptions, 'planFile'>): ReadonlySet<string> {
  if (options.planFile) return new Set(readPlan(options.planFile).refused ?? []);
  return referenceRefused();
}

/** The open items the reference server refused when the request table was measured. */
export function referenceRefused(): ReadonlySet<string> {
  refused ??= new Set(Object.values(requestBudget().tests).flatMap((test) => test.refused ?? []));
  return refused;
}

let read: { file: string; plan: RunPlan } | undefined;

/** A run's plan, as the CLI wrote it (read once per process). */
export function readRunPlan(file: string): RunPlan {
  return readPlan(file);
}

function readPlan(file: string): RunPlan {
  if (read?.file !== file) read = { file, plan: JSON.parse(readFileSync(file, 'utf8')) as RunPlan };
  return read.plan;
}

/** The reason of a cell not judged in this run (a budgeted plan left it out). */
export const NOT_JUDGED_IN_RUN = 'not judged in this run';

/**
 * Why a cell's test judges nothing in this run: its plan left the cell out to fit the budget
 * (undefined when the cell is planned, or the run has no plan).
 */
export function notPlanned(
  options: Pick<ConformOptions, 'planFile'>,
  operationId: string,
  check: string,
): string | undefined {
  if (!options.planFile) return undefined;
  const plan = readPlan(options.planFile);
  if (!plan.cells || plan.cells.includes(`cell:${operationId}:${check}`)) return undefined;
  return `${NOT_JUDGED_IN_RUN}: the run's budget held items ranked before it (what failed last time, then what was never or longest ago judged); a ledger (--ledger FILE) rotates every item through its runs`;
}

/**
 * Whether the generated requests of an operation run a relation's check: in a budgeted run only
 * where its plan holds the relation's cell (a relation costs requests); else wherever selected.
 */
export function relationPlanned(
  options: Pick<ConformOptions, 'planFile'>,
  operationId: string,
  check: string,
): boolean {
  if (!options.planFile || !RELATION_CHECKS.has(check)) return true;
  const relations = readPlan(options.planFile).relations;
  return !relations || relations.includes(`cell:${operationId}:${check}`);
}

/** The targets of an operation for a run: its plan file's, or the unbudgeted default. */
export function targetsOf(options: Pick<ConformOptions, 'planFile'>, operationId: string): string[] {
  if (options.planFile) return readPlan(options.planFile).targets[operationId] ?? [];
  return defaultTargets(operationId);
}

/** The order of the operations a run's plan starts them in, when it says one. */
export function planOrder(options: Pick<ConformOptions, 'planFile'>): string[] | undefined {
  return options.planFile ? readPlan(options.planFile).order : undefined;
}
