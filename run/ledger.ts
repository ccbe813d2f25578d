// The coverage ledger (--ledger FILE): which items each run judged, with its seed, verdict, date and
// what judging each cost, and what each run sent, kept between runs by the CI job as a drift history
// is. The next run plans first what failed the last time, then what was never or longest ago judged
// (run/rotation.ts), so a budgeted gate on every push judges every item within a cycle of runs. A
// file that is not a ledger of this target and spec is refused, never overwritten; a run merges its
// judgements into the ledger as it is when the run ends, under a lock (two runs ending together both
// land), and writes it whole, aside, then renamed into place.
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { coverageItems } from '../contracts/coverage/items.ts';
import type { Failure } from '../contracts/failure.ts';
import { withFileLock } from '../http/pacing.ts';
import { OPERATIONS } from '../openapi/spec.ts';
import type { CoverageSummary, TargetSummary, TestRecord } from '../reporting/summary.ts';
import type { ItemHistory } from './rotation.ts';

/** Version of the ledger's format. */
export const LEDGER_VERSION = 1;
/** Runs a ledger keeps the summary of (items keep their last judgement whatever the age). */
export const LEDGER_RUNS = 100;

/** One run as the ledger keeps it. */
export interface LedgerRun {
  run: number;
  /** When it started (ISO 8601, UTC). */
  date: string;
  seed: number;
  /** Its verdict; `error`: none (it judged nothing, or a quota ran out before it judged a failure). */
  verdict: 'pass' | 'fail' | 'error';
  /** Items it judged, of the items of its selection. */
  judged: number;
  items: number;
  /** Items its plan held (a budgeted run's; absent: every item). */
  planned?: number;
  /** Requests it sent: its tests' and test data's, and the key preflight's where the run counted them (a request budget does). */
  requests?: number;
}

/** An item's last judgement, and its last failure. */
export interface LedgerEntry {
  /** The run that last judged it, its date and seed, and the item's verdict then. */
  run: number;
  date: string;
  seed: number;
  verdict: 'pass' | 'fail';
  /** The last time it failed: the run, date, seed, what failed, and the command that sends it again. */
  failed?: { run: number; date: string; seed: number; title: string; replay?: string };
  /**
   * What judging it cost when last judged: the requests of the test that judged it shared among the
   * items that test judged (the cheapest share where several did).
   */
  cost?: number;
}

/** The ledger file. */
export interface Ledger {
  kgateCoverageLedger: typeof LEDGER_VERSION;
  /** The target it belongs to (as run.json names it: keys masked, no credentials). */
  target: string;
  /** SHA-256 of the spec its items come from: another spec has other items. */
  specSha256: string;
  runs: LedgerRun[];
  items: Record<string, LedgerEntry>;
  /** Requests its runs sent, by calendar month (UTC, `2026-12`): what a quota's share is made from, however many runs a month. */
  months?: Record<string, number>;
  /**
   * Items a run planned and did not judge because the key's call volume quota ran out: the next
   * runs send them first (after what failed), until one judges them.
   */
  cutShort?: string[];
}

/** A ledger file that cannot be used: the message names the file and the rule. */
export class LedgerError extends Error {
  override name = 'LedgerError';
  /** The rule the file broke, in words. */
  constructor(
    message: string,
    readonly rule: string,
  ) {
    super(message);
  }
}

/**
 * Reads a ledger for a run against `target` with the spec `specSha256`: an absent file is a new,
 * empty ledger; a file that is not JSON, not a ledger, or the ledger of another target or spec is
 * refused (LedgerError), and left as it is.
 */
