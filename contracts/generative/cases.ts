// Generated requests: for every operation, the kinds of valid (positive), invalid (negative: each
// breaks exactly one documented rule) and unusual (edge: the interface leaves their fate open)
// requests, and a seeded schedule that walks through them. Case k of an operation depends only on
// (seed, operation, k) and the value pools, so a seed and a case number reproduce a finding.
import { getOperation, type OperationInfo } from '../../openapi/spec.ts';
import {
  ATTRIBUTES,
  attributesOf,
  EXPRESSION_EDGES,
  EXPRESSION_FEATURES,
  EXPRESSION_MUTATIONS,
  type Expression,
  ExpressionGenerator,
  MUTATION_RULES,
  renderExpression,
} from './expression.ts';
import { Random, seedOf } from './random.ts';
import { randomDate, type ValuePools } from './values.ts';
import {
  abstractText,
  CENTURY_DATES,
  encyclopediaId,
  LOOKALIKE_DATES,
  MARKET_CASES,
  paddedText,
  reservedText,
  type WorldValue,
  worldText,
  worldUrl,
} from './world.ts';

/** What a generated request is: valid, invalid by one documented rule, or of a form the interface leaves open. */
export type Intent = 'positive' | 'negative' | 'edge';

/** One parameter of a generated request; an `Expression` is written out when the request is sent. */
export interface CaseParam {
  name: string;
  value: string | Expression;
  /** The parameter that makes the case what it is: the shrinker keeps it. */
  focus?: boolean;
  /** A value of the world made of parts (`value` is them joined): the shrinker drops parts, down to one. */
  world?: WorldValue;
}

/** A request whose input comes from another operation's answer (a stateful chain). */
export type Chain =
  /** An interpret output (rules[0].output.value) sent as the case's `expr`. */
  | { kind: 'interpret-output'; query: string; complete: '0' | '1'; pick: number }
  /** An event of hotevents for a date: its id as `event_id`, or an entity of it as `wikipediaid`. */
  | { kind: 'hot-event'; date: string; pick: number; use: 'eventId' | 'wikipediaId' }
  /** The URL of a web page of an answer search, sent as URL preview's `q`. */
  | { kind: 'answer-url'; q: string; pick: number };

/**
 * How parameters are written: form encoding (`+` for spaces), percent encoding, a POST body not
 * encoded at all, every byte escaped with lower-case hex (`%61%62`: the same text by RFC 3986,
 * which makes escapes of unreserved characters and the case of hex digits equivalent), or form
 * encoding with empty fields around and between the fields (`&a=1&&b=2&`, which WHATWG's form
 * parser skips).
 */
export type Encoding = 'plus' | 'percent' | 'raw' | 'escaped' | 'empty-pairs';

/**
 * How a request writes its header fields, by the class of each (contracts/coverage/classes.ts):
 * the Content-Type of a POST (`charset`, `upper-case`, `quoted-charset`, `absent`, `other-type`),
 * the key's field name (`lower-case`, `upper-case`) and Accept (`any`, `json-and-text`,
 * `browser`). Absent: form encoding, the key as the interface writes it, no Accept.
 */
export interface HeaderForms {
  contentType?: string;
  keyHeader?: string;
  accept?: string;
}

/** One generated request. */
export interface GeneratedCase {
  operationId: string;
  /** Position in the operation's sequence for this seed. */
  index: number;
  seed: number;
  intent: Intent;
  /** The kind of case, e.g. `expr:wide-or`, `missing:expr`, `edge:non-ascii-query`. */
  kind: string;
  /** What makes it valid, the one rule it breaks, or what is unusual about it. */
  note: string;
  params: CaseParam[];
  pathParams?: Record<string, string>;
  encoding: Encoding;
  /** A POST Content-Type other than form encoding, sent with `body`. */
  contentType?: string;
  /** How the header fields are written, where not as by default. */
  headers?: HeaderForms;
  /** The path parameters go with every character percent-encoded (the same segment by RFC 3986). */
  pathEscaped?: boolean;
  body?: string;
  chain?: Chain;
  /** Statuses besides 2xx that accept a valid input (similarity's documented 408; the 404 of an id the target may not know). */
  alsoAccepted?: number[];
  /** A case of the coverage plan: the items it carries (contracts/coverage), and the kinds packed into it. */
  items?: string[];
  /** The kinds (with their variants) a planned case was packed from, beyond its own. */
  packed?: string[];
  /** The items the plan sends this case for: planning them again plans this case. */
  assigned?: string[];
  /**
   * A planned request packing open classes of several inputs: the cases it was packed from, each sent
   * alone when the packed request is refused (a 4xx may come from any one of them).
   */
  parts?: GeneratedCase[];
}

/** A draft built by a kind; the schedule adds the identity. */
type Draft = Omit<GeneratedCase, 'operationId' | 'index' | 'seed' | 'intent' | 'kind' | 'encoding'> & {
  encoding?: Encoding;
};

/** One kind of case of an operation. */
interface Kind {
  name: string;
  intent: Intent;
  build(b: Builder): Draft;
}

const NON_ASCII = [
  'café crème',
  'über graphen',
  'наука данных',
  '知识图谱',
  'josé garcía',
  'naïve bayes',
  'emoji 📚 search',
];
const CONTROL = [1, 7, 8, 27, 127];
const PAGE_SIZES = ['0', '1', '2', '3', '5', '10', '20'];
const PAGE_STARTS = ['0', '1', '2', '5', '10', '50'];
/** Offsets of the paging window kind: past the first pages, where an off-by-one in skipping shows. */
const DEEP_STARTS = ['5', '10', '20', '50'];
/** Offsets of evaluate's window: pages a hundred results and more in, within the pages of 1,000 the real service answered (facts.md). */
const DEEPER_STARTS = ['100', '150', '250', '500', '900'];
const WRONG_TYPE = ['ten', 'abc', 'true', 'null', 'x1'];
const FRACTIONAL = ['1.5', '2.5', '0.5', '3.25'];
const NEGATIVE = ['-1', '-2', '-10', '-100'];
/** The values of safesearch the real service accepted (facts.md). */
const SAFE_SEARCH = ['Off', 'Moderate', 'Strict'];

/** Draws the parts of requests from one random stream. */
class Builder {
  readonly expressions: ExpressionGenerator;

  constructor(
    readonly rng: Random,
    readonly pools: ValuePools,
    readonly op: OperationInfo,
  ) {
    this.expressions = new ExpressionGenerator(rng, pools, op.method === 'post' ? 40_000 : 10_000);
  }

  /** Some words of the vocabulary. */
  words(min = 1, max = 4): string {
    return Array.from({ length: this.rng.int(min, max) }, () => this.rng.pick(this.pools.words)).join(' ');
  }

  /** A free text: a title, an author, or words. */
  text(): string {
    const { rng, pools } = this;
    return rng.pick([() => rng.pick(pools.titles), () => rng.pick(pools.authors), () => this.words(2, 6)])();
  }

  /** The text with one control character inserted at a random place. */
  withControl(text: string): string {
    const at = this.rng.int(0, text.length);
    return `${text.slice(0, at)}${String.fromCharCode(this.rng.pick(CONTROL))}${text.slice(at)}`;
  }

  /** A text of free words between min and max characters long. */
  long(min: number, max: number): string {
    let out = '';
    const length = this.rng.int(min, max);
    while (out.length < length) out += `${this.text()} `;
    return out.slice(0, length).trim();
  }

  /** Optional paging parameters, each present or not, with small values (0 included). */
  paging(chance = 0.4): CaseParam[] {
    const paging = this.op.paging;
    if (!paging) return [];
    const out: CaseParam[] = [];
    if (this.rng.chance(chance)) out.push({ name: paging.count, value: this.rng.pick(PAGE_SIZES) });
    if (this.rng.chance(chance)) out.push({ name: paging.offset, value: this.rng.pick(PAGE_STARTS) });
    return out;
  }

  /** The valid optional parameters of an academic operation besides paging. */
  academicExtras(): CaseParam[] {
    const { rng } = this;
    const out: CaseParam[] = [];
    const base = baseOf(this.op);
    if (base === 'evaluate') {
      if (rng.chance(0.5)) out.push({ name: 'attributes', value: this.attributes(EVALUATE_ATTRIBUTES, 1, 6) });
      if (rng.chance(0.3)) {
        const attr = rng.pick(ORDERABLE);
        out.push({ name: 'orderby', value: `${attr}${rng.pick(['', ':asc', ':desc'])}` });
        // The attribute sorted by is returned, so that orderby-is-honoured can judge the order.
        const attributes = out.find((param) => param.name === 'attributes');
        if (attributes && !String(attributes.value).split(',').includes(attr))
          attributes.value = `${attributes.value},${attr}`;
        else if (!attributes) out.push({ name: 'attributes', value: `Id,${attr}` });
      }
    } else if (base === 'calchistogram') {
      if (rng.chance(0.8)) out.push({ name: 'attributes', value: this.attributes(HISTOGRAM_ATTRIBUTES, 1, 3) });
    } else if (base === 'interpret') {
      // timeout appears only in its own kinds: an answer bounded by it says nothing about other inputs.
      if (rng.chance(0.5)) out.push({ name: 'complete', value: rng.pick(['0', '1']) });
    }
    if (rng.chance(0.1)) out.push({ name: 'model', value: 'latest' });
    return [...out, ...this.paging()];
  }

