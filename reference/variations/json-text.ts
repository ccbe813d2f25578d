// Every form of JSON text RFC 8259 allows for the same value: insignificant white space, escaped
// characters, number forms, members in any order. Each variation writes every JSON answer of every
// operation (errors included) in one such form; JSON.parse reads the clean value back from each.
import { jsonOf } from '../faults/transform.ts';
import type { HandlerResult } from '../faults/types.ts';
import type { Variation } from './types.ts';

/** How a JSON text is written: the white space, the strings, the numbers and the order of members. */
export interface JsonStyle {
  /** Around the whole text (ws value ws). */
  around?: [string, string];
  /** Before every member and element, once per level of nesting; and the line break before it. */
  indent?: string;
  newline?: string;
  /** The separators, white space included (`: `, `,`). */
  colon?: string;
  comma?: string;
  /** A string as a JSON string literal, quotes included. */
  string?: (text: string) => string;
  /** A number as JSON number text (the same value). */
  number?: (value: number) => string;
  /** The order an object's members are written in. */
  order?: (keys: string[]) => string[];
}

/** Writes a JSON value as text in the given style. */
export function writeJson(value: unknown, style: JsonStyle = {}): string {
  const { indent = '', newline = '', colon = ':', comma = ',' } = style;
  const string = style.string ?? ((text: string) => JSON.stringify(text));
  const number = style.number ?? ((n: number) => JSON.stringify(n));
  const order = style.order ?? ((keys: string[]) => keys);
  const write = (node: unknown, depth: number): string => {
    if (node === null || node === undefined) return 'null';
    if (typeof node === 'string') return string(node);
    if (typeof node === 'number') return Number.isFinite(node) ? number(node) : 'null';
    if (typeof node === 'boolean') return node ? 'true' : 'false';
    const inner = newline + indent.repeat(depth + 1);
    const close = newline + indent.repeat(depth);
    if (Array.isArray(node)) {
      if (node.length === 0) return '[]';
      return `[${node.map((item) => inner + write(item, depth + 1)).join(comma)}${close}]`;
    }
    const record = node as Record<string, unknown>;
    const keys = order(Object.keys(record).filter((key) => record[key] !== undefined));
    if (keys.length === 0) return '{}';
    return `{${keys.map((key) => `${inner}${string(key)}${colon}${write(record[key], depth + 1)}`).join(comma)}${close}}`;
  };
  const [before, after] = style.around ?? ['', ''];
  return `${before}${write(value, 0)}${after}`;
}

/** A response hook writing every JSON answer (any status; a bare number too) as `style` writes it. */
function rewritten(style: () => JsonStyle): NonNullable<Variation['response']> {
  return (_ctx, result): HandlerResult => {
    if (result.contentType !== undefined && !/json/i.test(result.contentType)) return result;
    if (result.rawBody === undefined && result.body === undefined) return result;
    const value = jsonOf(result);
    if (value === undefined) return result;
    const { body: _body, ...rest } = result;
    return { ...rest, rawBody: writeJson(value, style()) };
  };
}

/** `\uXXXX` of one UTF-16 code unit, in upper or lower case hex (RFC 8259, section 7: either). */
function escapeUnit(unit: number, upper: boolean): string {
  const hex = unit.toString(16).padStart(4, '0');
  return `\\u${upper ? hex.toUpperCase() : hex}`;
}

/**
 * A string with every character escaped that RFC 8259 lets a writer escape, in the forms it allows:
 * `/` as `\/`, every character beyond ASCII as `\uXXXX` (a character beyond the Basic Multilingual
 * Plane as its surrogate pair), `e` as `\u0065`, hex digits alternately in upper and lower case.
 */
export function escapedString(text: string): string {
  let out = '"';
  let upper = false;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    const ch = text[i]!;
    if (ch === '"') out += '\\"';
    else if (ch === '\\') out += '\\\\';
    else if (ch === '/') out += '\\/';
    else if (ch === '\n') out += '\\n';
    else if (ch === '\t') out += '\\t';
    else if (unit < 0x20 || unit > 0x7e || ch === 'e') {
      out += escapeUnit(unit, upper);
      upper = !upper;
    } else out += ch;
  }
  return `${out}"`;
}

