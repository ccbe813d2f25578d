// The deterministic paper corpus: columns in typed arrays (memory-conscious at a million papers),
// documents numbered by rank (0 = highest prob), and inverted indexes built lazily on first use.

import { mulberry32 } from '../random.ts';
import { NameTable } from './names.ts';
import { hash32 } from './random.ts';
import {
  AFFILIATIONS,
  CONFERENCES,
  CONNECTORS,
  FIELDS,
  GIVEN_NAMES,
  JOURNALS,
  OBJECTS,
  QUALIFIERS,
  SURNAMES,
  TOPICS,
} from './vocabulary.ts';

/** Largest corpus accepted (document numbers are packed into 21 bits while ranking). */
export const MAX_PAPERS = 2_000_000;
/** Identifier bases: every identifier fits a signed 32-bit integer. */
export const ID_BASE = 1_000_000_000;
const ID_STRIDE = 16;
const AUID_BASE = 2_000_000_000;
const AUID_STRIDE = 7;
const AFID_BASE = 100_000;
const AFID_STRIDE = 37;
const FID_BASE = 40_000_000;
const FID_STRIDE = 101;
const JID_BASE = 130_000_000;
const JID_STRIDE = 11;
const CID_BASE = 1_100_000_000;
const CID_STRIDE = 13;
/** First publication year of the corpus. */
export const FIRST_YEAR = 1970;
/** Last publication year of the corpus. */
export const LAST_YEAR = 2024;
const DOI_PREFIXES = ['1145', '1109', '1016', '1007', '1038', '3115'];
const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const RANK_SHIFT = 2 ** 21;

/** A compressed inverted index: the documents of key k are docs[off[k]..off[k+1]), ascending. */
export interface Postings {
  off: Int32Array;
  docs: Int32Array;
}

/** Options of the corpus: the seed and the number of papers. */
export interface CorpusOptions {
  seed: number;
  papers: number;
}

// Cheap skews of a uniform u in [0, 1) towards 0 (popular items first); Math.pow is slow in the hot loop.
function skewed(u: number): number {
  return u * (0.35 + 0.65 * u);
}
function squared(u: number): number {
  return u * u;
}
function cubed(u: number): number {
  return u * u * u;
}

function splitWords(phrases: readonly string[]): string[] {
  return phrases.flatMap((phrase) => phrase.split(' '));
}

/** Inverse of the id formulas: the index whose identifier is `value`, or -1. */
function decodeId(value: number, base: number, stride: number, count: number): number {
  const offset = value - base;
  if (!Number.isInteger(offset) || offset < 0 || offset % stride !== 0) return -1;
  const index = offset / stride;
  return index < count ? index : -1;
}

/** The paper corpus; "g" numbers papers in generation (chronological) order, "doc" by rank. */
export class Corpus {
  readonly size: number;
  readonly seed: number;
  /** Title vocabulary (W values) and its index. */
  readonly words: string[];
  readonly wordIndex = new Map<string, number>();
  readonly authorNames = new NameTable();
  readonly affiliations = new NameTable();
  readonly fields = new NameTable();
  readonly journals = new NameTable();
  readonly conferences = new NameTable();
  readonly venueCodes: string[];

  readonly id: Int32Array;
  readonly year: Uint16Array;
  readonly date: Int32Array;
  readonly cc: Int32Array;
  readonly ecc: Int32Array;
  readonly titleOff: Int32Array;
  readonly titleWords: Uint16Array;
  readonly authOff: Int32Array;
  readonly authAuthor: Int32Array;
  readonly authAff: Int16Array;
  readonly fieldOff: Int32Array;
  readonly fieldIds: Uint8Array;
  /** -1 none, 0..journals-1 a journal, journals.. a conference. */
  readonly venue: Int16Array;
  readonly refOff: Int32Array;
  readonly refs: Int32Array;
  readonly hasDoi: Uint8Array;

