// Values real clients send: text in every script and form, ids, markets, URLs and dates as the
// world writes them. Each class is named, and a generated value of the world holds one sample of
// every class that is valid where it goes, as separate parts: one round of cases then sends every
// class (whatever the seed), and the shrinker drops parts until only the one that matters is left.
import type { Random } from './random.ts';

/** A class of value real clients send, named in a finding by the part that carries it. */
export type WorldClass =
  | 'capitals'
  | 'accents'
  | 'decomposed'
  | 'combining'
  | 'cjk'
  | 'right-to-left'
  | 'emoji'
  | 'apostrophe'
  | 'parentheses'
  | 'comma'
  | 'digits'
  | 'other-scripts'
  | 'symbols'
  | 'quotes'
  | 'invisible'
  | 'astral'
  | 'full-width';

/**
 * Samples of each class, written as real titles, names and phrases are. `decomposed` holds the
 * same letters as `accents` in Unicode's decomposed form (NFD: a base letter, then its combining
 * accent), as text pasted from macOS file names or some PDFs arrives; `combining` holds marks no
 * precomposed letter exists for.
 */
const ACCENTS = [
  'théorie des ensembles',
  'über die grundlagen',
  'josé garcía márquez',
  'ångström',
  'öresund',
  'naïve façade',
];
const SAMPLES: Record<WorldClass, readonly string[]> = {
  capitals: [
    'Indexing By Latent Semantic Analysis',
    'The PageRank Citation Ranking',
    'BERT Pre-Training',
    'IEEE SIGIR',
  ],
  accents: ACCENTS,
  decomposed: ACCENTS.map((text) => text.normalize('NFD')),
  combining: ['x̄ estimators', 'ŋ̊ phoneme', 'ą̃ nasal', 'q̣ dotted'],
  cjk: ['知识图谱', '深層学習', '한국어 처리', '自然言語'],
  'right-to-left': ['تعلم الآلة', 'למידת מכונה', 'یادگیری ماشین'],
  emoji: ['📚', '🧬 genomics', '👩‍🔬', '🇫🇷'],
  apostrophe: ["schrödinger's cat", "o'brien", "don't stop"],
  parentheses: ['graph networks (gnn)', '[revisited]', 'c++ (programming language)'],
  comma: ['graphs, trees', 'washington, d.c.'],
  digits: ['2nd edition', 'covid-19', 'web 2.0'],
  'other-scripts': ['наука данных', 'θεωρία γράφων', 'यंत्र अधिगम', 'การเรียนรู้', 'მანქანური'],
  symbols: ['∑ ≤ ∞', '½ ± √2', '€ 5 £ 3', '°c → °f'],
  quotes: ['“smart quotes”', '«guillemets»', '"double"', '‘single’'],
  invisible: ['zero\u200bwidth', 'b\ufeffom', 'soft\u00adhyphen', 'word\u2060joiner', 'left\u200emark'],
  astral: ['𝔤𝔯𝔞𝔭𝔥', '𝐛𝐨𝐥𝐝', '𐌲𐌰𐌿𐍄', '𠜎𠜱'],
  'full-width': ['ｇｒａｐｈ ｓｅａｒｃｈ', 'ＡＰＩ', '１２３'],
};

/** Every class, in a fixed order. */
export const WORLD_CLASSES = Object.keys(SAMPLES) as WorldClass[];

/** A value made of parts (one per class); the shrinker drops parts, the value is them joined. */
export interface WorldValue {
  parts: string[];
  joiner: string;
}

/** The text of a world value. */
export function worldText(value: WorldValue): string {
  return value.parts.join(value.joiner);
}

/** Classes valid inside a quoted expression value: lower case (facts.md), no quote. */
export const EXPRESSION_CLASSES: readonly WorldClass[] = WORLD_CLASSES.filter(
  (name) => name !== 'capitals' && name !== 'apostrophe' && name !== 'quotes',
);

/** One sample of each class given, in a seeded order. */
function samples(rng: Random, classes: readonly WorldClass[]): string[] {
  return rng.shuffle(classes).map((name) => rng.pick(SAMPLES[name]));
}

/** Free text of every class (a title, a query, a name as a user types it). */
export function freeText(rng: Random): WorldValue {
  return { parts: samples(rng, WORLD_CLASSES), joiner: ' ' };
}

