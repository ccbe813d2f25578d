// What a budgeted run judges, and in what order: every item of the coverage model rotates through the
// runs of a ledger, each run packed with what the ledger has not seen. A run chooses units (a fixed
// test, one request of the unbudgeted plan, a relation) greedily by what they reveal for what they
// cost: items that failed last time first, then those never judged or judged longest ago, then those
// that caught the most faults of the reference server's catalogue. Each API group's auth and error
// cells come back at least once every SENTINEL_RUNS runs, and on every run when they take little of it.

/** Requests by path of the spec. */
export type Cost = Record<string, number>;

/** Adds a cost into another. */
export function addCost(into: Cost, cost: Cost): void {
  for (const [path, n] of Object.entries(cost)) into[path] = (into[path] ?? 0) + n;
}

/** The requests of a cost, every path together. */
export function totalOf(cost: Cost): number {
  return Object.values(cost).reduce((sum, n) => sum + n, 0);
}

/** What a ledger says of an item (see ledger.ts). */
export interface ItemHistory {
  /** Runs since the item was last judged (0: the last run judged it); absent: never judged. */
  runsAgo?: number;
  /** The item failed the last time it was judged. */
  failed?: boolean;
  /** A run planned it and the key's call volume quota ran out before it was judged. */
  cutShort?: boolean;
}

/**
 * What an item is worth to a run, by what the ledger says of it: one that failed last time, one a
 * quota that ran out cut short and a sentinel that is due outweigh everything (they are judged
 * first), one never judged outweighs any judged before, and among those judged before the older the
 * more. Without a ledger every item is new. Within a rank, what catches faults of the catalogue weighs more (see unitScore).
 */
export const WEIGHT = { failed: 1e9, due: 1e9, never: 1e6, aged: 1e3 } as const;

/** The weight of an item by its history (see WEIGHT). */
export function itemWeight(history: ReadonlyMap<string, ItemHistory> | undefined, item: string): number {
  if (!history) return WEIGHT.never;
  const seen = history.get(item);
  if (seen?.failed) return WEIGHT.failed;
  // What a quota cut short is sent again first, with what failed.
  if (seen?.cutShort) return WEIGHT.due;
  if (seen?.runsAgo === undefined) return WEIGHT.never;
  // An item judged long ago stays below one never judged.
  return WEIGHT.aged * Math.min(seen.runsAgo + 1, WEIGHT.never / WEIGHT.aged - 1);
}

/** At most this many runs between two judgements of each API group's auth cells, and of its error cells. */
export const SENTINEL_RUNS = 3;
/** The share of a run's room under which the sentinels of every group are judged on every run. */
export const SENTINEL_SHARE = 0.1;
/** What a group's sentinels judge: its auth (a request without a key refused) and its errors (a missing parameter refused). */
export const SENTINEL_CHECKS: readonly string[] = ['auth-required', 'missing-parameter-rejected'];

/** One sentinel: a group, a check, and the cells of the group that can stand for it, each with what it costs. */
export interface Sentinel {
  group: string;
  check: string;
  cells: { cell: string; cost: number }[];
}

/**
 * The cells a run must judge to keep each group's auth and error cells within SENTINEL_RUNS runs:
 * for each sentinel that no cell judged within the last SENTINEL_RUNS - 1 runs (or on every run, when
 * all of them together cost at most `share` of the run's room), the cell judged longest ago, the
 * cheaper first among equals. Without a ledger every run judges them.
 */
export function dueSentinels(
  sentinels: readonly Sentinel[],
  history: ReadonlyMap<string, ItemHistory> | undefined,
  room: number,
  share = SENTINEL_SHARE,
): string[] {
  const age = (cell: string) => {
    const seen = history?.get(cell);
    return seen?.runsAgo === undefined ? Number.POSITIVE_INFINITY : seen.runsAgo;
  };
  const cheapest = sentinels.reduce(
    (sum, sentinel) => sum + Math.min(...sentinel.cells.map((cell) => cell.cost), Number.POSITIVE_INFINITY),
    0,
  );
  const everyRun = !history || cheapest <= share * room;
  const out: string[] = [];
  for (const sentinel of sentinels) {
    if (sentinel.cells.length === 0) continue;
    const recent = sentinel.cells.some((cell) => age(cell.cell) < SENTINEL_RUNS - 1);
    if (recent && !everyRun) continue;
    const oldest = [...sentinel.cells].sort((a, b) => age(b.cell) - age(a.cell) || a.cost - b.cost)[0]!;
    out.push(oldest.cell);
  }
  return out;
}