  /**
   * A valid expression with the valid extras; on evaluate, often with `attributes` asking for what
   * the expression constrains too, so that the answer shows whether its entities satisfy it.
   */
  withAttributesOf(expr: Expression): CaseParam[] {
    const params: CaseParam[] = [{ name: 'expr', value: expr }, ...this.academicExtras()];
    if (baseOf(this.op) !== 'evaluate' || !this.rng.chance(0.8)) return params;
    const asked = params.find((param) => param.name === 'attributes');
    const names = [...new Set([...String(asked?.value ?? 'Id').split(','), ...attributesOf(expr)])].join(',');
    return asked
      ? params.map((param) => (param === asked ? { ...param, value: names } : param))
      : [...params, { name: 'attributes', value: names }];
  }

  attributes(names: readonly string[], min: number, max: number): string {
    return this.rng.shuffle(names).slice(0, this.rng.int(min, max)).join(',');
  }

  interpretQuery(): { query: string; complete: '0' | '1' } {
    const { rng, pools } = this;
    const author = rng.pick(pools.authors);
    const first = author.split(' ')[0]!;
    return rng.pick([
      () => ({ query: `papers by ${author}`, complete: '0' as const }),
      () => ({ query: author, complete: '0' as const }),
      () => ({ query: `papers by ${first}`, complete: '1' as const }),
      () => ({ query: first.slice(0, Math.max(2, first.length - 1)), complete: '1' as const }),
      () => ({ query: rng.pick(pools.titles), complete: '0' as const }),
      () => ({ query: `papers by ${author} after ${rng.pick(pools.years)}`, complete: '0' as const }),
    ])();
  }

  /** A valid request of the operation: required parameters plus some optional ones. */
  valid(extras = true): CaseParam[] {
    const { rng, pools } = this;
    switch (baseOf(this.op)) {
      case 'interpret':
        return [{ name: 'query', value: this.interpretQuery().query }, ...(extras ? this.academicExtras() : [])];
      case 'evaluate':
      case 'calchistogram':
        return [{ name: 'expr', value: this.expressions.simple() }, ...(extras ? this.academicExtras() : [])];
      case 'similarity':
        return [
          { name: 's1', value: this.text() },
          { name: 's2', value: this.text() },
        ];
      case 'answerSearch':
        return [
          { name: 'q', value: rng.chance(0.5) ? rng.pick(pools.answerQueries) : this.words(1, 4) },
          { name: 'mkt', value: 'en-US' },
          ...(extras ? this.paging() : []),
          ...(extras && rng.chance(0.2) ? [{ name: 'safesearch', value: rng.pick(SAFE_SEARCH) }] : []),
        ];
      case 'urlPreview':
        return [{ name: 'q', value: this.url() }];
      case 'hotEvents':
        return [{ name: 'date', value: rng.pick(pools.eventDates) }, ...(extras ? this.paging() : [])];
      case 'relatedEvents':
        return [{ name: 'wikipediaid', value: rng.pick(pools.wikipediaIds) }, ...(extras ? this.paging() : [])];
      default:
        return extras ? this.paging() : [];
    }
  }

  /**
   * A valid request whose list is long enough to page through: evaluate and calchistogram select
   * every paper from the target's earliest year on (a random small expression mostly matches
   * nothing, and an empty page equals any slice past the end); the others as valid() draws them.
   */
  pageable(): CaseParam[] {
    const base = baseOf(this.op);
    if (base !== 'evaluate' && base !== 'calchistogram') return this.valid(false);
    const earliest = Math.min(...this.pools.years);
    return [
      { name: 'expr', value: `Y>=${earliest}` },
      ...(base === 'calchistogram' ? [{ name: 'attributes', value: this.attributes(HISTOGRAM_ATTRIBUTES, 1, 2) }] : []),
    ];
  }

  /** A valid http(s) URL: a known one, or one made of words with a path, a query, a port. */
  url(): string {
    const { rng } = this;
    if (rng.chance(0.4)) return rng.pick(this.pools.urls);
    const host = `${rng.pick(['www.', 'docs.', ''])}${rng.pick(this.pools.words)}.${rng.pick(['com', 'org', 'net', 'io'])}`;
    const port = rng.chance(0.15) ? `:${rng.pick([8080, 8443, 3000])}` : '';
    const path = Array.from({ length: rng.int(0, 3) }, () => rng.pick(this.pools.words)).join('/');
    const query = rng.chance(0.3) ? `?q=${rng.pick(this.pools.words)}&page=${rng.int(1, 9)}` : '';
    return `${rng.pick(['https', 'http'])}://${host}${port}/${path}${query}`;
  }

  eventId(): string {
    return this.rng.pick(this.pools.eventIds);
  }
}

const EVALUATE_ATTRIBUTES = [
  'Id',
  'Ti',
  'Y',
  'D',
  'CC',
  'ECC',
  'AA.AuN',
  'AA.AuId',
  'AA.AfN',
  'F.FN',
  'J.JN',
  'C.CN',
  'DOI',
  'W',
  'RId',
];
/** Attributes with one value per paper that orderby may sort by. */
const ORDERABLE = ['Y', 'CC', 'D', 'ECC'];
const HISTOGRAM_ATTRIBUTES = ['Y', 'F.FN', 'AA.AuN', 'CC', 'J.JN', 'C.CN', 'AA.AfN'];

/** interpret, evaluate... without the GET/POST suffix. */
export function baseOf(op: { operationId: string }): string {
  return op.operationId.replace(/(Get|Post)$/, '');
}

/** Replaces (or adds) a parameter, marking it as the case's focus; a value of the world keeps its parts for the shrinker. */
function set(params: CaseParam[], name: string, value: string | Expression | WorldValue): CaseParam[] {
  const next: CaseParam =
    typeof value === 'object' && 'parts' in value
      ? { name, value: worldText(value), focus: true, world: value }
      : { name, value, focus: true };
  if (!params.some((param) => param.name === name)) return [...params, next];
  return params.flatMap((param, i) =>
    param.name !== name ? [param] : params.findIndex((other) => other.name === name) === i ? [next] : [],
  );
}

const positive = (name: string, build: Kind['build']): Kind => ({ name, intent: 'positive', build });
const negative = (name: string, build: Kind['build']): Kind => ({ name, intent: 'negative', build });
const edge = (name: string, build: Kind['build']): Kind => ({ name, intent: 'edge', build });

/** Negative kinds for an integer parameter with minimum 0: negative, non-numeric and fractional values. */
function integerNegatives(name: string): Kind[] {
  const rule = `${name} is a non-negative integer (the spec's type and minimum)`;
  return [
    negative(`${name}:negative`, (b) => ({ params: set(b.valid(), name, b.rng.pick(NEGATIVE)), note: rule })),
    negative(`${name}:wrong-type`, (b) => ({ params: set(b.valid(), name, b.rng.pick(WRONG_TYPE)), note: rule })),
    negative(`${name}:fractional`, (b) => ({ params: set(b.valid(), name, b.rng.pick(FRACTIONAL)), note: rule })),
  ];
}

/** Edge kinds every operation gets: a repeated and an unknown parameter, a large page. */
function commonEdges(op: OperationInfo, repeat: string | undefined): Kind[] {
  const out: Kind[] = [
    edge('edge:unknown-parameter', (b) => ({
      params: [
        ...b.valid(),
        { name: b.rng.pick(['foo', 'format', 'callback', 'debug']), value: b.words(1, 1), focus: true },
      ],
      note: 'carries a parameter the interface does not define',
    })),
  ];
  if (repeat) {
    out.push(
      edge('edge:repeated-parameter', (b) => {
        const params = b.valid();
        const first = params.find((param) => param.name === repeat);
        const again = b.valid(false).find((param) => param.name === repeat) ?? first;
        return {
          params: [...params, { ...again!, focus: true }],
          note: `carries ${repeat} twice (the interface does not say which wins)`,
        };
      }),
    );
  }
  if (op.paging) {
    const { count, offset } = op.paging;
    out.push(
      edge(`edge:large-${count}`, (b) => ({
        params: set(b.valid(), count, b.rng.pick(['1000', '20000', '100000', '999999999'])),
        note: `a ${count} above anything the interface states (its maximum is not shown)`,
      })),
      edge(`edge:large-${offset}`, (b) => ({
        params: set(b.valid(), offset, b.rng.pick(['100000', '999999999', '9007199254740991'])),
        note: `an ${offset} far past any result`,
      })),
    );
  }
  return out;
}

