// similarity: cosine of two texts over academic concepts (fields of study and title vocabulary, weighted tf-idf).
import type { Corpus } from './corpus.ts';
import { type EngineResult, requiredString } from './params.ts';
import { CONNECTORS } from './vocabulary.ts';

/** Longest field-of-study name, in words (phrases up to this length are looked up). */
const MAX_PHRASE = 4;
const CHECK_EVERY = 8192;
const STOP_WORDS = new Set(['a', 'the', 'by', ...CONNECTORS]);

/** Concept dictionary: phrase or word -> concept id, and the idf weight of each concept. */
export class ConceptSpace {
  private readonly concepts = new Map<string, number>();
  private readonly idf: number[] = [];

  constructor(corpus: Corpus) {
    const size = corpus.size;
    const fieldPostings = corpus.fieldPostings();
    corpus.fields.values.forEach((field, f) => {
      const df = fieldPostings.off[f + 1]! - fieldPostings.off[f]!;
      this.add(field, Math.log(1 + size / (1 + df)));
    });
    const wordPostings = corpus.wordPostings();
    corpus.words.forEach((word, w) => {
      if (STOP_WORDS.has(word) || this.concepts.has(word)) return;
      const df = wordPostings.off[w + 1]! - wordPostings.off[w]!;
      this.add(word, Math.log(1 + size / (1 + df)));
    });
  }

  private add(text: string, weight: number): void {
    this.concepts.set(text, this.idf.length);
    this.idf.push(weight);
  }

  private lookup(token: string): number | undefined {
    const direct = this.concepts.get(token);
    if (direct !== undefined) return direct;
    if (token.length > 3 && token.endsWith('s')) return this.concepts.get(token.slice(0, -1));
    return this.concepts.get(`${token}s`);
  }

  /**
   * The concept vector of a text (concept id -> weight), or undefined once `deadline` (performance.now())
   * has passed. Multi-word field names win over their single words (longest match first).
   */
  vector(text: string, deadline: number): Map<number, number> | undefined {
    const tokens = text.toLowerCase().match(/[a-z0-9]+/g) ?? [];
    const counts = new Map<number, number>();
    let steps = 0;
    for (let i = 0; i < tokens.length; ) {
      if (steps++ % CHECK_EVERY === 0 && performance.now() >= deadline) return undefined;
      let matched = 1;
      let concept: number | undefined;
      let phrase = tokens[i]!;
      const candidates: [number, number][] = [];
      for (let len = 1; len <= MAX_PHRASE && i + len <= tokens.length; len++) {
        if (len > 1) phrase += ` ${tokens[i + len - 1]}`;
        const found = len === 1 ? this.lookup(phrase) : this.concepts.get(phrase);
        if (found !== undefined) candidates.push([len, found]);
      }
      const best = candidates.at(-1);
      if (best) [matched, concept] = best;
      if (concept !== undefined) counts.set(concept, (counts.get(concept) ?? 0) + 1);
      i += matched;
    }
    if (performance.now() >= deadline) return undefined;
    const vector = new Map<number, number>();
    for (const [concept, tf] of counts) vector.set(concept, (1 + Math.log(tf)) * this.idf[concept]!);
    return vector;
  }
}

/** Cosine of two concept vectors, computed in concept-id order so that swapping the inputs gives the same bits. */
export function cosine(a: Map<number, number>, b: Map<number, number>): number {
  if (a.size === 0 || b.size === 0) return 0;
  const keysA = [...a.keys()].sort((x, y) => x - y);
  const keysB = [...b.keys()].sort((x, y) => x - y);
  if (keysA.length === keysB.length && keysA.every((k, i) => k === keysB[i] && a.get(k) === b.get(k))) return 1;
  // Each vector is scaled by its own largest weight (cosine is scale-free) so that squares never overflow.
  let maxA = 0;
  let maxB = 0;
  for (const w of a.values()) maxA = Math.max(maxA, Math.abs(w));
  for (const w of b.values()) maxB = Math.max(maxB, Math.abs(w));
  if (maxA === 0 || maxB === 0 || !Number.isFinite(maxA) || !Number.isFinite(maxB)) return 0;
  let dot = 0;
  let normA = 0;
  let normB = 0;
  let i = 0;
  let j = 0;
  while (i < keysA.length || j < keysB.length) {
    const ka = i < keysA.length ? keysA[i]! : Number.POSITIVE_INFINITY;
    const kb = j < keysB.length ? keysB[j]! : Number.POSITIVE_INFINITY;
    if (ka === kb) {
      const wa = a.get(ka)! / maxA;
      const wb = b.get(kb)! / maxB;
      dot += wa * wb;
      normA += wa * wa;
      normB += wb * wb;
      i++;
      j++;
    } else if (ka < kb) {
      const wa = a.get(ka)! / maxA;
      normA += wa * wa;
      i++;
    } else {
      const wb = b.get(kb)! / maxB;
      normB += wb * wb;
      j++;
    }
  }
  // normA * normB is commutative, and dot was summed in key order: the result does not depend on the input order.
  const value = dot / Math.sqrt(normA * normB);
  return Math.max(-1, Math.min(1, value));
}

/** GET/POST similarity: a bare number, 400 without s1/s2, 408 past the compute deadline. */
export function similarity(space: ConceptSpace, params: Record<string, string>, deadlineMs: number): EngineResult {
  const s1 = requiredTextParam(params, 's1');
  const s2 = requiredTextParam(params, 's2');
  const deadline = performance.now() + deadlineMs;
  const a = space.vector(s1, deadline);
  const b = a && space.vector(s2, deadline);
  if (!a || !b) {
    return {
      status: 408,
      body: {
        error: { code: 'Timeout', message: `The similarity computation exceeded its deadline of ${deadlineMs} ms` },
      },
    };
  }
  return { status: 200, body: cosine(a, b) };
}

// s1/s2 may legitimately be empty strings (no concepts -> 0); only an absent parameter is an error.
function requiredTextParam(params: Record<string, string>, name: string): string {
  const value = Object.hasOwn(params, name) ? params[name] : undefined;
  if (typeof value !== 'string') return requiredString({}, name);
  return value;
}
