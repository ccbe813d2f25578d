import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { Corpus, FIRST_YEAR, LAST_YEAR } from './corpus.ts';
import { createAcademicEngine } from './engine.ts';
import { Matcher } from './evaluate.ts';
import { type Expr, parseExpression } from './expression.ts';
import type { NameTable } from './names.ts';
import { Budget } from './query.ts';

// Property-based tests: about 11,000 generated cases in all (see the numRuns below).
const SEED = 11;
const PAPERS = 1500;
const corpus = new Corpus({ seed: SEED, papers: PAPERS });
const matcher = new Matcher(corpus, 60_000);
const engine = createAcademicEngine({ seed: SEED, papers: PAPERS });

// The oracle: does paper g match, decided from the raw columns, without any index.
function names(table: NameTable, id: number, canonicalOnly: boolean): string[] {
  return canonicalOnly ? [table.values[id]!] : [table.values[id]!, ...table.synonymsOf(id)];
}

function stringMatch(table: NameTable, id: number, e: Extract<Expr, { kind: 'eq' | 'prefix' }>): boolean {
  const candidates = names(table, id, e.canonicalOnly);
  return e.kind === 'eq' ? candidates.includes(e.value as string) : candidates.some((n) => n.startsWith(e.value));
}

function scalarMatch(value: number | string | undefined, e: Expr): boolean {
  if (value === undefined) return false;
  if (e.kind === 'eq') return value === e.value;
  if (e.kind === 'prefix') return String(value).startsWith(e.value);
  if (e.kind === 'range') {
    const v = value as number;
    return (e.loInclusive ? v >= e.lo : v > e.lo) && (e.hiInclusive ? v <= e.hi : v < e.hi);
  }
  return false;
}

function slotMatch(g: number, slot: number, e: Expr): boolean {
  if (e.kind === 'and') return e.args.every((a) => slotMatch(g, slot, a));
  if (e.kind === 'or') return e.args.some((a) => slotMatch(g, slot, a));
  if (e.kind === 'composite') return false;
  const author = corpus.authAuthor[slot]!;
  const aff = corpus.authAff[slot]!;
  switch (e.attr.name) {
    case 'AA.AuN':
      return e.kind !== 'range' && stringMatch(corpus.authorNames, corpus.authorName[author]!, e);
    case 'AA.AuId':
      return scalarMatch(corpus.auId(author), e);
    case 'AA.AfN':
      return aff >= 0 && e.kind !== 'range' && stringMatch(corpus.affiliations, aff, e);
    case 'AA.AfId':
      return aff >= 0 && scalarMatch(corpus.afId(aff), e);
    case 'AA.S':
      return scalarMatch(slot - corpus.authOff[g]! + 1, e);
    case 'F.FN':
      return e.kind !== 'range' && stringMatch(corpus.fields, corpus.fieldIds[slot]!, e);
    case 'F.FId':
      return scalarMatch(corpus.fId(corpus.fieldIds[slot]!), e);
    case 'J.JN':
      return corpus.journal(g) >= 0 && e.kind !== 'range' && stringMatch(corpus.journals, corpus.journal(g), e);
    case 'J.JId':
      return corpus.journal(g) >= 0 && scalarMatch(corpus.jId(corpus.journal(g)), e);
    case 'C.CN':
      return (
        corpus.conference(g) >= 0 && e.kind !== 'range' && stringMatch(corpus.conferences, corpus.conference(g), e)
      );
    case 'C.CId':
      return corpus.conference(g) >= 0 && scalarMatch(corpus.cId(corpus.conference(g)), e);
  }
  return false;
}