export function readLedger(file: string, target: string, specSha256: string): Ledger {
  if (!existsSync(file)) return { kgateCoverageLedger: LEDGER_VERSION, target, specSha256, runs: [], items: {} };
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new LedgerError(
      `ledger ${file} is not JSON (${(error as Error).message}): a ledger is the JSON file kgate conform --ledger writes; it is left as it is`,
      'is JSON',
    );
  }
  const ledger = parsed as Partial<Ledger>;
  if (
    typeof parsed !== 'object' ||
    parsed === null ||
    ledger.kgateCoverageLedger !== LEDGER_VERSION ||
    !Array.isArray(ledger.runs) ||
    typeof ledger.items !== 'object' ||
    ledger.items === null
  )
    throw new LedgerError(
      `ledger ${file} is not a coverage ledger of this kgate (kgateCoverageLedger ${LEDGER_VERSION}, runs, items): it is left as it is`,
      'is a coverage ledger of this kgate',
    );
  if (ledger.target !== target)
    throw new LedgerError(
      `ledger ${file} belongs to another target (${String(ledger.target)}), this run judges ${target}: one ledger per target; it is left as it is`,
      'belongs to the target of the run',
    );
  if (ledger.specSha256 !== specSha256)
    throw new LedgerError(
      `ledger ${file} was kept for another version of the spec (its items differ): start a new ledger for this one; it is left as it is`,
      'was kept for the spec of the run',
    );
  return ledger as Ledger;
}

/** Writes a ledger whole, aside, then renames it into place: a reader never meets half a file. */
export function writeLedger(file: string, ledger: Ledger): void {
  const aside = `${file}.${process.pid}.tmp`;
  try {
    writeFileSync(aside, `${JSON.stringify(ledger, null, 1)}\n`);
    renameSync(aside, file);
  } finally {
    rmSync(aside, { force: true });
  }
}

/**
 * Merges a run into the ledger file as it is now, under its lock: a run that ended meanwhile has
 * written its own, and both are kept (this run takes the next number). The file is read as
 * readLedger reads it: a file that became damaged or foreign is left as it is (LedgerError).
 */
export function mergeIntoLedgerFile(
  file: string,
  target: string,
  specSha256: string,
  update: (ledger: Ledger) => Ledger,
): Ledger {
  return withFileLock(file, () => {
    const updated = update(readLedger(file, target, specSha256));
    writeLedger(file, updated);
    return updated;
  });
}

/** Of what a ledger's last runs planned, the share they judged (1 when none says; at most 1). */
export function judgedShareOf(ledger: Ledger, runs = 5): number {
  const recent = ledger.runs.filter((run) => run.planned !== undefined && run.planned > 0).slice(-runs);
  const planned = recent.reduce((sum, run) => sum + run.planned!, 0);
  const judged = recent.reduce((sum, run) => sum + Math.min(run.judged, run.planned!), 0);
  return planned > 0 ? Math.min(1, judged / planned) : 1;
}

/** The requests a ledger's runs sent in the calendar month (UTC) of `now`. */
export function sentInMonth(ledger: Ledger, now: Date): number {
  const month = now.toISOString().slice(0, 7);
  const counted = ledger.months?.[month];
  if (typeof counted === 'number' && Number.isFinite(counted)) return counted;
  return ledger.runs.filter((run) => run.date.slice(0, 7) === month).reduce((sum, run) => sum + (run.requests ?? 0), 0);
}

/**
 * What judging each item cost in a run: each test's requests shared among the items it judged (a
 * test that judged nothing spreads none), the cheapest share where several tests judged an item.
 */
export function costsOf(records: readonly TestRecord[]): Map<string, number> {
  const costs = new Map<string, number>();
  const byLabel = new Map(OPERATIONS.map((op) => [op.label, op.operationId]));
  for (const record of records) {
    const operationId = byLabel.get(record.operation);
    const items = [
      ...new Set([
        ...(record.items ?? []),
        ...(operationId && !record.carrier && record.status !== 'skipped'
          ? [`cell:${operationId}:${record.check}`]
          : []),
      ]),
    ];
    const requests = record.requests?.test ?? 0;
    if (items.length === 0) continue;
    const share = Math.round((requests / items.length) * 1000) / 1000;
    for (const item of items) costs.set(item, Math.min(costs.get(item) ?? share, share));
  }
  return costs;
}

/**
 * What the ledger says of each item for the next plan: runs since it was judged, whether it failed
 * then, and whether a quota that ran out cut it short.
 */
