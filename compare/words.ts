// How a comparison says what it found, in words shared by its terminal summary and its page.
import { type CompareResult, type Difference, groupDifferences } from './run.ts';

/** A JSON value on one line, cut to `limit` characters. */
export function showValue(value: unknown, limit = 100): string {
  const text = value === undefined ? '(absent)' : JSON.stringify(value);
  return text.length > limit ? `${text.slice(0, limit - 3)}...` : text;
}

const KIND_TEXT: Record<Difference['kind'], string> = {
  status: 'another status',
  transport: 'one side gave no answer',
  type: 'another JSON type',
  value: 'another value',
  'absent-in-candidate': 'absent from the candidate',
  'absent-in-current': 'new in the candidate',
  order: 'another element at this position',
  length: 'a list of another length',
  set: 'other elements',
};

/** What differs at a pointer, as one phrase: `another value`, `new in the candidate`. */
export function kindText(kind: Difference['kind']): string {
  return KIND_TEXT[kind];
}

/** `2 differences at 5 places, 1 latency regression`: the counts a comparison's reports give. */
export function comparePhrase(result: CompareResult): string {
  const causes = result.causes ?? groupDifferences(result.differences).length;
  const regressions = result.latency.filter((item) => item.regression).length;
  const places = result.differences.length;
  return `${causes} difference${causes === 1 ? '' : 's'} at ${places} place${places === 1 ? '' : 's'}${result.latency.length > 0 ? `, ${regressions} latency regression${regressions === 1 ? '' : 's'}` : ''}`;
}
