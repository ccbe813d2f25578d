// The academic query expression grammar of ../shared/facts.md ("the grammar interface.md calls
// not shown"), as a generator of valid and deliberately broken expressions, a strict parser that
// accepts exactly the forms facts.md shows, and the simplifications the shrinker tries.
import type { Random } from './random.ts';
import { isCalendarDate, type ValuePools } from './values.ts';
import { BOUNDARY_DATES, capitalized, expressionValues } from './world.ts';

/** A composite attribute group: its parts only appear inside Composite(...). */
export type Group = 'AA' | 'F' | 'J' | 'C';

/** One paper attribute of facts.md and the operations expressions may apply to it. */
export interface AttributeRule {
  type: 'integer' | 'string' | 'date';
  equals: boolean;
  /** StartsWith: `'...'...`. */
  prefix: boolean;
  /** IsBetween: comparisons and ranges. */
  between: boolean;
  group?: Group;
}

const rule = (type: AttributeRule['type'], ops: string, group?: Group): AttributeRule => ({
  type,
  equals: ops.includes('E'),
  prefix: ops.includes('S'),
  between: ops.includes('B'),
  ...(group ? { group } : {}),
});

/**
 * The attributes of facts.md with their operations (E Equals, S StartsWith, B IsBetween). Y also
 * takes the number-prefix form facts.md lists (`Y='19'...`); CC and ECC can be returned, not queried.
 */
export const ATTRIBUTES: Readonly<Record<string, AttributeRule>> = {
  Id: rule('integer', 'E'),
  Ti: rule('string', 'ES'),
  W: rule('string', 'E'),
  Y: rule('integer', 'EBS'),
  D: rule('date', 'EB'),
  CC: rule('integer', ''),
  ECC: rule('integer', ''),
  'AA.AuN': rule('string', 'ES', 'AA'),
  'AA.AuId': rule('integer', 'E', 'AA'),
  'AA.AfN': rule('string', 'ES', 'AA'),
  'AA.AfId': rule('integer', 'E', 'AA'),
  'AA.S': rule('integer', 'E', 'AA'),
  'F.FN': rule('string', 'ES', 'F'),
  'F.FId': rule('integer', 'E', 'F'),
  'J.JN': rule('string', 'ES', 'J'),
  'J.JId': rule('integer', 'E', 'J'),
  'C.CN': rule('string', 'ES', 'C'),
  'C.CId': rule('integer', 'E', 'C'),
  RId: rule('integer', 'E'),
  DOI: rule('string', 'ES'),
};

/** A value compared against. `raw` is written as is: the broken values of negative cases. */
export type Value =
  | { type: 'string'; text: string; prefix?: boolean }
  | { type: 'number'; n: number }
  | { type: 'date'; text: string }
  | { type: 'range'; lo: number | string; hi: number | string; loInclusive: boolean; hiInclusive: boolean }
  | { type: 'raw'; text: string };

/**
 * A node of an expression. `focus` marks what makes a negative or edge case what it is (the
 * broken or unusual part): the shrinker never removes it.
 */
export type ExprNode =
  | {
      kind: 'bool';
      op: 'And' | 'Or';
      /** How the keyword is written when not `And` / `Or` (`AND`, `OR`; `and` in an edge case). */
      spelling?: string;
      args: ExprNode[];
      trailingComma?: boolean;
      unclosed?: boolean;
      focus?: string;
    }
  | { kind: 'composite'; inner: ExprNode; focus?: string }
  | { kind: 'pred'; attr: string; op: string; value: Value; focus?: string };

/** A whole expression: a tree, text appended after it (a broken ending), and layout. */
export interface Expression {
  /** Absent: the empty expression. */
  tree?: ExprNode;
  suffix?: string;
  /** Spaces after commas and around operators (an edge case: facts.md shows none). */
  spaced?: boolean;
}

/** Writes an expression as the `expr` parameter carries it. */
export function renderExpression(expression: Expression): string {
  const spaced = expression.spaced === true;
  return (expression.tree ? renderNode(expression.tree, spaced) : '') + (expression.suffix ?? '');
}

function renderNode(node: ExprNode, spaced: boolean): string {
  switch (node.kind) {
    case 'bool': {
      const args = node.args.map((arg) => renderNode(arg, spaced)).join(spaced ? ', ' : ',');
      return `${node.spelling ?? node.op}(${args}${node.trailingComma ? ',' : ''}${node.unclosed ? '' : ')'}`;
    }
    case 'composite':
      return `Composite(${renderNode(node.inner, spaced)})`;
    case 'pred':
      return spaced
        ? `${node.attr} ${node.op} ${renderValue(node.value)}`
        : `${node.attr}${node.op}${renderValue(node.value)}`;
  }
}

