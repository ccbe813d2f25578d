// Interned string values with synonyms: the dictionary behind AA.AuN, AA.AfN, F.FN, J.JN and C.CN.

/** One string of a table (a canonical value or a synonym) and the canonical values it stands for. */
export interface NameEntry {
  text: string;
  canonical: boolean;
  ids: number[];
}

/** Canonical values (id = position) plus synonyms; `=` matches synonyms too, `==` canonical values only. */
export class NameTable {
  readonly values: string[] = [];
  private readonly index = new Map<string, number>();
  private readonly synonymIndex = new Map<string, number[]>();
  private readonly synonymsById: string[][] = [];
  private sorted: NameEntry[] | undefined;

  /** Interns a canonical value and returns its id. */
  intern(value: string): number {
    let id = this.index.get(value);
    if (id === undefined) {
      id = this.values.length;
      this.values.push(value);
      this.index.set(value, id);
      this.sorted = undefined;
    }
    return id;
  }

  /** Records that `synonym` also names the canonical value `id`. */
  addSynonym(id: number, synonym: string): void {
    if (synonym === this.values[id]) return;
    const ids = this.synonymIndex.get(synonym);
    if (ids === undefined) this.synonymIndex.set(synonym, [id]);
    else if (ids.includes(id)) return;
    else ids.push(id);
    const synonyms = this.synonymsById[id];
    if (synonyms) synonyms.push(synonym);
    else this.synonymsById[id] = [synonym];
    this.sorted = undefined;
  }

  /** Id of a canonical value, or -1. */
  canonicalId(value: string): number {
    return this.index.get(value) ?? -1;
  }

  /** Synonyms recorded for canonical value `id`. */
  synonymsOf(id: number): readonly string[] {
    return this.synonymsById[id] ?? [];
  }

  /** Canonical ids named by `text` exactly: itself when canonical, plus, unless canonicalOnly, those it is a synonym of. */
  lookup(text: string, canonicalOnly: boolean): number[] {
    const own = this.index.get(text);
    const out = own === undefined ? [] : [own];
    if (!canonicalOnly) {
      for (const id of this.synonymIndex.get(text) ?? []) if (id !== own) out.push(id);
    }
    return out;
  }

  /** Every string (canonical or synonym) starting with `prefix`, in lexical order. */
  withPrefix(prefix: string, canonicalOnly: boolean): NameEntry[] {
    const sorted = this.sortedEntries();
    let lo = 0;
    let hi = sorted.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (sorted[mid]!.text < prefix) lo = mid + 1;
      else hi = mid;
    }
    const out: NameEntry[] = [];
    for (let i = lo; i < sorted.length && sorted[i]!.text.startsWith(prefix); i++) {
      const entry = sorted[i]!;
      if (canonicalOnly && !entry.canonical) continue;
      out.push(entry);
    }
    return out;
  }

  /** Canonical ids named by any string starting with `prefix`, ascending and unique. */
  idsWithPrefix(prefix: string, canonicalOnly: boolean): number[] {
    const ids = new Set<number>();
    for (const entry of this.withPrefix(prefix, canonicalOnly)) {
      if (canonicalOnly) ids.add(this.index.get(entry.text)!);
      else for (const id of entry.ids) ids.add(id);
    }
    return [...ids].sort((a, b) => a - b);
  }

  /** The entry for an exact string (canonical or synonym), if any. */
  entry(text: string): NameEntry | undefined {
    const ids = this.lookup(text, false);
    if (ids.length === 0) return undefined;
    return { text, canonical: this.index.has(text), ids };
  }

  private sortedEntries(): NameEntry[] {
    if (this.sorted) return this.sorted;
    const entries: NameEntry[] = [];
    const seen = new Set<string>();
    for (const text of [...this.index.keys(), ...this.synonymIndex.keys()]) {
      if (seen.has(text)) continue;
      seen.add(text);
      entries.push({ text, canonical: this.index.has(text), ids: this.lookup(text, false) });
    }
    entries.sort((a, b) => (a.text < b.text ? -1 : a.text > b.text ? 1 : 0));
    this.sorted = entries;
    return entries;
  }
}
