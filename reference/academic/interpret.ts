// interpret: a small natural-language grammar over the corpus ("papers by jaime teevan after 2012") that turns a
// query into ranked interpretations, each with a parse (XML) and an expression evaluate accepts.
import { type Corpus, FIRST_YEAR, LAST_YEAR, type Postings } from './corpus.ts';
import type { Matcher } from './evaluate.ts';
import type { NameTable } from './names.ts';
import {
  BadArgument,
  checkModel,
  clip,
  type EngineResult,
  MAX_COUNT,
  optionalInteger,
  optionalString,
  requiredString,
} from './params.ts';
import { Budget } from './query.ts';

/** Default `timeout` of interpret in milliseconds (the default real deployments documented). */
export const DEFAULT_INTERPRET_TIMEOUT_MS = 1000;
/** Largest effective `timeout`: larger values act as this (the documented maximum). */
export const MAX_INTERPRET_TIMEOUT_MS = 5000;
/** Queries with more words than this get no interpretation. */
const MAX_TOKENS = 24;
/** Bounds on the search: complete segmentations tried, completions per prefix, canonical values per synonym. */
const MAX_CANDIDATES = 400;
const MAX_COMPLETIONS = 8;
const MAX_SENSES = 4;
const NOISE = new Set([
  'papers',
  'paper',
  'articles',
  'article',
  'publications',
  'works',
  'written',
  'and',
  'the',
  'about',
  'on',
]);
/** Words of the grammar itself: never read as title words. */
const KEYWORDS = new Set(['by', 'after', 'before', 'since', 'between', 'from', 'in', 'at', 'on', 'about', 'published']);

/** One interpretation as the interface returns it. */
export interface Interpretation {
  prob: number;
  parse: string;
  rules: { name: string; output: { type: 'query'; value: string } }[];
}

// A piece of the query: tokens [start, end), its XML, an optional constraint, and a log-probability.
interface Segment {
  end: number;
  xml: string;
  constraint?: string;
  logp: number;
}

/** Escapes text for XML content and attribute values. */
export function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (ch) =>
    ch === '&' ? '&amp;' : ch === '<' ? '&lt;' : ch === '>' ? '&gt;' : ch === '"' ? '&quot;' : '&apos;',
  );
}

function quote(value: string): string {
  return `'${value.replace(/[\\']/g, (ch) => `\\${ch}`)}'`;
}

function attrXml(name: string, text: string, canonical?: string, op?: string): string {
  const canon = canonical === undefined || canonical === text ? '' : ` canonical="${escapeXml(canonical)}"`;
  const operator = op ? ` op="${op}"` : '';
  return `<attr name="academic#${name}"${canon}${operator}>${escapeXml(text)}</attr>`;
}

/** Dictionaries of the grammar, built once per corpus. */
export class Interpreter {
  private readonly tables: {
    table: NameTable;
    attr: string;
    postings: () => Postings;
    offset: number;
    keywords: string[];
    logp: number;
  }[];

  constructor(
    private readonly corpus: Corpus,
    private readonly matcher: Matcher,
  ) {
    const journals = corpus.journals.values.length;
    this.tables = [
      {
        table: corpus.authorNames,
        attr: 'AA.AuN',
        postings: () => corpus.authorNamePostings(),
        offset: 0,
        keywords: ['by'],
        logp: -0.4,
      },
      {
        table: corpus.affiliations,
        attr: 'AA.AfN',
        postings: () => corpus.affiliationPostings(),
        offset: 0,
        keywords: ['from', 'at'],
        logp: -0.8,
      },
      {
        table: corpus.fields,
        attr: 'F.FN',
        postings: () => corpus.fieldPostings(),
        offset: 0,
        keywords: ['in', 'on', 'about'],
        logp: -0.6,
      },
      {
        table: corpus.journals,
        attr: 'J.JN',
        postings: () => corpus.venuePostings(),
        offset: 0,
        keywords: ['in', 'published in'],
        logp: -0.7,
      },
      {
        table: corpus.conferences,
        attr: 'C.CN',
        postings: () => corpus.venuePostings(),
        offset: journals,
        keywords: ['in', 'at', 'published in'],
        logp: -0.7,
      },
    ];
    // Everything a reading may need is built here, so that no request spends its timeout on index building.
    for (const spec of this.tables) {
      spec.postings();
      spec.table.withPrefix('~', false);
    }
    corpus.wordPostings();
    corpus.yearPostings();
  }

