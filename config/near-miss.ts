// Near misses: the names a mistyped option, configuration key, command or id most likely meant
// (`--max-rsp` -> `--max-rps`, `maxRPS` -> `maxRps`), for the "did you mean" of a usage error.

/**
 * The edit distance of two strings (optimal string alignment: an insertion, a deletion, a
 * substitution or a swap of two neighbours each count one).
 */
export function editDistance(a: string, b: string): number {
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d: number[][] = Array.from({ length: rows }, (_, i) =>
    Array.from({ length: cols }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i < rows; i++) {
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1);
    }
  }
  return d[a.length]![b.length]!;
}

/** How far a name may be from a known one and still be its near miss: a third of its length, at least 1, at most 3. */
function allowance(name: string): number {
  return Math.max(1, Math.min(3, Math.floor(name.length / 3)));
}

/**
 * The known names `given` most likely meant, best first (at most three, all equally near): the same
 * name in another case or spelling (`maxRPS`, `max_rps`), then the nearest by edit distance within
 * a third of its length, then the names it begins. Empty when nothing is near.
 */
export function nearMisses(given: string, known: readonly string[]): string[] {
  const fold = (name: string) => name.toLowerCase().replace(/[-_\s]/g, '');
  const folded = known.filter((name) => fold(name) === fold(given) && name !== given);
  if (folded.length > 0) return folded.slice(0, 3);
  let best = Number.POSITIVE_INFINITY;
  let names: string[] = [];
  for (const name of known) {
    if (name === given) continue;
    const distance = editDistance(given.toLowerCase(), name.toLowerCase());
    if (distance > allowance(name) || distance > best) continue;
    if (distance < best) names = [];
    best = distance;
    names.push(name);
  }
  if (names.length > 0) return names.slice(0, 3);
  const prefixed = given.length >= 3 ? known.filter((name) => name.startsWith(given)) : [];
  return prefixed.slice(0, 3);
}

/** ` (did you mean --max-rps?)`-style words for the near misses of `given`, or '' when there is none. */
export function didYouMean(given: string, known: readonly string[], prefix = ''): string {
  const near = nearMisses(given, known);
  if (near.length === 0) return '';
  const names = near.map((name) => `${prefix}${name}`);
  return `did you mean ${names.length === 1 ? names[0] : `${names.slice(0, -1).join(', ')} or ${names.at(-1)}`}?`;
}