/** Kinds shared by every paged operation: a zero page size (a boundary), and the integer negatives. */
function pagingKinds(op: OperationInfo): Kind[] {
  if (!op.paging) return [];
  const { count, offset } = op.paging;
  return [
    positive(`paging:${count}-zero`, (b) => ({
      params: set(b.valid(), count, '0'),
      note: `${count}=0 asks for an empty page (a boundary of a non-negative integer)`,
    })),
    positive('paging:window', (b) => ({
      // A window away from the start (small starts come with the other kinds' optional paging); on
      // evaluate, deep in the results, within the pages of 1,000 the real service answered (facts.md),
      // so that the paging relation judges pages a hundred and more in.
      params: set(
        set(b.pageable(), count, b.rng.pick(PAGE_SIZES.slice(1))),
        offset,
        b.rng.pick(baseOf(op) === 'evaluate' ? DEEPER_STARTS : DEEP_STARTS),
      ),
      note: `${count} and ${offset} are non-negative integers`,
    })),
    ...integerNegatives(count),
    ...integerNegatives(offset),
  ];
}

/** A POST body of JSON labelled application/json: the form encoding the interface uses is broken, nothing else. */
function wrongContentType(): Kind {
  return negative('post:wrong-content-type', (b) => {
    const params = b.valid();
    const fields = Object.fromEntries(params.map((param) => [param.name, valueText(param.value)]));
    return {
      params,
      contentType: 'application/json',
      body: JSON.stringify(fields),
      note: 'a POST body is form-encoded (application/x-www-form-urlencoded); this one is JSON labelled application/json',
    };
  });
}

/** A missing required parameter. */
function missing(name: string): Kind {
  return negative(`missing:${name}`, (b) => ({
    params: b.valid().filter((param) => param.name !== name),
    note: `${name} is required`,
  }));
}

/** Text-parameter edges: non-ASCII, control characters, a long value, an empty and a blank value. */
function textEdges(name: string, longRange: [number, number]): Kind[] {
  return [
    edge(`edge:non-ascii-${name}`, (b) => ({
      params: set(b.valid(), name, b.rng.pick(NON_ASCII)),
      note: `${name} holds non-ASCII characters`,
    })),
    edge(`edge:control-${name}`, (b) => ({
      params: set(b.valid(), name, b.withControl(b.text())),
      note: `${name} holds a control character`,
    })),
    edge(`edge:long-${name}`, (b) => ({
      params: set(b.valid(), name, b.long(...longRange)),
      note: `${name} is long`,
    })),
    edge(`edge:empty-${name}`, (b) => ({ params: set(b.valid(), name, ''), note: `${name} is empty` })),
    edge(`edge:blank-${name}`, (b) => ({ params: set(b.valid(), name, '   '), note: `${name} is only spaces` })),
  ];
}

function expressionKinds(op: OperationInfo): Kind[] {
  const kinds: Kind[] = EXPRESSION_FEATURES.map((feature) =>
    positive(`expr:${feature}`, (b) => ({
      params: b.withAttributesOf(b.expressions.valid(feature)),
      note: `expr is a valid expression (facts.md grammar, ${feature}) and every other parameter is valid`,
    })),
  );
  kinds.push(
    positive('chain:interpret-output', (b) => {
      const { query, complete } = b.interpretQuery();
      return {
        params: [{ name: 'expr', value: b.expressions.valid('composite') }, ...b.academicExtras()],
        chain: { kind: 'interpret-output', query, complete, pick: b.rng.int(0, 9) },
        note: 'expr is an interpret output for the same target (interface 1: usable as expr)',
      };
    }),
    ...EXPRESSION_MUTATIONS.map((mutation) =>
      negative(`expr:${mutation}`, (b) => ({
        params: [{ name: 'expr', value: b.expressions.broken(mutation), focus: true }, ...b.academicExtras()],
        note: `expr breaks one rule of the expression grammar: ${MUTATION_RULES[mutation]}`,
      })),
    ),
    ...EXPRESSION_EDGES.map((form) =>
      edge(`edge:expr-${form}`, (b) => ({
        params: [{ name: 'expr', value: b.expressions.edge(form), focus: true }, ...b.academicExtras()],
        note: `expr has a form facts.md does not show (${form})`,
      })),
    ),
    missing('expr'),
    edge('edge:unknown-model', (b) => ({
      params: set(b.valid(), 'model', b.rng.pick(['beta', 'v2', 'LATEST'])),
      note: 'a model other than latest (the models a target has are not shown)',
    })),
  );
  if (baseOf(op) === 'evaluate') {
    kinds.push(
      positive('orderby:attribute', (b) => {
        const attr = b.rng.pick(ORDERABLE);
        const direction = b.rng.pick(['', ':asc', ':desc']);
        return {
          params: [
            { name: 'expr', value: b.expressions.simple() },
            { name: 'attributes', value: `Id,${attr}` },
            { name: 'orderby', value: `${attr}${direction}`, focus: true },
            ...b.paging(),
          ],
          note: 'orderby names an attribute with one value per paper, in either direction or none',
        };
      }),
      negative('orderby:malformed', (b) => ({
        params: set(b.valid(), 'orderby', b.rng.pick(['Y:up', 'Y desc', ':asc', 'Y:', '1Y', 'Y:asc:desc'])),
        note: 'orderby has the form name, name:asc or name:desc (the spec pattern)',
      })),
      edge('edge:orderby-multivalued', (b) => ({
        params: set(b.valid(), 'orderby', `${b.rng.pick(['AA.AuN', 'F.FN', 'W', 'RId'])}:desc`),
        note: 'orderby on an attribute with several values per paper',
      })),
      edge('edge:attributes-unknown', (b) => ({
        params: set(b.valid(), 'attributes', b.rng.pick(['Foo', 'ti', 'Ti,Abstract', 'AA'])),
        note: 'attributes names an unknown, wrong-case or group attribute (what a target does with it is not shown)',
      })),
    );
  } else {
    kinds.push(
      edge('edge:attributes-unknown', (b) => ({
        params: set(b.valid(), 'attributes', b.rng.pick(['Foo', 'y', 'AA', 'Y,Abstract'])),
        note: 'attributes names an unknown, wrong-case or group attribute (what a target does with it is not shown)',
      })),
    );
  }
  return kinds;
}

/** A name as an initial and a surname: `jaime teevan` as `j teevan` (a name others share). */
function initialed(name: string): string {
  const words = name.split(' ');
  return words.length < 2 ? name : `${words[0]!.charAt(0)} ${words.at(-1)}`;
}

function interpretKinds(): Kind[] {
  const query = (build: (b: Builder) => { query: string; complete?: '0' | '1' }, name: string, note: string) =>
    positive(`query:${name}`, (b) => {
      const { query: text, complete } = build(b);
      const params = [{ name: 'query', value: text }, ...b.academicExtras().filter((p) => p.name !== 'complete')];
      return { params: complete ? [...params, { name: 'complete', value: complete }] : params, note };
    });
  return [
    query((b) => ({ query: `papers by ${b.rng.pick(b.pools.authors)}` }), 'author', 'a query naming an author'),
    query(
      (b) => ({ query: `papers by ${b.rng.pick(b.pools.authors).split(' ')[0]}`, complete: '1' }),
      'author-prefix',
      'a prefix to complete (complete=1)',
    ),
    query((b) => ({ query: b.rng.pick(b.pools.titles) }), 'title', 'a title as the query'),
    query((b) => ({ query: b.words(1, 5) }), 'words', 'words as the query'),
    positive('query:world', (b) => ({
      params: set(b.valid(), 'query', paddedText(b.rng)),
      note: 'a query as users type it: capitals, accents (composed and decomposed), combining marks, CJK, right-to-left script, emoji, apostrophes, parentheses, commas, digits, spaces at the ends (any string is a query, interface 4.1)',
    })),
    query(
      (b) => ({ query: `papers by ${b.rng.pick(b.pools.authors)} after ${b.rng.pick(b.pools.years)}` }),
      'author-after-year',
      'an author and a year',
    ),
    positive('interpret:timeout', (b) => ({
      params: set(b.valid(), 'timeout', String(b.rng.pick([0, 1, 50, 100, 1000, 5000]))),
      note: 'timeout is a non-negative integer of milliseconds',
    })),
    positive('interpret:complete-zero', (b) => ({
      // An author's name with an initial (j teevan), which several authors share, in a page smaller than
      // their readings: count must hold without completion too.
      params: [
        { name: 'query', value: initialed(b.rng.pick(b.pools.authors)) },
        { name: 'complete', value: '0', focus: true },
        { name: 'count', value: b.rng.pick(['1', '2']) },
      ],
      note: 'complete is 0 or 1, with a page size',
    })),
    missing('query'),
    negative('complete:out-of-range', (b) => ({
      params: set(b.valid(), 'complete', b.rng.pick(['2', '-1', '10'])),
      note: 'complete is 1 or 0 (interface 4.1)',
    })),
    negative('complete:wrong-type', (b) => ({
      params: set(b.valid(), 'complete', b.rng.pick(['yes', 'true', 'on'])),
      note: 'complete is 1 or 0 (interface 4.1)',
    })),
    ...integerNegatives('timeout'),
    ...textEdges('query', [1000, 6000]),
    edge('edge:unknown-model', (b) => ({
      params: set(b.valid(), 'model', b.rng.pick(['beta', 'v2'])),
      note: 'a model other than latest (the models a target has are not shown)',
    })),
    edge('edge:large-timeout', (b) => ({
      params: set(b.valid(), 'timeout', b.rng.pick(['60000', '999999999'])),
      note: 'a timeout above the documented maximum of the real service (5000)',
    })),
  ];
}

