// The one reading of a duration, for every option and configuration key that takes one: a number
// with a unit (`500ms`, `10s`, `2m`, `1.5h`). Every command-line option refuses a bare number, with
// the unit it needs; a configuration key whose name or schema states its unit (`maxDuration`, in
// seconds) reads a bare number in that unit.

/** The units a duration may carry, in milliseconds. */
export const DURATION_UNITS = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 } as const;
/** One unit of a duration. */
export type DurationUnit = keyof typeof DURATION_UNITS;

/** The unit's name in words, for messages. */
export const UNIT_WORDS: Record<DurationUnit, string> = { ms: 'milliseconds', s: 'seconds', m: 'minutes', h: 'hours' };

/** A duration that breaks its rule: the reason in words (`no unit it knows`, `read as 10 ms: below 100ms`). */
export class DurationError extends Error {
  override name = 'DurationError';
}

/** What a duration may be: its range in milliseconds and the unit of a bare number. */
export interface DurationRule {
  minMs: number;
  maxMs: number;
  /** The unit of a number given without one; absent: a bare number is refused. */
  bare?: DurationUnit;
}

/** `500ms`, `10s`, `1.5s`, `2m`, `24h`: the shortest way to write a duration in milliseconds. */
export function formatDuration(ms: number): string {
  for (const unit of ['h', 'm', 's'] as const) {
    if (ms >= DURATION_UNITS[unit] && ms % DURATION_UNITS[unit] === 0) return `${ms / DURATION_UNITS[unit]}${unit}`;
  }
  return ms >= 1000 ? `${Number((ms / 1000).toFixed(3))}s` : `${Number(ms.toFixed(3))}ms`;
}

/** The rule in words, with its units and range: what every message about such a duration says. */
export function describeDuration(rule: DurationRule): string {
  const bare = rule.bare ? `; a bare number is ${UNIT_WORDS[rule.bare]}` : '';
  return `a duration with a unit, ms, s, m or h (such as 500ms, 10s, 2m${bare}), from ${formatDuration(rule.minMs)} to ${formatDuration(rule.maxMs)}`;
}

/**
 * Reads a duration (`500ms`, `10s`, `2m`, `1.5h`, or a bare number in `rule.bare` where the rule has
 * one) and returns milliseconds; throws DurationError with the reason when it has no unit kgate
 * knows, is a bare number the rule refuses (naming the units that would read), or lies outside the
 * range (the reason names the value as read, in its unit).
 */
export function parseDuration(raw: string, rule: DurationRule): number {
  const match = /^(\d+(?:\.\d+)?|\.\d+)\s*([a-zA-Z]*)$/.exec(raw.trim());
  if (!match) {
    throw new DurationError(/^-\s*\d/.test(raw.trim()) ? 'a duration is never negative' : 'not a number with a unit');
  }
  const unitText = match[2]!.toLowerCase();
  if (unitText === '' && !rule.bare)
    throw new DurationError(`a bare number has no unit: write ${match[1]}ms or ${match[1]}s`);
  const unit = (unitText === '' ? rule.bare! : unitText) as DurationUnit;
  if (!(unit in DURATION_UNITS)) throw new DurationError(`'${match[2]}' is not a unit kgate knows`);
  const ms = Number(match[1]) * DURATION_UNITS[unit];
  const read = `${unitText === '' ? `a bare number, read as ${match[1]} ${UNIT_WORDS[unit]}` : `${match[1]}${unit}`}`;
  if (ms < rule.minMs) throw new DurationError(`${read}: below ${formatDuration(rule.minMs)}`);
  if (ms > rule.maxMs) throw new DurationError(`${read}: above ${formatDuration(rule.maxMs)}`);
  return ms;
}