  readonly authorCount: number;
  /** Canonical name id (in authorNames) of each author. */
  readonly authorName: Int32Array;
  readonly authorAff: Int16Array;

  /** rank -> g, g -> rank, and prob by rank (descending). */
  readonly byRank: Int32Array;
  readonly rankOf: Int32Array;
  readonly probByRank: Float64Array;
  /** Year and yyyymmdd date by rank: the columns range filters read, kept in document order. */
  readonly yearByRank: Uint16Array;
  readonly dateByRank: Int32Array;

  private readonly lazy = new Map<string, Postings>();

  constructor(options: CorpusOptions) {
    const n = Math.floor(options.papers);
    if (!Number.isFinite(n) || n < 1 || n > MAX_PAPERS) {
      throw new RangeError(`papers must be an integer between 1 and ${MAX_PAPERS}`);
    }
    this.size = n;
    this.seed = options.seed >>> 0;
    const random = mulberry32(this.seed ^ 0x5eed);

    this.words = [
      ...new Set(['a', 'the', 'by', ...CONNECTORS, ...splitWords(QUALIFIERS), ...TOPICS, ...splitWords(OBJECTS)]),
    ];
    for (const [i, word] of this.words.entries()) this.wordIndex.set(word, i);
    for (const field of FIELDS) this.fields.intern(field);
    for (const journal of JOURNALS) this.journals.intern(journal.name);
    for (const conference of CONFERENCES) this.conferences.intern(conference.name);
    this.venueCodes = [...JOURNALS, ...CONFERENCES].map((venue) => venue.code);
    for (const affiliation of AFFILIATIONS) {
      const id = this.affiliations.intern(affiliation.name);
      if (affiliation.synonym) this.affiliations.addSynonym(id, affiliation.synonym);
    }

    this.authorCount = Math.max(16, Math.ceil(n / 4));
    this.authorName = new Int32Array(this.authorCount);
    this.authorAff = new Int16Array(this.authorCount);
    this.buildAuthors();

    this.id = new Int32Array(n);
    this.year = new Uint16Array(n);
    this.date = new Int32Array(n);
    this.cc = new Int32Array(n);
    this.ecc = new Int32Array(n);
    this.venue = new Int16Array(n);
    this.hasDoi = new Uint8Array(n);
    this.titleOff = new Int32Array(n + 1);
    this.authOff = new Int32Array(n + 1);
    this.fieldOff = new Int32Array(n + 1);
    this.refOff = new Int32Array(n + 1);
    const titleWords = new Uint16Array(n * 10);
    const authAuthor = new Int32Array(n * 6);
    const authAff = new Int16Array(n * 6);
    const fieldIds = new Uint8Array(n * 4);
    const refs = new Int32Array(n * 12);
    let titleLen = 0;
    let authLen = 0;
    let fieldLen = 0;
    let refLen = 0;

    const word = (w: string) => this.wordIndex.get(w)!;
    const pick = (list: readonly string[]) => list[Math.floor(list.length * skewed(random()))]!;
    const qualifierWords = QUALIFIERS.map((q) => q.split(' ').map(word));
    const objectWords = OBJECTS.map((o) => o.split(' ').map(word));
    const journalCount = JOURNALS.length;
    const venueCount = journalCount + CONFERENCES.length;
    const fieldCount = FIELDS.length;
    const affiliationCount = AFFILIATIONS.length;

    for (let g = 0; g < n; g++) {
      this.id[g] = ID_BASE + g * ID_STRIDE + (hash32(this.seed, g) & (ID_STRIDE - 1));
      const year = FIRST_YEAR + Math.floor((LAST_YEAR - FIRST_YEAR + 1) * Math.sqrt(g / n));
      this.year[g] = year;
      const month = 1 + Math.floor(random() * 12);
      const day = 1 + Math.floor(random() * DAYS_IN_MONTH[month - 1]!);
      this.date[g] = year * 10000 + month * 100 + day;

      this.titleOff[g] = titleLen;
      if (g === 0) {
        for (const w of ['indexing', 'by', 'latent', 'semantic', 'analysis']) titleWords[titleLen++] = word(w);
      } else {
        const qualifiers = Math.floor(random() * 3);
        for (let i = 0; i < qualifiers && titleLen < this.titleOff[g]! + 8; i++) {
          for (const w of qualifierWords[Math.floor(qualifierWords.length * skewed(random()))]!)
            titleWords[titleLen++] = w;
        }
        titleWords[titleLen++] = word(pick(TOPICS));
        if (random() < 0.3) titleWords[titleLen++] = word(pick(TOPICS));
        if (random() < 0.7 && titleLen < this.titleOff[g]! + 8) {
          titleWords[titleLen++] = word(pick(CONNECTORS));
          const tail = objectWords[Math.floor(objectWords.length * skewed(random()))]!;
          for (const w of tail) if (titleLen < this.titleOff[g]! + 10) titleWords[titleLen++] = w;
        }
      }

      this.authOff[g] = authLen;
      const authors = g === 0 ? 2 : 1 + Math.floor(skewed(random()) * 6);
      for (let i = 0; i < authors; i++) {
        let author = g === 0 ? i : Math.floor(this.authorCount * squared(random()));
        for (let j = this.authOff[g]!; j < authLen; j++) {
          if (authAuthor[j] === author) {
            author = (author + 1 + Math.floor(random() * 97)) % this.authorCount;
            j = this.authOff[g]! - 1;
          }
        }
        authAuthor[authLen] = author;
        const r = random();
        authAff[authLen] = r < 0.8 ? this.authorAff[author]! : r < 0.9 ? -1 : Math.floor(random() * affiliationCount);
        authLen++;
      }

      this.fieldOff[g] = fieldLen;
      const fields = 1 + Math.floor(skewed(random()) * 4);
      for (let i = 0; i < fields; i++) {
        const field = Math.floor(fieldCount * squared(random()));
        let seen = false;
        for (let j = this.fieldOff[g]!; j < fieldLen; j++) seen ||= fieldIds[j] === field;
        if (!seen) fieldIds[fieldLen++] = field;
      }

      const venueRoll = random();
      this.venue[g] =
        venueRoll < 0.08
          ? -1
          : venueRoll < 0.55
            ? Math.floor(journalCount * skewed(random()))
            : journalCount + Math.floor((venueCount - journalCount) * skewed(random()));
      this.hasDoi[g] = this.venue[g]! >= 0 && random() < 0.85 ? 1 : 0;

      this.refOff[g] = refLen;
      const refCount = g === 0 ? 0 : Math.floor(random() * Math.min(g, 13));
      for (let i = 0; i < refCount; i++) {
        const target =
          random() < 0.35 ? Math.floor(g * cubed(random())) : g - 1 - Math.floor(Math.min(g, 3000) * random());
        let seen = false;
        for (let j = this.refOff[g]!; j < refLen; j++) seen ||= refs[j] === target;
        if (!seen) {
          refs[refLen++] = target;
          this.cc[target]!++;
        }
      }
    }
    this.titleOff[n] = titleLen;
    this.authOff[n] = authLen;
    this.fieldOff[n] = fieldLen;
    this.refOff[n] = refLen;
    this.titleWords = titleWords.slice(0, titleLen);
    this.authAuthor = authAuthor.slice(0, authLen);
    this.authAff = authAff.slice(0, authLen);
    this.fieldIds = fieldIds.slice(0, fieldLen);
    this.refs = refs.slice(0, refLen);

    const keys = new Float64Array(n);
    for (let g = 0; g < n; g++) {
      const external = Math.floor(cubed(hash32(this.seed ^ 0xcc, g) / 4294967296) * 40);
      const cc = this.cc[g]! + external;
      this.cc[g] = cc;
      this.ecc[g] = cc + Math.floor(cc * 0.12) + (hash32(this.seed ^ 0xec, g) % 3);
      const jitter = (hash32(this.seed ^ 0x9b, g) % 1000) / 1000;
      const quantized = Math.max(100_000, Math.round((17 - 1.1 * Math.log1p(cc) - 0.2 * jitter) * 1e6));
      keys[g] = quantized * RANK_SHIFT + g;
    }
    keys.sort();
    this.byRank = new Int32Array(n);
    this.rankOf = new Int32Array(n);
    this.probByRank = new Float64Array(n);
    this.yearByRank = new Uint16Array(n);
    this.dateByRank = new Int32Array(n);
    for (let r = 0; r < n; r++) {
      const key = keys[r]!;
      const g = key % RANK_SHIFT;
      this.byRank[r] = g;
      this.rankOf[g] = r;
      this.probByRank[r] = Math.exp(-Math.floor(key / RANK_SHIFT) / 1e6);
      this.yearByRank[r] = this.year[g]!;
      this.dateByRank[r] = this.date[g]!;
    }
  }

