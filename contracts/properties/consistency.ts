// What one answer says about itself: an interpretation's parse against its own output expression,
// and the entities or histogram values an expression selected against that expression. Each rule
// claims only what the interface and facts.md state, so that a conforming deployment never fails.
import { show } from '../failure.ts';
import { type ExprNode, parseExpression } from '../generative/expression.ts';
import { field, isObject, objects } from '../json.ts';
import type { Exchange, ResponseProperty, Violation } from './types.ts';

const NONE: readonly Violation[] = Object.freeze([]);

/** An expression parsed once per text (a run judges many answers to the same few). */
function parsed(text: unknown): ExprNode | undefined {
  if (typeof text !== 'string') return undefined;
  if (PARSED.has(text)) return PARSED.get(text);
  const result = parseExpression(text);
  const tree = result.ok ? result.tree : undefined;
  if (PARSED.size > 1000) PARSED.clear();
  PARSED.set(text, tree);
  return tree;
}

const PARSED = new Map<string, ExprNode | undefined>();

/** How two strings of the data compare: lower case (values in expressions are, facts.md), Unicode composed. */
function norm(text: string): string {
  return text.normalize('NFC').toLowerCase();
}

/** True, false, or unknown (an attribute the answer did not return, a synonym facts.md allows). */
type Truth = boolean | undefined;

function all(truths: Truth[]): Truth {
  if (truths.includes(false)) return false;
  return truths.every((truth) => truth === true) ? true : undefined;
}

function any(truths: Truth[]): Truth {
  if (truths.includes(true)) return true;
  return truths.every((truth) => truth === false) ? false : undefined;
}

/** Orders two values of one attribute: numbers by value, dates as their yyyy-mm-dd text. */
function order(a: unknown, b: number | string): number | undefined {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
  return undefined;
}

/**
 * Whether a predicate holds for one value of its attribute (arrays: any of their values). `=` on a
 * string matches synonyms too (facts.md), so only a match proves anything there; `==` is the
 * canonical value, which the entity carries, so a mismatch is a violation.
 */
function predicateHolds(node: Extract<ExprNode, { kind: 'pred' }>, actual: unknown): Truth {
  if (actual === undefined || actual === null) return undefined;
  if (Array.isArray(actual)) return any(actual.map((item) => predicateHolds(node, item)));
  const { op, value } = node;
  switch (value.type) {
    case 'string': {
      if (typeof actual !== 'string' && typeof actual !== 'number') return undefined;
      const have = norm(String(actual));
      const want = norm(value.text);
      const match = value.prefix ? have.startsWith(want) : have === want;
      if (match) return true;
      return op === '==' ? false : undefined;
    }
    case 'number':
      if (typeof actual !== 'number' && typeof actual !== 'string') return undefined;
      if (op === '=') return String(actual) === String(value.n);
      return compareHolds(op, order(typeof actual === 'string' ? Number(actual) : actual, value.n));
    case 'date':
      if (typeof actual !== 'string') return undefined;
      return compareHolds(op, order(actual.slice(0, 10), value.text));
    case 'range': {
      const lo = order(typeof actual === 'string' && typeof value.lo === 'number' ? Number(actual) : actual, value.lo);
      const hi = order(typeof actual === 'string' && typeof value.hi === 'number' ? Number(actual) : actual, value.hi);
      if (lo === undefined || hi === undefined || Number.isNaN(lo) || Number.isNaN(hi)) return undefined;
      return (value.loInclusive ? lo >= 0 : lo > 0) && (value.hiInclusive ? hi <= 0 : hi < 0);
    }
    case 'raw':
      return undefined;
  }
}

function compareHolds(op: string, difference: number | undefined): Truth {
  if (difference === undefined || Number.isNaN(difference)) return undefined;
  switch (op) {
    case '=':
    case '==':
      return difference === 0;
    case '>':
      return difference > 0;
    case '>=':
      return difference >= 0;
    case '<':
      return difference < 0;
    case '<=':
      return difference <= 0;
    default:
      return undefined;
  }
}