function similarityKinds(op: OperationInfo): Kind[] {
  const pair = (name: string, note: string, make: (b: Builder) => [string, string]) =>
    positive(`texts:${name}`, (b) => {
      const [s1, s2] = make(b);
      return {
        params: [
          { name: 's1', value: s1 },
          { name: 's2', value: s2 },
        ],
        note,
        alsoAccepted: [408],
      };
    });
  const kinds: Kind[] = [
    pair('titles', 'two titles', (b) => [b.rng.pick(b.pools.titles), b.rng.pick(b.pools.titles)]),
    pair('words', 'two texts of words', (b) => [b.words(1, 8), b.words(1, 8)]),
    // Short on GET, long on POST (the variant the interface names for long strings): identical
    // texts score 1 whatever their length; the fixed test compares a short one too.
    pair('same', 'a text and itself', (b) => {
      const text = op.method === 'post' ? b.long(600, 20_000) : b.text();
      return [text, text];
    }),
    positive('texts:world', (b) => ({
      params: set([{ name: 's2', value: b.text() }], 's1', abstractText(b.rng)),
      note: 'an abstract pasted with its line breaks and tabs, in every script and form (the inputs are strings, interface 4.7)',
      alsoAccepted: [408],
    })),
    pair('punctuation', 'texts with punctuation', (b) => [
      `${b.text()}${b.rng.pick(['?', '!', ':', ';', ',', '.'])} ${b.words(1, 3)}`,
      `(${b.text()}), ${b.words(1, 2)}.`,
    ]),
    pair('long', 'long texts (the GET input is bounded by the URL length only)', (b) =>
      op.method === 'post' ? [b.long(2000, 100_000), b.long(600, 4000)] : [b.long(600, 3000), b.text()],
    ),
    ...(op.method === 'post'
      ? [
          pair('long-get-safe', 'long texts a GET can carry too (get-and-post-agree sends the GET twin)', (b) => [
            b.long(2000, 6000),
            b.long(600, 3000),
          ]),
        ]
      : []),
    missing('s1'),
    missing('s2'),
    ...textEdges('s1', [600, 3000]),
    edge('edge:empty-s2', (b) => ({ params: set(b.valid(), 's2', ''), note: 's2 is empty' })),
  ];
  return kinds;
}

function answerSearchKinds(): Kind[] {
  return [
    positive('q:known-query', (b) => ({
      params: set(b.valid(), 'q', b.rng.pick(b.pools.answerQueries)),
      note: 'q is a query and mkt the documented en-US',
    })),
    positive('q:words', (b) => ({ params: set(b.valid(), 'q', b.words(1, 5)), note: 'q is a query of words' })),
    positive('q:entity', (b) => ({
      params: set(b.valid(), 'q', b.rng.pick(b.pools.entityNames)),
      note: 'q names an entity',
    })),
    // Every value the real service accepted (facts.md), each a kind of its own so that one round sends each.
    ...SAFE_SEARCH.map((value) =>
      positive(`safesearch:${value.toLowerCase()}`, (b) => ({
        params: set(b.valid(), 'safesearch', value),
        note: `safesearch ${value}: the real service accepted Off, Moderate and Strict (facts.md)`,
      })),
    ),
    positive('q:world', (b) => ({
      params: set(b.valid(), 'q', paddedText(b.rng)),
      note: 'a query as users type it: every script and form, punctuation, spaces at the ends (q is any query, interface 4.9)',
    })),
    missing('q'),
    missing('mkt'),
    negative('mkt:malformed', (b) => ({
      params: set(b.valid(), 'mkt', b.rng.pick(['english', 'en_US', 'en-', 'e-US', 'en-USAAA', 'enUS'])),
      note: "mkt has the form '<language code>-<country code>' (interface 4.9)",
    })),
    ...textEdges('q', [250, 1500]),
    edge('edge:other-market', (b) => ({
      params: set(b.valid(), 'mkt', b.rng.pick(['de-DE', 'fr-FR', 'ja-JP', 'xx-YY', 'en-us'])),
      note: 'a market other than en-US (the supported markets are not shown)',
    })),
    edge('edge:market-case', (b) => ({
      params: set(b.valid(), 'mkt', b.rng.pick(MARKET_CASES)),
      note: 'en-US written in another case (language and country codes are case-insensitive in BCP 47; the interface writes en-US only)',
    })),
    edge('edge:other-safesearch', (b) => ({
      params: set(b.valid(), 'safesearch', b.rng.pick(['strict', 'OFF', 'none', 'Safe'])),
      note: 'safesearch other than Off, Moderate and Strict as written (other values and spellings are not shown)',
    })),
  ];
}

function urlPreviewKinds(): Kind[] {
  const invalid = (name: string, values: string[]) =>
    negative(`q:${name}`, (b) => ({
      params: [{ name: 'q', value: b.rng.pick(values), focus: true }],
      note: 'q is a valid URL (interface 4.10: a value that is not a valid URL yields 400)',
    }));
  return [
    positive('q:known-url', (b) => ({
      params: [{ name: 'q', value: b.rng.pick(b.pools.urls) }],
      note: 'q is an absolute http(s) URL',
    })),
    positive('q:known-url-with-query', (b) => ({
      params: [{ name: 'q', value: `${b.rng.pick(b.pools.urls)}${b.rng.pick(['?ref=kgate', '#top', '?a=1&b=2'])}` }],
      note: 'q is an absolute http(s) URL of a known page, with a query or fragment',
    })),
    positive('chain:answer-url', (b) => ({
      params: [{ name: 'q', value: b.rng.pick(b.pools.urls) }],
      chain: { kind: 'answer-url', q: b.rng.pick(b.pools.answerQueries), pick: b.rng.int(0, 9) },
      note: 'q is the URL of a web page the same target returned from answer search',
    })),
    missing('q'),
    invalid('empty', ['']),
    invalid('not-a-url', ['not a url', 'hello world', 'knowledge graph']),
    invalid('relative', ['example.org/path', '//example.org/page', '/wiki/Graph', 'www.example.com']),
    invalid('scheme-only', ['https://', 'http://', 'http://?q=1']),
    invalid('space-in-host', ['https://exa mple.com/', 'http://www.example .org/', 'https://a b.io/x']),
    invalid('bad-port', ['http://example.org:-1/', 'https://example.com:port/', 'https://example.com:80a/']),
    invalid('invalid-host-character', [
      'http://exa<mple.com/',
      'https://[::1/',
      'http://example.com%/',
      'https://ex^ample.org/',
    ]),
    edge('edge:unknown-site', (b) => ({
      params: [{ name: 'q', value: b.url(), focus: true }],
      note: 'a valid URL of a page that may not exist (what a target answers for it is not shown)',
    })),
    edge('edge:world-url', (b) => ({
      params: [{ name: 'q', value: worldUrl(b.rng), focus: true }],
      note: 'a valid URL as pages link them: a port, percent-encoded and non-ASCII path, query string, fragment, an international or punycode host (whether that page exists is not shown)',
    })),
    edge('edge:other-scheme', (b) => ({
      params: [
        {
          name: 'q',
          value: b.rng.pick(['ftp://example.com/file', 'mailto:someone@example.com', 'file:///etc/hosts']),
          focus: true,
        },
      ],
      note: 'a URL of another scheme (whether it is previewed is not shown)',
    })),
    edge('edge:international-host', (b) => ({
      params: [
        {
          name: 'q',
          value: b.rng.pick(['https://bücher.example/', 'https://пример.рф/статья', 'https://例子.测试/']),
          focus: true,
        },
      ],
      note: 'a URL with an international host name',
    })),
    edge('edge:long-q', (b) => ({
      params: [{ name: 'q', value: `https://example.com/${'a/'.repeat(b.rng.int(2000, 6000))}`, focus: true }],
      note: 'a very long URL',
    })),
    edge('edge:control-q', (b) => ({
      params: [{ name: 'q', value: b.withControl('https://example.com/page'), focus: true }],
      note: 'a URL with a control character',
    })),
    edge('edge:blank-around-q', (b) => ({
      params: [{ name: 'q', value: ` ${b.url()} `, focus: true }],
      note: 'a URL with spaces around it',
    })),
  ];
}