  private buildAuthors(): void {
    const givenCount = GIVEN_NAMES.length;
    const surnameCount = SURNAMES.length;
    // Many authors share a name: strings are built and interned once per distinct (given, surname, form).
    const seen = new Map<number, number>();
    for (let a = 0; a < this.authorCount; a++) {
      const h = hash32(this.seed ^ 0xa17, a);
      let given = h % givenCount;
      let surname = (h >>> 8) % surnameCount;
      let initials = (h >>> 20) % 10 < 2;
      let middle = initials ? (h >>> 24) % 26 : 0;
      if (a === 0) [given, surname, initials, middle] = [0, 0, false, 0];
      if (a === 1) [given, surname, initials, middle] = [0, 4, true, 11];
      const key = ((given * surnameCount + surname) * 2 + (initials ? 1 : 0)) * 26 + middle;
      let id = seen.get(key);
      if (id === undefined) {
        const first = GIVEN_NAMES[given]!;
        const last = SURNAMES[surname]!;
        const canonical = initials ? `${first[0]} ${String.fromCharCode(97 + middle)} ${last}` : `${first} ${last}`;
        id = this.authorNames.intern(canonical);
        this.authorNames.addSynonym(id, initials ? `${first} ${last}` : `${first[0]} ${last}`);
        seen.set(key, id);
      }
      this.authorName[a] = id;
      const affRoll = hash32(this.seed ^ 0xaff, a);
      this.authorAff[a] =
        affRoll % 10 === 0 ? -1 : Math.floor(AFFILIATIONS.length * skewed((affRoll >>> 4) / 268435456));
    }
  }

