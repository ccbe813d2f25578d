import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import type { Failure } from '../contracts/failure.ts';

/**
 * A known, accepted failure of the target. It is matched by its fingerprint: the check, the
 * operation and the JSON pointer (array indexes read as `*`, so the fourth entity instead of the
 * third is the same failure). Everything else is for the people reading the file.
 */
export interface BaselineEntry {
  check: string;
  operation: string;
  /** JSON pointer with array indexes as `*`; absent or empty for failures without one. */
  pointer?: string;
  /** Why the failure is accepted. */
  reason: string;
  /** Last day (YYYY-MM-DD, UTC) the entry holds; from the day after, the failure fails the gate again. */
  expires?: string;
  /** The failure's title when it was recorded (informative; not matched). */
  title?: string;
}

/** The file `kgate conform --baseline` reads and `--update-baseline` writes. */
export interface ConformanceBaseline {
  kgateConformanceBaseline: 1;
  failures: BaselineEntry[];
}

/** How a failure stands against a baseline entry. */
export interface BaselineMark {
  reason: string;
  expires?: string;
  /** True when the entry is past its expiry: the failure fails the gate again. */
  expired?: boolean;
}

/** A baseline file that cannot be used: the message names the file and the rule. */
export class BaselineError extends Error {
  override name = 'BaselineError';
}

/** The reason written for a failure recorded by --update-baseline, to be replaced by a person. */
export const RECORDED_REASON = 'recorded by kgate conform --update-baseline: say why this failure is accepted';

/** A JSON pointer with its array indexes read as `*`. */
export function normalizePointer(pointer: string | undefined): string {
  return (pointer ?? '').replace(/\/\d+(?=\/|$)/g, '/*');
}

/** The fingerprint of a failure or entry: check, operation and normalized pointer. */
export function fingerprintOf(item: Pick<Failure, 'check' | 'operation' | 'pointer'>): string {
  return `${item.check} ${item.operation} ${normalizePointer(item.pointer)}`.trim();
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** Checks a parsed baseline; the first problem becomes one BaselineError naming the entry and the rule. */
export function parseBaseline(value: unknown, source: string): ConformanceBaseline {
  const fail = (rule: string): never => {
    throw new BaselineError(`${source}: ${rule}`);
  };
  const object = (v: unknown) => v !== null && typeof v === 'object' && !Array.isArray(v);
  if (!object(value) || (value as ConformanceBaseline).kgateConformanceBaseline !== 1) {
    fail(
      'not a kgate conformance baseline (an object with "kgateConformanceBaseline": 1; kgate conform --update-baseline writes one)',
    );
  }
  const { failures } = value as ConformanceBaseline;
  if (!Array.isArray(failures)) fail("key 'failures' must be an array");
  failures.forEach((entry, index) => {
    const at = `failures[${index}]`;
    if (!object(entry)) fail(`${at} must be an object`);
    for (const key of ['check', 'operation', 'reason'] as const) {
      if (typeof entry[key] !== 'string' || entry[key].trim() === '') fail(`${at}.${key} must be a non-empty string`);
    }
    if (entry.pointer !== undefined && typeof entry.pointer !== 'string') fail(`${at}.pointer must be a string`);
    if (
      entry.expires !== undefined &&
      (typeof entry.expires !== 'string' || !DATE.test(entry.expires) || Number.isNaN(Date.parse(entry.expires)))
    ) {
      fail(`${at}.expires must be a date YYYY-MM-DD`);
    }
    const known = new Set(['check', 'operation', 'pointer', 'reason', 'expires', 'title']);
    const extra = Object.keys(entry).find((key) => !known.has(key));
    if (extra) fail(`${at}: unknown key '${extra}' (known keys: ${[...known].join(', ')})`);
  });
  return value as ConformanceBaseline;
}

/** Reads a baseline file; throws BaselineError naming the file and the rule. */
export function readBaseline(file: string): ConformanceBaseline {
  if (!existsSync(file)) throw new BaselineError(`${file}: no such file (create it with --update-baseline)`);
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new BaselineError(`${file}: not JSON (${(error as Error).message})`);
  }
  return parseBaseline(value, file);
}

/** True when the entry's expiry day is before `today` (YYYY-MM-DD, UTC). */
export function isExpired(entry: Pick<BaselineEntry, 'expires'>, today: string): boolean {
  return entry.expires !== undefined && entry.expires < today;
}

/** Today's date in UTC, as baselines write it. */
export function utcDay(now = new Date()): string {
  return now.toISOString().slice(0, 10);
}

/** Indexes the entries by fingerprint (a later duplicate adds nothing). */
export function entriesByFingerprint(baseline: ConformanceBaseline): Map<string, BaselineEntry> {
  const map = new Map<string, BaselineEntry>();
  for (const entry of baseline.failures) {
    const id = fingerprintOf(entry);
    if (!map.has(id)) map.set(id, entry);
  }
  return map;
}

/** What --update-baseline changed. */
export interface BaselineUpdate {
  baseline: ConformanceBaseline;
  /** Entries new in this run. */
  added: BaselineEntry[];
  /** Entries of the previous baseline that no longer fail (dropped). */
  dropped: BaselineEntry[];
  /** Entries kept although past their expiry: an update never extends an expiry. */
  expired: BaselineEntry[];
}

/**
 * The baseline that accepts exactly the given failures: entries that still match keep their
 * reason and expiry (an expired one stays expired), new failures get RECORDED_REASON, entries
 * that match nothing are dropped. kgate's own errors are never accepted.
 */
export function updatedBaseline(
  previous: ConformanceBaseline | undefined,
  failures: Failure[],
  today: string,
): BaselineUpdate {
  const known = previous ? entriesByFingerprint(previous) : new Map<string, BaselineEntry>();
  const next = new Map<string, BaselineEntry>();
  const added: BaselineEntry[] = [];
  for (const failure of failures) {
    // kgate's own errors and tests not run are never accepted: a baseline cannot make a hang pass.
    if (failure.origin === 'error' || failure.origin === 'not-run' || (failure.level ?? 'fail') !== 'fail') continue;
    const id = fingerprintOf(failure);
    if (next.has(id)) continue;
    const kept = known.get(id);
    if (kept) {
      next.set(id, kept);
      continue;
    }
    const entry: BaselineEntry = {
      check: failure.check,
      operation: failure.operation,
      ...(failure.pointer ? { pointer: normalizePointer(failure.pointer) } : {}),
      title: failure.title,
      reason: RECORDED_REASON,
    };
    next.set(id, entry);
    added.push(entry);
  }
  const entries = [...next.values()].sort(
    (a, b) =>
      a.operation.localeCompare(b.operation) ||
      a.check.localeCompare(b.check) ||
      (a.pointer ?? '').localeCompare(b.pointer ?? ''),
  );
  return {
    baseline: { kgateConformanceBaseline: 1, failures: entries },
    added,
    dropped: [...known.entries()].filter(([id]) => !next.has(id)).map(([, entry]) => entry),
    expired: entries.filter((entry) => isExpired(entry, today)),
  };
}

/** Writes a baseline, sorted and indented so that it reviews well in a pull request. */
export function writeBaseline(file: string, baseline: ConformanceBaseline): void {
  writeFileSync(file, `${JSON.stringify(baseline, null, 2)}\n`);
}
