// The coverage ledger (--ledger FILE): which items each run judged, with its seed, verdict and date,
// kept between runs by the CI job as a drift history is. The next run plans first what failed the
// last time, then what was judged longest ago (run/budget.ts), so a budgeted gate on every push
// judges every item within a window of runs. A file that is not a ledger of this target and spec is
// refused, never overwritten; the ledger is written whole, aside, then renamed into place.
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { coverageItems } from '../contracts/coverage/items.ts';
import type { Failure } from '../contracts/failure.ts';
import { OPERATIONS } from '../openapi/spec.ts';
import type { CoverageSummary, TargetSummary, TestRecord } from '../reporting/summary.ts';
import type { ItemHistory } from './budget.ts';

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
  verdict: 'pass' | 'fail';
  /** Items it judged, of the items of its selection. */
  judged: number;
  items: number;
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

/** What the ledger says of each item for the next plan: runs since it was judged, and whether it failed then. */
export function historyOf(ledger: Ledger): Map<string, ItemHistory> {
  const last = ledger.runs.at(-1)?.run ?? 0;
  return new Map(
    Object.entries(ledger.items).map(([item, entry]) => [
      item,
      { runsAgo: last - entry.run, ...(entry.verdict === 'fail' ? { failed: true } : {}) },
    ]),
  );
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
  run: { date: string; seed: number; verdict: 'pass' | 'fail'; items: number },
  judged: ReadonlySet<string>,
  failed: ReadonlyMap<string, Failure>,
  refused: readonly string[] = [],
): Ledger & { refused: string[] } {
  const number = (ledger.runs.at(-1)?.run ?? 0) + 1;
  const items = { ...ledger.items };
  for (const item of judged) {
    const failure = failed.get(item);
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
    };
  }
  return {
    ...ledger,
    runs: [...ledger.runs, { run: number, ...run, judged: judged.size }].slice(-LEDGER_RUNS),
    items,
    refused: [...new Set([...((ledger as { refused?: string[] }).refused ?? []), ...refused])].sort(),
  };
}

/**
 * What a run's reports say of coverage: the items of its selection judged in this run, and with a
 * ledger (already holding this run) those judged within the window of runs a gate of this budget
 * needs to judge every item once, those never judged, and the last failure of each item that failed.
 */
export function coverageSummary(
  selection: readonly string[],
  judged: ReadonlySet<string>,
  notPlanned: readonly string[],
  ledger?: { file: string; ledger: Ledger; window: number },
): CoverageSummary {
  const items = new Set(selection);
  const base: CoverageSummary = {
    items: items.size,
    judged: [...judged].filter((item) => items.has(item)).length,
    notJudged: selection.filter((item) => !judged.has(item)),
    notPlanned: notPlanned.filter((item) => items.has(item)),
  };
  if (!ledger) return base;
  const last = ledger.ledger.runs.at(-1)?.run ?? 0;
  const entries = Object.entries(ledger.ledger.items).filter(([item]) => items.has(item));
  return {
    ...base,
    ledger: { file: ledger.file, runs: ledger.ledger.runs.length },
    window: {
      runs: ledger.window,
      judged: entries.filter(([, entry]) => last - entry.run < ledger.window).length,
    },
    never: selection.filter((item) => !ledger.ledger.items[item]).length,
    lastFailures: entries
      .filter(([, entry]) => entry.failed)
      .map(([item, entry]) => ({ item, ...entry.failed! }))
      .sort((a, b) => b.run - a.run || a.item.localeCompare(b.item)),
  };
}

/** The runs a gate that judges `perRun` of `items` items needs to judge every one once. */
export function windowOf(items: number, perRun: number): number {
  return perRun <= 0 ? 1 : Math.max(1, Math.ceil(items / perRun));
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