  /** Paper identifier (Id) of document `doc`. */
  paperId(doc: number): number {
    return this.id[this.byRank[doc]!]!;
  }

  /** Document with paper identifier `id`, or -1. */
  docById(id: number): number {
    if (!Number.isSafeInteger(id)) return -1;
    const g = Math.floor((id - ID_BASE) / ID_STRIDE);
    if (g < 0 || g >= this.size || this.id[g] !== id) return -1;
    return this.rankOf[g]!;
  }

  /** Normalized title of paper g. */
  title(g: number): string {
    let out = '';
    for (let i = this.titleOff[g]!; i < this.titleOff[g + 1]!; i++) {
      out += i === this.titleOff[g] ? this.words[this.titleWords[i]!] : ` ${this.words[this.titleWords[i]!]}`;
    }
    return out;
  }

  /** Unique title word ids of paper g, in title order. */
  uniqueWords(g: number): number[] {
    const out: number[] = [];
    for (let i = this.titleOff[g]!; i < this.titleOff[g + 1]!; i++) {
      const w = this.titleWords[i]!;
      if (!out.includes(w)) out.push(w);
    }
    return out;
  }

  /** Publication date of paper g as YYYY-MM-DD. */
  dateString(g: number): string {
    return formatDate(this.date[g]!);
  }

