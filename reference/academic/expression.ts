// Recursive-descent parser for query expressions (the grammar of facts.md), with positioned errors.
import { ATTRIBUTE_BY_NAME, type AttributeSpec, type CompositeGroup } from './attributes.ts';
import { parseDate } from './corpus.ts';

/** Deepest nesting of And/Or/Composite accepted (deeper input is rejected, never overflows the stack). */
export const MAX_DEPTH = 64;
/** Longest number literal accepted, in digits. */
const MAX_DIGITS = 15;

/** A value compared against: numbers, dates as yyyymmdd integers, strings. */
export type Scalar = number | string;

/** A parsed query expression. */
export type Expr =
  | { kind: 'and'; args: Expr[]; pos: number }
  | { kind: 'or'; args: Expr[]; pos: number }
  | { kind: 'composite'; group: CompositeGroup; inner: Expr; pos: number }
  | { kind: 'eq'; attr: AttributeSpec; value: Scalar; canonicalOnly: boolean; pos: number }
  | { kind: 'prefix'; attr: AttributeSpec; value: string; canonicalOnly: boolean; pos: number }
  | {
      kind: 'range';
      attr: AttributeSpec;
      lo: number;
      hi: number;
      loInclusive: boolean;
      hiInclusive: boolean;
      pos: number;
    };

/** A syntax or semantic error at a 0-based character position of the expression. */
export class ExpressionError extends Error {
  constructor(
    readonly position: number,
    readonly detail: string,
  ) {
    super(`at position ${position}: ${detail}`);
  }
}

function short(name: string): string {
  return name.length > 40 ? `${name.slice(0, 40)}...` : name;
}

type Operator = '=' | '==' | '>' | '>=' | '<' | '<=';

function foundAt(text: string, pos: number): string {
  if (pos >= text.length) return 'end of expression';
  const ch = text[pos]!;
  return ch === "'" ? '"\'"' : `'${ch}'`;
}

