// Which input items a request carries, read from the request itself: the class of each value by
// the grammar of its input (classes.ts), so a fixed test's request and a generated one are counted
// alike. Classes a value cannot show by itself (an author's name, a date the target has events for,
// the form an expression was built around) are added by whoever built the request (cases.ts).
import { getOperation, type OperationInfo } from '../../openapi/spec.ts';
import type { HeaderForms } from '../generative/cases.ts';
import { ATTRIBUTES, type ExprNode, parseExpression } from '../generative/expression.ts';
import { isCalendarDate } from '../generative/values.ts';
import { BOUNDARY_DATES, classesOf as worldClassesOf } from '../generative/world.ts';
import {
  ACCEPT_INPUT,
  type ClassIntent,
  CONTENT_TYPE_INPUT,
  KEY_HEADER_INPUT,
  MISSING,
  REQUEST_INPUT,
  roleOf,
} from './classes.ts';
import { inputId, intentOf, specInputs } from './inputs.ts';

/** How a request was written (see cases.ts's Encoding), when known. */
export type RequestEncoding = 'plus' | 'percent' | 'raw' | 'escaped' | 'empty-pairs';

/** A request as the classifier reads it. */
export interface ClassifiedRequest {
  operationId: string;
  /** Parameters in order, repeats kept. */
  pairs: readonly (readonly [string, string])[];
  pathParams?: Readonly<Record<string, string>>;
  encoding?: RequestEncoding;
  /** A POST's Content-Type other than form encoding. */
  contentType?: string;
  /** How the header fields were written (classes of the header inputs); absent: the defaults. */
  headers?: HeaderForms;
  /** The path parameters went with every character percent-encoded. */
  pathEscaped?: boolean;
}