  /** DOI of paper g (upper case), or undefined when it has none. */
  doi(g: number): string | undefined {
    if (!this.hasDoi[g]) return undefined;
    const venue = this.venue[g]!;
    const code = this.venueCodes[venue]!;
    const prefix = DOI_PREFIXES[hash32(venue, 7) % DOI_PREFIXES.length]!;
    return `10.${prefix}/${code}.${this.year[g]}.${this.id[g]}`;
  }

  /** Document whose DOI is `doi` (compared in upper case), or -1. */
  docByDoi(doi: string): number {
    const upper = doi.toUpperCase();
    const dot = upper.lastIndexOf('.');
    const tail = upper.slice(dot + 1);
    if (!/^\d{1,10}$/.test(tail)) return -1;
    const doc = this.docById(Number(tail));
    return doc >= 0 && this.doi(this.byRank[doc]!) === upper ? doc : -1;
  }

  /** Journal id of paper g, or -1. */
  journal(g: number): number {
    const venue = this.venue[g]!;
    return venue >= 0 && venue < JOURNALS.length ? venue : -1;
  }

  /** Conference id of paper g, or -1. */
  conference(g: number): number {
    const venue = this.venue[g]!;
    return venue >= JOURNALS.length ? venue - JOURNALS.length : -1;
  }

  /** Identifier helpers (and their inverses, -1 when unknown) for authors, affiliations, fields, journals, conferences. */
  auId(author: number): number {
    return AUID_BASE + author * AUID_STRIDE;
  }
  authorByAuId(value: number): number {
    return decodeId(value, AUID_BASE, AUID_STRIDE, this.authorCount);
  }
  afId(affiliation: number): number {
    return AFID_BASE + affiliation * AFID_STRIDE;
  }
  affiliationByAfId(value: number): number {
    return decodeId(value, AFID_BASE, AFID_STRIDE, AFFILIATIONS.length);
  }
  fId(field: number): number {
    return FID_BASE + field * FID_STRIDE;
  }
  fieldByFId(value: number): number {
    return decodeId(value, FID_BASE, FID_STRIDE, FIELDS.length);
  }
  jId(journal: number): number {
    return JID_BASE + journal * JID_STRIDE;
  }
  journalByJId(value: number): number {
    return decodeId(value, JID_BASE, JID_STRIDE, JOURNALS.length);
  }
  cId(conference: number): number {
    return CID_BASE + conference * CID_STRIDE;
  }
  conferenceByCId(value: number): number {
    return decodeId(value, CID_BASE, CID_STRIDE, CONFERENCES.length);
  }

  /** Builds every inverted index now instead of on first use. */
  buildIndexes(): void {
    this.wordPostings();
    this.firstWordPostings();
    this.authorPostings();
    this.authorNamePostings();
    this.affiliationPostings();
    this.fieldPostings();
    this.venuePostings();
    this.yearPostings();
    this.citedByPostings();
  }

  /** Documents per title word. */
  wordPostings(): Postings {
    return this.postings('W', this.words.length, (g, emit) => {
      for (let i = this.titleOff[g]!; i < this.titleOff[g + 1]!; i++) emit(this.titleWords[i]!);
    });
  }

  /** Documents per first title word (for title prefixes of a single partial word). */
  firstWordPostings(): Postings {
    return this.postings('W0', this.words.length, (g, emit) => {
      if (this.titleOff[g + 1]! > this.titleOff[g]!) emit(this.titleWords[this.titleOff[g]!]!);
    });
  }

  /** Documents per author. */
  authorPostings(): Postings {
    return this.postings('AuId', this.authorCount, (g, emit) => {
      for (let i = this.authOff[g]!; i < this.authOff[g + 1]!; i++) emit(this.authAuthor[i]!);
    });
  }