/** Parses an expression; throws ExpressionError on the first problem. */
export function parseExpression(text: string): Expr {
  let pos = 0;

  const fail = (at: number, detail: string): never => {
    throw new ExpressionError(at, detail);
  };
  const skipSpace = () => {
    while (pos < text.length && (text[pos] === ' ' || text[pos] === '\t' || text[pos] === '\n' || text[pos] === '\r'))
      pos++;
  };
  const consume = (ch: string, what: string) => {
    skipSpace();
    if (text[pos] !== ch) fail(pos, `expected ${what} but found ${foundAt(text, pos)}`);
    pos++;
  };
  const identifier = (): string => {
    const start = pos;
    while (pos < text.length && /[A-Za-z0-9_]/.test(text[pos]!)) pos++;
    return text.slice(start, pos);
  };

  const parseNode = (depth: number, group: CompositeGroup | null): Expr => {
    skipSpace();
    const start = pos;
    if (depth > MAX_DEPTH) fail(start, `expressions nest deeper than ${MAX_DEPTH} levels`);
    if (!/[A-Za-z]/.test(text[pos] ?? '')) {
      fail(start, `expected And(...), Or(...), Composite(...) or an attribute but found ${foundAt(text, pos)}`);
    }
    const word = identifier();
    const lower = word.toLowerCase();
    skipSpace();
    if (text[pos] === '(' && (lower === 'and' || lower === 'or' || lower === 'composite')) {
      pos++;
      if (lower === 'composite') {
        if (group !== null) fail(start, 'Composite(...) cannot be nested inside Composite(...)');
        const innerStart = pos;
        const holder: { group: CompositeGroup | null } = { group: null };
        const inner = parseComposite(depth + 1, holder);
        consume(')', "')' closing Composite(");
        if (holder.group === null) fail(innerStart, 'Composite(...) must contain a composite attribute');
        return { kind: 'composite', group: holder.group!, inner, pos: start };
      }
      return parseBoolean(word, start, () => parseNode(depth + 1, group));
    }
    if (lower === 'and' || lower === 'or' || lower === 'composite')
      fail(pos, `expected '(' after ${word} but found ${foundAt(text, pos)}`);
    return parsePredicate(start, word, group);
  };

  // The arguments of And(...) / Or(...), read after its '(' up to the closing ')'.
  const parseBoolean = (word: string, start: number, parseChild: () => Expr): Expr => {
    const args: Expr[] = [parseChild()];
    for (;;) {
      skipSpace();
      if (text[pos] === ',') {
        pos++;
        args.push(parseChild());
      } else if (text[pos] === ')') {
        pos++;
        break;
      } else {
        fail(pos, `expected ',' or ')' in ${word}(...) but found ${foundAt(text, pos)}`);
      }
    }
    return word.toLowerCase() === 'and' ? { kind: 'and', args, pos: start } : { kind: 'or', args, pos: start };
  };

  // Inside Composite the group is fixed by the first attribute met; holder carries it across the subtree.
  const parseComposite = (depth: number, holder: { group: CompositeGroup | null }): Expr => {
    skipSpace();
    const start = pos;
    if (depth > MAX_DEPTH) fail(start, `expressions nest deeper than ${MAX_DEPTH} levels`);
    if (!/[A-Za-z]/.test(text[pos] ?? '')) {
      fail(start, `expected And(...), Or(...) or a composite attribute but found ${foundAt(text, pos)}`);
    }
    const word = identifier();
    const lower = word.toLowerCase();
    skipSpace();
    if (text[pos] === '(' && (lower === 'and' || lower === 'or' || lower === 'composite')) {
      pos++;
      if (lower === 'composite') fail(start, 'Composite(...) cannot be nested inside Composite(...)');
      return parseBoolean(word, start, () => parseComposite(depth + 1, holder));
    }
    if (lower === 'and' || lower === 'or' || lower === 'composite')
      fail(pos, `expected '(' after ${word} but found ${foundAt(text, pos)}`);
    const predicate = parsePredicate(start, word, holder.group ?? 'pending');
    const attr = (predicate as { attr: AttributeSpec }).attr;
    holder.group ??= attr.group!;
    return predicate;
  };

  const parsePredicate = (start: number, word: string, group: CompositeGroup | null | 'pending'): Expr => {
    let name = word;
    if (text[pos] === '.') {
      pos++;
      const part = identifier();
      if (part === '') fail(pos, `expected an attribute part after '${short(word)}.' but found ${foundAt(text, pos)}`);
      name = `${word}.${part}`;
    }
    if (word === '') fail(start, `expected an attribute but found ${foundAt(text, start)}`);
    const attr = ATTRIBUTE_BY_NAME.get(name);
    if (!attr) fail(start, `unknown attribute '${short(name)}' (attribute names are case-sensitive)`);
    const spec = attr!;
    if (spec.group) {
      if (group === null)
        fail(start, `attribute ${name} is part of ${spec.group} and may only appear inside Composite(...)`);
      if (group !== 'pending' && group !== spec.group) {
        fail(start, `one Composite(...) cannot mix parts of ${group} and ${spec.group}`);
      }
    } else if (group !== null) {
      fail(start, `attribute ${name} is not a composite attribute and cannot appear inside Composite(...)`);
    }
    if (!spec.equals && !spec.between && !spec.startsWith) fail(start, `attribute ${name} cannot be queried`);
    skipSpace();
    const opPos = pos;
    let op: Operator;
    if (text.startsWith('==', pos)) op = '==';
    else if (text.startsWith('>=', pos)) op = '>=';
    else if (text.startsWith('<=', pos)) op = '<=';
    else if (text[pos] === '=' || text[pos] === '>' || text[pos] === '<') op = text[pos] as Operator;
    else return fail(pos, `expected an operator (=, ==, >, >=, <, <=) after ${name} but found ${foundAt(text, pos)}`);
    pos += op.length;
    skipSpace();
    const valuePos = pos;
    const ch = text[pos];

    if (ch === '[' || ch === '(') {
      if (op !== '=') fail(valuePos, `a range needs '=' but found '${op}'`);
      if (!spec.between) fail(start, `attribute ${name} does not support ranges`);
      pos++;
      const lo = parseOrdered(spec);
      consume(',', "',' between the range bounds");
      const hi = parseOrdered(spec);
      skipSpace();
      const close = text[pos];
      if (close !== ']' && close !== ')')
        fail(pos, `expected ']' or ')' closing the range but found ${foundAt(text, pos)}`);
      pos++;
      return { kind: 'range', attr: spec, lo, hi, loInclusive: ch === '[', hiInclusive: close === ']', pos: start };
    }

    if (op === '>' || op === '>=' || op === '<' || op === '<=') {
      if (!spec.between) fail(opPos, `attribute ${name} does not support comparisons`);
      const bound = parseOrdered(spec);
      const lower = op === '>' || op === '>=';
      return {
        kind: 'range',
        attr: spec,
        lo: lower ? bound : Number.NEGATIVE_INFINITY,
        hi: lower ? Number.POSITIVE_INFINITY : bound,
        loInclusive: op === '>=',
        hiInclusive: op === '<=',
        pos: start,
      };
    }

    const canonicalOnly = op === '==';
    if (ch === "'") {
      const value = parseString();
      if (text.startsWith('...', pos)) {
        pos += 3;
        if (!spec.startsWith) fail(valuePos, `attribute ${name} does not support prefix matching ('...')`);
        if (spec.type === 'number' && !/^-?\d*$/.test(value))
          fail(valuePos, `expected digits in the number prefix of ${name}`);
        return { kind: 'prefix', attr: spec, value, canonicalOnly, pos: start };
      }
      if (spec.type === 'number') fail(valuePos, `expected a number for ${name} but found a string`);
      if (!spec.equals) fail(opPos, `attribute ${name} does not support equality`);
      if (spec.type === 'date') {
        const date = parseDate(value);
        if (date < 0) fail(valuePos, `expected a date 'YYYY-MM-DD' for ${name}`);
        return { kind: 'eq', attr: spec, value: date, canonicalOnly, pos: start };
      }
      return { kind: 'eq', attr: spec, value, canonicalOnly, pos: start };
    }
    if (ch === '-' || (ch !== undefined && ch >= '0' && ch <= '9')) {
      if (spec.type !== 'number') {
        fail(
          valuePos,
          `expected a quoted ${spec.type === 'date' ? "date 'YYYY-MM-DD'" : 'string'} for ${name} but found a number`,
        );
      }
      if (!spec.equals) fail(opPos, `attribute ${name} does not support equality`);
      return { kind: 'eq', attr: spec, value: parseNumber(), canonicalOnly, pos: start };
    }
    return fail(valuePos, `expected a value (number, 'string' or range) after ${op} but found ${foundAt(text, pos)}`);
  };

  const parseString = (): string => {
    const open = pos;
    pos++;
    let out = '';
    for (;;) {
      if (pos >= text.length) fail(open, "unterminated string: expected a closing '");
      const ch = text[pos]!;
      if (ch === '\\' && (text[pos + 1] === "'" || text[pos + 1] === '\\')) {
        out += text[pos + 1];
        pos += 2;
      } else if (ch === "'") {
        pos++;
        return out;
      } else {
        out += ch;
        pos++;
      }
    }
  };

  const parseNumber = (): number => {
    const begin = pos;
    if (text[pos] === '-') pos++;
    const digitsStart = pos;
    while (pos < text.length && text[pos]! >= '0' && text[pos]! <= '9') pos++;
    if (pos === digitsStart) fail(pos, `expected digits but found ${foundAt(text, pos)}`);
    if (pos - digitsStart > MAX_DIGITS) fail(begin, `number has more than ${MAX_DIGITS} digits`);
    if (text[pos] === '.' && !text.startsWith('...', pos)) fail(pos, 'expected an integer (no decimal point)');
    return Number(text.slice(begin, pos));
  };

  // A bound of a comparison or range: a number, or a quoted date for D.
  const parseOrdered = (spec: AttributeSpec): number => {
    skipSpace();
    const at = pos;
    if (spec.type === 'date') {
      if (text[pos] !== "'")
        fail(at, `expected a quoted date 'YYYY-MM-DD' for ${spec.name} but found ${foundAt(text, pos)}`);
      const date = parseDate(parseString());
      if (date < 0) fail(at, `expected a date 'YYYY-MM-DD' for ${spec.name}`);
      return date;
    }
    const ch = text[pos];
    if (ch === '-' || (ch !== undefined && ch >= '0' && ch <= '9')) return parseNumber();
    return fail(at, `expected a number for ${spec.name} but found ${foundAt(text, pos)}`);
  };

  const expr = parseNode(0, null);
  skipSpace();
  if (pos < text.length) fail(pos, `expected end of expression but found ${foundAt(text, pos)}`);
  return expr;
}
