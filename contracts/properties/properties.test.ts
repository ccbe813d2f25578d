import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CHECKS, getCheck } from '../checks/index.ts';
import { type Exchange, judgeResponse, PROPERTY_CHECKS, RELATIONS, relationsFor, WARN_PROPERTIES } from './index.ts';
import { agree, eventDocumentsAgree, pageIsSliceOfLargerPage, postAgreesWithGet } from './relations.ts';
import { sender, x } from './test-fakes.ts';

const interpretations = (...probs: number[]) => ({ query: 'q', interpretations: probs.map((prob) => ({ prob })) });
const entities = (key: string, values: unknown[]) => ({
  expr: 'Y>1',
  entities: values.map((v) => ({ prob: 0.1, [key]: v })),
});
const histogram = (h: Record<string, unknown>, total = 10) => ({
  expr: 'Y>1',
  num_entities: total,
  histograms: [{ attribute: 'Y', ...h }],
});

/** A calchistogram answer of two entries (its page is /histograms/0/histogram). */
const twoYears = histogram({
  histogram: [
    { value: 2001, count: 3 },
    { value: 2002, count: 2 },
  ],
});

test('invariants: each property fails the answer that breaks it and passes the one that keeps it', () => {
  const cases: { name: string; given: Exchange; want: string[] }[] = [
    {
      name: 'page within count',
      given: x('interpretGet', { query: 'q', count: '2' }, interpretations(0.5, 0.4)),
      want: [],
    },
    {
      name: 'page over count',
      given: x('interpretGet', { query: 'q', count: '1' }, interpretations(0.5, 0.4)),
      want: ['paging-respects-size: page larger than count'],
    },
    { name: 'no count: no size claim', given: x('interpretGet', { query: 'q' }, interpretations(0.5, 0.4)), want: [] },
    {
      name: 'probabilities rising',
      given: x('interpretGet', { query: 'q' }, interpretations(0.2, 0.4)),
      want: ['interpretations-ordered-by-prob: interpretations not by descending prob'],
    },
    { name: 'ties in any order', given: x('interpretGet', { query: 'q' }, interpretations(0.4, 0.4, 0.1)), want: [] },
    {
      name: 'echo normalized: a warning',
      given: x('interpretGet', { query: 'Papers, by X' }, { query: 'papers by x', interpretations: [] }),
      want: ['request-is-echoed: query echoed normalized'],
    },
    {
      name: 'echo cut',
      given: x('evaluateGet', { expr: 'Y>2000' }, { expr: 'Y>200', entities: [] }),
      want: ['request-is-echoed: expr not echoed'],
    },
    {
      name: 'orderby CC:asc kept',
      given: x('evaluateGet', { expr: 'Y>1', orderby: 'CC:asc' }, entities('CC', [1, 1, 5])),
      want: [],
    },
    {
      name: 'orderby CC:desc broken',
      given: x('evaluateGet', { expr: 'Y>1', orderby: 'CC:desc' }, entities('CC', [1, 5])),
      want: ['orderby-is-honoured: entities not in descending order of CC'],
    },
    {
      name: 'orderby without direction: either',
      given: x('evaluateGet', { expr: 'Y>1', orderby: 'Y' }, entities('Y', [2001, 1999])),
      want: [],
    },
    {
      name: 'orderby without direction: not monotonic',
      given: x('evaluateGet', { expr: 'Y>1', orderby: 'Y' }, entities('Y', [2001, 1999, 2005])),
      want: ['orderby-is-honoured: entities not in one order of Y'],
    },
    {
      name: 'orderby on a multi-valued attribute: no claim',
      given: x('evaluateGet', { expr: 'Y>1', orderby: 'F.FN:asc' }, entities('F', [2, 1])),
      want: [],
    },
    {
      name: 'attribute not asked for',
      given: x('evaluateGet', { expr: 'Y>1', attributes: 'Ti' }, entities('Y', [2001])),
      want: ['attributes-are-honoured: attributes not requested were returned'],
    },
    {
      name: 'composite asked for by part',
      given: x('evaluateGet', { expr: 'Y>1', attributes: 'AA.AuN' }, entities('AA', [[]])),
      want: [],
    },
    {
      name: 'histogram counts bounded',
      given: x(
        'calchistogramGet',
        { expr: 'Y>1' },
        histogram({
          distinct_values: 2,
          total_count: 5,
          histogram: [
            { value: 2, count: 3 },
            { value: 3, count: 2 },
          ],
        }),
      ),
      want: [],
    },
    {
      name: 'distinct_values below entries, count above num_entities, total below sum',
      given: x(
        'calchistogramGet',
        { expr: 'Y>1' },
        histogram(
          {
            distinct_values: 1,
            total_count: 4,
            histogram: [
              { value: 2, count: 3 },
              { value: 3, count: 2 },
            ],
          },
          2,
        ),
      ),
      want: [
        'histogram-counts-are-bounded: histogram count above num_entities',
        'histogram-counts-are-bounded: distinct_values below the entries listed',
        'histogram-counts-are-bounded: total_count below the counts listed',
      ],
    },
    {
      name: 'histogram by rising count: a warning check',
      given: x(
        'calchistogramGet',
        { expr: 'Y>1' },
        histogram({
          distinct_values: 2,
          total_count: 5,
          histogram: [
            { value: 3, count: 2 },
            { value: 2, count: 3 },
          ],
        }),
      ),
      want: ['histogram-ordered-by-count: histogram entries not by descending count'],
    },
    { name: 'identical texts 1', given: x('similarityGet', { s1: 'a b', s2: 'a b' }, 1), want: [] },
    { name: 'identical texts without concepts 0', given: x('similarityGet', { s1: 'zz', s2: 'zz' }, 0), want: [] },
    {
      name: 'identical texts 0.9',
      given: x('similarityGet', { s1: 'a b', s2: 'a b' }, 0.9),
      want: ['similarity-of-identical-is-one: identical texts are not similarity 1'],
    },
    {
      name: 'event of another day',
      given: x(
        'hotEvents',
        { date: '2024-06-03' },
        { value: [{ eventId: 'a'.repeat(32), from: '2024-06-05T00:00:00Z', to: '2024-06-05T10:00:00Z' }] },
      ),
      want: ['hot-events-match-date: event outside the date asked for'],
    },
    {
      name: 'related events back and forth',
      given: x(
        'relatedEvents',
        { wikipediaid: 'X' },
        {
          value: ['2024-01-01', '2024-03-01', '2024-02-01'].map((d) => ({
            eventId: 'b'.repeat(32),
            from: `${d}T00:00:00Z`,
          })),
        },
      ),
      want: ['related-events-ordered-by-time: related events not monotonic in time'],
    },
    {
      name: 'ranking index dangles',
      given: x(
        'answerSearch',
        { q: 'k', mkt: 'en-US' },
        {
          queryContext: { originalQuery: 'k' },
          webPages: { value: [{ id: 'a#WebPages.0' }] },
          rankingResponse: { mainline: { items: [{ answerType: 'WebPages', resultIndex: 3 }] } },
        },
      ),
      want: ['ranking-references-resolve: ranking resultIndex dangles'],
    },
    { name: 'a 404 is judged by nobody here', given: x('hotEvents', { date: '2024-06-03' }, {}, 404), want: [] },
    {
      name: 'an entity whose canonical author is not the one asked for',
      given: x(
        'evaluateGet',
        { expr: "Composite(AA.AuN=='jaime teevan')", attributes: 'AA.AuN' },
        { expr: "Composite(AA.AuN=='jaime teevan')", entities: [{ prob: 0.1, AA: [{ AuN: 'susan dumais' }] }] },
      ),
      want: ['results-match-expr: entity does not satisfy expr'],
    },
    {
      name: 'the author asked for among others, in another Unicode form and case',
      given: x(
        'evaluateGet',
        { expr: "Composite(AA.AuN=='jos\u00e9 garc\u00eda')", attributes: 'AA.AuN' },
        {
          expr: "Composite(AA.AuN=='jos\u00e9 garc\u00eda')",
          entities: [{ prob: 0.1, AA: [{ AuN: 'mike smith' }, { AuN: 'Jose\u0301 Garci\u0301a' }] }],
        },
      ),
      want: [],
    },
    {
      name: 'a synonym (= matches synonyms too, facts.md) and an attribute not returned prove nothing',
      given: x(
        'evaluateGet',
        { expr: "And(Composite(AA.AuN='jaime green'),Ti=='x')", attributes: 'AA.AuN' },
        { expr: "And(Composite(AA.AuN='jaime green'),Ti=='x')", entities: [{ prob: 0.1, AA: [{ AuN: 'j l green' }] }] },
      ),
      want: [],
    },
    {
      name: 'Composite(And(..)) needs both parts on one author',
      given: x(
        'evaluateGet',
        { expr: "Composite(And(AA.AuN=='a b',AA.AfN=='c'))", attributes: 'AA.AuN,AA.AfN' },
        {
          expr: "Composite(And(AA.AuN=='a b',AA.AfN=='c'))",
          entities: [
            {
              prob: 0.1,
              AA: [
                { AuN: 'a b', AfN: 'd' },
                { AuN: 'e f', AfN: 'c' },
              ],
            },
          ],
        },
      ),
      want: ['results-match-expr: entity does not satisfy expr'],
    },
    {
      name: 'a year outside the range, in an Or whose other branch cannot be told: nothing proven',
      given: x(
        'evaluateGet',
        { expr: "Or(Y=[2010,2012),Ti=='x')", attributes: 'Y' },
        { expr: "Or(Y=[2010,2012),Ti=='x')", entities: [{ prob: 0.1, Y: 2012 }] },
      ),
      want: [],
    },
    {
      name: 'a year outside the range, the range alone',
      given: x(
        'evaluateGet',
        { expr: 'Y=[2010,2012)', attributes: 'Y' },
        { expr: 'Y=[2010,2012)', entities: [{ prob: 0.1, Y: 2012 }] },
      ),
      want: ['results-match-expr: entity does not satisfy expr'],
    },
    {
      name: 'a histogram year the expression rules out',
      given: x(
        'calchistogramGet',
        { expr: 'Y>2012', attributes: 'Y' },
        {
          expr: 'Y>2012',
          num_entities: 5,
          histograms: [
            {
              attribute: 'Y',
              distinct_values: 2,
              total_count: 5,
              histogram: [
                { value: 2014, count: 3 },
                { value: 2012, count: 2 },
              ],
            },
          ],
        },
      ),
      want: ['results-match-expr: histogram value no matching entity can have'],
    },
    {
      name: "the real service's documented histogram (an author's co-authors and fields are not constrained)",
      given: x(
        'calchistogramGet',
        { expr: "And(Composite(AA.AuN=='jaime teevan'),Y>2012)", attributes: 'Y,F.FN' },
        {
          expr: "And(Composite(AA.AuN=='jaime teevan'),Y>2012)",
          num_entities: 37,
          histograms: [
            {
              attribute: 'Y',
              distinct_values: 3,
              total_count: 37,
              histogram: [
                { value: 2014, count: 15 },
                { value: 2013, count: 12 },
              ],
            },
            {
              attribute: 'F.FN',
              distinct_values: 34,
              total_count: 53,
              histogram: [{ value: 'crowdsourcing', count: 9 }],
            },
          ],
        },
      ),
      want: [],
    },
    {
      name: "the real service's documented interpretations: a completed name, a canonical value",
      given: x(
        'interpretGet',
        { query: 'papers by jaime', complete: '1' },
        {
          query: 'papers by jaime',
          interpretations: [
            {
              prob: 2.4e-6,
              parse: '<rule id="#GetPapers">papers by <attr name="academic#AA.AuN">jaime teevan</attr></rule>',
              rules: [{ name: '#GetPapers', output: { type: 'query', value: "Composite(AA.AuN=='jaime teevan')" } }],
            },
            {
              prob: 1.4e-6,
              parse:
                '<rule id="#GetPapers">papers by <attr name="academic#AA.AuN" canonical="j l green">jaime green</attr></rule>',
              rules: [{ name: '#GetPapers', output: { type: 'query', value: "Composite(AA.AuN=='j l green')" } }],
            },
          ],
        },
      ),
      want: [],
    },
    {
      name: 'an output that drops the year the parse shows',
      given: x(
        'interpretGet',
        { query: 'papers by a b after 2012' },
        {
          query: 'papers by a b after 2012',
          interpretations: [
            {
              prob: 0.5,
              parse:
                '<rule id="#GetPapers">papers by <attr name="academic#AA.AuN">a b</attr> after <attr name="academic#Y" op="gt">2012</attr></rule>',
              rules: [{ name: '#GetPapers', output: { type: 'query', value: "Composite(AA.AuN=='a b')" } }],
            },
          ],
        },
      ),
      want: ['interpretation-output-matches-parse: output does not constrain an attribute the parse shows'],
    },
    {
      name: 'an output that uses the synonym instead of the canonical value',
      given: x(
        'interpretGet',
        { query: 'papers by jaime green' },
        {
          query: 'papers by jaime green',
          interpretations: [
            {
              prob: 0.5,
              parse:
                '<rule id="#GetPapers">papers by <attr name="academic#AA.AuN" canonical="j l green">jaime green</attr></rule>',
              rules: [{ name: '#GetPapers', output: { type: 'query', value: "Composite(AA.AuN=='jaime green')" } }],
            },
          ],
        },
      ),
      want: ["interpretation-output-matches-parse: output does not use the parse's canonical value"],
    },
    {
      name: 'a rule name the parse does not name',
      given: x(
        'interpretGet',
        { query: 'a b' },
        {
          query: 'a b',
          interpretations: [
            {
              prob: 0.5,
              parse: '<rule id="#GetPapers"><attr name="academic#AA.AuN">a b</attr></rule>',
              rules: [{ name: '#GetAuthors', output: { type: 'query', value: "Composite(AA.AuN=='a b')" } }],
            },
          ],
        },
      ),
      want: ["interpretation-output-matches-parse: rule name differs from the parse's rule"],
    },
    {
      name: 'histogram page within count (items under /histograms/0/histogram)',
      given: x('calchistogramGet', { expr: 'Y>1', attributes: 'Y', count: '2' }, twoYears),
      want: [],
    },
    {
      name: 'histogram page over count (the pointer steps through an array)',
      given: x('calchistogramGet', { expr: 'Y>1', attributes: 'Y', count: '1' }, twoYears),
      want: ['paging-respects-size: page larger than count'],
    },
  ];
  for (const { name, given, want } of cases) {
    assert.deepEqual(
      judgeResponse(given).map(({ check, violation }) => `${check}: ${violation.title}`),
      want,
      name,
    );
  }
});