/** Dates that are well formed but do not exist, one kind per class. */
const IMPOSSIBLE_DATES: Record<string, () => string[]> = {
  '31st-of-30-day-month': () => ['2021-04-31', '2022-06-31', '2023-09-31', '2024-11-31'],
  'february-30': () => ['2021-02-30', '2024-02-30'],
  'february-29-common-year': () => ['2021-02-29', '2023-02-29', '2100-02-29', '1900-02-29'],
  'month-13': () => ['2021-13-01', '2024-13-15'],
  'month-00': () => ['2021-00-10'],
  'day-00': () => ['2021-03-00'],
  'day-32': () => ['2021-01-32', '2022-12-32'],
};

function hotEventsKinds(): Kind[] {
  // A date the target has no events for may get the documented 404 (interface 7.4) instead of an empty list.
  const date = (name: string, note: string, make: (b: Builder) => string, alsoAccepted?: number[]) =>
    positive(`date:${name}`, (b) => ({
      params: set(b.valid(), 'date', make(b)),
      note,
      ...(alsoAccepted ? { alsoAccepted } : {}),
    }));
  return [
    date('with-events', 'a date yyyy-mm-dd with events', (b) => b.rng.pick(b.pools.eventDates)),
    positive('date:with-events-page', (b) => ({
      params: [
        { name: 'date', value: b.rng.pick(b.pools.eventDates) },
        { name: '$top', value: String(b.rng.int(3, 20)), focus: true },
      ],
      note: 'a date with events and a page of several (event-documents-agree follows the last event of the page)',
    })),
    date('any', 'a date yyyy-mm-dd', (b) => randomDate(b.rng, 2019, 2026), [404]),
    date('far', 'a date yyyy-mm-dd (likely without events)', (b) => randomDate(b.rng, 1900, 2100), [404]),
    date(
      'calendar-boundary',
      'a date at a year, century and leap boundary at once (2000-02-29, 2000-12-31, 1900-03-01, 2100-02-28...)',
      (b) => b.rng.pick(CENTURY_DATES),
      [404],
    ),
    missing('date'),
    negative('date:empty', (b) => ({ params: set(b.valid(), 'date', ''), note: 'date is a date yyyy-mm-dd' })),
    ...Object.entries(IMPOSSIBLE_DATES).map(([name, values]) =>
      negative(`date:${name}`, (b) => ({
        params: set(b.valid(), 'date', b.rng.pick(values())),
        note: 'date is a calendar date yyyy-mm-dd',
      })),
    ),
    negative('date:format', (b) => ({
      params: set(
        b.valid(),
        'date',
        b.rng.pick([
          '2021/03/15',
          '15-03-2021',
          '2021-3-5',
          '20210315',
          'yesterday',
          '2021-03-15T00:00:00Z',
          ...LOOKALIKE_DATES,
        ]),
      ),
      note: 'date has the format yyyy-mm-dd',
    })),
    negative('date:control', (b) => ({
      params: set(b.valid(), 'date', b.withControl(b.rng.pick(b.pools.eventDates))),
      note: 'date has the format yyyy-mm-dd',
    })),
  ];
}

function relatedEventsKinds(): Kind[] {
  return [
    positive('wikipediaid:known', (b) => ({
      params: set(b.valid(), 'wikipediaid', b.rng.pick(b.pools.wikipediaIds)),
      note: 'wikipediaid is an id the target returned events for',
    })),
    positive('chain:hot-event-entity', (b) => ({
      params: b.valid(),
      chain: { kind: 'hot-event', date: b.rng.pick(b.pools.eventDates), pick: b.rng.int(0, 19), use: 'wikipediaId' },
      note: 'wikipediaid names an entity of an event the target returned (an id it does not know may get the documented 404)',
      alsoAccepted: [404],
    })),
    positive('wikipediaid:world', (b) => ({
      params: set(b.valid(), 'wikipediaid', encyclopediaId(b.rng)),
      note: 'an encyclopedia id as the encyclopedia writes them: underscores, a comma, a parenthesized qualifier, an apostrophe, accents, another script (an id the target does not know gets the documented 404)',
      alsoAccepted: [404],
    })),
    missing('wikipediaid'),
    edge('edge:unknown-id', (b) => ({
      params: set(b.valid(), 'wikipediaid', `${b.words(1, 1)}_${b.rng.int(1000, 9999)}`),
      note: 'an id the target most likely does not know',
    })),
    edge('edge:punctuation-id', (b) => ({
      params: set(b.valid(), 'wikipediaid', b.rng.pick(['C++_(programming_language)', 'AT&T', 'Café_(film)', '100%'])),
      note: 'an id with punctuation',
    })),
    ...textEdges('wikipediaid', [300, 3000]),
  ];
}

function eventDocumentsKinds(): Kind[] {
  return [
    positive('event:known', (b) => ({
      params: b.valid(),
      pathParams: { event_id: b.eventId() },
      note: 'event_id is an id the target returned',
    })),
    positive('chain:hot-event-id', (b) => ({
      params: b.valid(),
      pathParams: { event_id: b.eventId() },
      chain: { kind: 'hot-event', date: b.rng.pick(b.pools.eventDates), pick: b.rng.int(0, 19), use: 'eventId' },
      note: 'event_id is an event id the target returned from hotevents (interface 4.13: obtainable from 4.11)',
    })),
    edge('edge:unknown-event', (b) => ({
      params: b.valid(),
      pathParams: { event_id: Array.from({ length: 32 }, () => b.rng.int(0, 15).toString(16)).join('') },
      note: 'an event id the target does not know (the documented 404)',
    })),
    edge('edge:malformed-event-id', (b) => ({
      params: b.valid(),
      pathParams: { event_id: b.rng.pick(['not-an-id', 'ÿ€', 'a.b', 'x'.repeat(3000), '%00', ' ']) },
      note: 'an event id of another form',
    })),
  ];
}

/** The largest page size the spec allows for an operation's count / $top. */
function maximumOf(op: OperationInfo): number | undefined {
  const name = op.paging?.count;
  const param = op.parameters.find((p) => p.name === name);
  const fromGet = getOperation(op.operationId.replace(/Post$/, 'Get'))?.parameters.find((p) => p.name === name);
  const maximum = (param ?? fromGet)?.schema.maximum;
  return typeof maximum === 'number' ? maximum : undefined;
}

/**
 * Kinds the coverage plan may send besides a round's: classes no kind of a round is built around
 * (RFC 3986's reserved characters in free text, every documented attribute in one expression and in
 * one attribute list, a page of the spec's largest size, a query string with every byte escaped).
 * `--generate N` draws rounds only, so its requests stay what they were.
 */