  /** Documents per canonical author name. */
  authorNamePostings(): Postings {
    return this.postings('AuN', this.authorNames.values.length, (g, emit) => {
      for (let i = this.authOff[g]!; i < this.authOff[g + 1]!; i++) emit(this.authorName[this.authAuthor[i]!]!);
    });
  }

  /** Documents per affiliation (on any author slot). */
  affiliationPostings(): Postings {
    return this.postings('Af', AFFILIATIONS.length, (g, emit) => {
      for (let i = this.authOff[g]!; i < this.authOff[g + 1]!; i++) if (this.authAff[i]! >= 0) emit(this.authAff[i]!);
    });
  }

  /** Documents per field of study. */
  fieldPostings(): Postings {
    return this.postings('F', FIELDS.length, (g, emit) => {
      for (let i = this.fieldOff[g]!; i < this.fieldOff[g + 1]!; i++) emit(this.fieldIds[i]!);
    });
  }

  /** Documents per venue (journals first, then conferences). */
  venuePostings(): Postings {
    return this.postings('V', this.venueCodes.length, (g, emit) => {
      if (this.venue[g]! >= 0) emit(this.venue[g]!);
    });
  }

  /** Documents per year (key = year - FIRST_YEAR). */
  yearPostings(): Postings {
    return this.postings('Y', LAST_YEAR - FIRST_YEAR + 1, (g, emit) => emit(this.year[g]! - FIRST_YEAR));
  }

  /** Citing documents per cited paper g. */
  citedByPostings(): Postings {
    return this.postings('RId', this.size, (g, emit) => {
      for (let i = this.refOff[g]!; i < this.refOff[g + 1]!; i++) emit(this.refs[i]!);
    });
  }

  private postings(name: string, keyCount: number, each: (g: number, emit: (key: number) => void) => void): Postings {
    const cached = this.lazy.get(name);
    if (cached) return cached;
    const counts = new Int32Array(keyCount + 1);
    const last = new Int32Array(keyCount).fill(-1);
    let doc = 0;
    const count = (key: number) => {
      if (last[key] === doc) return;
      last[key] = doc;
      counts[key + 1]!++;
    };
    for (doc = 0; doc < this.size; doc++) each(this.byRank[doc]!, count);
    for (let k = 0; k < keyCount; k++) counts[k + 1]! += counts[k]!;
    const docs = new Int32Array(counts[keyCount]!);
    const cursor = counts.slice(0, keyCount);
    last.fill(-1);
    const fill = (key: number) => {
      if (last[key] === doc) return;
      last[key] = doc;
      docs[cursor[key]!++] = doc;
    };
    for (doc = 0; doc < this.size; doc++) each(this.byRank[doc]!, fill);
    const built = { off: counts, docs };
    this.lazy.set(name, built);
    return built;
  }
}

/** Formats a yyyymmdd integer as YYYY-MM-DD. */
export function formatDate(yyyymmdd: number): string {
  const y = Math.floor(yyyymmdd / 10000);
  const m = Math.floor(yyyymmdd / 100) % 100;
  const d = yyyymmdd % 100;
  return `${y}-${m < 10 ? '0' : ''}${m}-${d < 10 ? '0' : ''}${d}`;
}

/** Parses YYYY-MM-DD into a yyyymmdd integer, or -1 when it is not a real calendar date. */
export function parseDate(text: string): number {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (!match) return -1;
  const y = Number(match[1]);
  const m = Number(match[2]);
  const d = Number(match[3]);
  if (m < 1 || m > 12 || d < 1) return -1;
  const leap = (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
  const max = m === 2 && leap ? 29 : DAYS_IN_MONTH[m - 1]!;
  return d > max ? -1 : y * 10000 + m * 100 + d;
}

/** Postings slice of key k. */
export function postingsOf(postings: Postings, key: number): Int32Array {
  return postings.docs.subarray(postings.off[key]!, postings.off[key + 1]!);
}
