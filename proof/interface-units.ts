// The units of ../shared/interface.md a promise can quote: every row of its tables, every item of
// its numbered lists, every sentence of its prose, each with the section it stands in. The promise
// table (promises.ts) is checked against them: it must quote every row of the tables of sections 2,
// 4, 5 and 7, every item of section 5's list, and every sentence (anywhere) with a word that states
// a promise of scope or order ("always", "only", "sorted"...) or a freedom ("may").
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** Where the interface lives: beside the repository, in ../shared (as the READMEs say). */
export const INTERFACE_PATH = fileURLToPath(new URL('../../shared/interface.md', import.meta.url));

/** One quotable unit of the interface. */
export interface InterfaceUnit {
  /** The section it stands in: `2.1`, `4.9`, `5`. */
  section: string;
  kind: 'row' | 'item' | 'sentence';
  /** The unit as a promise quotes it: a row's cells joined by ` | `, an item or sentence as written. */
  text: string;
}

/** Words that make a sentence a promise the table must trace: of scope, order, identity, recency, number, or a freedom. */
export const PROMISE_WORDS = /\b(?:always|sorted|order\w*|only|same|latest|all|exactly|at most|may)\b/i;

/** Sections whose table rows (and section 5's list items) must all be traced. */
export const TRACED_SECTIONS = ['2', '4', '5', '7'] as const;

/**
 * The units of the interface as last read (`npm run docs:promises` writes them where the interface
 * is beside the repository): what the promise table is held against where it is not, as in a CI
 * clone of the repository alone.
 */
export const UNITS_SNAPSHOT_PATH = fileURLToPath(new URL('./interface-units.json', import.meta.url));

/** The snapshot's units. */
export function snapshotUnits(path = UNITS_SNAPSHOT_PATH): InterfaceUnit[] {
  return JSON.parse(readFileSync(path, 'utf8')) as InterfaceUnit[];
}

/** The snapshot's text for a list of units. */
export function renderSnapshot(units: readonly InterfaceUnit[]): string {
  return `${JSON.stringify(units, null, 2)}\n`;
}

/** The interface's text, or undefined where ../shared is not beside the repository. */
export function readInterface(path = INTERFACE_PATH): string | undefined {
  return existsSync(path) ? readFileSync(path, 'utf8') : undefined;
}

/** Spaces collapsed: how a quote and a unit are compared. */
export function normalize(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/**
 * Splits a paragraph into sentences: at a full stop, question or exclamation mark followed by white
 * space, outside backticks and brackets (`(en-US is a supported market)` and `<answer_url>#Facts`
 * stay whole).
 */
export function sentences(paragraph: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let code = false;
  let start = 0;
  for (let i = 0; i < paragraph.length; i++) {
    const ch = paragraph[i]!;
    if (ch === '`') code = !code;
    else if (!code && (ch === '(' || ch === '[' || ch === '{')) depth++;
    else if (!code && (ch === ')' || ch === ']' || ch === '}')) depth = Math.max(0, depth - 1);
    else if (!code && depth === 0 && /[.!?]/.test(ch) && (i + 1 === paragraph.length || /\s/.test(paragraph[i + 1]!))) {
      out.push(paragraph.slice(start, i + 1).trim());
      start = i + 1;
    }
  }
  const rest = paragraph.slice(start).trim();
  if (rest) out.push(rest);
  return out.filter((sentence) => sentence !== '');
}

/** The cells of a Markdown table row (`| a | b |`), trimmed; a `|` inside backticks stays in its cell. */
export function cells(row: string): string[] {
  const inner = row.trim().replace(/^\|/, '').replace(/\|$/, '');
  const out: string[] = [];
  let code = false;
  let cell = '';
  for (const ch of inner) {
    if (ch === '`') code = !code;
    if (ch === '|' && !code) {
      out.push(cell.trim());
      cell = '';
    } else cell += ch;
  }
  out.push(cell.trim());
  return out;
}

/** Every unit of the interface, in document order. */
export function interfaceUnits(markdown: string): InterfaceUnit[] {
  const out: InterfaceUnit[] = [];
  let section = '0';
  let paragraph: string[] = [];
  let tableLine = 0;
  const flush = () => {
    const text = normalize(paragraph.join(' '));
    paragraph = [];
    for (const sentence of sentences(text)) out.push({ section, kind: 'sentence', text: sentence });
  };
  for (const line of markdown.split('\n')) {
    const heading = /^#{2,3}\s+(\d+(?:\.\d+)?)\.?\s/.exec(line);
    if (/^#/.test(line)) {
      flush();
      if (heading) section = heading[1]!;
      tableLine = 0;
      continue;
    }
    if (/^\s*\|/.test(line)) {
      flush();
      tableLine++;
      // The header row and the separator row are no promises.
      if (tableLine > 2) out.push({ section, kind: 'row', text: cells(line).join(' | ') });
      continue;
    }
    tableLine = 0;
    const item = /^\s*\d+\.\s+(.*)$/.exec(line);
    if (item) {
      flush();
      out.push({ section, kind: 'item', text: normalize(item[1]!) });
      continue;
    }
    if (line.trim() === '') flush();
    else paragraph.push(line);
  }
  flush();
  return out;
}

/** The units the promise table must quote: traced sections' rows and items, and every unit with a promise word. */
export function requiredUnits(units: readonly InterfaceUnit[]): InterfaceUnit[] {
  const traced = (section: string) =>
    TRACED_SECTIONS.includes(section.split('.')[0] as (typeof TRACED_SECTIONS)[number]);
  return units.filter(
    (unit) =>
      ((unit.kind === 'row' || (unit.kind === 'item' && unit.section === '5')) && traced(unit.section)) ||
      PROMISE_WORDS.test(unit.text),
  );
}