  /** Interpretations of a normalized token list, found before `deadline`; `complete` treats the last token as a prefix. */
  interpret(tokens: string[], complete: boolean, deadline: number): { found: Interpretation[]; aborted: boolean } {
    if (performance.now() >= deadline) return { found: [], aborted: true };
    if (tokens.length === 0 || tokens.length > MAX_TOKENS) return { found: [], aborted: false };
    const segments: Segment[][] = [];
    for (let i = 0; i < tokens.length; i++) {
      if (performance.now() >= deadline) return { found: [], aborted: true };
      segments.push(this.segmentsAt(tokens, i, complete));
    }
    // finishes[i]: the tokens from i on can be covered completely.
    const finishes = new Array<boolean>(tokens.length + 1).fill(false);
    finishes[tokens.length] = true;
    for (let i = tokens.length - 1; i >= 0; i--) finishes[i] = segments[i]!.some((s) => finishes[s.end]);
    // Readings with the same output expression keep only the most likely parse.
    const best = new Map<string, Interpretation>();
    const seen = new Set<string>();
    let tried = 0;
    let aborted = false;
    const path: Segment[] = [];
    const walk = (at: number): boolean => {
      if (performance.now() >= deadline) {
        aborted = true;
        return false;
      }
      if (at === tokens.length) {
        tried++;
        this.accept(path, seen, best, deadline);
        return tried < MAX_CANDIDATES;
      }
      for (const segment of segments[at]!) {
        if (!finishes[segment.end]) continue;
        path.push(segment);
        const go = walk(segment.end);
        path.pop();
        if (!go) return false;
      }
      return true;
    };
    walk(0);
    if (performance.now() >= deadline) aborted = true;
    const found = [...best.values()].sort(
      (a, b) => b.prob - a.prob || (a.parse < b.parse ? -1 : a.parse > b.parse ? 1 : 0),
    );
    return { found, aborted };
  }

  private accept(path: Segment[], seen: Set<string>, best: Map<string, Interpretation>, deadline: number): void {
    const constraints = path.flatMap((s) => (s.constraint ? [s.constraint] : []));
    if (constraints.length === 0) return;
    const parse = `<rule id="#GetPapers">${path.map((s) => s.xml).join(' ')}</rule>`;
    if (seen.has(parse)) return;
    seen.add(parse);
    const value = constraints.length === 1 ? constraints[0]! : `And(${constraints.join(',')})`;
    const budget = new Budget(Math.max(0, deadline - performance.now()));
    const { docs, aborted } = this.matcher.match(value, budget);
    if (aborted || docs.length === 0) return;
    const logp = path.reduce((sum, s) => sum + s.logp, 0);
    const support = 0.5 + 0.5 * (Math.log1p(docs.length) / Math.log1p(this.corpus.size));
    const prob = Math.min(1, Math.exp(logp) * support);
    const known = best.get(value);
    if (known && (known.prob > prob || (known.prob === prob && known.parse < parse))) return;
    best.set(value, { prob, parse, rules: [{ name: '#GetPapers', output: { type: 'query', value } }] });
  }

  private segmentsAt(tokens: string[], i: number, complete: boolean): Segment[] {
    const out: Segment[] = [];
    const token = tokens[i]!;
    const last = tokens.length - 1;
    if (NOISE.has(token)) out.push({ end: i + 1, xml: escapeXml(token), logp: -0.05 });

    for (const spec of this.tables) {
      // With a keyword ("by jaime teevan", "published in nature") or, less likely, without one.
      const starts: { at: number; keyword: string; logp: number }[] = [{ at: i, keyword: '', logp: spec.logp - 0.9 }];
      for (const keyword of spec.keywords) {
        const words = keyword.split(' ');
        if (words.every((w, k) => tokens[i + k] === w) && i + words.length <= last) {
          starts.push({ at: i + words.length, keyword, logp: spec.logp });
        }
      }
      for (const start of starts) {
        for (const match of this.phrases(tokens, start.at, spec.table, spec.postings(), spec.offset, complete)) {
          const value = spec.table.values[match.id]!;
          const group = spec.attr.split('.')[0];
          out.push({
            end: match.end,
            xml: `${start.keyword ? `${escapeXml(start.keyword)} ` : ''}${attrXml(spec.attr, match.text, value)}`,
            constraint: `Composite(${spec.attr}==${quote(value)})`,
            logp:
              start.logp + (match.canonical ? 0 : -0.5) + (match.completed ? -0.3 : 0) + (group === 'AA' ? 0 : -0.1),
          });
        }
      }
    }

    const yearAt = (at: number): number[] => {
      const text = tokens[at];
      if (text === undefined || !/^\d{1,4}$/.test(text)) return [];
      if (text.length === 4) return [Number(text)];
      if (!complete || at !== last) return [];
      const years: number[] = [];
      for (let y = LAST_YEAR; y >= FIRST_YEAR && years.length < MAX_COMPLETIONS; y--)
        if (String(y).startsWith(text)) years.push(y);
      return years;
    };
    const yearForms: [string, string, string][] = [
      ['after', '>', 'gt'],
      ['since', '>=', 'ge'],
      ['before', '<', 'lt'],
      ['in', '=', 'eq'],
      ['', '=', 'eq'],
    ];
    for (const [keyword, op, name] of yearForms) {
      const at = keyword ? i + 1 : i;
      if (keyword && token !== keyword) continue;
      for (const year of yearAt(at)) {
        out.push({
          end: at + 1,
          xml: `${keyword ? `${keyword} ` : ''}${attrXml('Y', String(year), undefined, name)}`,
          constraint: `Y${op}${year}`,
          logp: keyword ? -0.2 : -0.5,
        });
      }
    }
    if (token === 'between' && tokens[i + 2] === 'and') {
      const from = yearAt(i + 1).filter((y) => y >= 1000);
      const to = yearAt(i + 3);
      if (from.length === 1 && tokens[i + 1]!.length === 4) {
        for (const year of to) {
          out.push({
            end: i + 4,
            xml: `between ${attrXml('Y', String(from[0]), undefined, 'ge')} and ${attrXml('Y', String(year), undefined, 'le')}`,
            constraint: `Y=[${from[0]},${year}]`,
            logp: -0.2,
          });
        }
      }
    }

    const words = KEYWORDS.has(token) ? [] : this.titleWords(token, complete && i === last);
    for (const [k, word] of words.entries()) {
      out.push({
        end: i + 1,
        xml: attrXml('W', word),
        constraint: `W==${quote(word)}`,
        logp: -1.2 - (k > 0 ? 0.1 : 0),
      });
    }
    return out;
  }