/**
 * Whether an expression holds for a record of attributes, as far as the record tells: an entity
 * (composite attributes grouped, `AA` and `F` arrays of objects, `J` and `C` objects), or a
 * histogram entry read as `{ attribute: value }`. A part inside Composite(...) is read on one
 * object of its group, so Composite(And(..)) needs both parts on the same object (facts.md).
 */
export function holds(node: ExprNode, record: Record<string, unknown>): Truth {
  switch (node.kind) {
    case 'bool': {
      const truths = node.args.map((arg) => holds(arg, record));
      return node.op === 'And' ? all(truths) : any(truths);
    }
    case 'composite': {
      const group = firstPart(node.inner)?.split('.')[0];
      const members = group === undefined ? undefined : record[group];
      const list = Array.isArray(members) ? members : isObject(members) ? [members] : [];
      // An empty or absent group says nothing: an attribute without a value is omitted (facts.md).
      if (list.length === 0) return undefined;
      return any(list.map((member) => (isObject(member) ? holdsPart(node.inner, member) : undefined)));
    }
    case 'pred':
      return node.attr.includes('.') ? undefined : predicateHolds(node, record[node.attr]);
  }
}

/** A composite's inner expression on one member of its group (`AA.AuN` reads the member's `AuN`). */
function holdsPart(node: ExprNode, member: Record<string, unknown>): Truth {
  switch (node.kind) {
    case 'bool': {
      const truths = node.args.map((arg) => holdsPart(arg, member));
      return node.op === 'And' ? all(truths) : any(truths);
    }
    case 'composite':
      return undefined;
    case 'pred':
      return predicateHolds(node, member[node.attr.split('.')[1]!]);
  }
}

function firstPart(node: ExprNode): string | undefined {
  if (node.kind === 'pred') return node.attr;
  if (node.kind === 'bool') return node.args.map(firstPart).find((attr) => attr !== undefined);
  return undefined;
}

/** Histogram attributes whose every entry is a value of one matching paper: single-valued and outside any group. */
const SINGLE_VALUED = new Set(['Id', 'Ti', 'Y', 'D', 'DOI']);

const ok200 = (x: Exchange) => x.status === 200;

const isEvaluate = (id: string) => id === 'evaluateGet' || id === 'evaluatePost';
const isHistogram = (id: string) => id === 'calchistogramGet' || id === 'calchistogramPost';

export const resultsMatchExpr: ResponseProperty = {
  check: 'results-match-expr',
  claims:
    'every entity evaluate returns, and every histogram value of a single-valued attribute, satisfies expr as far as the answer shows (== values, numbers, dates, ranges, prefixes; = on a string may match a synonym)',
  appliesTo: (id) => isEvaluate(id) || isHistogram(id),
  reads(x) {
    const tree = ok200(x) ? parsed(x.params.expr) : undefined;
    if (!tree) return false;
    // Something the answer carries decides the expression, one way or the other.
    if (isEvaluate(x.operationId))
      return objects(field(x.json, 'entities')).some((entity) => holds(tree, entity) !== undefined);
    return objects(field(x.json, 'histograms')).some(
      (histogram) =>
        SINGLE_VALUED.has(String(histogram.attribute)) &&
        objects(histogram.histogram).some(
          (entry) => holds(tree, { [String(histogram.attribute)]: entry.value }) !== undefined,
        ),
    );
  },
  judge(x) {
    if (!ok200(x)) return NONE;
    const tree = parsed(x.params.expr);
    if (!tree) return NONE;
    if (isEvaluate(x.operationId)) {
      const entities = field(x.json, 'entities');
      if (!Array.isArray(entities)) return NONE;
      for (let i = 0; i < entities.length; i++) {
        const entity = entities[i];
        if (isObject(entity) && holds(tree, entity) === false)
          return [
            {
              title: 'entity does not satisfy expr',
              received: `entity ${i}: ${show(entity, 200)}`,
              documented: `entities matching expr ${show(x.params.expr, 160)} (interface 4.3: returns paper entities matching a query expression)`,
              pointer: `/entities/${i}`,
            },
          ];
      }
      return NONE;
    }
    const histograms = field(x.json, 'histograms');
    if (!Array.isArray(histograms)) return NONE;
    for (let h = 0; h < histograms.length; h++) {
      const histogram = histograms[h];
      if (!isObject(histogram) || !SINGLE_VALUED.has(String(histogram.attribute))) continue;
      const attribute = String(histogram.attribute);
      const entries = objects(histogram.histogram);
      const wrong = entries.findIndex((entry) => holds(tree, { [attribute]: entry.value }) === false);
      if (wrong >= 0)
        return [
          {
            title: 'histogram value no matching entity can have',
            received: `${attribute}=${show(entries[wrong]!.value)} (count ${show(entries[wrong]!.count)})`,
            documented: `values of the entities matching expr ${show(x.params.expr, 160)} (interface 4.5: the distribution over matching entities)`,
            pointer: `/histograms/${h}/histogram/${wrong}`,
          },
        ];
    }
    return NONE;
  },
};