/** A unit a run can plan: what it judges, and its price as a share of the run's room (0 when it costs nothing). */
export interface Choice {
  id: string;
  /** The items judged once it is planned. */
  judges: readonly string[];
  /** What it costs, as a share of the tightest of the run's budgets (requests, time by path). */
  share: number;
}

/**
 * The value of a unit for what it costs: the weight of the items it judges that nothing planned so
 * far judges (those catching faults of the catalogue that nothing planned catches yet weigh up to
 * twice as much), over its share of the room.
 */
export function unitScore(
  unit: Choice,
  weightOf: (item: string) => number,
  planned: ReadonlySet<string>,
  newFaults: (item: string) => number,
): number {
  let value = 0;
  for (const item of unit.judges) {
    if (planned.has(item)) continue;
    const weight = weightOf(item);
    value += weight * (1 + 0.25 * Math.min(4, newFaults(item)));
  }
  return value / Math.max(unit.share, 1e-6);
}

/**
 * Chooses units greedily: the one of highest score (unitScore) that `tryUnit` can fit, until no unit
 * with something left to judge fits. `tryUnit` prices the unit against what is planned and plans it
 * when it fits. Returns the units planned, in the order chosen. A unit's score only falls as others
 * are planned (what they judge no longer counts), so each is scored again only when it comes up.
 */
export function chooseUnits<T extends Choice>(
  units: readonly T[],
  weightOf: (item: string) => number,
  revealing: Readonly<Record<string, readonly string[]>>,
  tryUnit: (unit: T) => boolean,
): T[] {
  const planned = new Set<string>();
  const caught = new Set<string>();
  const newFaults = (item: string) => {
    const faults = revealing[item];
    if (!faults) return 0;
    let count = 0;
    for (const fault of faults) if (!caught.has(fault)) count++;
    return count;
  };
  const score = (unit: T) => unitScore(unit, weightOf, planned, newFaults);
  const heap = new MaxHeap<T>();
  for (const [order, unit] of units.entries()) heap.push(score(unit), order, unit);
  const chosen: T[] = [];
  for (;;) {
    const top = heap.pop();
    if (!top || top.score <= 0) break;
    const now = score(top.value);
    if (now <= 0) continue;
    // Scored before something else was planned: scored again, it goes back unless it still leads.
    const next = heap.peek();
    if (now < top.score && next && now < next.score) {
      heap.push(now, top.order, top.value);
      continue;
    }
    if (!tryUnit(top.value)) continue;
    chosen.push(top.value);
    for (const item of top.value.judges) {
      planned.add(item);
      for (const fault of revealing[item] ?? []) caught.add(fault);
    }
  }
  return chosen;
}

/** A binary max-heap by score (ties: the lower order first). */
class MaxHeap<T> {
  private readonly entries: { score: number; order: number; value: T }[] = [];

  private above(a: number, b: number): boolean {
    const x = this.entries[a]!;
    const y = this.entries[b]!;
    return x.score > y.score || (x.score === y.score && x.order < y.order);
  }

  private swap(a: number, b: number): void {
    const entry = this.entries[a]!;
    this.entries[a] = this.entries[b]!;
    this.entries[b] = entry;
  }

  push(score: number, order: number, value: T): void {
    this.entries.push({ score, order, value });
    let at = this.entries.length - 1;
    while (at > 0) {
      const parent = (at - 1) >> 1;
      if (!this.above(at, parent)) break;
      this.swap(at, parent);
      at = parent;
    }
  }

  peek(): { score: number; order: number; value: T } | undefined {
    return this.entries[0];
  }

  pop(): { score: number; order: number; value: T } | undefined {
    const top = this.entries[0];
    const last = this.entries.pop();
    if (this.entries.length === 0 || !last) return top;
    this.entries[0] = last;
    let at = 0;
    for (;;) {
      const left = 2 * at + 1;
      const right = left + 1;
      let best = at;
      if (left < this.entries.length && this.above(left, best)) best = left;
      if (right < this.entries.length && this.above(right, best)) best = right;
      if (best === at) break;
      this.swap(at, best);
      at = best;
    }
    return top;
  }
}