function oracle(g: number, e: Expr): boolean {
  switch (e.kind) {
    case 'and':
      return e.args.every((a) => oracle(g, a));
    case 'or':
      return e.args.some((a) => oracle(g, a));
    case 'composite': {
      const slots: number[] = [];
      if (e.group === 'AA') for (let i = corpus.authOff[g]!; i < corpus.authOff[g + 1]!; i++) slots.push(i);
      else if (e.group === 'F') for (let i = corpus.fieldOff[g]!; i < corpus.fieldOff[g + 1]!; i++) slots.push(i);
      else slots.push(g);
      return slots.some((slot) => slotMatch(g, slot, e.inner));
    }
  }
  switch (e.attr.name) {
    case 'Id':
      return scalarMatch(corpus.id[g], e);
    case 'Ti':
      return scalarMatch(corpus.title(g), e);
    case 'W':
      return e.kind === 'eq' && corpus.uniqueWords(g).some((w) => corpus.words[w] === e.value);
    case 'Y':
      return scalarMatch(corpus.year[g], e);
    case 'D':
      return scalarMatch(corpus.date[g], e);
    case 'RId': {
      const ids: number[] = [];
      for (let i = corpus.refOff[g]!; i < corpus.refOff[g + 1]!; i++) ids.push(corpus.id[corpus.refs[i]!]!);
      return ids.includes(e.kind === 'eq' ? (e.value as number) : Number.NaN);
    }
    case 'DOI': {
      const doi = corpus.doi(g);
      return (
        doi !== undefined &&
        e.kind !== 'range' &&
        (e.kind === 'eq' ? doi === String(e.value).toUpperCase() : doi.startsWith(e.value.toUpperCase()))
      );
    }
  }
  return false;
}

// Generators of valid expressions built from real corpus values (plus a few that match nothing).
const gs = Array.from({ length: PAPERS }, (_, g) => g);
const pickG = fc.constantFrom(...gs.filter((g) => g % 7 === 0));
const quote = (s: string) => `'${s}'`;
const prefixOf = (s: string, cut: number) => s.slice(0, Math.max(1, Math.floor(s.length * cut)));
const op = fc.constantFrom('=', '==');
const cut = fc.double({ min: 0.1, max: 1, noNaN: true });
const year = fc.integer({ min: FIRST_YEAR - 2, max: LAST_YEAR + 2 });
const date = fc
  .tuple(year, fc.integer({ min: 1, max: 12 }), fc.integer({ min: 1, max: 28 }))
  .map(([y, m, d]) => `'${y}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}'`);
const bracket = fc.tuple(fc.constantFrom('[', '('), fc.constantFrom(']', ')'));

const plainLeaf: fc.Arbitrary<string> = fc.oneof(
  year.map((y) => `Y=${y}`),
  fc.tuple(fc.constantFrom('>', '>=', '<', '<='), year).map(([o, y]) => `Y${o}${y}`),
  fc.tuple(bracket, year, year).map(([[l, r], a, b]) => `Y=${l}${Math.min(a, b)},${Math.max(a, b)}${r}`),
  fc.constantFrom('1', '19', '20', '201', '2').map((p) => `Y='${p}'...`),
  date.map((d) => `D=${d}`),
  fc.tuple(fc.constantFrom('>', '>=', '<', '<='), date).map(([o, d]) => `D${o}${d}`),
  fc.tuple(bracket, date, date).map(([[l, r], a, b]) => `D=${l}${[a, b].sort().join(',')}${r}`),
  pickG.map((g) => `Id=${corpus.id[g]}`),
  fc.tuple(pickG, fc.nat()).map(([g, k]) => {
    const words = corpus.uniqueWords(g);
    return `W='${corpus.words[words[k % words.length]!]}'`;
  }),
  fc.tuple(pickG, op).map(([g, o]) => `Ti${o}${quote(corpus.title(g))}`),
  fc.tuple(pickG, cut).map(([g, c]) => `Ti=${quote(prefixOf(corpus.title(g), c))}...`),
  pickG.map((g) => `RId=${corpus.id[g]}`),
  pickG.map((g) => `DOI=${quote((corpus.doi(g) ?? '10.1/none').toLowerCase())}`),
  fc.constantFrom('10.1', '10.1145/', '10.1109/S').map((p) => `DOI='${p}'...`),
);