/** The rule id and the attributes a parse shows: `<rule id="#GetPapers">papers by <attr name="academic#AA.AuN" canonical="j l green">jaime green</attr></rule>`. */
export function readParse(parse: string): {
  rule?: string;
  attrs: { attribute: string; text: string; canonical?: string }[];
  /** The name attribute of every attr element, as written (`academic#AA.AuN`; undefined where it has none). */
  names: (string | undefined)[];
} {
  const rule = /<rule\b[^>]*\bid="([^"]*)"/.exec(parse)?.[1];
  const names: (string | undefined)[] = [];
  const attrs = [...parse.matchAll(/<attr\b([^>]*)>([^<]*)<\/attr>/g)].flatMap((match) => {
    const attributes = match[1]!;
    const written = /\bname="([^"]*)"/.exec(attributes)?.[1];
    names.push(written === undefined ? undefined : unescapeXml(written));
    const name = /\bname="academic#([^"]+)"/.exec(attributes)?.[1];
    if (name === undefined) return [];
    const canonical = /\bcanonical="([^"]*)"/.exec(attributes)?.[1];
    return [
      {
        attribute: unescapeXml(name),
        text: unescapeXml(match[2]!),
        ...(canonical !== undefined ? { canonical: unescapeXml(canonical) } : {}),
      },
    ];
  });
  return { ...(rule !== undefined ? { rule: unescapeXml(rule) } : {}), attrs, names };
}