  private titleWords(token: string, prefix: boolean): string[] {
    if (!prefix) return this.corpus.wordIndex.has(token) ? [token] : [];
    const postings = this.corpus.wordPostings();
    const size = (w: number) => postings.off[w + 1]! - postings.off[w]!;
    const matches: number[] = [];
    this.corpus.words.forEach((word, w) => {
      if (word.startsWith(token)) matches.push(w);
    });
    matches.sort(
      (a, b) => Number(this.corpus.words[a] !== token) - Number(this.corpus.words[b] !== token) || size(b) - size(a),
    );
    return matches.slice(0, MAX_COMPLETIONS).map((w) => this.corpus.words[w]!);
  }

  // Dictionary phrases starting at token `at`: exact multi-word matches, plus completions of the last token.
  private *phrases(
    tokens: string[],
    at: number,
    table: NameTable,
    postings: Postings,
    offset: number,
    complete: boolean,
  ): Generator<{ end: number; text: string; id: number; canonical: boolean; completed: boolean }> {
    const popularity = (id: number) => postings.off[id + offset + 1]! - postings.off[id + offset]!;
    const senses = (ids: number[]) =>
      [...ids].sort((a, b) => popularity(b) - popularity(a) || a - b).slice(0, MAX_SENSES);
    let phrase = '';
    for (let end = at + 1; end <= tokens.length && end - at <= 10; end++) {
      phrase = end === at + 1 ? tokens[at]! : `${phrase} ${tokens[end - 1]}`;
      if (complete && end === tokens.length) {
        const entries = table.withPrefix(phrase, false);
        const ranked = entries
          .map((entry) => ({ entry, weight: Math.max(...entry.ids.map(popularity)) }))
          .sort((a, b) => Number(b.entry.text === phrase) - Number(a.entry.text === phrase) || b.weight - a.weight)
          .slice(0, MAX_COMPLETIONS);
        for (const { entry } of ranked) {
          for (const id of senses(entry.ids)) {
            const canonical = table.values[id] === entry.text;
            yield { end, text: entry.text, id, canonical, completed: entry.text !== phrase };
          }
        }
        continue;
      }
      const entry = table.entry(phrase);
      if (!entry) continue;
      for (const id of senses(entry.ids))
        yield { end, text: phrase, id, canonical: table.values[id] === phrase, completed: false };
    }
  }
}

/** Lower-cases the query and splits it into words (punctuation separates words). */
export function tokenize(query: string): string[] {
  return query.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

/** GET/POST interpret. */
export function interpret(interpreter: Interpreter, params: Record<string, string>): EngineResult {
  const query = requiredString(params, 'query');
  checkModel(params);
  const completeText = optionalString(params, 'complete') ?? '0';
  if (completeText !== '0' && completeText !== '1') {
    throw new BadArgument(`Missing or invalid parameter: complete must be 0 or 1, got '${clip(completeText)}'`);
  }
  const count = optionalInteger(params, 'count', 10, MAX_COUNT);
  const offset = optionalInteger(params, 'offset', 0);
  const timeout = Math.min(optionalInteger(params, 'timeout', DEFAULT_INTERPRET_TIMEOUT_MS), MAX_INTERPRET_TIMEOUT_MS);
  const deadline = performance.now() + timeout;
  const { found, aborted } = interpreter.interpret(tokenize(query), completeText === '1', deadline);
  return { status: 200, body: { query, interpretations: found.slice(offset, offset + count), aborted } };
}