const authorSlot = fc.tuple(pickG, fc.nat()).map(([g, k]) => {
  const n = corpus.authOff[g + 1]! - corpus.authOff[g]!;
  return corpus.authOff[g]! + (k % n);
});
const aaPart: fc.Arbitrary<string> = fc.oneof(
  fc
    .tuple(authorSlot, op)
    .map(([s, o]) => `AA.AuN${o}${quote(corpus.authorNames.values[corpus.authorName[corpus.authAuthor[s]!]!]!)}`),
  fc.tuple(authorSlot, op).map(([s, o]) => {
    const id = corpus.authorName[corpus.authAuthor[s]!]!;
    return `AA.AuN${o}${quote(corpus.authorNames.synonymsOf(id)[0] ?? corpus.authorNames.values[id]!)}`;
  }),
  fc
    .tuple(authorSlot, op, cut)
    .map(
      ([s, o, c]) =>
        `AA.AuN${o}${quote(prefixOf(corpus.authorNames.values[corpus.authorName[corpus.authAuthor[s]!]!]!, c))}...`,
    ),
  authorSlot.map((s) => `AA.AuId=${corpus.auId(corpus.authAuthor[s]!)}`),
  fc
    .tuple(fc.integer({ min: 0, max: corpus.affiliations.values.length - 1 }), op)
    .map(([a, o]) => `AA.AfN${o}${quote(corpus.affiliations.synonymsOf(a)[0] ?? corpus.affiliations.values[a]!)}`),
  fc.integer({ min: 0, max: corpus.affiliations.values.length - 1 }).map((a) => `AA.AfId=${corpus.afId(a)}`),
  fc.integer({ min: 0, max: 7 }).map((s) => `AA.S=${s}`),
);
const fPart = fc.oneof(
  fc
    .tuple(fc.integer({ min: 0, max: corpus.fields.values.length - 1 }), op)
    .map(([f, o]) => `F.FN${o}${quote(corpus.fields.values[f]!)}`),
  fc.tuple(fc.constantFrom('m', 'comp', 'data', 'x'), op).map(([p, o]) => `F.FN${o}'${p}'...`),
  fc.integer({ min: 0, max: corpus.fields.values.length }).map((f) => `F.FId=${corpus.fId(f)}`),
);
const jPart = fc.oneof(
  fc
    .integer({ min: 0, max: corpus.journals.values.length - 1 })
    .map((j) => `J.JN=${quote(corpus.journals.values[j]!)}`),
  fc.integer({ min: 0, max: corpus.journals.values.length - 1 }).map((j) => `J.JId=${corpus.jId(j)}`),
  fc.constantFrom('i', 'journal', 'acm').map((p) => `J.JN='${p}'...`),
);
const cPart = fc.oneof(
  fc
    .integer({ min: 0, max: corpus.conferences.values.length - 1 })
    .map((c) => `C.CN==${quote(corpus.conferences.values[c]!)}`),
  fc.integer({ min: 0, max: corpus.conferences.values.length - 1 }).map((c) => `C.CId=${corpus.cId(c)}`),
);
const combine = (part: fc.Arbitrary<string>): fc.Arbitrary<string> =>
  fc.oneof(
    { weight: 3, arbitrary: part },
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.constantFrom('And', 'Or', 'AND', 'or'), fc.array(part, { minLength: 1, maxLength: 3 }))
        .map(([f, xs]) => `${f}(${xs.join(',')})`),
    },
  );
const compositeLeaf = fc.oneof(aaPart, fPart, jPart, cPart).chain((first) => {
  const part = first.startsWith('AA.')
    ? aaPart
    : first.startsWith('F.')
      ? fPart
      : first.startsWith('J.')
        ? jPart
        : cPart;
  return combine(part).map((rest) => `Composite(And(${first},${rest}))`);
});
const compositeSimple = fc.oneof(aaPart, fPart, jPart, cPart).map((p) => `Composite(${p})`);

const { expression } = fc.letrec<{ expression: string }>((tie) => ({
  expression: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    { weight: 4, arbitrary: plainLeaf },
    { weight: 3, arbitrary: compositeSimple },
    { weight: 1, arbitrary: compositeLeaf },
    {
      weight: 2,
      arbitrary: fc
        .tuple(
          fc.constantFrom('And', 'Or', 'AND', 'OR', 'and'),
          fc.array(tie('expression'), { minLength: 1, maxLength: 4 }),
        )
        .map(([f, xs]) => `${f}(${xs.join(',')})`),
    },
  ),
}));