const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/;
const LINE_BREAKS = /[\n\r\t]/;
const GEN_DELIMS = /[:/?#[\]@]/;
const SUB_DELIMS = /[!$&'()*+,;=]/;
const ONLY_DIGITS = /^[\d\s.,]*\d[\d\s.,]*$/;
const ONLY_PUNCTUATION = /^[\p{P}\p{S}\s]+$/u;

/** The character classes of a free text (classes.ts TEXT_CHARACTERS, and the open ones). */
function textClasses(text: string, longAt: number, lineBreaksAreControl: boolean): string[] {
  if (text === '') return ['empty'];
  if (text.trim() === '') return ['blank'];
  const out = new Set<string>();
  if (/^[a-z ]+$/.test(text.trim())) out.add('letters');
  for (const name of worldClassesOf(text)) out.add(name);
  if (GEN_DELIMS.test(text)) out.add('gen-delims');
  if (SUB_DELIMS.test(text)) out.add('sub-delims');
  if (text.includes('%')) out.add('percent');
  if (text.includes('+')) out.add('plus');
  if (/[&=]/.test(text)) out.add('form-delimiters');
  if (text.includes('#')) out.add('hash');
  if (text.includes(';')) out.add('semicolon');
  if (/[~*]/.test(text)) out.add('tilde-asterisk');
  if (ONLY_DIGITS.test(text)) out.add('only-digits');
  else if (ONLY_PUNCTUATION.test(text)) out.add('only-punctuation');
  if (text !== text.trim()) out.add('padded');
  if (CONTROL.test(text) || (lineBreaksAreControl && LINE_BREAKS.test(text))) out.add('control');
  if (text.length > longAt) out.add('long');
  return [...out];
}

/** The largest 32-bit signed integer (Java's int, .NET's Int32). */
const INT32_MAX = 2_147_483_647;

/** The classes of a non-negative integer input with a maximum (count, $top), or of what is not one. */
function sizeClasses(value: string, maximum: number): string[] {
  const read = readInteger(value);
  if (typeof read === 'string') return [read];
  const { value: number, forms } = read;
  const size =
    number === 0
      ? 'zero'
      : number === 1
        ? 'one'
        : number < maximum
          ? 'several'
          : number === maximum
            ? 'maximum'
            : number <= INT32_MAX
              ? 'above-maximum'
              : 'beyond-int32';
  return [...forms, size];
}

/** The forms a spelling of an integer shows (classes.ts NUMBER_FORMS), and the integer it reads as. */
export interface ReadInteger {
  value: number;
  forms: string[];
}

/**
 * Reads a non-negative integer as the number parsers of common languages read one (white space
 * around it, a plus sign, leading zeros, a fraction of zero, an exponent, -0, digits of another
 * script), naming each such form; or the class of what is no non-negative integer.
 */
export function readInteger(text: string): ReadInteger | 'negative' | 'fractional' | 'non-numeric' {
  const forms: string[] = [];
  let rest = text.trim();
  if (rest === '') return 'non-numeric';
  if (rest !== text) forms.push('white-space');
  if (/[^\x00-\x7f]/.test(rest)) {
    const ascii = asciiDigits(rest);
    if (ascii === undefined) return 'non-numeric';
    rest = ascii;
    forms.push('other-digits');
  }
  let negative = false;
  if (rest.startsWith('+')) {
    forms.push('plus-sign');
    rest = rest.slice(1);
  } else if (rest.startsWith('-')) {
    negative = true;
    rest = rest.slice(1);
  }
  const match = /^(\d+)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/.exec(rest);
  if (!match) return 'non-numeric';
  const [, whole, fraction, exponent] = match;
  if (whole!.length > 1 && whole!.startsWith('0')) forms.push('leading-zeros');
  if (fraction !== undefined && /^0*$/.test(fraction)) forms.push('point-zero');
  if (exponent !== undefined) forms.push('exponent');
  const value = Number(rest);
  if (!Number.isInteger(value) && Number.isFinite(value)) return negative ? 'negative' : 'fractional';
  if (negative) return value === 0 ? { value: 0, forms: [...forms, 'negative-zero'] } : 'negative';
  return { value, forms };
}

/** The text with every Unicode decimal digit written as its ASCII digit; undefined when it holds another non-ASCII character. */
function asciiDigits(text: string): string | undefined {
  let out = '';
  for (const char of text) {
    const code = char.codePointAt(0)!;
    if (code < 0x80) {
      out += char;
      continue;
    }
    if (!/\p{Nd}/u.test(char)) return undefined;
    // Unicode's decimal digits come in runs of ten, zero first: the digit is the distance from it.
    let zero = code;
    while (code - zero < 9 && /\p{Nd}/u.test(String.fromCodePoint(zero - 1))) zero--;
    out += String(code - zero);
  }
  return out;
}

/** The integer a spelling reads as, or undefined when it is no non-negative integer (see readInteger). */
export function integerValue(text: string): number | undefined {
  const read = readInteger(text);
  return typeof read === 'string' ? undefined : read.value;
}

/**
 * The forms, attributes and quoted-value classes of a valid expression's tree. A predicate's form
 * counts where every result must satisfy it: the root, or a conjunct of an And of at most three
 * arguments (inside Composite too), as a kind built around the form writes it; inside an Or, or one
 * of many conjuncts, it is part of the wider form. The attributes and quoted values count anywhere.
 */
function expressionClasses(tree: ExprNode): string[] {
  const out = new Set<string>();
  const depthOf = (node: ExprNode): number =>
    node.kind === 'bool'
      ? 1 + Math.max(...node.args.map(depthOf))
      : node.kind === 'composite'
        ? 1 + depthOf(node.inner)
        : 0;
  const visit = (node: ExprNode, conjunct: boolean) => {
    if (node.kind === 'bool') {
      if (node.spelling && node.spelling !== node.op) out.add('upper-case');
      if (node.args.length >= 4) out.add(node.op === 'And' ? 'wide-and' : 'wide-or');
      if (
        node.op === 'Or' &&
        node.args.length >= 10 &&
        node.args.every((arg) => arg.kind === 'pred' && arg.attr === 'Id')
      )
        out.add('id-list');
      const passes = conjunct && node.op === 'And' && node.args.length <= 3;
      for (const arg of node.args) visit(arg, passes);
      return;
    }
    if (node.kind === 'composite') {
      if (conjunct) out.add(node.inner.kind === 'bool' ? 'composite-and' : 'composite');
      visit(node.inner, conjunct);
      return;
    }
    if (node.attr in ATTRIBUTES) out.add(`attribute-${node.attr}`);
    const value = node.value;
    const rule = ATTRIBUTES[node.attr];
    if (value.type === 'string') for (const name of worldClassesOf(value.text)) out.add(`value-${name}`);
    if (!conjunct) return;
    if (value.type === 'string') {
      if (value.prefix) out.add(rule?.type === 'integer' ? 'number-prefix' : 'prefix');
      else out.add(node.op === '==' ? 'canonical-equals' : 'string-equals');
    } else if (value.type === 'number') {
      out.add(node.op === '=' ? 'number-equals' : 'comparison');
    } else if (value.type === 'date') {
      out.add(node.op === '=' ? 'date-equals' : 'date-comparison');
      if (BOUNDARY_DATES.includes(value.text)) out.add('calendar-boundary');
    } else if (value.type === 'range') {
      out.add(node.attr === 'D' ? 'date-range' : 'number-range');
      if ([value.lo, value.hi].some((bound) => BOUNDARY_DATES.includes(String(bound)))) out.add('calendar-boundary');
    }
  };
  visit(tree, true);
  if (depthOf(tree) >= 6) out.add('deep');
  return [...out];
}

/** The classes of an attribute list. */
function listClasses(value: string): string[] {
  const names = value.split(',').map((name) => name.trim());
  const out = new Set<string>();
  let known = 0;
  for (const name of names) {
    if (name in ATTRIBUTES) {
      known++;
      out.add(`names-${name}`);
      if (name.includes('.')) out.add('composite-part');
    } else if (['AA', 'F', 'J', 'C'].includes(name)) out.add('group-name');
    else if (Object.keys(ATTRIBUTES).some((attr) => attr.toLowerCase() === name.toLowerCase())) out.add('wrong-case');
    else if (name !== '') out.add('unknown');
  }
  if (known === 1 && names.length === 1) out.add('single');
  if (known >= 2) out.add('several');
  if (/\s/.test(value.trim())) out.add('spaces');
  if (value.trim().endsWith(',') && names.length > 1) out.add('trailing-comma');
  return [...out];
}

/** The classes of a URL (RFC 3986), or of what is not one. */
function urlClasses(value: string): string[] {
  if (value === '') return ['empty'];
  const out = new Set<string>();
  if (CONTROL.test(value) || LINE_BREAKS.test(value)) out.add('control');
  if (value.trim() !== value) out.add('blank-around');
  let text = value.trim();
  if (text.length > 2000) out.add('long');
  if (/^https?:\/\//i.test(text)) {
    // WHATWG URL reads a backslash as a slash in an http(s) URL; RFC 3986 has no place for one.
    if (text.includes('\\')) {
      out.add('backslashes');
      text = text.replaceAll('\\', '/');
    }
    if (/^HTTPS?:/.test(text)) out.add('upper-case-scheme-host');
    const authority = /^https?:\/\/([^/?#]*)/i.exec(text)?.[1] ?? '';
    const host = authority.replace(/^.*@/, '').replace(/:[^:\]]*$/, '');
    if (authority === '') out.add('scheme-only');
    else if (/\s/.test(authority)) out.add('space-in-host');
    else if (/:(?!\d*$)/.test(authority.replace(/^.*@/, '').replace(/^\[[^\]]*\]/, ''))) out.add('bad-port');
    else if (/[<>^%{}|\\"`]/.test(host) || (host.startsWith('[') && !host.endsWith(']')))
      out.add('invalid-host-character');
    else {
      let url: URL | undefined;
      try {
        url = new URL(text);
      } catch {
        out.add('invalid-host-character');
      }
      if (url) {
        if (/:\d+$/.test(authority)) out.add('port');
        if (/[^\x00-\x7f]/.test(host)) out.add('international-host');
        if (/(^|\.)xn--/i.test(host)) out.add('punycode-host');
        if (/^\d{1,3}(\.\d{1,3}){3}$/.test(host) || host.startsWith('[')) out.add('ip-literal');
        if (authority.includes('@')) out.add('userinfo');
        if (/[A-Z]/.test(host)) out.add('upper-case-scheme-host');
        const path = /^https?:\/\/[^/?#]*([^?#]*)/i.exec(text)?.[1] ?? '';
        if (/(^|\/)\.\.?(\/|$)/.test(path)) out.add('dot-segments');
        if (/%[0-9a-f]{2}/i.test(path)) out.add('percent-encoded-path');
        if (/[^\x00-\x7f]/.test(path)) out.add('non-ascii-path');
        if (/\?/.test(text)) out.add('with-query');
        if (/#/.test(text)) out.add('with-fragment');
      }
    }
    return [...out];
  }
  if (/^[a-z][a-z0-9+.-]*:/i.test(text)) out.add('other-scheme');
  else if (/\s/.test(text) || !/[./]/.test(text)) out.add('not-a-url');
  else out.add('relative');
  return [...out];
}

/** The classes of a date input (RFC 3339 full-date), or of what is not one. */
function dateClasses(value: string): string[] {
  if (value === '') return ['empty'];
  if (CONTROL.test(value) || LINE_BREAKS.test(value)) return ['control'];
  if (value.trim() !== value && /^ *\S+ *$/.test(value)) {
    const inner = dateClasses(value.trim());
    return inner.some((cls) => intentOfDateClass(cls) === 'invalid') ? inner : ['padded', ...inner];
  }
  if (/[^\x00-\x7f]/.test(value)) return ['non-ascii-digits'];
  if (/^\d{4}-\d{2}-\d{2}T/i.test(value)) return ['date-time'];
  if (/^\d{4}-W\d{2}-\d$/.test(value)) return ['iso-week-date'];
  if (/^\d{4}-\d{3}$/.test(value)) return ['ordinal-date'];
  if (/^[+-]\d{5,}-\d{2}-\d{2}/.test(value)) return ['expanded-year'];
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (!match) return ['other-format'];
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  if (month === 0) return ['month-00'];
  if (month > 12) return ['month-13'];
  if (day === 0) return ['day-00'];
  if (day > 31) return ['day-32'];
  if (!isCalendarDate(value)) {
    if (month === 2 && day === 29) return ['february-29-common-year'];
    if (month === 2) return ['february-30'];
    return ['day-beyond-month'];
  }
  if (year === 0) return ['year-zero'];
  const out = [year < 1990 || year > 2050 ? 'far-date' : 'any-date'];
  if (month === 2 && day === 29) out.push('leap-day');
  if (BOUNDARY_DATES.includes(value) && year % 100 === 0) out.push('century-boundary');
  if (value === '1970-01-01') out.push('unix-epoch');
  else if (year < 1970) out.push('before-epoch');
  if (value === '2038-01-19' || value === '2038-01-20') out.push('y2038');
  if (year < 1000) out.push('early-year');
  if (year === 9999 && month === 12 && day === 31) out.push('year-9999');
  return out;
}

/** Whether a date class is one of the invalid ones (a padded value of an impossible date stays that). */
function intentOfDateClass(cls: string): ClassIntent {
  return [
    'far-date',
    'any-date',
    'leap-day',
    'century-boundary',
    'unix-epoch',
    'before-epoch',
    'y2038',
    'early-year',
    'year-9999',
  ].includes(cls)
    ? 'valid'
    : cls === 'year-zero'
      ? 'open'
      : 'invalid';
}

/** The classes of an encyclopedia id. */
function idClasses(value: string): string[] {
  if (value === '') return ['empty'];
  if (value.trim() === '') return ['blank'];
  const out = new Set<string>();
  if (CONTROL.test(value) || LINE_BREAKS.test(value)) out.add('control');
  if (value.includes(',')) out.add('comma');
  if (/[()]/.test(value)) out.add('parentheses');
  if (/['’]/.test(value)) out.add('apostrophe');
  if (/[\u00c0-\u024f]/.test(value)) out.add('accents');
  if (/[^\x00-\u024f\u2019]/.test(value)) out.add('other-script');
  if (/[&+%#?=]/.test(value)) out.add('reserved');
  if (/ /.test(value.trim())) out.add('spaces');
  if (value.length > 300) out.add('long');
  return [...out];
}

/** The classes of one value of an input, by the input's role. */
export function valueClasses(role: string, value: string): string[] {
  switch (role) {
    case 'interpret-query':
      return textClasses(value, 1000, true);
    case 'search-query':
      return textClasses(value, 200, true);
    case 'text':
    case 'form-text': {
      const out = textClasses(value, 500, false);
      if (value.length > 6000) out.splice(out.indexOf('long'), 1, role === 'form-text' ? 'very-long' : 'long');
      if (LINE_BREAKS.test(value)) out.push('line-breaks');
      if (/[.?!:;]/.test(value)) out.push('punctuation');
      return out;
    }
    case 'expression': {
      const parsed = parseExpression(value);
      return parsed.ok ? expressionClasses(parsed.tree) : [];
    }
    case 'attribute-list':
      return listClasses(value);
    case 'orderby': {
      const match = /^(Y|D|CC|ECC)(?::(asc|desc))?$/.exec(value);
      if (match) return [`${match[1]}-${match[2] ?? 'plain'}`];
      const other = /^(Ti|Id)(?::(asc|desc))?$/.exec(value);
      if (other) return [other[1]!];
      if (!/^[A-Za-z][A-Za-z.]*(:(asc|desc))?$/.test(value)) return ['malformed'];
      return value.split(':')[0]! in ATTRIBUTES ? ['multivalued'] : [];
    }
    case 'interpret-count':
    case 'academic-count':
      return sizeClasses(value, 10_000);
    case 'search-count':
      return sizeClasses(value, 1_000);
    case 'event-top':
      return sizeClasses(value, 100);
    case 'page-start': {
      const read = readInteger(value);
      if (typeof read === 'string') return [read];
      const number = read.value;
      return [
        ...read.forms,
        number === 0
          ? 'zero'
          : number < 5
            ? 'small'
            : number < 100_000
              ? 'deep'
              : number <= INT32_MAX
                ? 'far'
                : number <= Number.MAX_SAFE_INTEGER
                  ? 'beyond-int32'
                  : 'beyond-safe-integer',
      ];
    }
    case 'timeout': {
      const read = readInteger(value);
      if (typeof read === 'string') return [read];
      const number = read.value;
      return [
        ...read.forms,
        number === 0
          ? 'zero'
          : number < 1000
            ? 'short'
            : number <= 5000
              ? 'documented-range'
              : number <= INT32_MAX
                ? 'above-documented'
                : 'beyond-int32',
      ];
    }
    case 'complete': {
      const read = readInteger(value);
      if (read === 'non-numeric') return ['non-numeric'];
      if (typeof read === 'string') return ['out-of-range'];
      return [...read.forms, read.value === 0 ? 'zero' : read.value === 1 ? 'one' : 'out-of-range'];
    }
    case 'model':
      return value === 'latest' ? ['latest'] : value.toLowerCase() === 'latest' ? ['case-variant'] : ['other'];
    case 'market':
      if (value === 'en-US') return ['en-US'];
      if (value.toLowerCase() === 'en-us') return ['case-variant'];
      if (/^[A-Za-z]{2,3}-[A-Za-z]{2,4}$/.test(value)) return ['other-market'];
      if (/^[A-Za-z]{2,3}(?:-[A-Za-z]{4})?-(?:[A-Za-z]{2}|\d{3})$/.test(value))
        return [
          ...(/^[A-Za-z]{2,3}-[A-Za-z]{4}-/.test(value) ? ['script-subtag'] : []),
          ...(/-\d{3}$/.test(value) ? ['numeric-region'] : []),
        ];
      if (/^[A-Za-z]{2,3}_[A-Za-z]{2,4}\.[\w-]+$/.test(value)) return ['posix-encoding'];
      if (/^[A-Za-z]{2,3}_[A-Za-z]{2,4}$/.test(value)) return ['underscore'];
      return /^[A-Za-z]{2,3}$/.test(value) ? ['language-only'] : ['malformed'];
    case 'safesearch':
      return ['Off', 'Moderate', 'Strict'].includes(value) ? [value] : ['other-spelling'];
    case 'url':
      return urlClasses(value);
    case 'date':
      return dateClasses(value);
    case 'encyclopedia-id':
      return idClasses(value);
    case 'event-id':
      if (/^[0-9a-f]{32}$/.test(value)) return [];
      if (/^[0-9a-fA-F]{32}$/.test(value)) return ['upper-case'];
      return /[/?#; ]/.test(value) ? ['segment-delimiters'] : ['malformed'];
    default:
      return [];
  }
}

const ENCODING_CLASS: Record<RequestEncoding, string> = {
  plus: 'plus-encoded',
  percent: 'percent-encoded',
  raw: 'unencoded',
  escaped: 'every-byte-escaped',
  'empty-pairs': 'empty-pairs',
};

/** The input items a request carries, by the classes of its values (and what the request leaves out or adds). */
export function classifyRequest(request: ClassifiedRequest): string[] {
  const op: OperationInfo | undefined = getOperation(request.operationId);
  if (!op) return [];
  const out = new Set<string>();
  const inputs = specInputs(op);
  const add = (input: string, classes: readonly string[]) => {
    for (const cls of classes) out.add(inputId(op.operationId, input, cls));
  };
  const seen = new Set<string>();
  for (const [name, value] of request.pairs) {
    const role = roleOf(op.operationId, name, op.method);
    if (!role || !inputs.some((input) => input.name === name)) {
      add(REQUEST_INPUT, ['unknown-parameter']);
      continue;
    }
    if (seen.has(name)) add(REQUEST_INPUT, ['repeated-parameter']);
    seen.add(name);
    // An optional parameter sent empty is the request's (a builder's null), not a value of its grammar.
    if (value === '' && !inputs.some((input) => input.name === name && input.required))
      add(REQUEST_INPUT, ['empty-value']);
    else add(name, valueClasses(role, value));
  }
  for (const [name, value] of Object.entries(request.pathParams ?? {})) {
    const role = roleOf(op.operationId, name, op.method);
    if (role) add(name, valueClasses(role, value));
    if (role && request.pathEscaped && valueClasses(role, value).length === 0) add(name, ['percent-encoded']);
  }
  for (const input of inputs)
    if (input.required && input.in !== 'path' && !seen.has(input.name)) add(input.name, [MISSING]);
  const json = request.contentType !== undefined && !/x-www-form-urlencoded/i.test(request.contentType);
  if (json) add(REQUEST_INPUT, ['json-body']);
  else if (request.encoding) add(REQUEST_INPUT, [ENCODING_CLASS[request.encoding]]);
  if (op.method === 'post' && !json) add(CONTENT_TYPE_INPUT, [request.headers?.contentType ?? 'form']);
  add(KEY_HEADER_INPUT, [request.headers?.keyHeader ?? 'as-written']);
  add(ACCEPT_INPUT, [request.headers?.accept ?? 'absent']);
  return [...out];
}

/**
 * The parameters as their canonical spelling writes them, where each value of an open class is one
 * read as a value of its input's grammar (`same`, classes.ts): an integer in plain digits, a date
 * without the spaces around it, an optional parameter sent empty left out. A 2xx answer to the
 * request is judged as the answer to these.
 */
export function canonicalPairs(operationId: string, pairs: readonly (readonly [string, string])[]): [string, string][] {
  const op = getOperation(operationId);
  if (!op) return pairs.map(([name, value]) => [name, value]);
  const inputs = specInputs(op);
  const out: [string, string][] = [];
  for (const [name, value] of pairs) {
    const role = roleOf(operationId, name, op.method);
    if (value === '' && inputs.some((input) => input.name === name && !input.required)) continue;
    if (role === 'date' && value.trim() !== value && /^\d{4}-\d{2}-\d{2}$/.test(value.trim())) {
      out.push([name, value.trim()]);
      continue;
    }
    const integer =
      role &&
      ['interpret-count', 'academic-count', 'search-count', 'event-top', 'page-start', 'timeout', 'complete'].includes(
        role,
      )
        ? integerValue(value)
        : undefined;
    out.push([name, integer === undefined ? value : String(integer)]);
  }
  return out;
}

/**
 * Which items a sent request judged, by its answer: the class it breaks when it breaks exactly one
 * rule; its open classes (and, answered 2xx, its valid ones) when it holds one of a form the
 * interface leaves open; else its valid classes. Answers about the key (401, 403, 429) judge none.
 */
export function judgedByAnswer(items: readonly string[], status: number): string[] {
  if (status === 401 || status === 403 || status === 429) return [];
  const byIntent = (intent: ClassIntent) => items.filter((item) => intentOf(item) === intent);
  const invalid = byIntent('invalid');
  if (invalid.length > 0) return invalid.length === 1 ? invalid : [];
  const open = byIntent('open');
  const valid = byIntent('valid');
  if (open.length > 0) return status >= 200 && status < 300 ? [...open, ...valid] : open;
  return valid;
}