/** A query with spaces at its ends, as typed: the ends are parts of their own, so shrinking can drop them. */
export function paddedText(rng: Random): WorldValue {
  const ends = () => rng.pick([' ', '  ', '\u00a0']);
  return { parts: [ends(), ...samples(rng, WORLD_CLASSES), ends()], joiner: ' ' };
}

/** An abstract pasted into a form: every class, broken into lines and indented with tabs. */
export function abstractText(rng: Random): WorldValue {
  const parts = samples(rng, WORLD_CLASSES).map((text, i) => (i % 3 === 1 ? `\t${text}` : text));
  return { parts, joiner: rng.pick(['\n', '\r\n', '\n\n']) };
}

/** The values an expression may quote for each class valid there (lower case, no quote), one per class. */
export function expressionValues(rng: Random): string[] {
  return samples(rng, EXPRESSION_CLASSES).map((text) => text.toLowerCase());
}

/** Text with capitals, for an expression value: the case facts.md leaves to the deployment. */
export function capitalized(rng: Random): string {
  return `${rng.pick(SAMPLES.capitals)} ${rng.pick(SAMPLES.accents).toUpperCase()}`;
}

/**
 * An encyclopedia id as the encyclopedia writes them: words joined by underscores, with a comma,
 * a parenthesized qualifier, an apostrophe, accents and another script, each a part.
 */
export function encyclopediaId(rng: Random): WorldValue {
  return {
    parts: rng.shuffle([
      rng.pick(['Washington,_D.C.', 'Paris,_Texas', 'Portland,_Oregon']),
      rng.pick(['(programming_language)', '(film)', '(planet)', '(disambiguation)']),
      rng.pick(["Côte_d'Ivoire", "Schrödinger's_cat", "O'Brien"]),
      rng.pick(['São_Paulo', 'Kraków', 'Zürich']),
      rng.pick(['東京都', 'القاهرة', 'Москва']),
    ]),
    joiner: '_',
  };
}

/**
 * Text holding the characters URL and form encoding treat specially, one part each: RFC 3986's
 * gen-delims (`: / ? [ ] @`) and sub-delims (`! $ ' ( ) * ,`), the percent sign as text (`100%`, a
 * literal `%20`), and the ones a form or a query string reads on their own: `+` (a space in form
 * encoding), `&` and `=` (what splits a form into fields), `#` (where a URL's query ends), `;` (a
 * field separator some query parsers honour) and `~` or `*` (the two WHATWG's form encoder and
 * RFC 3986's unreserved set disagree on). On the wire each is percent-encoded; a server that splits
 * on one, or decodes twice, reads another value.
 */
export function reservedText(rng: Random): WorldValue {
  return {
    parts: rng.shuffle([
      rng.pick(['graphs: a/b?', 'mail@home: 1/2', 'what? [x]', 'section 2 [draft] @ 10:30']),
      rng.pick(['rock ! roll', '$5 (stars)', "it's, done", '*bold*, ok']),
      rng.pick(['100% recall', 'literal %20 text', '50%-off %zz', 'a %2F b']),
      rng.pick(['c++', 'a+b', 'google+ api']),
      rng.pick(['r&d x=y', 'at&t a=b', 'q&a k=v']),
      rng.pick(['#tag', 'c# language', 'issue #42']),
      rng.pick(['a;b', 'key; value', 'first;second']),
      rng.pick(['~user *ptr', 'approx ~5 a*b', '~/notes *.txt']),
    ]),
    joiner: ' ',
  };
}

/** Markets written in another case than en-US (language and country codes read the same in any case). */
export const MARKET_CASES = ['en-us', 'EN-US', 'En-Us', 'en-Us'];

/**
 * URLs as pages link them: a port, a path with percent-encoded and non-ASCII characters, a query
 * string, a fragment, a host in another script or in its ASCII (punycode) form.
 */
export function worldUrl(rng: Random): string {
  const host = rng.pick(['bücher.example', 'xn--bcher-kva.example', 'пример.рф', '例子.测试', 'www.example.com']);
  const port = rng.pick(['', ':8080', ':443', ':8443']);
  const path = rng.pick(['/wiki/Caf%C3%A9', '/статья/1', '/a%20b/c', '/search/知识', '/~user/index.html']);
  const query = rng.pick(['', '?q=graph+search&lang=fr', '?a=1&b=%C3%A9', '?x=(1,2)']);
  const fragment = rng.pick(['', '#section-2', '#Résumé', '#']);
  return `https://${host}${port}${path}${query}${fragment}`;
}