test('every property belongs to a registered check, with the severity the registry gives it', () => {
  for (const id of PROPERTY_CHECKS) assert.ok(getCheck(id), `${id} is registered`);
  for (const check of CHECKS)
    if (PROPERTY_CHECKS.has(check.id))
      assert.equal(WARN_PROPERTIES.has(check.id), check.severity === 'warn', `${check.id} severity`);
  for (const relation of RELATIONS) {
    const check = getCheck(relation.check)!;
    for (const op of relation.operations) {
      const declared = check.reads?.({ operationId: op } as never) ?? [];
      const reads = relation.reads.filter(
        (id) => relation.check !== 'get-and-post-agree' || id === op.replace('Post', 'Get'),
      );
      for (const id of reads)
        assert.ok(declared.includes(id), `${relation.check} on ${op} reads ${id}: the check must declare it`);
    }
  }
});

test('relations: a page is the matching slice of a larger page; GET agrees with POST; the top document is listed', async () => {
  const all = Array.from({ length: 12 }, (_, i) => ({ Id: i }));
  const page = (offset: number, count: number) => ({ expr: 'Y>1', entities: all.slice(offset, offset + count) });
  const right = x('evaluateGet', { expr: 'Y>1', count: '3', offset: '5' }, page(5, 3));
  const shifted = x('evaluateGet', { expr: 'Y>1', count: '3', offset: '5' }, page(6, 3));
  const larger = sender((_, params) => ({ json: page(Number(params.offset), Number(params.count)) }));
  assert.deepEqual(await pageIsSliceOfLargerPage.run(right, larger.send), []);
  assert.deepEqual(larger.sent, ['evaluateGet expr=Y%3E1&count=10&offset=0'], 'one larger page from 0');
  // A replica may compute the same paper's prob with other last digits: still the same item.
  const rescored = sender((_, params) => ({
    json: {
      expr: 'Y>1',
      entities: all.slice(0, Number(params.count)).map((entity) => ({ ...entity, prob: 0.1 + 1e-15 })),
    },
  }));
  const scored = x(
    'evaluateGet',
    { expr: 'Y>1', count: '3', offset: '5' },
    { expr: 'Y>1', entities: all.slice(5, 8).map((entity) => ({ ...entity, prob: 0.1 })) },
  );
  assert.deepEqual(await pageIsSliceOfLargerPage.run(scored, rescored.send), [], 'scores within the last digits');
  // Histogram entries are named by their value; their pages sit under /histograms/0/histogram.
  const years = (offset: number, count: number) =>
    histogram(
      {
        histogram: Array.from({ length: 12 }, (_, i) => ({ value: 2010 - i, count: 20 - i, prob: (20 - i) / 7 })).slice(
          offset,
          offset + count,
        ),
      },
      100,
    );
  const yearPage = x('calchistogramGet', { expr: 'Y>1', attributes: 'Y', count: '2', offset: '3' }, years(3, 2));
  assert.deepEqual(
    relationsFor(yearPage)
      .map((r) => r.check)
      .includes('paging-is-consistent'),
    true,
    'calchistogram pages are related',
  );
  assert.deepEqual(
    await pageIsSliceOfLargerPage.run(yearPage, sender((_, params) => ({ json: years(0, Number(params.count)) })).send),
    [],
  );
  const [yearShift] = await pageIsSliceOfLargerPage.run(
    yearPage,
    sender((_, params) => ({ json: years(1, Number(params.count)) })).send,
  );
  assert.equal(
    yearShift?.title,
    'page differs from the matching slice of a larger page',
    'a histogram page off by one',
  );
  const [violation] = await pageIsSliceOfLargerPage.run(shifted, larger.send);
  assert.equal(violation?.title, 'page differs from the matching slice of a larger page');
  assert.match(
    violation!.documented,
    /relation: page\(count=c, offset=o\) = page\(count=o\+c\+2, offset=0\)\[o, o\+c\)/,
  );
  assert.deepEqual(
    relationsFor(x('evaluateGet', { expr: 'Y>1' }, page(0, 10)))
      .map((r) => r.check)
      .filter((check) => check === 'paging-is-consistent'),
    [],
    'no count: no page relation',
  );

  const post = x('similarityPost', { s1: 'a'.repeat(3000), s2: 'b' }, 0.6);
  assert.deepEqual(
    await postAgreesWithGet.run(post, sender(() => ({ json: 0.6 + 1e-12 })).send),
    [],
    'within the tolerance',
  );
  const [differs] = await postAgreesWithGet.run(post, sender(() => ({ json: 0.61 })).send);
  assert.equal(differs?.title, 'POST answers differently from GET');
  assert.ok(
    !postAgreesWithGet.appliesTo(x('similarityPost', { s1: 'a'.repeat(20_000), s2: 'b' }, 0.5)),
    'too long for a GET',
  );

  const event = { eventId: 'e'.repeat(32), documentCount: 2, topDocument: { documentId: 'd1' } };
  const hot = x('hotEvents', { date: '2024-06-03' }, { value: [event] });
  const listed = sender(() => ({ json: { value: [{ documentId: 'd1' }, { documentId: 'd2' }] } }));
  assert.deepEqual(await eventDocumentsAgree.run(hot, listed.send), []);
  const missing = await eventDocumentsAgree.run(
    hot,
    sender(() => ({ json: { value: [{ documentId: 'd2' }, { documentId: 'd3' }, { documentId: 'd4' }] } })).send,
  );
  assert.deepEqual(
    missing.map((v) => v.title),
    ["topDocument not among the event's documents", 'documentCount disagrees with the documents listed'],
  );
});

test('agree compares JSON with a relative tolerance on numbers', () => {
  const cases = [
    { given: [{ a: [1, 2] }, { a: [1, 2] }], want: true },
    { given: [{ a: 0.5 }, { a: 0.5 + 1e-12 }], want: true },
    { given: [{ a: 0.5 }, { a: 0.6 }], want: false },
    { given: [{ a: 1 }, { a: 1, b: 2 }], want: false },
    { given: [[1], [1, 2]], want: false },
  ];
  for (const { given, want } of cases) assert.equal(agree(given[0], given[1]), want, JSON.stringify(given));
});
