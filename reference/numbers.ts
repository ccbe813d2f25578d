// How the reference server reads its integer parameters: as the number parsers of common languages
// read an integer (Python's int() and float(), Java's Integer.parseInt, .NET's Int32.Parse,
// JavaScript's Number()), so that white space around it, a plus sign, leading zeros, a fraction of
// zero, an exponent, -0 and digits of another script are read as the same integer. What is no
// non-negative integer (a fraction, a negative number, a word) is left as written, for the
// parameter checks to refuse. An offset past what a double holds exactly is read as the largest it
// does: past every result either way.

/** The parameters of the interface that hold integers (count, offset, their event knowledge names, timeout, complete). */
const INTEGER_PARAMETERS = ['count', 'offset', '$top', '$skip', 'timeout', 'complete'];
/** The parameters that skip results: any number of them is past every result beyond the largest the server counts to. */
const OFFSETS = new Set(['offset', '$skip']);

/**
 * The integer a spelling reads as, in plain digits, or undefined when it is no non-negative integer
 * (or none a double holds exactly; `unbounded`: such a one is read as the largest that is).
 */
export function readInteger(text: string, unbounded = false): string | undefined {
  let rest = text.trim();
  if (/[^\x00-\x7f]/.test(rest)) {
    let ascii = '';
    for (const char of rest) {
      const code = char.codePointAt(0)!;
      if (code < 0x80) ascii += char;
      else if (/\p{Nd}/u.test(char)) {
        // Unicode's decimal digits come in runs of ten, zero first.
        let zero = code;
        while (code - zero < 9 && /\p{Nd}/u.test(String.fromCodePoint(zero - 1))) zero--;
        ascii += String(code - zero);
      } else return undefined;
    }
    rest = ascii;
  }
  if (!/^[+-]?\d+(\.0*)?([eE][+-]?\d+)?$/.test(rest)) return undefined;
  const value = Number(rest);
  if (!Number.isInteger(value) && Number.isFinite(value)) return undefined;
  if (rest.startsWith('-') && value !== 0) return undefined;
  if (value > Number.MAX_SAFE_INTEGER) return unbounded ? String(Number.MAX_SAFE_INTEGER) : undefined;
  return String(Math.abs(value));
}

/**
 * The parameters with each integer one read as its plain digits, and an optional one sent empty
 * left out (read as absent); the others as they came.
 */
export function readIntegers(params: Record<string, string>, required: readonly string[]): Record<string, string> {
  let out: Record<string, string> | undefined;
  for (const [name, value] of Object.entries(params))
    if (value === '' && !required.includes(name)) {
      out ??= { ...params };
      delete out[name];
    }
  for (const name of INTEGER_PARAMETERS) {
    const value = (out ?? params)[name];
    if (value === undefined || (/^(0|[1-9]\d{0,15})$/.test(value) && Number(value) <= Number.MAX_SAFE_INTEGER))
      continue;
    out ??= { ...params };
    const read = readInteger(value, OFFSETS.has(name));
    if (read !== undefined) out[name] = read;
  }
  return out ?? params;
}