function planOnlyKinds(op: OperationInfo): Kind[] {
  const base = baseOf(op);
  const out: Kind[] = [];
  const text = ({ interpret: 'query', answerSearch: 'q' } as Record<string, string>)[base];
  if (text)
    out.push(
      positive(`${text}:reserved`, (b) => ({
        params: set(b.valid(), text, reservedText(b.rng)),
        note: `${text} holds RFC 3986 reserved characters and a percent sign as text (any string is a query)`,
      })),
    );
  if (base === 'similarity')
    out.push(
      positive('texts:reserved', (b) => ({
        params: set(set([], 's1', reservedText(b.rng)), 's2', reservedText(b.rng)),
        note: 'both texts hold RFC 3986 reserved characters and a percent sign as text (the inputs are strings)',
        alsoAccepted: [408],
      })),
      positive('texts:padded', (b) => ({
        params: set(set([], 's1', paddedText(b.rng)), 's2', paddedText(b.rng)),
        note: 'both texts as users type them: every script and form, spaces at the ends (the inputs are strings)',
        alsoAccepted: [408],
      })),
      positive('texts:world-s2', (b) => ({
        params: set([{ name: 's1', value: b.text() }], 's2', abstractText(b.rng)),
        note: 'an abstract pasted as s2 with its line breaks and tabs, in every script and form (the inputs are strings)',
        alsoAccepted: [408],
      })),
      positive('texts:long-s2', (b) => ({
        params: set(
          [{ name: 's1', value: b.text() }],
          's2',
          op.method === 'post' ? b.long(6_500, 60_000) : b.long(600, 3000),
        ),
        note: 'a long s2 (the GET input is bounded by the URL length only)',
        alsoAccepted: [408],
      })),
      edge('edge:control-s2', (b) => ({
        params: set(b.valid(), 's2', b.withControl(b.text())),
        note: 's2 holds a control character',
      })),
      edge('edge:blank-s2', (b) => ({ params: set(b.valid(), 's2', '   '), note: 's2 is only spaces' })),
    );
  if (base === 'evaluate' || base === 'calchistogram') {
    const names = Object.keys(ATTRIBUTES);
    out.push(
      positive('expr:every-attribute', (b) => ({
        params: b.withAttributesOf(b.expressions.everyAttribute()),
        note: 'expr is an Or of a predicate on every queryable attribute (facts.md)',
      })),
      positive('attributes:every', (b) => ({
        params: set(b.valid(), 'attributes', names.join(',')),
        note: 'attributes names every documented paper attribute',
      })),
      positive('attributes:one-part', (b) => ({
        params: set(b.valid(), 'attributes', b.rng.pick(['AA.AuN', 'F.FN', 'J.JN', 'C.CN', 'AA.AfN'])),
        note: 'attributes names one part of a composite attribute alone',
      })),
    );
  }
  const maximum = maximumOf(op);
  if (op.paging)
    out.push(
      positive('paging:first-page', (b) => ({
        params: set(set(b.valid(false), op.paging!.count, '1'), op.paging!.offset, '0'),
        note: `the first item: ${op.paging!.count}=1, ${op.paging!.offset}=0, the lower boundary`,
      })),
    );
  if (op.paging)
    out.push(
      positive('paging:second-page', (b) => {
        // A list long enough to page through: interpret completes a first name (complete=1).
        const params =
          base === 'interpret'
            ? [
                { name: 'query', value: `papers by ${b.rng.pick(b.pools.authors).split(' ')[0]}` },
                { name: 'complete', value: '1' },
              ]
            : b.pageable();
        return {
          params: set(
            set(params, op.paging!.count, b.rng.pick(['2', '3'])),
            op.paging!.offset,
            b.rng.pick(['1', '2', '3']),
          ),
          note: `the second page: ${op.paging!.count} and ${op.paging!.offset} are small non-negative integers`,
        };
      }),
    );
  if (base === 'eventDocuments' && op.paging)
    out.push(
      edge('edge:repeated-parameter', (b) => ({
        params: [
          ...b.valid(false),
          { name: op.paging!.count, value: '2' },
          { name: op.paging!.count, value: '3', focus: true },
        ],
        note: `carries ${op.paging!.count} twice (the interface does not say which wins)`,
      })),
    );
  if (op.paging && maximum !== undefined)
    out.push(
      positive(`paging:${op.paging.count}-maximum`, (b) => ({
        params: set(b.pageable(), op.paging!.count, String(maximum)),
        note: `${op.paging!.count}=${maximum}, the spec's largest page (a boundary)`,
      })),
    );
  if (op.method === 'get')
    out.push(
      positive('request:escaped', (b) => ({
        params: b.valid(),
        encoding: 'escaped',
        note: 'every byte of the query string percent-encoded with lower-case hex (the same text by RFC 3986)',
      })),
    );
  return out;
}

/**
 * An integer written with several of the forms the number parsers of common languages read as that
 * integer: white space around it, a plus sign, leading zeros, a fraction of zero and an exponent.
 */
function spelledWithForms(n: number): string {
  return ` +0${n}.0e0 `;
}

/** Zero written as -0 in digits of another script (Arabic-Indic): negative zero and other digits. */
const OTHER_ZERO = '-٠';

/** Each form of NUMBER_FORMS alone, spelling `n` (contracts/coverage/classes.ts). */
const SINGLE_FORMS: Record<string, (n: number) => string> = {
  'white-space': (n) => ` ${n} `,
  'plus-sign': (n) => `+${n}`,
  'leading-zeros': (n) => `00${n}`,
  'point-zero': (n) => `${n}.0`,
  exponent: (n) => `${n}e0`,
  'negative-zero': () => '-0',
  'other-digits': (n) => String(n).replace(/\d/g, (digit) => String.fromCharCode(0xff10 + Number(digit))),
};

/** The forms a spelling shows, as SINGLE_FORMS names them. */
function formsOf(text: string): string[] {
  const forms: string[] = [];
  if (text !== text.trim()) forms.push('white-space');
  if (text.includes('+')) forms.push('plus-sign');
  if (/(^|[+\s])0\d/.test(text)) forms.push('leading-zeros');
  if (/\.0/.test(text)) forms.push('point-zero');
  if (/e/i.test(text)) forms.push('exponent');
  if (text.startsWith('-')) forms.push('negative-zero');
  if (/[^\x00-\x7f]/.test(text)) forms.push('other-digits');
  return forms;
}

/**
 * A case of the integers of an operation written in other forms (`spellings`: input -> the integer's
 * spelling), with one part per input and form: where the target refuses the whole, each form is
 * sent alone (the engine's unpacking), so one form it refuses hides no other.
 */
function numberFormsCase(b: Builder, spellings: Record<string, { n: number; text: string }>): Draft {
  // A list long enough that a page size read as another number shows (evaluate: every paper since the earliest year).
  const base = b.pageable();
  const params = Object.entries(spellings).reduce(
    (out, [name, { text }]) => set(out, name, text),
    base.map((param) => ({ ...param })),
  );
  const parts: GeneratedCase[] = [];
  for (const [name, { n, text }] of Object.entries(spellings))
    for (const form of formsOf(text)) {
      const draft = set(
        base.map((param) => ({ ...param })),
        name,
        SINGLE_FORMS[form]!(n),
      );
      parts.push({ ...PART_IDENTITY, params: draft, note: `${name} written as ${form}` } as GeneratedCase);
    }
  return {
    params,
    note: `${Object.keys(spellings).join(' and ')} written as the number parsers of common languages read integers (white space, a plus sign, leading zeros, a fraction of zero, an exponent, -0, digits of another script): read as the same integer, or refused`,
    parts,
  };
}

/** What a part of a case takes from the case it belongs to (filled in by buildCase). */
const PART_IDENTITY = { operationId: '', index: 0, seed: 0, intent: 'edge', kind: '', encoding: 'plus' } as const;