function unescapeXml(text: string): string {
  return text.replace(/&(amp|lt|gt|quot|apos|#\d+|#x[0-9a-fA-F]+);/g, (whole, name: string) => {
    if (name.startsWith('#x')) return String.fromCodePoint(Number.parseInt(name.slice(2), 16));
    if (name.startsWith('#')) return String.fromCodePoint(Number(name.slice(1)));
    return { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" }[name] ?? whole;
  });
}

/** An attribute name in a parse's attr element: `academic#` and an attribute as facts.md writes them. */
const PARSE_ATTRIBUTE = /^academic#[A-Za-z]+(?:\.[A-Za-z]+)?$/;

/** What is wrong with the shape of a parse (interface 2.1), or undefined when nothing is. */
function parseShape(parse: string, ruleId: string | undefined, names: (string | undefined)[]): string | undefined {
  if (ruleId === undefined || ruleId === '' || !parse.includes('</rule>')) return 'no rule element with an id';
  const bad = names.findIndex((name) => name === undefined || !PARSE_ATTRIBUTE.test(name));
  return bad < 0 ? undefined : `an attr element named ${show(names[bad] ?? null)}, not academic#<attribute>`;
}

/** The string values an expression compares each attribute with (`AA.AuN` inside Composite included). */
function constrained(node: ExprNode, out = new Map<string, Set<string>>()): Map<string, Set<string>> {
  if (node.kind === 'bool') for (const arg of node.args) constrained(arg, out);
  else if (node.kind === 'composite') constrained(node.inner, out);
  else {
    const values = out.get(node.attr) ?? new Set<string>();
    if (node.value.type === 'string') values.add(norm(node.value.text));
    out.set(node.attr, values);
  }
  return out;
}

/** Attributes of facts.md whose values are strings: the parse's text (or canonical value) is the value the output compares with. */
const STRING_ATTRIBUTES = new Set(['Ti', 'W', 'DOI', 'AA.AuN', 'AA.AfN', 'F.FN', 'J.JN', 'C.CN']);

export const interpretationMatchesParse: ResponseProperty = {
  check: 'interpretation-output-matches-parse',
  claims:
    "an interpretation's parse is a rule element with an id and attr elements named academic#<attribute>; its output expression constrains every attribute the parse shows, with the canonical value where the parse gives one (else the matched text), and its rule is the one the parse names",
  appliesTo: (id) => id === 'interpretGet' || id === 'interpretPost',
  reads: (x) => ok200(x) && objects(field(x.json, 'interpretations')).some((i) => typeof i.parse === 'string'),
  judge(x) {
    if (!ok200(x)) return NONE;
    const interpretations = field(x.json, 'interpretations');
    if (!Array.isArray(interpretations)) return NONE;
    for (let i = 0; i < interpretations.length; i++) {
      const interpretation = interpretations[i];
      if (!isObject(interpretation) || typeof interpretation.parse !== 'string') continue;
      const rule = objects(interpretation.rules)[0];
      const output = field(field(rule, 'output'), 'value');
      const { rule: ruleId, attrs, names } = readParse(interpretation.parse);
      const pointer = `/interpretations/${i}`;
      const shape = parseShape(interpretation.parse, ruleId, names);
      if (shape)
        return [
          {
            title: 'parse is not the XML the interface describes',
            received: `${shape}: ${show(interpretation.parse, 200)}`,
            documented:
              'a rule element whose id attribute holds the rule name, containing text and attr elements, each attr with a name attribute of the form academic#<attribute> (interface 2.1)',
            pointer: `${pointer}/parse`,
          },
        ];
      if (ruleId !== undefined && typeof rule?.name === 'string' && rule.name !== ruleId)
        return [
          {
            title: "rule name differs from the parse's rule",
            received: `rules[0].name ${show(rule.name)}, parse rule id ${show(ruleId)}`,
            documented: "the parse's rule element holds the rule name in its id attribute (interface 2.1)",
            pointer: `${pointer}/rules/0/name`,
          },
        ];
      const tree = parsed(output);
      if (!tree) continue;
      const values = constrained(tree);
      for (const attr of attrs) {
        const seen = values.get(attr.attribute);
        const want = attr.canonical ?? attr.text;
        const detail = `parse ${show(interpretation.parse, 200)}, output ${show(output, 160)}`;
        if (!seen)
          return [
            {
              title: 'output does not constrain an attribute the parse shows',
              received: `${attr.attribute} (${show(attr.text)}) in the parse, not in the output: ${detail}`,
              documented:
                'the parse shows how each part of the query was interpreted; the output expression of that interpretation constrains each attribute it shows (interface 2.1, facts.md: outputs combine constraints)',
              pointer: `${pointer}/rules/0/output/value`,
            },
          ];
        if (STRING_ATTRIBUTES.has(attr.attribute) && seen.size > 0 && !seen.has(norm(want)))
          return [
            {
              title: `output does not use the parse's ${attr.canonical !== undefined ? 'canonical value' : 'value'}`,
              received: `${attr.attribute} compared with ${show([...seen])}: ${detail}`,
              documented: `${show(want)}: the output expression uses the canonical value the parse shows (facts.md; the matched text where it shows none)`,
              pointer: `${pointer}/rules/0/output/value`,
            },
          ];
      }
    }
    return NONE;
  },
};