/**
 * The same number in one of the forms RFC 8259, section 6 allows, chosen by `form`: an exponent with
 * `E` (`2.013E3`), an exponent with an explicit sign (`2.013e+3`), a mantissa with a trailing zero
 * (`2013.0`, `0.250`), an integer mantissa (`2013E0`, `25E-2`); zero as `-0`, `0.0`, `0E0`, `0e+5`.
 * Every form is the same decimal value, so it reads back as the same double.
 */
export function numberForm(value: number, form: number): string {
  if (value === 0) return ['-0', '0.0', '0E0', '0e+5'][form % 4]!;
  const sign = value < 0 ? '-' : '';
  const [mantissa, exponentText] = Math.abs(value).toExponential().split('e') as [string, string];
  const exponent = Number(exponentText);
  const digits = mantissa.replace('.', '');
  switch (form % 4) {
    case 0:
      return `${sign}${mantissa}E${exponent}`;
    case 1:
      return `${sign}${mantissa}e${exponent < 0 ? '-' : '+'}${Math.abs(exponent)}`;
    case 2: {
      const plain = String(Math.abs(value));
      if (plain.includes('e')) return `${sign}${mantissa.includes('.') ? mantissa : `${mantissa}.`}0E${exponent}`;
      return `${sign}${plain.includes('.') ? plain : `${plain}.`}0`;
    }
    default:
      return `${sign}${digits}E${exponent - (digits.length - 1)}`;
  }
}

/** A small seeded generator (mulberry32): the member order of one answer. */
function shuffler(seed: number): (keys: string[]) => string[] {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return (keys) => {
    const out = [...keys];
    for (let i = out.length - 1; i > 0; i--) {
      const j = Math.floor(next() * (i + 1));
      [out[i], out[j]] = [out[j]!, out[i]!];
    }
    return out;
  };
}

/** The JSON text variations: each writes every JSON answer in one form RFC 8259 allows. */
export function jsonTextVariations(): Variation[] {
  let answers = 0;
  let numbers = 0;
  return [
    {
      name: 'json-insignificant-whitespace',
      group: 'all',
      operations: [],
      deviation: 'legitimate',
      allowedBy:
        'RFC 8259, section 2: insignificant white space (space, tab, line feed, carriage return) before or after any structural character and around the text',
      description:
        'every JSON answer is written with white space wherever JSON allows it: tabs, CRLF line breaks, spaces around colons and commas, and white space before and after the text',
      response: rewritten(() => ({
        around: [' \r\n', '\r\n\t '],
        indent: '\t',
        newline: '\r\n',
        colon: ' : ',
        comma: ' ,',
      })),
    },
    {
      name: 'json-escaped-characters',
      group: 'all',
      operations: [],
      deviation: 'legitimate',
      allowedBy:
        'RFC 8259, section 7: any character may be escaped; \\/ is an escape of /; \\uXXXX hex digits in either case; characters beyond the BMP as a surrogate pair',
      description:
        'every JSON answer escapes what a writer may escape: / as \\/, every non-ASCII character as \\uXXXX (surrogate pairs beyond the BMP, hex digits in upper and lower case), e as \\u0065',
      response: rewritten(() => ({ string: escapedString })),
    },
    {
      name: 'json-number-forms',
      group: 'all',
      operations: [],
      deviation: 'legitimate',
      allowedBy:
        'RFC 8259, section 6: a number is an optional minus, an integer part, an optional fraction and an optional exponent (e or E, optional sign); -0 is zero',
      description:
        'every number of every JSON answer (counts, years and ids included) is written in another form of the same value: 2.013E3, 2.013e+3, 2013.0, 2013E0, a score as 6.143605267856884E-1 or 6143605267856884E-16, zero as -0, 0.0, 0E0',
      response: rewritten(() => ({ number: (value) => numberForm(value, numbers++) })),
    },
    {
      name: 'json-member-order-varies',
      group: 'all',
      operations: [],
      deviation: 'legitimate',
      allowedBy:
        'RFC 8259, section 4: an object is an unordered collection of members; implementations whose behaviour does not depend on member order are interoperable',
      description:
        'the members of every object of every JSON answer come in an order drawn afresh for each answer, as a writer iterating a hash map with a per-process seed writes them',
      response: rewritten(() => ({ order: shuffler(++answers * 2654435761) })),
    },
  ];
}