/** Kinds of the classes the coverage model names beyond the rounds' kinds, by the grammar of each input. */
function modelKinds(op: OperationInfo): Kind[] {
  const base = baseOf(op);
  const out: Kind[] = [];
  const integers = [
    ...(op.paging ? [op.paging.count, op.paging.offset] : []),
    ...(base === 'interpret' ? ['timeout', 'complete'] : []),
  ];
  const sample: Record<string, number> = { timeout: 1000, complete: 1 };
  if (integers.length > 0) {
    const n = (name: string) => sample[name] ?? (name === op.paging?.count ? 3 : 2);
    // Each input once with several forms in one value, once as -0 in other digits.
    out.push(
      edge('numbers:forms', (b) =>
        numberFormsCase(
          b,
          Object.fromEntries(
            integers.map((name, i) => [
              name,
              { n: n(name), text: i % 2 === 0 ? spelledWithForms(n(name)) : OTHER_ZERO },
            ]),
          ),
        ),
      ),
      edge('numbers:forms-turned', (b) =>
        numberFormsCase(
          b,
          Object.fromEntries(
            integers.map((name, i) => [
              name,
              { n: n(name), text: i % 2 === 1 ? spelledWithForms(n(name)) : OTHER_ZERO },
            ]),
          ),
        ),
      ),
    );
  }
  if (op.paging) {
    const { count, offset } = op.paging;
    out.push(
      edge(`edge:huge-${count}`, (b) => ({
        params: set(b.valid(), count, b.rng.pick(['2147483648', '4294967296', '9223372036854775808'])),
        note: `a ${count} past a 32-bit integer (the interface states no maximum)`,
      })),
      edge(`edge:huge-${offset}`, (b) => ({
        params: set(b.valid(), offset, b.rng.pick(['2147483648', '4294967296', '9007199254740991'])),
        note: `an ${offset} past a 32-bit integer`,
      })),
      edge(`edge:unsafe-${offset}`, (b) => ({
        params: set(b.valid(), offset, b.rng.pick(['9007199254740993', '9223372036854775808', '18446744073709551616'])),
        note: `an ${offset} past 2^53 - 1, what a double holds exactly`,
      })),
    );
  }
  if (base === 'interpret')
    out.push(
      edge('edge:huge-timeout', (b) => ({
        params: set(b.valid(), 'timeout', b.rng.pick(['2147483648', '4294967296'])),
        note: 'a timeout past a 32-bit integer',
      })),
    );
  // A POST's form fields are its GET twin's query parameters (facts.md).
  const named = op.method === 'post' ? getOperation(op.operationId.replace(/Post$/, 'Get')) : op;
  const optional = (named?.parameters ?? [])
    .filter((param) => param.in === 'query' && !param.required)
    .map((param) => param.name);
  // One that does not page where there is one: the case then packs beside the number forms.
  const unpaged = optional.filter((name) => name !== op.paging?.count && name !== op.paging?.offset);
  const emptiable = unpaged.length > 0 ? unpaged : optional;
  if (emptiable.length > 0)
    out.push(
      edge('edge:empty-optional', (b) => ({
        params: [...b.valid(false), { name: b.rng.pick(emptiable), value: '', focus: true }],
        note: 'an optional parameter with an empty value, as query builders write a null',
      })),
    );
  // Texts that are no words.
  const text = ({ interpret: 'query', answerSearch: 'q' } as Record<string, string>)[base];
  if (text)
    out.push(
      positive(`${text}:digits`, (b) => ({
        params: set(b.valid(), text, b.rng.pick(ONLY_DIGITS)),
        note: `${text} holds digits only (any string is a query)`,
      })),
      positive(`${text}:punctuation`, (b) => ({
        params: set(b.valid(), text, b.rng.pick(ONLY_PUNCTUATION)),
        note: `${text} holds punctuation only (any string is a query)`,
      })),
    );
  if (base === 'similarity')
    out.push(
      ...(['s1', 's2'] as const).map((digits) =>
        positive(`texts:not-words-${digits}`, (b) => ({
          params: [
            { name: 's1', value: b.rng.pick(digits === 's1' ? ONLY_DIGITS : ONLY_PUNCTUATION), focus: true },
            { name: 's2', value: b.rng.pick(digits === 's2' ? ONLY_DIGITS : ONLY_PUNCTUATION), focus: true },
          ],
          note: 'texts that are no words: digits only, punctuation only (the inputs are strings)',
          alsoAccepted: [408],
        })),
      ),
    );
  if (base === 'relatedEvents')
    out.push(
      edge('edge:spaced-id', (b) => ({
        params: set(b.valid(), 'wikipediaid', b.rng.pick(['Barack Obama', 'Ada Lovelace', 'New York City'])),
        note: 'an id with spaces for underscores, the title as the encyclopedia shows it',
      })),
    );
  if (base === 'evaluate')
    out.push(
      edge('edge:orderby-other', (b) => ({
        params: set(b.valid(), 'orderby', b.rng.pick(['Ti', 'Ti:asc', 'Ti:desc', 'Id', 'Id:asc', 'Id:desc'])),
        note: 'orderby on Ti or Id, with one value per paper (an order by them is not shown)',
      })),
    );
  if (base === 'evaluate' || base === 'calchistogram')
    out.push(
      edge('edge:attributes-spaced', (b) => ({
        params: set(b.valid(), 'attributes', b.rng.pick(['Ti, Y', 'Id, CC, AA.AuN', 'Y, F.FN'])),
        note: "attributes joined with ', '",
      })),
      edge('edge:attributes-trailing-comma', (b) => ({
        params: set(b.valid(), 'attributes', b.rng.pick(['Ti,Y,', 'Id,', 'Y,F.FN,'])),
        note: 'attributes ending in a comma',
      })),
    );
  if (base === 'interpret' || base === 'evaluate' || base === 'calchistogram')
    out.push(
      edge('edge:model-case', (b) => ({
        params: set(b.valid(), 'model', b.rng.pick(['LATEST', 'Latest'])),
        note: 'latest in another case (whether model names read in any case is not shown)',
      })),
    );
  if (base === 'answerSearch')
    out.push(
      edge('edge:market-subtags', (b) => ({
        params: set(b.valid(), 'mkt', b.rng.pick(['es-Latn-419', 'sr-Cyrl-001', 'zh-Hans-156'])),
        note: 'a BCP 47 market with a script subtag and a numeric region',
      })),
      negative('mkt:posix-encoding', (b) => ({
        params: set(b.valid(), 'mkt', b.rng.pick(['en_US.UTF-8', 'de_DE.utf8'])),
        note: "mkt has the form '<language code>-<country code>' (interface 4.9)",
      })),
      negative('mkt:language-only', (b) => ({
        params: set(b.valid(), 'mkt', b.rng.pick(['en', 'de', 'fr'])),
        note: "mkt has the form '<language code>-<country code>' (interface 4.9)",
      })),
    );
  if (base === 'urlPreview')
    out.push(
      edge('edge:unusual-url', (b) => ({
        params: [
          {
            name: 'q',
            value: b.rng.pick([
              'HTTPS://user:secret@127.0.0.1:8443/a/./b/../c\\d',
              'HTTP://admin:pw@[::1]/x/../y\\z?q=1',
              'HTTPS://me:x@192.168.0.10/docs/./page\\index.html',
            ]),
            focus: true,
          },
        ],
        note: 'a URL WHATWG URL parses and normalizes: an IP host, user and password, dot segments, upper case, backslashes',
      })),
    );
  if (base === 'hotEvents') {
    const date = (name: string, note: string, values: readonly string[]) =>
      positive(`date:${name}`, (b) => ({
        params: set(b.valid(), 'date', b.rng.pick(values)),
        note,
        alsoAccepted: [404],
      }));
    out.push(
      date('unix-epoch', 'the Unix epoch, a timestamp of 0', ['1970-01-01']),
      date('y2038', 'where a 32-bit time_t ends', ['2038-01-19', '2038-01-20']),
      date('early-year', 'a year before 1000 written with 4 digits', ['0999-12-31', '0001-01-01', '0500-06-15']),
      date('year-9999', 'the last day a 4-digit year holds', ['9999-12-31']),
      edge('edge:date-year-zero', (b) => ({
        params: set(b.valid(), 'date', b.rng.pick(['0000-01-01', '0000-12-31'])),
        note: 'the year 0000 (an RFC 3339 full-date, 1 BC in ISO 8601)',
      })),
      edge('edge:date-padded', (b) => ({
        params: set(b.valid(), 'date', ` ${b.rng.pick(b.pools.eventDates)} `),
        note: 'a date with spaces around it',
      })),
      negative('date:iso-week', (b) => ({
        params: set(b.valid(), 'date', b.rng.pick(['2021-W11-1', '2024-W23-1'])),
        note: 'date has the format yyyy-mm-dd',
      })),
      negative('date:ordinal', (b) => ({
        params: set(b.valid(), 'date', b.rng.pick(['2021-074', '2024-155'])),
        note: 'date has the format yyyy-mm-dd',
      })),
      negative('date:expanded-year', (b) => ({
        params: set(b.valid(), 'date', b.rng.pick(['+002021-03-15', '+002024-06-03'])),
        note: 'date has the format yyyy-mm-dd',
      })),
    );
  }
  if (base === 'eventDocuments')
    out.push(
      positive('event:percent-encoded', (b) => ({
        params: b.valid(),
        pathParams: { event_id: b.eventId() },
        pathEscaped: true,
        note: 'a known event id with every character percent-encoded (the same path segment, RFC 3986)',
      })),
      edge('edge:upper-case-event', (b) => ({
        params: b.valid(),
        pathParams: { event_id: b.eventId().toUpperCase() },
        note: 'a known event id in upper-case hex',
      })),
      edge('edge:event-delimiters', (b) => ({
        params: b.valid(),
        pathParams: { event_id: b.rng.pick(['a/b', 'x?y', 'c#d', 'p;q', 'a b']) },
        note: 'an event id holding what a path segment escapes',
      })),
    );
  // Header fields as HTTP clients write them, and query strings and bodies as their encoders do.
  const headerKinds: [keyof HeaderForms, string, Intent][] = [
    ['keyHeader', 'lower-case', 'positive'],
    ['keyHeader', 'upper-case', 'positive'],
    ['accept', 'any', 'positive'],
    ['accept', 'json-and-text', 'positive'],
    ['accept', 'browser', 'positive'],
    ...(op.method === 'post'
      ? ([
          ['contentType', 'charset', 'positive'],
          ['contentType', 'upper-case', 'positive'],
          ['contentType', 'quoted-charset', 'positive'],
          ['contentType', 'absent', 'positive'],
          ['contentType', 'other-type', 'edge'],
        ] as [keyof HeaderForms, string, Intent][])
      : []),
  ];
  for (const [field, cls, intent] of headerKinds)
    out.push({
      name: `header:${field}-${cls}`,
      intent,
      build: (b) => ({
        params: b.valid(),
        headers: { [field]: cls },
        note: `${field} written as ${cls} (RFC 9110)`,
        ...(base === 'similarity' ? { alsoAccepted: [408] } : {}),
      }),
    });
  out.push(
    positive('request:empty-pairs', (b) => ({
      params: b.valid(),
      encoding: 'empty-pairs',
      note: "empty fields around and between the fields ('&&'), which WHATWG's form parser skips",
      ...(base === 'similarity' ? { alsoAccepted: [408] } : {}),
    })),
  );
  if (op.method === 'post')
    out.push(
      positive('request:escaped-body', (b) => ({
        params: b.valid(),
        encoding: 'escaped',
        note: 'every byte of the form body percent-encoded with lower-case hex (the same text)',
        ...(base === 'similarity' ? { alsoAccepted: [408] } : {}),
      })),
    );
  return out;
}