export function historyOf(ledger: Ledger): Map<string, ItemHistory> {
  const last = ledger.runs.at(-1)?.run ?? 0;
  const history = new Map<string, ItemHistory>(
    Object.entries(ledger.items).map(([item, entry]) => [
      item,
      { runsAgo: last - entry.run, ...(entry.verdict === 'fail' ? { failed: true } : {}) },
    ]),
  );
  for (const item of ledger.cutShort ?? []) history.set(item, { ...history.get(item), cutShort: true });
  return history;
}

/** What a run's plan takes from its ledger: each item's history, the file and its runs, and how far a cycle stretches on this target. */
export function ledgerPlanInput(
  ledger: Ledger,
  file: string,
): { history: Map<string, ItemHistory>; ledger: { file: string; runs: number }; cycle: true; judgedShare: number } {
  return {
    history: historyOf(ledger),
    ledger: { file, runs: ledger.runs.at(-1)?.run ?? 0 },
    cycle: true,
    judgedShare: judgedShareOf(ledger),
  };
}

/** The open items the target refused in the runs the ledger kept (sent alone, never packed). */
export function refusedOf(ledger: Ledger & { refused?: string[] }): string[] {
  return ledger.refused ?? [];
}

/**
 * The items a run judged and those that failed: the cells its matrix judged (pass, warn, known or
 * fail), the input items its tests' answers judged, failed where a failure names them (its request
 * carried them) or their cell failed.
 */
export function judgedItems(
  target: TargetSummary,
  records: readonly TestRecord[],
): { judged: Set<string>; failed: Map<string, Failure> } {
  const judged = new Set<string>();
  const failed = new Map<string, Failure>();
  const byLabel = new Map(OPERATIONS.map((op) => [op.label, op.operationId]));
  for (const [label, row] of Object.entries(target.matrix)) {
    const operationId = byLabel.get(label);
    if (!operationId) continue;
    for (const [check, cell] of Object.entries(row))
      if (cell === 'pass' || cell === 'warn' || cell === 'known' || cell === 'fail')
        judged.add(`cell:${operationId}:${check}`);
  }
  for (const record of records) for (const item of record.items ?? []) judged.add(item);
  for (const failure of target.failures) {
    const operationId = byLabel.get(failure.operation);
    if (operationId) failed.set(`cell:${operationId}:${failure.check}`, failure);
  }
  for (const record of records)
    for (const finding of record.findings)
      if ((finding.level ?? 'fail') === 'fail' && finding.origin !== 'not-run' && finding.origin !== 'error')
        for (const item of finding.items ?? []) if (!failed.has(item)) failed.set(item, finding);
  return { judged, failed };
}

/** The command that sends a failed generated request again, from its seed line. */
function replayOf(finding: Failure): string | undefined {
  const at = finding.seed?.indexOf('kgate ') ?? -1;
  return at >= 0 ? finding.seed!.slice(at) : undefined;
}

/**
 * The ledger after this run: every item it judged gets its verdict, seed and date (and, when it
 * failed, its failure), and the run its line.
 */