const isErrorBody = (body: unknown) => {
  const error = (body as { error?: { code?: unknown; message?: unknown } }).error;
  return typeof error?.code === 'string' && typeof error.message === 'string' && error.message.length > 0;
};

describe('generated valid expressions', () => {
  it('match exactly the papers the brute-force oracle selects (3,000 cases)', () => {
    fc.assert(
      fc.property(expression, (expr) => {
        const docs = matcher.match(expr, new Budget(60_000)).docs;
        const parsed = parseExpression(expr);
        const want: number[] = [];
        for (let doc = 0; doc < PAPERS; doc++) if (oracle(corpus.byRank[doc]!, parsed)) want.push(doc);
        assert.deepEqual([...docs], want, expr);
      }),
      { numRuns: 3000, seed: 1 },
    );
  });

  it('evaluate and calchistogram answer 200 with consistent totals (1,500 cases)', () => {
    fc.assert(
      fc.property(expression, fc.integer({ min: 0, max: 30 }), (expr, count) => {
        const evaluated = engine.evaluate({ expr, count: '1000', attributes: 'Id,Y' });
        assert.equal(evaluated.status, 200, JSON.stringify(evaluated.body));
        const body = evaluated.body as { expr: string; entities: { prob: number; Y: number }[]; aborted: boolean };
        assert.equal(body.expr, expr);
        assert.equal(body.aborted, false);
        for (let i = 1; i < body.entities.length; i++)
          assert.ok(body.entities[i - 1]!.prob >= body.entities[i]!.prob, 'sorted by prob');
        const histogram = engine.calchistogram({ expr, attributes: 'Y', count: String(count) });
        assert.equal(histogram.status, 200);
        const h = histogram.body as {
          num_entities: number;
          histograms: { total_count: number; histogram: { count: number }[] }[];
        };
        if (body.entities.length < 1000) {
          assert.equal(h.num_entities, body.entities.length);
          assert.equal(h.histograms[0]!.total_count, body.entities.length);
        }
        assert.ok(h.histograms[0]!.histogram.length <= count, 'histogram paged by count');
      }),
      { numRuns: 1500, seed: 2 },
    );
  });
});