/**
 * Calendar dates at the boundaries a date computation gets wrong: the last and first day of a
 * year, of a century (2000 a leap year, 1900 and 2100 not), leap days.
 */
export const BOUNDARY_DATES = [
  '1999-12-31',
  '2000-01-01',
  '2000-02-29',
  '2000-12-31',
  '2001-01-01',
  '1900-02-28',
  '1900-03-01',
  '2020-02-29',
  '2024-02-29',
  '2024-12-31',
  '2025-01-01',
  '2099-12-31',
  '2100-02-28',
  '2100-03-01',
];

/** The boundary dates of century years, where the leap-year rule has its exceptions (2000 leap, 1900 and 2100 not). */
export const CENTURY_DATES = BOUNDARY_DATES.filter((date) => date.slice(2, 4) === '00');

/** Dates that are not yyyy-mm-dd as the interface writes them, though they read as one: other digits and dashes. */
export const LOOKALIKE_DATES = ['２０２１-０３-１５', '2021‐03‐15', '2021−03−15', '٢٠٢١-٠٣-١٥'];

/** The classes a text shows (for tests and figures): which characters make it so. */
export function classesOf(text: string): Set<WorldClass> {
  const out = new Set<WorldClass>();
  if (/\p{Lu}/u.test(text)) out.add('capitals');
  if (/[\u00c0-\u024f\u1e00-\u1eff]/u.test(text)) out.add('accents');
  if (/\p{M}/u.test(text) && text.normalize('NFC') !== text) out.add('decomposed');
  if (/\p{M}/u.test(text.normalize('NFC'))) out.add('combining');
  if (/[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u.test(text)) out.add('cjk');
  if (/[\p{Script=Arabic}\p{Script=Hebrew}]/u.test(text)) out.add('right-to-left');
  if (/\p{Extended_Pictographic}|\p{Regional_Indicator}/u.test(text)) out.add('emoji');
  if (/['’]/.test(text)) out.add('apostrophe');
  if (/[()[\]]/.test(text)) out.add('parentheses');
  if (/,/.test(text)) out.add('comma');
  if (/\d/.test(text)) out.add('digits');
  if (OTHER_SCRIPT.test(text)) out.add('other-scripts');
  if (NON_ASCII_SYMBOL.test(text)) out.add('symbols');
  if (QUOTES.test(text)) out.add('quotes');
  if (INVISIBLE.test(text)) out.add('invisible');
  if ([...text].some(isAstralNonEmoji)) out.add('astral');
  if (/[\uff01-\uff5e]/.test(text)) out.add('full-width');
  return out;
}

/** A letter of a script none of the named classes covers (Cyrillic, Greek, Devanagari, Thai, Georgian...). */
const OTHER_SCRIPT =
  /(?![\p{Script=Latin}\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\p{Script=Arabic}\p{Script=Hebrew}])\p{L}/u;
/** A symbol outside ASCII that is no emoji: mathematical, currency, degree, fractions. */
const NON_ASCII_SYMBOL = /(?![\p{Extended_Pictographic}])[\u00a2-\u00be\u2010-\u2bff](?<=[\p{S}\p{No}])/u;
/** Double quotes, typographic quotes and guillemets (the apostrophe class holds ' and ’). */
const QUOTES = /["“”„«»‘‹›]/;
/** Characters that print as nothing: zero-width space, word joiner, direction marks, a byte order mark, a soft hyphen. */
const INVISIBLE = /[\u00ad\u200b\u200c\u200e\u200f\u2060\ufeff\u202a-\u202e\u2066-\u2069]/;

/** A character outside the Basic Multilingual Plane (a UTF-16 surrogate pair) that is no emoji. */
function isAstralNonEmoji(char: string): boolean {
  return (
    (char.codePointAt(0) ?? 0) > 0xffff &&
    !/\p{Extended_Pictographic}|\p{Regional_Indicator}|\p{Emoji_Component}/u.test(char)
  );
}
