// Values the generators draw from: a built-in vocabulary, extended with what the target itself
// returned (titles, authors, years, event ids...), so that generated requests match something.
import type { Random } from './random.ts';

/** Pools of valid values; every string is lower case and safe inside a quoted expression value. */
export interface ValuePools {
  words: string[];
  titles: string[];
  authors: string[];
  affiliations: string[];
  fields: string[];
  journals: string[];
  conferences: string[];
  dois: string[];
  years: number[];
  dates: string[];
  paperIds: number[];
  authorIds: number[];
  fieldIds: number[];
  /** Dates with events, yyyy-mm-dd. */
  eventDates: string[];
  eventIds: string[];
  /** Encyclopedia ids known to have related events. */
  wikipediaIds: string[];
  /** Entity names seen in events (turned into ids by chains and edge cases). */
  entityNames: string[];
  answerQueries: string[];
  urls: string[];
}

const WORDS = [
  'graph',
  'neural',
  'networks',
  'learning',
  'semantic',
  'analysis',
  'retrieval',
  'knowledge',
  'query',
  'search',
  'distributed',
  'systems',
  'latent',
  'indexing',
  'language',
  'models',
  'privacy',
  'vision',
  'robust',
  'optimization',
];

/** What generators use when the target gave nothing (or nothing usable). */
export const DEFAULT_POOLS: ValuePools = {
  words: WORDS,
  titles: ['indexing by latent semantic analysis', 'graph neural networks for retrieval'],
  authors: ['jaime teevan', 'susan dumais', 'mike smith'],
  affiliations: ['microsoft research', 'harvard university'],
  fields: ['machine learning', 'information retrieval'],
  journals: ['journal of the acm'],
  conferences: ['sigir', 'www'],
  dois: ['10.1145/1234567'],
  years: [1990, 2005, 2010, 2012, 2016, 2020],
  dates: ['2010-02-04', '2016-05-17', '2020-11-30'],
  paperIds: [2157025439, 1982374512],
  authorIds: [1982462162],
  fieldIds: [41008148],
  eventDates: ['2026-11-01', '2024-06-03', '2021-03-15'],
  eventIds: ['6f1c0a2b9d8e4f3a5b6c7d8e9f0a1b2c'],
  wikipediaIds: ['Barack_Obama', 'Paris'],
  entityNames: ['Barack Obama', 'Ada Lovelace'],
  answerQueries: ['knowledge graph', 'machine learning', 'weather'],
  urls: ['https://www.example.com/', 'https://en.wikipedia.org/wiki/Knowledge_graph'],
};

/**
 * A value as it may appear inside a quoted expression string: lower case, letters, digits and a
 * little punctuation, no quote, no '+', '%' or '&' (so an unencoded form body stays unambiguous).
 */
export function cleanText(value: unknown, maxLength = 120): string | undefined {
  if (typeof value !== 'string') return undefined;
  const text = value
    .toLowerCase()
    .replace(/[^\p{L}\p{N} .\-/:]/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return text === '' || text.length > maxLength ? undefined : text;
}

/** A non-negative safe integer from a number or a numeric string, else undefined. */
export function cleanInt(value: unknown): number | undefined {
  const n = typeof value === 'string' && /^\d{1,15}$/.test(value) ? Number(value) : value;
  return typeof n === 'number' && Number.isSafeInteger(n) && n >= 0 ? n : undefined;
}

/** Distinct defined values, at most `limit`, in first-seen order. */
export function distinct<T>(values: (T | undefined)[], limit = 60): T[] {
  return [...new Set(values.filter((value): value is T => value !== undefined))].slice(0, limit);
}

/** Merges found values into the defaults: a pool that found nothing keeps the built-in values. */
export function mergePools(found: Partial<ValuePools>): ValuePools {
  const out = { ...DEFAULT_POOLS };
  for (const [name, values] of Object.entries(found) as [keyof ValuePools, unknown[]][]) {
    if (Array.isArray(values) && values.length > 0) (out as Record<string, unknown[]>)[name] = values;
  }
  return out;
}

/** True for a calendar date written yyyy-mm-dd. */
export function isCalendarDate(text: string): boolean {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (!match) return false;
  const [y, m, d] = [Number(match[1]), Number(match[2]), Number(match[3])];
  return m >= 1 && m <= 12 && d >= 1 && d <= daysIn(y, m);
}

/** Days in month `m` (1-12) of year `y`. */
export function daysIn(y: number, m: number): number {
  if (m === 2) return (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0 ? 29 : 28;
  return [4, 6, 9, 11].includes(m) ? 30 : 31;
}

/** A random calendar date between the years given, yyyy-mm-dd. */
export function randomDate(rng: Random, fromYear: number, toYear: number): string {
  const y = rng.int(fromYear, toYear);
  const m = rng.int(1, 12);
  const d = rng.int(1, daysIn(y, m));
  return `${y}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`;
}

/** True for an absolute http(s) URL with a host. */
export function isHttpUrl(text: string): boolean {
  if (!/^https?:\/\//i.test(text)) return false;
  try {
    return new URL(text).hostname !== '';
  } catch {
    return false;
  }
}