/** Texts of digits only: what a person types to find a year, a number, a version. */
const ONLY_DIGITS = ['2021', '3.14', '1984', '42', '1,000'];
/** Texts of punctuation only. */
const ONLY_PUNCTUATION = ['?!', '...', '()', '--', '?', '!!!'];

const PLAN_KIND_CACHE = new Map<string, Kind[]>();

/** Every kind the coverage plan may send on an operation: a round's, then the plan's own. */
function planKindsOf(op: OperationInfo): Kind[] {
  const known = PLAN_KIND_CACHE.get(op.operationId);
  if (known) return known;
  const kinds = [...kindsOf(op), ...planOnlyKinds(op), ...modelKinds(op)];
  PLAN_KIND_CACHE.set(op.operationId, kinds);
  return kinds;
}

/** The kinds the coverage plan may send on an operation, with their intents, in a fixed order. */
export function planKinds(operationId: string): { name: string; intent: Intent }[] {
  return planKindsOf(requireOperation(operationId)).map((kind) => ({ name: kind.name, intent: kind.intent }));
}

/**
 * Variant `variant` of one kind of case of an operation for a seed: what the coverage plan sends.
 * Its details come from (seed, operation, kind, variant) alone, whatever else the plan sends.
 */
export function kindCase(
  seed: number,
  operationId: string,
  kindName: string,
  variant: number,
  pools: ValuePools,
): GeneratedCase {
  const op = requireOperation(operationId);
  const kind = planKindsOf(op).find((candidate) => candidate.name === kindName);
  if (!kind) throw new Error(`no kind ${kindName} on ${operationId}`);
  const rng = new Random(seedOf(seed, operationId, 'kind', kindName, variant));
  return buildCase(op, kind, rng, pools, seed, variant);
}

/** A case of `kind` built with `rng`: its draft, encoding and path parameters, and where it stands. */
function buildCase(
  op: OperationInfo,
  kind: Kind,
  rng: Random,
  pools: ValuePools,
  seed: number,
  index: number,
): GeneratedCase {
  const builder = new Builder(rng, pools, op);
  const draft = kind.build(builder);
  const encoding = draft.encoding ?? pickEncoding(rng, op, draft.params);
  // An operation with a path parameter always gets one: an id the target returned, unless the kind chose another.
  const pathParams = op.parameters.some((param) => param.in === 'path')
    ? (draft.pathParams ?? { event_id: builder.eventId() })
    : undefined;
  const identity = {
    operationId: op.operationId,
    index,
    seed,
    intent: kind.intent,
    kind: kind.name,
    encoding,
    ...(pathParams ? { pathParams } : {}),
  };
  return {
    ...identity,
    ...draft,
    ...(pathParams ? { pathParams } : {}),
    encoding,
    ...(draft.parts ? { parts: draft.parts.map((part) => ({ ...part, ...identity })) } : {}),
  };
}

const KIND_CACHE = new Map<string, Kind[]>();

/** Every kind of case of an operation, in a fixed order. */
function kindsOf(op: OperationInfo): Kind[] {
  const known = KIND_CACHE.get(op.operationId);
  if (known) return known;
  const base = baseOf(op);
  const own: Kind[] = {
    interpret: interpretKinds,
    evaluate: () => expressionKinds(op),
    calchistogram: () => expressionKinds(op),
    similarity: () => similarityKinds(op),
    answerSearch: answerSearchKinds,
    urlPreview: urlPreviewKinds,
    hotEvents: hotEventsKinds,
    relatedEvents: relatedEventsKinds,
    eventDocuments: eventDocumentsKinds,
  }[base]!();
  const post: Kind[] = op.method === 'post' ? [wrongContentType()] : [];
  if (op.method === 'post') {
    own.push(
      positive('post:unencoded-body', (b) => ({
        params: b.valid(),
        encoding: 'raw',
        note: 'a form body written without percent-encoding, as real clients sent it (facts.md)',
      })),
    );
  }
  const repeat = {
    interpret: 'query',
    evaluate: 'expr',
    calchistogram: 'expr',
    similarity: 's1',
    answerSearch: 'q',
    urlPreview: 'q',
    hotEvents: 'date',
    relatedEvents: 'wikipediaid',
  }[base];
  const kinds = [...own, ...pagingKinds(op), ...post, ...commonEdges(op, repeat)];
  KIND_CACHE.set(op.operationId, kinds);
  return kinds;
}

/** The kind names of an operation by intent (for documentation and tests). */
export function kindNames(operationId: string): Record<Intent, string[]> {
  const kinds = kindsOf(requireOperation(operationId));
  const of = (intent: Intent) => kinds.filter((kind) => kind.intent === intent).map((kind) => kind.name);
  return { positive: of('positive'), negative: of('negative'), edge: of('edge') };
}

/** How many cases make one round of an operation: every kind once. */
export function roundLength(operationId: string): number {
  return kindsOf(requireOperation(operationId)).length;
}

/** Cases per operation for a total budget, proportional to the operations' round lengths (each at least 1). */
export function allocate(total: number, operationIds: readonly string[]): Map<string, number> {
  const rounds = operationIds.map((id) => roundLength(id));
  const sum = rounds.reduce((a, b) => a + b, 0);
  return new Map(operationIds.map((id, i) => [id, Math.max(1, Math.round((total * rounds[i]!) / sum))]));
}

/** The size of one round over the given operations: every kind of case once on each. */
export function fullRound(operationIds: readonly string[]): number {
  return operationIds.reduce((sum, id) => sum + roundLength(id), 0);
}

function requireOperation(operationId: string): OperationInfo {
  const op = getOperation(operationId);
  if (!op) throw new Error(`unknown operation ${operationId}`);
  return op;
}

/**
 * Case `index` of an operation for a seed: rounds of every kind once, each round in its own
 * seeded order, so the first round covers every kind; the details come from (seed, operation,
 * index) alone.
 */
export function caseAt(seed: number, operationId: string, index: number, pools: ValuePools): GeneratedCase {
  const op = requireOperation(operationId);
  const kinds = kindsOf(op);
  const round = Math.floor(index / kinds.length);
  const order = new Random(seedOf(seed, operationId, 'round', round)).shuffle(kinds);
  const kind = order[index % kinds.length]!;
  const rng = new Random(seedOf(seed, operationId, index));
  return buildCase(op, kind, rng, pools, seed, index);
}

/** The first `count` cases of an operation. */
export function casesFor(seed: number, operationId: string, count: number, pools: ValuePools): GeneratedCase[] {
  return Array.from({ length: count }, (_, index) => caseAt(seed, operationId, index, pools));
}

/** Form or percent encoding; a POST sometimes goes unencoded when its values allow it unambiguously. */
function pickEncoding(rng: Random, op: OperationInfo, params: CaseParam[]): Encoding {
  const roll = rng.next();
  if (op.method === 'post' && roll < 0.25 && params.every((param) => rawSafe(valueText(param.value)))) return 'raw';
  return roll < 0.6 ? 'plus' : 'percent';
}

/** A value an unencoded form body carries unambiguously: no &, +, %, # or control characters. */
export function rawSafe(value: string): boolean {
  return !/[&+%#\u0000-\u001f\u007f]/.test(value) && value.trim() === value;
}

/** A parameter value as text. */
export function valueText(value: string | Expression): string {
  return typeof value === 'string' ? value : renderExpression(value);
}

/** The parameters of a case as name/value pairs, in order (repeated names kept). */
export function pairsOf(params: readonly CaseParam[]): [string, string][] {
  return params.map((param) => [param.name, valueText(param.value)]);
}

/** Every UTF-8 byte of a text as %xx, hex digits in lower case. */
export function escapeEveryByte(text: string): string {
  let out = '';
  for (const byte of new TextEncoder().encode(text)) out += `%${byte.toString(16).padStart(2, '0')}`;
  return out;
}

/** Writes parameters as a query string or form body in the given encoding. */
export function encodePairs(pairs: readonly [string, string][], encoding: Encoding): string {
  switch (encoding) {
    case 'plus':
      return new URLSearchParams(pairs as [string, string][]).toString();
    case 'percent':
      return pairs.map(([name, value]) => `${encodeURIComponent(name)}=${encodeURIComponent(value)}`).join('&');
    case 'raw':
      return pairs.map(([name, value]) => `${name}=${value}`).join('&');
    case 'escaped':
      return pairs.map(([name, value]) => `${escapeEveryByte(name)}=${escapeEveryByte(value)}`).join('&');
    case 'empty-pairs':
      return `&${pairs.map(([name, value]) => new URLSearchParams([[name, value]]).toString()).join('&&')}&`;
  }
}