export function updatedLedger(
  ledger: Ledger,
  run: {
    date: string;
    seed: number;
    verdict: 'pass' | 'fail' | 'error';
    items: number;
    planned?: number;
    requests?: number;
  },
  judged: ReadonlySet<string>,
  failed: ReadonlyMap<string, Failure>,
  refused: readonly string[] = [],
  costs: ReadonlyMap<string, number> = new Map(),
  cutShort: readonly string[] = [],
): Ledger & { refused: string[] } {
  const number = (ledger.runs.at(-1)?.run ?? 0) + 1;
  const items = { ...ledger.items };
  for (const item of judged) {
    const failure = failed.get(item);
    // An item no test of its own judged (a fixture's cell, a property's on another test's answer) came for nothing.
    const cost = costs.get(item) ?? (costs.size > 0 ? 0 : items[item]?.cost);
    items[item] = {
      run: number,
      date: run.date,
      seed: run.seed,
      verdict: failure ? 'fail' : 'pass',
      ...(failure
        ? {
            failed: {
              run: number,
              date: run.date,
              seed: run.seed,
              title: `${failure.check}: ${failure.title}`,
              ...(replayOf(failure) ? { replay: replayOf(failure) } : {}),
            },
          }
        : items[item]?.failed
          ? { failed: items[item]!.failed }
          : {}),
      ...(cost !== undefined ? { cost } : {}),
    };
  }
  // What this month's runs sent, kept apart from the runs (only the last LEDGER_RUNS are kept); a
  // ledger without the count starts it from the runs it holds.
  const month = run.date.slice(0, 7);
  const before = sentInMonth(ledger, new Date(`${month}-01T00:00:00Z`));
  const months = Object.fromEntries(
    Object.entries({ ...ledger.months, [month]: before + (run.requests ?? 0) })
      .sort(([a], [b]) => a.localeCompare(b))
      .slice(-13),
  );
  // Cut short by a quota: kept until a run judges them.
  const short = [...new Set([...(ledger.cutShort ?? []), ...cutShort])].filter((item) => !judged.has(item)).sort();
  const { cutShort: _before, ...rest } = ledger;
  return {
    ...rest,
    months,
    ...(short.length > 0 ? { cutShort: short } : {}),
    runs: [...ledger.runs, { run: number, ...run, judged: judged.size }].slice(-LEDGER_RUNS),
    items,
    refused: [...new Set([...((ledger as { refused?: string[] }).refused ?? []), ...refused])].sort(),
  };
}

/**
 * What a run's reports say of coverage: the items of its selection judged in this run and those not
 * (of which its budget left out some), and with a ledger (already holding this run) the items judged
 * since it began, the runs within which every item was judged (only once every item was), the items
 * never judged, and the last failure of each item that failed.
 */
export function coverageSummary(
  selection: readonly string[],
  judged: ReadonlySet<string>,
  notPlanned: readonly string[],
  ledger?: { file: string; ledger: Ledger },
): CoverageSummary {
  const items = new Set(selection);
  const notJudged = selection.filter((item) => !judged.has(item));
  const missed = new Set(notJudged);
  const base: CoverageSummary = {
    items: items.size,
    judged: items.size - notJudged.length,
    notJudged,
    notPlanned: notPlanned.filter((item) => missed.has(item)),
  };
  if (!ledger) return base;
  const last = ledger.ledger.runs.at(-1)?.run ?? 0;
  const entries = Object.entries(ledger.ledger.items).filter(([item]) => items.has(item));
  const never = selection.filter((item) => !ledger.ledger.items[item]).length;
  // The fewest last runs that judged every item: the oldest judgement's age, once every item has one.
  const allWithin =
    never === 0 && entries.length > 0 ? Math.max(...entries.map(([, entry]) => last - entry.run + 1)) : undefined;
  return {
    ...base,
    ledger: {
      file: ledger.file,
      runs: last,
      judged: entries.length,
      ...(allWithin !== undefined ? { allWithin } : {}),
    },
    never,
    lastFailures: entries
      .filter(([, entry]) => entry.failed)
      .map(([item, entry]) => ({ item, ...entry.failed! }))
      .sort((a, b) => b.run - a.run || a.item.localeCompare(b.item)),
  };
}

/**
 * The items of a run's selection, from its test records: the cells of the operations and checks its
 * tests judged (the request fixture's checks on each), and every input item of those operations.
 */
export function selectionOf(records: readonly TestRecord[], fixtureChecks: readonly string[]): string[] {
  const byLabel = new Map(OPERATIONS.map((op) => [op.label, op.operationId]));
  const cells = new Set<string>();
  const operations = new Set<string>();
  for (const record of records) {
    const operationId = byLabel.get(record.operation);
    if (!operationId) continue;
    operations.add(operationId);
    if (!record.carrier) cells.add(`cell:${operationId}:${record.check}`);
    for (const check of fixtureChecks) cells.add(`cell:${operationId}:${check}`);
  }
  const inputs = coverageItems().filter((item) => item.kind === 'input' && operations.has(item.operationId));
  return [...cells, ...inputs.map((item) => item.id)];
}