function renderValue(value: Value): string {
  switch (value.type) {
    case 'string':
      return `'${value.text}'${value.prefix ? '...' : ''}`;
    case 'number':
      return String(value.n);
    case 'date':
      return `'${value.text}'`;
    case 'range': {
      const bound = (b: number | string) => (typeof b === 'number' ? String(b) : `'${b}'`);
      return `${value.loInclusive ? '[' : '('}${bound(value.lo)},${bound(value.hi)}${value.hiInclusive ? ']' : ')'}`;
    }
    case 'raw':
      return value.text;
  }
}

/** The outcome of the strict parser. */
export type ParseResult = { ok: true; tree: ExprNode } | { ok: false; error: string };

/**
 * Parses an expression, accepting exactly the forms facts.md shows: And/Or (also AND/OR) of two
 * or more arguments, Composite of one part or an And of parts of one composite attribute, the
 * documented operators per attribute, lower-case strings, integers, calendar dates, ranges, and
 * no whitespace. Used to vet expressions a target returns before they are sent as valid input.
 */
export function parseExpression(text: string): ParseResult {
  let pos = 0;
  const fail = (detail: string): never => {
    throw new Error(`at ${pos}: ${detail}`);
  };
  const word = (): string => {
    const start = pos;
    while (pos < text.length && /[A-Za-z0-9_.]/.test(text[pos]!)) pos++;
    return text.slice(start, pos);
  };
  const expect = (ch: string) => {
    if (text[pos] !== ch) fail(`expected '${ch}'`);
    pos++;
  };
  const string = (): string => {
    expect("'");
    const end = text.indexOf("'", pos);
    if (end < 0) fail('unterminated string');
    const value = text.slice(pos, end);
    pos = end + 1;
    return value;
  };
  const integer = (): number => {
    const match = /^-?\d{1,15}(?![\d.])/.exec(text.slice(pos));
    if (!match) fail('expected an integer');
    pos += match![0].length;
    return Number(match![0]);
  };
  const ordered = (attr: AttributeRule): number | string => {
    if (attr.type === 'date') {
      const date = string();
      if (!isCalendarDate(date)) fail(`'${date}' is not a date`);
      return date;
    }
    return integer();
  };
  const predicate = (name: string, group: Group | null): ExprNode => {
    const attr = ATTRIBUTES[name];
    if (!attr) fail(`unknown attribute ${name}`);
    if ((attr!.group ?? null) !== group) fail(`${name} ${group ? 'outside its' : 'in the wrong'} composite`);
    const op = /^(==|>=|<=|=|>|<)/.exec(text.slice(pos))?.[0];
    if (!op) fail('expected an operator');
    pos += op!.length;
    const ch = text[pos];
    if (op === '>' || op === '>=' || op === '<' || op === '<=') {
      if (!attr!.between) fail(`${name} takes no comparison`);
      const bound = ordered(attr!);
      return { kind: 'pred', attr: name, op: op!, value: boundValue(bound) };
    }
    if (ch === '[' || ch === '(') {
      if (op !== '=' || !attr!.between) fail(`${name} takes no range`);
      pos++;
      const lo = ordered(attr!);
      expect(',');
      const hi = ordered(attr!);
      const close = text[pos];
      if (close !== ']' && close !== ')') fail('expected the end of the range');
      pos++;
      return {
        kind: 'pred',
        attr: name,
        op: '=',
        value: { type: 'range', lo, hi, loInclusive: ch === '[', hiInclusive: close === ']' },
      };
    }
    if (ch === "'") {
      const value = string();
      if (value !== value.toLowerCase()) fail('string values are lower case');
      if (text.startsWith('...', pos)) {
        pos += 3;
        if (!attr!.prefix) fail(`${name} takes no prefix`);
        if (attr!.type === 'integer' && !/^\d+$/.test(value)) fail('a number prefix is digits');
        return { kind: 'pred', attr: name, op: op!, value: { type: 'string', text: value, prefix: true } };
      }
      if (!attr!.equals) fail(`${name} cannot be compared`);
      if (attr!.type === 'date') {
        if (op !== '=' || !isCalendarDate(value)) fail('expected a date');
        return { kind: 'pred', attr: name, op: '=', value: { type: 'date', text: value } };
      }
      if (attr!.type !== 'string') fail(`${name} is not a string attribute`);
      return { kind: 'pred', attr: name, op: op!, value: { type: 'string', text: value } };
    }
    if (attr!.type !== 'integer' || !attr!.equals || op !== '=') fail(`${name} takes no number here`);
    return { kind: 'pred', attr: name, op: '=', value: { type: 'number', n: integer() } };
  };
  const node = (group: Group | null, inComposite: boolean): ExprNode => {
    const name = word();
    if (text[pos] === '(' && ['And', 'Or', 'AND', 'OR'].includes(name)) {
      pos++;
      const args: ExprNode[] = [];
      for (;;) {
        args.push(node(group, inComposite));
        if (text[pos] === ',') pos++;
        else break;
      }
      expect(')');
      if (args.length < 2) fail(`${name} needs two or more arguments`);
      const op = name.toLowerCase() === 'and' ? 'And' : 'Or';
      if (inComposite && op === 'Or') fail('Composite holds a part or an And of parts');
      return { kind: 'bool', op, ...(name === op ? {} : { spelling: name }), args };
    }
    if (name === 'Composite' && text[pos] === '(') {
      if (inComposite) fail('Composite inside Composite');
      pos++;
      const first = /^(?:And\(|AND\()?([A-Z]+)\./.exec(text.slice(pos))?.[1] ?? '';
      if (!['AA', 'F', 'J', 'C'].includes(first)) fail('Composite needs a part of AA, F, J or C');
      const inner = node(first as Group, true);
      expect(')');
      return { kind: 'composite', inner };
    }
    return predicate(name, group);
  };
  try {
    const tree = node(null, false);
    if (pos !== text.length) fail('expected the end of the expression');
    return { ok: true, tree };
  } catch (error) {
    return { ok: false, error: (error as Error).message };
  }
}

function boundValue(bound: number | string): Value {
  return typeof bound === 'number' ? { type: 'number', n: bound } : { type: 'date', text: bound };
}

/** Forms of valid expressions; each valid case is built around one, so a round covers them all. */
export const EXPRESSION_FEATURES = [
  'string-equals',
  'canonical-equals',
  'prefix',
  'number-equals',
  'comparison',
  'number-range',
  'number-prefix',
  'date-equals',
  'date-comparison',
  'date-range',
  'composite',
  'composite-and',
  'wide-and',
  'wide-or',
  'upper-case',
  'deep',
  'id-list',
  'world-value',
  'calendar-boundary',
] as const;

/** One form of valid expression. */
export type ExpressionFeature = (typeof EXPRESSION_FEATURES)[number];

/** Ways to break exactly one rule of the grammar. */
export const EXPRESSION_MUTATIONS = [
  'unbalanced',
  'trailing-comma',
  'empty-arguments',
  'unknown-operator',
  'missing-value',
  'unterminated-string',
  'unknown-attribute',
  'wrong-case-attribute',
  'part-outside-composite',
  'mixed-composite',
  'plain-inside-composite',
  'impossible-date',
  'decimal-number',
  'string-for-number',
  'number-for-string',
  'not-queryable',
  'range-on-equals-only',
  'comparison-on-string',
  'junk-after-end',
  'empty-expression',
] as const;

/** One way to break the grammar. */
export type ExpressionMutation = (typeof EXPRESSION_MUTATIONS)[number];

/** What each mutation breaks, as a finding states it. */
export const MUTATION_RULES: Record<ExpressionMutation, string> = {
  unbalanced: 'parentheses balance',
  'trailing-comma': 'arguments are separated by commas, with none after the last',
  'empty-arguments': 'And/Or take at least one argument',
  'unknown-operator': 'the operators are =, ==, >, >=, <, <=',
  'missing-value': 'an operator is followed by a value',
  'unterminated-string': "a string value ends with a quote '",
  'unknown-attribute': 'attributes are the paper attributes of facts.md',
  'wrong-case-attribute': 'attribute names are case-sensitive',
  'part-outside-composite': 'a part of AA, F, J or C appears only inside Composite(...)',
  'mixed-composite': 'one Composite(...) does not mix parts of two composite attributes',
  'plain-inside-composite': 'a non-composite attribute does not appear inside Composite(...)',
  'impossible-date': 'D takes a calendar date YYYY-MM-DD',
  'decimal-number': 'numeric attributes are integers',
  'string-for-number': 'numeric attributes take numbers (a string only as a prefix)',
  'number-for-string': 'string attributes take quoted strings',
  'not-queryable': 'CC and ECC can be returned but not queried',
  'range-on-equals-only': 'ranges apply only to attributes with IsBetween (Y, D)',
  'comparison-on-string': 'comparisons apply only to attributes with IsBetween (Y, D)',
  'junk-after-end': 'nothing follows the expression',
  'empty-expression': 'an expression is not empty',
};

/** Unusual expressions whose fate the interface leaves open: a server may answer or reject them, never 5xx. */
export const EXPRESSION_EDGES = [
  'non-ascii-value',
  'control-character-value',
  'long-value',
  'spaces',
  'lower-case-keyword',
  'composite-or',
  'single-argument',
  'escaped-quote',
  'upper-case-value',
  'very-deep',
  'empty-string-value',
] as const;

/** One unusual expression form. */
export type ExpressionEdge = (typeof EXPRESSION_EDGES)[number];

const TOP_STRING = ['Ti', 'W', 'DOI'] as const;
const GROUP_STRING: Record<Group, string> = { AA: 'AA.AuN', F: 'F.FN', J: 'J.JN', C: 'C.CN' };
const GROUP_NUMBER: Record<Group, string> = { AA: 'AA.AuId', F: 'F.FId', J: 'J.JId', C: 'C.CId' };
const GROUPS: readonly Group[] = ['AA', 'F', 'J', 'C'];

/** Builds expressions from one random stream and the value pools. */
export class ExpressionGenerator {
  constructor(
    private readonly rng: Random,
    private readonly pools: ValuePools,
    /** Longest expression to write (GET requests stay well inside real URL limits). */
    private readonly maxLength = 10_000,
  ) {}

  private year(): number {
    return this.rng.chance(0.7) ? this.rng.pick(this.pools.years) : this.rng.int(1960, 2030);
  }

  private date(): string {
    return this.rng.pick(this.pools.dates);
  }

  private stringOf(attr: string): string {
    const { rng, pools } = this;
    switch (attr) {
      case 'Ti':
        return rng.pick(pools.titles);
      case 'W':
        return rng.pick(pools.words);
      case 'DOI':
        return rng.pick(pools.dois);
      case 'AA.AuN':
        return rng.pick(pools.authors);
      case 'AA.AfN':
        return rng.pick(pools.affiliations);
      case 'F.FN':
        return rng.pick(pools.fields);
      case 'J.JN':
        return rng.pick(pools.journals);
      default:
        return rng.pick(pools.conferences);
    }
  }

  private numberOf(attr: string): number {
    const { rng, pools } = this;
    switch (attr) {
      case 'Y':
        return this.year();
      case 'Id':
      case 'RId':
        return rng.pick(pools.paperIds);
      case 'AA.AuId':
        return rng.pick(pools.authorIds);
      case 'F.FId':
        return rng.pick(pools.fieldIds);
      case 'AA.S':
        return rng.int(1, 6);
      default:
        return rng.int(1, 2_000_000_000);
    }
  }

  /** A prefix of a pool value: its first words, or its first characters (at least two). */
  private prefixOf(text: string): string {
    const words = text.split(' ');
    if (words.length > 1 && this.rng.chance(0.5)) return words.slice(0, this.rng.int(1, words.length - 1)).join(' ');
    return text.slice(0, Math.max(2, this.rng.int(2, text.length)));
  }

  private stringPred(attr: string, op: '=' | '==' = this.rng.chance(0.5) ? '=' : '=='): ExprNode {
    return { kind: 'pred', attr, op, value: { type: 'string', text: this.stringOf(attr) } };
  }

  private numberPred(attr: string): ExprNode {
    return { kind: 'pred', attr, op: '=', value: { type: 'number', n: this.numberOf(attr) } };
  }

  /** A part predicate of a composite group. */
  private partPred(group: Group): ExprNode {
    if (group === 'AA' && this.rng.chance(0.25)) {
      const attr = this.rng.pick(['AA.AfN', 'AA.S'] as const);
      return attr === 'AA.S' ? this.numberPred(attr) : this.stringPred(attr);
    }
    return this.rng.chance(0.75) ? this.stringPred(GROUP_STRING[group]) : this.numberPred(GROUP_NUMBER[group]);
  }

  private composite(group: Group = this.rng.pick(GROUPS)): ExprNode {
    return { kind: 'composite', inner: this.partPred(group) };
  }

  private range(attr: 'Y' | 'D'): ExprNode {
    const [a, b] = attr === 'Y' ? [this.year(), this.year()] : [this.date(), this.date()];
    const [lo, hi] = a <= b ? [a, b] : [b, a];
    return {
      kind: 'pred',
      attr,
      op: '=',
      // facts.md shows ranges closed at the start, [a,b) and [a,b]; an open start is left to the edge cases.
      value: { type: 'range', lo, hi, loInclusive: true, hiInclusive: this.rng.chance(0.5) },
    };
  }

  private comparison(attr: 'Y' | 'D'): ExprNode {
    const op = this.rng.pick(['>', '>=', '<', '<=']);
    return attr === 'Y'
      ? { kind: 'pred', attr, op, value: { type: 'number', n: this.year() } }
      : { kind: 'pred', attr, op, value: { type: 'date', text: this.date() } };
  }

  /** Any valid top-level leaf: a plain predicate or a one-part Composite. */
  leaf(): ExprNode {
    switch (this.rng.int(0, 9)) {
      case 0:
        return this.stringPred(this.rng.pick(TOP_STRING));
      case 1:
        return this.comparison('Y');
      case 2:
        return this.numberPred('Y');
      case 3:
        return this.range('Y');
      case 4:
        return this.numberPred(this.rng.pick(['Id', 'RId']));
      case 5:
        return { kind: 'pred', attr: 'D', op: '=', value: { type: 'date', text: this.date() } };
      default:
        return this.composite();
    }
  }

  private bool(op: 'And' | 'Or', args: ExprNode[], spelling?: string): ExprNode {
    return { kind: 'bool', op, ...(spelling ? { spelling } : {}), args };
  }

  private leaves(min: number, max: number): ExprNode[] {
    return Array.from({ length: this.rng.int(min, max) }, () => this.leaf());
  }

  /** The node that gives a valid expression its feature. */
  private core(feature: ExpressionFeature): ExprNode {
    const { rng } = this;
    switch (feature) {
      case 'string-equals':
        return this.stringPred(rng.pick(TOP_STRING), '=');
      case 'canonical-equals':
        return rng.chance(0.5)
          ? { kind: 'composite', inner: this.stringPred(GROUP_STRING[rng.pick(GROUPS)], '==') }
          : this.stringPred('Ti', '==');
      case 'prefix': {
        const attr = rng.pick(['Ti', 'DOI', 'AA.AuN', 'F.FN', 'AA.AfN'] as const);
        const pred: ExprNode = {
          kind: 'pred',
          attr,
          op: '=',
          value: { type: 'string', text: this.prefixOf(this.stringOf(attr)), prefix: true },
        };
        return attr.includes('.') ? { kind: 'composite', inner: pred } : pred;
      }
      case 'number-equals':
        return rng.chance(0.25)
          ? { kind: 'composite', inner: this.numberPred('AA.AuId') }
          : this.numberPred(rng.pick(['Y', 'Id', 'RId']));
      case 'comparison':
        return this.comparison('Y');
      case 'number-range':
        return this.range('Y');
      case 'number-prefix': {
        const year = String(this.year());
        return {
          kind: 'pred',
          attr: 'Y',
          op: '=',
          value: { type: 'string', text: year.slice(0, rng.int(1, 3)), prefix: true },
        };
      }
      case 'date-equals':
        return { kind: 'pred', attr: 'D', op: '=', value: { type: 'date', text: this.date() } };
      case 'date-comparison':
        return this.comparison('D');
      case 'date-range':
        return this.range('D');
      case 'composite':
        return this.composite();
      case 'composite-and': {
        const group = rng.pick(GROUPS);
        const parts = Array.from({ length: rng.int(2, 3) }, () => this.partPred(group));
        return { kind: 'composite', inner: this.bool('And', parts) };
      }
      case 'wide-and':
        return this.bool('And', this.leaves(4, 8));
      case 'wide-or':
        return this.bool('Or', this.leaves(4, 8));
      case 'upper-case': {
        const op = rng.pick(['And', 'Or'] as const);
        return this.bool(op, this.leaves(2, 3), op.toUpperCase());
      }
      case 'deep': {
        let node = this.leaf();
        for (let depth = rng.int(6, 14); depth > 0; depth--) {
          const op = rng.pick(['And', 'Or'] as const);
          node = this.bool(op, rng.chance(0.5) ? [node, this.leaf()] : [this.leaf(), node]);
        }
        return node;
      }
      case 'world-value': {
        // One value of every class valid in an expression, each on an attribute of its own, beside a
        // leaf from the target's values so that some papers match; the shrinker keeps the one that matters.
        const preds = expressionValues(rng).map((text): ExprNode => {
          const attr = rng.pick(['Ti', 'DOI', 'AA.AuN', 'AA.AfN', 'F.FN', 'J.JN', 'C.CN'] as const);
          const pred: ExprNode = {
            kind: 'pred',
            attr,
            op: rng.pick(['=', '==']),
            value: { type: 'string', text, ...(rng.chance(0.2) ? { prefix: true } : {}) },
          };
          return attr.includes('.') ? { kind: 'composite', inner: pred } : pred;
        });
        preds.splice(rng.int(0, preds.length), 0, this.leaf());
        return this.bool('Or', preds);
      }
      case 'calendar-boundary': {
        const date = rng.pick(BOUNDARY_DATES);
        const year = Number(date.slice(0, 4)) + rng.pick([0, 1]);
        return rng.pick([
          (): ExprNode => ({ kind: 'pred', attr: 'D', op: '=', value: { type: 'date', text: date } }),
          (): ExprNode => ({
            kind: 'pred',
            attr: 'D',
            op: rng.pick(['>', '>=', '<', '<=']),
            value: { type: 'date', text: date },
          }),
          (): ExprNode => ({
            kind: 'pred',
            attr: 'D',
            op: '=',
            value: {
              type: 'range',
              lo: '1999-12-31',
              hi: date < '2000-01-01' ? '2000-01-01' : date,
              loInclusive: true,
              hiInclusive: rng.chance(0.5),
            },
          }),
          (): ExprNode => ({
            kind: 'pred',
            attr: 'Y',
            op: rng.pick(['=', '>', '>=', '<', '<=']),
            value: { type: 'number', n: year },
          }),
          (): ExprNode => ({
            kind: 'pred',
            attr: 'Y',
            op: '=',
            value: { type: 'range', lo: year - 1, hi: year + 1, loInclusive: true, hiInclusive: rng.chance(0.5) },
          }),
        ])();
      }
      case 'id-list': {
        const count = rng.int(20, Math.max(20, Math.floor(this.maxLength / 16)));
        const ids = Array.from({ length: count }, () => {
          const n = rng.chance(0.5) ? rng.pick(this.pools.paperIds) : rng.int(1, 3_000_000_000);
          return { kind: 'pred', attr: 'Id', op: '=', value: { type: 'number', n } } as ExprNode;
        });
        return this.bool('Or', ids);
      }
    }
  }

  /**
   * An Or of one predicate on every queryable attribute (the parts of a composite attribute each in
   * a Composite of its own): every documented attribute in one valid expression.
   */
  everyAttribute(): Expression {
    const preds = Object.entries(ATTRIBUTES)
      .filter(([, rule]) => rule.equals || rule.prefix || rule.between)
      .map(([attr, rule]): ExprNode => {
        const pred =
          rule.type === 'string'
            ? this.stringPred(attr, '=')
            : rule.type === 'date'
              ? ({ kind: 'pred', attr, op: '=', value: { type: 'date', text: this.date() } } as ExprNode)
              : this.numberPred(attr);
        return rule.group ? { kind: 'composite', inner: pred } : pred;
      });
    return { tree: this.bool('Or', this.rng.shuffle(preds)) };
  }

  /** A valid expression built around one feature, sometimes combined with other constraints. */
  valid(feature: ExpressionFeature): Expression {
    let tree = this.core(feature);
    const big = feature === 'deep' || feature === 'id-list';
    if (!big && this.rng.chance(0.5)) {
      const others = this.leaves(1, 2);
      others.splice(this.rng.int(0, others.length), 0, tree);
      tree = this.bool(this.rng.pick(['And', 'Or'] as const), others);
      if (this.rng.chance(0.3)) tree = this.bool(this.rng.pick(['And', 'Or'] as const), [tree, this.leaf()]);
    }
    return { tree };
  }

  /** A small valid expression: the base of a case that breaks another parameter. */
  simple(): Expression {
    return { tree: this.rng.chance(0.6) ? this.leaf() : this.bool('And', this.leaves(2, 2)) };
  }

  /** An expression that breaks exactly one rule of the grammar; the broken node carries `focus`. */
  broken(mutation: ExpressionMutation): Expression {
    const { rng } = this;
    const focus = mutation;
    // The broken part sits inside an otherwise valid expression half of the time.
    const embed = (node: ExprNode): Expression => {
      if (rng.chance(0.5)) return { tree: node };
      const others = this.leaves(1, 2);
      others.splice(rng.int(0, others.length), 0, node);
      return { tree: this.bool(rng.pick(['And', 'Or'] as const), others) };
    };
    switch (mutation) {
      case 'unbalanced': {
        if (rng.chance(0.5)) return { tree: this.simple().tree, suffix: ')' };
        return { tree: { kind: 'bool', op: 'And', args: this.leaves(2, 3), unclosed: true, focus } };
      }
      case 'trailing-comma':
        return embed({
          kind: 'bool',
          op: rng.pick(['And', 'Or']),
          args: this.leaves(2, 3),
          trailingComma: true,
          focus,
        });
      case 'empty-arguments':
        return embed({ kind: 'bool', op: rng.pick(['And', 'Or']), args: [], focus });
      case 'unknown-operator':
        return embed({
          kind: 'pred',
          attr: 'Y',
          op: rng.pick(['!=', '=>', '<>', '=<', '~']),
          value: { type: 'number', n: this.year() },
          focus,
        });
      case 'missing-value':
        return embed({
          kind: 'pred',
          attr: rng.pick(['Y', 'Ti', 'Id']),
          op: '=',
          value: { type: 'raw', text: '' },
          focus,
        });
      case 'unterminated-string':
        return embed({
          kind: 'pred',
          attr: 'Ti',
          op: '=',
          value: { type: 'raw', text: `'${this.stringOf('Ti')}` },
          focus,
        });
      case 'unknown-attribute':
        return embed({
          kind: 'pred',
          attr: rng.pick(['Title', 'Year', 'Author', 'Abstract', 'Xq', 'T']),
          op: '=',
          value: rng.chance(0.5) ? { type: 'number', n: this.year() } : { type: 'string', text: this.stringOf('Ti') },
          focus,
        });
      case 'wrong-case-attribute': {
        if (rng.chance(0.3)) {
          const group = rng.pick(GROUPS);
          const real = GROUP_STRING[group];
          const wrong = rng.chance(0.5) ? real.toLowerCase() : `${group}.${real.split('.')[1]!.toLowerCase()}`;
          const inner: ExprNode = {
            kind: 'pred',
            attr: wrong,
            op: '==',
            value: { type: 'string', text: this.stringOf(real) },
            focus,
          };
          return embed({ kind: 'composite', inner });
        }
        const pred = rng.pick([
          () => this.stringPred('Ti', '='),
          () => this.numberPred('Y'),
          () => this.numberPred('Id'),
          () => this.stringPred('W', '='),
          () => this.stringPred('DOI', '='),
        ])();
        if (pred.kind !== 'pred') throw new Error('unreachable');
        const attr = rng.chance(0.5) ? pred.attr.toLowerCase() : pred.attr.toUpperCase();
        return embed({ ...pred, attr: attr === pred.attr ? pred.attr.toLowerCase() : attr, focus });
      }
      case 'part-outside-composite':
        return embed({ ...this.partPred(rng.pick(GROUPS)), focus });
      case 'mixed-composite': {
        const [a, b] = rng.shuffle(GROUPS);
        return embed({ kind: 'composite', inner: this.bool('And', [this.partPred(a!), this.partPred(b!)]), focus });
      }
      case 'plain-inside-composite': {
        const plain = rng.chance(0.5) ? this.numberPred('Y') : this.stringPred('Ti');
        const inner = rng.chance(0.5) ? plain : this.bool('And', [this.partPred(rng.pick(GROUPS)), plain]);
        return embed({ kind: 'composite', inner, focus });
      }
      case 'impossible-date': {
        const bad = rng.pick(['2010-02-30', '2021-04-31', '2019-02-29', '2020-13-01', '2020-00-10', '2020-06-00']);
        const pred: ExprNode = rng.chance(0.5)
          ? { kind: 'pred', attr: 'D', op: '=', value: { type: 'raw', text: `'${bad}'` }, focus }
          : { kind: 'pred', attr: 'D', op: rng.pick(['>', '<=']), value: { type: 'raw', text: `'${bad}'` }, focus };
        return embed(pred);
      }
      case 'decimal-number':
        return embed({
          kind: 'pred',
          attr: rng.pick(['Y', 'Id']),
          op: '=',
          value: { type: 'raw', text: `${this.year()}.${rng.int(1, 9)}` },
          focus,
        });
      case 'string-for-number':
        return embed({
          kind: 'pred',
          attr: rng.pick(['Y', 'Id']),
          op: '=',
          value: { type: 'string', text: rng.pick(this.pools.words) },
          focus,
        });
      case 'number-for-string':
        return embed(
          rng.chance(0.5)
            ? { kind: 'pred', attr: 'Ti', op: '=', value: { type: 'number', n: rng.int(1, 99) }, focus }
            : {
                kind: 'composite',
                inner: { kind: 'pred', attr: 'AA.AuN', op: '==', value: { type: 'number', n: rng.int(1, 99) }, focus },
              },
        );
      case 'not-queryable':
        return embed({
          kind: 'pred',
          attr: rng.pick(['CC', 'ECC']),
          op: rng.pick(['=', '>']),
          value: { type: 'number', n: rng.int(0, 500) },
          focus,
        });
      case 'range-on-equals-only':
        return embed({
          kind: 'pred',
          attr: rng.pick(['Id', 'RId']),
          op: '=',
          value: { type: 'range', lo: 1, hi: rng.int(2, 1000), loInclusive: true, hiInclusive: true },
          focus,
        });
      case 'comparison-on-string':
        return embed({
          kind: 'pred',
          attr: rng.pick(['Ti', 'W', 'DOI']),
          op: rng.pick(['>', '<=']),
          value: { type: 'string', text: rng.pick(this.pools.words) },
          focus,
        });
      case 'junk-after-end':
        return { tree: this.simple().tree, suffix: rng.pick([',Y=2000', 'x', ' Y=2001']) };
      case 'empty-expression':
        return {};
    }
  }

  /** An expression of a form the interface leaves open (an edge case); the unusual node carries `focus`. */
  edge(kind: ExpressionEdge): Expression {
    const { rng } = this;
    const focus = kind;
    const text = (value: string): ExprNode => ({
      kind: 'pred',
      attr: 'Ti',
      op: '=',
      value: { type: 'string', text: value },
      focus,
    });
    switch (kind) {
      case 'non-ascii-value':
        return {
          tree: text(rng.pick(['café crème', 'über graphen', 'наука', '知识图谱', 'josé garcía', 'emoji 📚 search'])),
        };
      case 'control-character-value':
        return { tree: text(`graph${String.fromCharCode(rng.pick([1, 7, 8, 27, 127]))}search`) };
      case 'long-value':
        return { tree: text('graph '.repeat(rng.int(300, 1500)).trim()) };
      case 'spaces':
        return { ...this.valid(rng.pick(['wide-and', 'composite-and', 'comparison'] as const)), spaced: true };
      case 'lower-case-keyword': {
        const op = rng.pick(['And', 'Or'] as const);
        return { tree: { kind: 'bool', op, spelling: op.toLowerCase(), args: this.leaves(2, 3), focus } };
      }
      case 'composite-or': {
        const group = rng.pick(GROUPS);
        return {
          tree: {
            kind: 'composite',
            inner: { kind: 'bool', op: 'Or', args: [this.partPred(group), this.partPred(group)], focus },
          },
        };
      }
      case 'single-argument':
        return { tree: { kind: 'bool', op: rng.pick(['And', 'Or']), args: [this.leaf()], focus } };
      case 'escaped-quote':
        return { tree: { kind: 'pred', attr: 'Ti', op: '=', value: { type: 'raw', text: "'it\\'s a graph'" }, focus } };
      case 'upper-case-value':
        return { tree: text(rng.chance(0.5) ? capitalized(rng) : this.stringOf('Ti').toUpperCase()) };
      case 'very-deep': {
        let node = this.leaf();
        for (let depth = rng.int(70, 150); depth > 0; depth--) node = this.bool('And', [node, this.leaf()]);
        return { tree: { ...node, focus } as ExprNode };
      }
      case 'empty-string-value':
        return { tree: text('') };
    }
  }
}

/** True when the subtree holds a node marked `focus`. */
function hasFocus(node: ExprNode): boolean {
  if (node.focus) return true;
  if (node.kind === 'bool') return node.args.some(hasFocus);
  if (node.kind === 'composite') return hasFocus(node.inner);
  return false;
}

/**
 * Simpler variants of an expression, biggest steps first: halve a long argument list, replace an
 * And/Or by one of its arguments, drop one argument. A node marked `focus` is always kept, and a
 * valid expression stays valid: an And/Or keeps two arguments, and an And inside Composite is
 * only replaced by one of its parts.
 */
export function shrinkExpression(expression: Expression): Expression[] {
  const tree = expression.tree;
  if (!tree) return [];
  const focused = hasFocus(tree);
  const out: ExprNode[] = [];
  const visit = (node: ExprNode, replace: (next: ExprNode) => ExprNode) => {
    if (node.kind === 'composite') {
      visit(node.inner, (next) => replace({ ...node, inner: next }));
      return;
    }
    if (node.kind !== 'bool') return;
    const keep = (arg: ExprNode) => !focused || !hasFocus(arg);
    if (node.args.length >= 8) {
      const half = node.args.filter((arg, i) => i < node.args.length / 2 || !keep(arg));
      if (half.length >= 2 && half.length < node.args.length) out.push(replace({ ...node, args: half }));
    }
    if (!node.focus) {
      for (const arg of node.args) if (!focused || hasFocus(arg)) out.push(replace(arg));
    }
    if (node.args.length >= 3) {
      node.args.forEach((arg, i) => {
        if (keep(arg)) out.push(replace({ ...node, args: node.args.filter((_, j) => j !== i) }));
      });
    }
    node.args.forEach((arg, i) => {
      visit(arg, (next) => replace({ ...node, args: node.args.map((other, j) => (j === i ? next : other)) }));
    });
  };
  visit(tree, (next) => next);
  return out.map((next) => ({ ...expression, tree: next }));
}

/** Number of nodes: how the shrinker measures progress. */
export function expressionSize(expression: Expression): number {
  const size = (node: ExprNode): number =>
    node.kind === 'bool'
      ? 1 + node.args.reduce((sum, arg) => sum + size(arg), 0)
      : node.kind === 'composite'
        ? 1 + size(node.inner)
        : 1;
  return expression.tree ? size(expression.tree) : 0;
}

/** The attributes an expression constrains, as `attributes` names them (`AA.AuN`, `Y`), in first-seen order. */
export function attributesOf(expression: Expression): string[] {
  const out = new Set<string>();
  const visit = (node: ExprNode) => {
    if (node.kind === 'bool') node.args.forEach(visit);
    else if (node.kind === 'composite') visit(node.inner);
    else if (node.attr in ATTRIBUTES) out.add(node.attr);
  };
  if (expression.tree) visit(expression.tree);
  return [...out];
}