const TOKENS = [
  'And(',
  'Or(',
  'Composite(',
  'AND(',
  ')',
  ',',
  '=',
  '==',
  '>',
  '<=',
  "'",
  '...',
  '[',
  ']',
  '(',
  'Y',
  'D',
  'Ti',
  'W',
  'AA.AuN',
  'AA.S',
  'F.FN',
  'J.JN',
  'C.CId',
  'Id',
  'CC',
  "'jaime teevan'",
  '2010',
  "'2010-02-04'",
  '-',
  ' ',
  '\\',
  'AA.',
];
const noisyExpr = fc.oneof(
  fc.string({ maxLength: 80 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.array(fc.constantFrom(...TOKENS), { maxLength: 25 }).map((xs) => xs.join('')),
  fc.tuple(expression, fc.nat(), fc.constantFrom('', ')', '(', ',', "'", '...', ' ', 'x')).map(([e, at, insert]) => {
    const i = at % (e.length + 1);
    return e.slice(0, i) + insert + e.slice(i + 1);
  }),
);

describe('arbitrary input never breaks the engine', () => {
  it('evaluate and calchistogram answer 200 or 400 for any expr (3,000 cases)', () => {
    fc.assert(
      fc.property(noisyExpr, (expr) => {
        for (const result of [engine.evaluate({ expr }), engine.calchistogram({ expr, attributes: 'Y' })]) {
          assert.ok(result.status === 200 || result.status === 400, `status ${result.status}`);
          if (result.status === 400) assert.ok(isErrorBody(result.body), 'error body shape');
          else assert.equal((result.body as { expr: string }).expr, expr);
        }
      }),
      { numRuns: 3000, seed: 3 },
    );
  });

  const PARAM_NAMES = [
    'expr',
    'count',
    'offset',
    'orderby',
    'attributes',
    'model',
    'query',
    'complete',
    'timeout',
    's1',
    's2',
  ];
  const paramValue = fc.oneof(
    fc.string({ maxLength: 12 }),
    fc.constantFrom(
      '0',
      '1',
      '10',
      '1000',
      '10001',
      '-1',
      '1e3',
      'latest',
      'Y',
      'Y:desc',
      'Id,Ti',
      'AA',
      'Y=2010',
      'papers by jaime',
    ),
  );
  it('every operation answers 200, 400 or 408 for arbitrary parameters (1,500 cases)', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.constantFrom(...PARAM_NAMES), paramValue), (params) => {
        for (const operation of ['evaluate', 'calchistogram', 'interpret', 'similarity'] as const) {
          const result = engine[operation](params);
          assert.ok([200, 400, 408].includes(result.status), `${operation} status ${result.status}`);
          if (result.status !== 200) assert.ok(isErrorBody(result.body), 'error body shape');
        }
      }),
      { numRuns: 1500, seed: 4 },
    );
  });

  const WORDS = [
    'papers',
    'by',
    'after',
    'before',
    'in',
    'since',
    'between',
    'and',
    'from',
    ...engine.samples().authors.flatMap((a) => a.split(' ')),
    ...engine.samples().titleWords,
    'machine',
    'learning',
    'sigir',
    '2012',
    '2001',
    '19',
    'mit',
    'j',
  ];
  const query = fc.oneof(
    fc.string({ maxLength: 40 }),
    fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 6 }).map((xs) => xs.join(' ')),
  );
  // An empty query counts as missing (400, in interpret.test.ts), so every generated query has a character.
  it('interpret answers 200, and every output is an expression evaluate accepts and that matches (1,000 cases)', () => {
    fc.assert(
      fc.property(
        query.filter((q) => q !== ''),
        fc.constantFrom('0', '1'),
        (q, complete) => {
          const result = engine.interpret({ query: q, complete, count: '5' });
          assert.equal(result.status, 200, `interpret ${JSON.stringify(q)}: ${JSON.stringify(result.body)}`);
          const body = result.body as {
            query: string;
            interpretations: { prob: number; rules: { output: { value: string } }[] }[];
            aborted: boolean;
          };
          assert.equal(body.query, q);
          assert.equal(typeof body.aborted, 'boolean');
          for (const interpretation of body.interpretations) {
            assert.ok(interpretation.prob > 0 && interpretation.prob <= 1, 'prob in (0, 1]');
            const expr = interpretation.rules[0]!.output.value;
            const evaluated = engine.evaluate({ expr, count: '1' });
            assert.equal(evaluated.status, 200, expr);
            assert.equal((evaluated.body as { entities: unknown[] }).entities.length, 1, expr);
          }
        },
      ),
      { numRuns: 1000, seed: 5 },
    );
  });

  it('similarity is a number in [-1, 1], symmetric to the bit, 1 for identical texts (1,000 cases)', () => {
    const text = fc.oneof(
      fc.string({ maxLength: 60 }),
      fc
        .array(fc.constantFrom(...WORDS, 'deep', 'networks', 'retrieval', 'neural'), { maxLength: 12 })
        .map((xs) => xs.join(' ')),
    );
    fc.assert(
      fc.property(text, text, (s1, s2) => {
        const forward = engine.similarity({ s1, s2 });
        const backward = engine.similarity({ s1: s2, s2: s1 });
        assert.equal(forward.status, 200);
        assert.equal(typeof forward.body, 'number');
        assert.ok(Object.is(forward.body, backward.body), `${forward.body} vs ${backward.body}`);
        const value = forward.body as number;
        assert.ok(value >= -1 && value <= 1, 'in range');
        const self = engine.similarity({ s1, s2: s1 }).body as number;
        assert.ok(self === 1 || self === 0, `identical texts give 1 (or 0 without concepts), got ${self}`);
      }),
      { numRuns: 1000, seed: 6 },
    );
  });
});
