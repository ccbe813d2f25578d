// The properties of promises once judged on some inputs only, or not at all: each fails the answer
// that breaks its promise and passes the forms the interface and the standards allow.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type Exchange, judgeResponse } from './index.ts';
import {
  eventDocumentsAgree,
  histogramAgreesWithEvaluate,
  identity,
  judgeOutputs,
  modelDefaultsToLatest,
  orderIn,
  outputsAreEvaluable,
  pageIsSliceOfLargerPage,
  sameItem,
} from './relations.ts';
import { instantOf, pagedLists } from './responses.ts';
import { sender, x } from './test-fakes.ts';
import { SCORE_TOLERANCE } from './tolerance.ts';

const titles = (exchange: Exchange) =>
  judgeResponse(exchange).map(({ check, violation }) => `${check}: ${violation.title}`);

/** A calchistogram answer: one histogram per attribute given, each of `entries` values counted `count` times. */
const histograms = (lists: Record<string, unknown[]>) => ({
  expr: 'Y>1',
  num_entities: 10,
  histograms: Object.entries(lists).map(([attribute, values]) => ({
    attribute,
    distinct_values: values.length,
    total_count: values.length,
    histogram: values.map((value) => ({ value, prob: 0.01, count: 1 })),
  })),
});

test('paging: every list of an answer is paged, a histogram named by its attribute', () => {
  const json = histograms({ Y: [2001, 2002], 'F.FN': ['a', 'b', 'c'] });
  assert.deepEqual(
    pagedLists(json, '/histograms/*/histogram').map((list) => [list.pointer, list.key, list.items.length]),
    [
      ['/histograms/0/histogram', 'Y', 2],
      ['/histograms/1/histogram', 'F.FN', 3],
    ],
  );
  assert.deepEqual(titles(x('calchistogramGet', { expr: 'Y>1', attributes: 'Y,F.FN', count: '2' }, json)), [
    'paging-respects-size: page larger than count',
  ]);
  assert.deepEqual(titles(x('calchistogramGet', { expr: 'Y>1', attributes: 'Y,F.FN', count: '3' }, json)), []);
});

test('attributes: calchistogram returns one histogram per attribute asked for, in any order, names case-sensitive', () => {
  const cases: { given: Exchange; want: string[] }[] = [
    {
      given: x('calchistogramGet', { expr: 'Y>1', attributes: 'Y,F.FN' }, histograms({ 'F.FN': [], Y: [] })),
      want: [],
    },
    {
      given: x('calchistogramGet', { expr: 'Y>1', attributes: 'Y,F.FN' }, histograms({ Y: [] })),
      want: ['attributes-are-honoured: histogram missing for an attribute asked for'],
    },
    {
      given: x('calchistogramGet', { expr: 'Y>1', attributes: 'y' }, histograms({ Y: [] })),
      want: ['attributes-are-honoured: histogram missing for an attribute asked for'],
    },
    {
      given: x('calchistogramGet', { expr: 'Y>1', attributes: 'Y' }, histograms({ Y: [], CC: [] })),
      want: ['attributes-are-honoured: histogram of an attribute not asked for'],
    },
    // No attributes asked for: the default is not shown, nothing to claim.
    { given: x('calchistogramGet', { expr: 'Y>1' }, histograms({ Y: [], CC: [] })), want: [] },
  ];
  for (const { given, want } of cases) assert.deepEqual(titles(given), want, JSON.stringify(given.params));
});

test('parse: a rule element with an id, attr elements named academic#<attribute>', () => {
  const interpret = (parse: string) =>
    x(
      'interpretGet',
      { query: 'papers by jaime' },
      {
        query: 'papers by jaime',
        interpretations: [
          {
            prob: 0.5,
            parse,
            rules: [{ name: '#GetPapers', output: { type: 'query', value: "Composite(AA.AuN=='jaime teevan')" } }],
          },
        ],
      },
    );
  const cases: { given: string; want: string[] }[] = [
    { given: '<rule id="#GetPapers">papers by <attr name="academic#AA.AuN">jaime teevan</attr></rule>', want: [] },
    {
      given:
        '<rule id="#GetPapers">papers by <attr name="academic#AA.AuN" canonical="jaime teevan">j teevan</attr></rule>',
      want: [],
    },
    {
      given: '<rule id="#GetPapers">papers by <attr name="AA.AuN">jaime teevan</attr></rule>',
      want: ['interpretation-output-matches-parse: parse is not the XML the interface describes'],
    },
    {
      given: 'papers by <attr name="academic#AA.AuN">jaime teevan</attr>',
      want: ['interpretation-output-matches-parse: parse is not the XML the interface describes'],
    },
  ];
  for (const { given, want } of cases) assert.deepEqual(titles(interpret(given)), want, given);
});

test('timestamps: every form RFC 3339 gives a UTC instant reads as that instant; another offset does not', () => {
  const at = Date.parse('2019-01-01T10:00:00Z');
  for (const text of [
    '2019-01-01T10:00:00Z',
    '2019-01-01t10:00:00z',
    '2019-01-01T10:00:00+00:00',
    '2019-01-01T10:00:00.000000000Z',
  ])
    assert.equal(instantOf(text), at, text);
  // -00:00 is RFC 3339's own (section 4.3: UTC known, the local offset not), no ISO 8601 UTC timestamp.
  assert.ok(Number.isNaN(instantOf('2019-01-01T10:00:00-00:00')), 'UTC is Z or +00:00');
  assert.equal(instantOf('2016-12-31T23:59:60Z'), Date.parse('2017-01-01T00:00:00Z'), 'a leap second');
  assert.ok(Number.isNaN(instantOf('2019-01-01T12:00:00+02:00')), 'not UTC: the schema says so, not an order');
  // Related events in one direction, written in lower case: in order.
  const events = (...froms: string[]) => ({
    value: froms.map((from, i) => ({ eventId: `${i}`.padStart(32, 'a'), from })),
  });
  assert.deepEqual(
    titles(
      x(
        'relatedEvents',
        { wikipediaid: 'X' },
        events('2019-01-03t00:00:00z', '2019-01-02T00:00:00.5Z', '2019-01-01T00:00:00+00:00'),
      ),
    ),
    [],
  );
});

test('items are the same whatever the order of their members, and scores within the tolerance', () => {
  assert.equal(identity({ Ti: 'a', Y: 2001 }), identity({ Y: 2001, Ti: 'a' }));
  assert.ok(sameItem({ Ti: 'a', prob: 0.5 }, { prob: Math.fround(0.5 * (1 - 2 ** -22)), Ti: 'a' }));
  assert.ok(!sameItem({ Ti: 'a', prob: 0.5 }, { Ti: 'b', prob: 0.5 }));
  assert.ok(
    sameItem({ prob: 0.3 }, { prob: 0.3 * (1 + SCORE_TOLERANCE / 2) }),
    'score-only items within the tolerance',
  );
  assert.ok(!sameItem({ Id: 1, prob: 0.3 }, { Id: 2, prob: 0.3 }), 'named items by their name');
  assert.ok(sameItem({ Id: '1' }, { Id: '1', prob: 0.2 }));
});

test('page relation: every histogram against the larger page; items beyond the size are not its finding; answer search may deliver fewer', async () => {
  const values = ['a', 'b', 'c', 'd', 'e', 'f', 'g'];
  const page = (offset: number, count: number, shiftLater = 0) => ({
    expr: 'Y>1',
    num_entities: 7,
    histograms: ['Y', 'F.FN'].map((attribute, i) => ({
      attribute,
      histogram: values
        .slice(offset + (i > 0 ? shiftLater : 0), offset + count + (i > 0 ? shiftLater : 0))
        .map((value) => ({ value, count: 1 })),
    })),
  });
  const params = { expr: 'Y>1', attributes: 'Y,F.FN', count: '2', offset: '3' };
  const larger = sender((_, p) => ({ json: page(Number(p.offset), Number(p.count)) }));
  assert.deepEqual(await pageIsSliceOfLargerPage.run(x('calchistogramGet', params, page(3, 2)), larger.send), []);
  const later = await pageIsSliceOfLargerPage.run(x('calchistogramGet', params, page(3, 2, -3)), larger.send);
  assert.deepEqual(
    later.map((v) => v.pointer),
    ['/histograms/1/histogram'],
    'the second histogram, named',
  );
  // A page that holds more than asked: paging-respects-size says so, not this relation.
  assert.deepEqual(await pageIsSliceOfLargerPage.run(x('calchistogramGet', params, page(3, 4)), larger.send), []);
  // Answer search delivering at most 2 results: the larger page is short, what lies beyond it is not compared.
  const web = (offset: number, count: number) => ({
    webPages: { value: values.slice(offset, offset + Math.min(count, 2)).map((url) => ({ url })) },
  });
  const capped = sender((_, p) => ({ json: web(Number(p.offset), Number(p.count)) }));
  assert.deepEqual(
    await pageIsSliceOfLargerPage.run(
      x('answerSearch', { q: 'q', mkt: 'en-US', count: '2', offset: '1' }, web(1, 2)),
      capped.send,
    ),
    [],
  );
  // Deep pages of evaluate are related (offset + count up to 1,000), elsewhere up to 100.
  const deep = x('evaluateGet', { expr: 'Y>1', count: '10', offset: '500' }, { expr: 'Y>1', entities: [{ Id: 1 }] });
  assert.ok(pageIsSliceOfLargerPage.appliesTo(deep));
  assert.ok(
    !pageIsSliceOfLargerPage.appliesTo({
      ...deep,
      operationId: 'hotEvents',
      params: { date: 'd', $top: '10', $skip: '500' },
    }),
  );
});

test('page relation where fewer may be delivered: judged by identity and order, not positions', async () => {
  const urls = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j'];
  // A deployment that leaves out b and e wherever they fall, offset counting them still.
  const skipping = (offset: number, count: number) => ({
    webPages: {
      value: urls
        .slice(offset, offset + count)
        .filter((url) => url !== 'b' && url !== 'e')
        .map((url) => ({ url })),
    },
  });
  const asked = (offset: number, count: number) => ({
    q: 'q',
    mkt: 'en-US',
    count: String(count),
    offset: String(offset),
  });
  const target = sender((_, p) => ({ json: skipping(Number(p.offset), Number(p.count)) }));
  for (const [offset, count] of [
    [1, 3],
    [3, 2],
    [0, 4],
    [4, 3],
  ] as const)
    assert.deepEqual(
      await pageIsSliceOfLargerPage.run(x('answerSearch', asked(offset, count), skipping(offset, count)), target.send),
      [],
      `offset ${offset}, count ${count}`,
    );
  for (const operationId of ['interpretGet', 'interpretPost']) {
    const interpretations = (offset: number, count: number) => ({
      query: 'q',
      interpretations: urls
        .slice(offset, offset + count)
        .filter((url) => url !== 'c')
        .map((parse) => ({ parse, prob: 0.5 })),
    });
    const interpreter = sender((_, p) => ({ json: interpretations(Number(p.offset), Number(p.count)) }));
    assert.deepEqual(
      await pageIsSliceOfLargerPage.run(
        x(operationId, { query: 'q', count: '3', offset: '1' }, interpretations(1, 3)),
        interpreter.send,
      ),
      [],
      operationId,
    );
  }
  // What was delivered is still judged: an item the larger page lacks (where one after it is there: the
  // larger page may stop short of a page's last items), two out of order, a page starting past its offset.
  const titles = async (page: string[], offset = 1) =>
    (
      await pageIsSliceOfLargerPage.run(
        x('answerSearch', asked(offset, 3), { webPages: { value: page.map((url) => ({ url })) } }),
        target.send,
      )
    ).map((v) => v.title);
  assert.deepEqual(await titles(['z', 'c']), ['page holds an item the larger page does not']);
  assert.deepEqual(await titles(['d', 'c']), ['page orders its items otherwise than the larger page']);
  assert.deepEqual(await titles(['g', 'h'], 2), ['page starts past its offset in the larger page']);
  // Where the interface does not let a page deliver fewer, a short page still fails.
  const events = (offset: number, count: number) => ({
    value: urls
      .slice(offset, offset + count)
      .filter((id) => id !== 'b')
      .map((eventId) => ({ eventId })),
  });
  const hot = sender((_, p) => ({ json: events(Number(p.$skip), Number(p.$top)) }));
  assert.notDeepEqual(
    await pageIsSliceOfLargerPage.run(x('hotEvents', { date: 'd', $top: '3', $skip: '1' }, events(1, 3)), hot.send),
    [],
  );
});

test("orderIn: where a page stands in a larger list; a cut list may lack the page's last items only", () => {
  const cases: { given: [string[], string[], boolean]; want: ReturnType<typeof orderIn> }[] = [
    { given: [['b', 'd'], ['a', 'b', 'c', 'd'], false], want: { first: 1 } },
    { given: [['d', 'b'], ['a', 'b', 'c', 'd'], false], want: { outOfOrder: 1 } },
    { given: [['b', 'x'], ['a', 'b', 'c'], false], want: { missing: 1 } },
    { given: [['b', 'x'], ['a', 'b', 'c'], true], want: { first: 1 } },
    { given: [['x', 'b'], ['a', 'b', 'c'], true], want: { missing: 0 } },
    { given: [[], ['a'], false], want: {} },
  ];
  const named = (ids: string[]) => ids.map((url) => ({ url }));
  for (const { given, want } of cases)
    assert.deepEqual(orderIn(named(given[0]), named(given[1]), given[2]), want, JSON.stringify(given));
});

test('histogram relation: every histogram counts, and sums the probs of, the entities evaluate returns', async () => {
  const entities = [
    { Y: 2001, prob: 0.25, F: [{ FN: 'a' }, { FN: 'b' }] },
    { Y: 2001, prob: 0.5, F: [{ FN: 'a' }] },
    { Y: 2002, prob: 0.125, AA: [{ AuN: 'x' }, { AuN: 'x' }] },
  ];
  const evaluate = sender(() => ({ json: { expr: 'e', entities } }));
  const answer = (over: Record<string, unknown> = {}) => ({
    expr: 'e',
    num_entities: 3,
    histograms: [
      {
        attribute: 'Y',
        distinct_values: 2,
        total_count: 3,
        histogram: [
          { value: 2001, prob: 0.75, count: 2 },
          { value: 2002, prob: 0.125, count: 1 },
        ],
      },
      {
        attribute: 'F.FN',
        distinct_values: 2,
        total_count: 3,
        histogram: [{ value: 'a', prob: 0.75, count: 2 }],
        ...over,
      },
      // An author listed twice on one paper: total_count 1 or 2, the interface does not say which.
      { attribute: 'AA.AuN', distinct_values: 1, total_count: 2, histogram: [{ value: 'x', prob: 0.125, count: 1 }] },
    ],
  });
  const run = (json: unknown) =>
    histogramAgreesWithEvaluate.run(
      x('calchistogramGet', { expr: 'Y>1', attributes: 'Y,F.FN,AA.AuN' }, json),
      evaluate.send,
    );
  assert.deepEqual(await run(answer()), []);
  assert.match(
    evaluate.sent[0]!,
    /attributes=Y%2CF.FN%2CAA.AuN&count=1000/,
    'evaluate asked for every histogram attribute',
  );
  const title = async (over: Record<string, unknown>) => (await run(answer(over))).map((v) => v.title);
  assert.deepEqual(await title({ distinct_values: 3 }), ['distinct_values disagrees with evaluate']);
  assert.deepEqual(await title({ total_count: 4 }), ['total_count disagrees with evaluate']);
  assert.deepEqual(await title({ histogram: [{ value: 'a', prob: 0.375, count: 2 }] }), [
    'histogram prob is not the total probability of its entities',
  ]);
  // Four significant digits, as the real service wrote probabilities, and a float32 sum: no finding.
  assert.deepEqual(await title({ histogram: [{ value: 'a', prob: 0.7501, count: 2 }] }), []);
  assert.deepEqual(await title({ histogram: [{ value: 'a', prob: Math.fround(0.75), count: 2 }] }), []);
});

test('outputs relation: every interpretation, all at once as one Or, each alone only when that is refused', async () => {
  const answer = (...values: string[]) => ({
    query: 'q',
    interpretations: values.map((value) => ({ prob: 0.1, rules: [{ name: '#R', output: { type: 'query', value } }] })),
  });
  const accepting = sender((_, p) => ({ status: p.expr!.includes('academic#') ? 400 : 200, json: {} }));
  assert.deepEqual(
    await outputsAreEvaluable.run(x('interpretGet', { query: 'q' }, answer('Y=1', 'Y=2')), accepting.send),
    [],
  );
  assert.deepEqual(accepting.sent, [
    'evaluateGet expr=Or%28Y%3D1%2CY%3D2%29&attributes=Y&count=1',
    'calchistogramGet expr=Or%28Y%3D1%2CY%3D2%29&attributes=Y&count=1',
  ]);
  const refused = await judgeOutputs(
    [
      { index: 0, expr: 'Y=1' },
      { index: 1, expr: 'academic#Y=2' },
    ],
    accepting.send,
    'r',
  );
  assert.deepEqual(
    refused.map((v) => v.pointer),
    ['/interpretations/1/rules/0/output/value', '/interpretations/1/rules/0/output/value'],
    'the second output named, on evaluate and calchistogram',
  );
  // A deployment that refuses an Or of outputs but accepts each: no finding.
  const noOr = sender((_, p) => ({ status: p.expr!.startsWith('Or(') ? 400 : 200, json: {} }));
  assert.deepEqual(
    await outputsAreEvaluable.run(x('interpretGet', { query: 'q' }, answer('Y=1', 'Y=2')), noOr.send),
    [],
  );
});

test('event relation: every event of the answer; the top document is the latest of its documents', async () => {
  const docs: Record<string, { documentId: string; publishDate: string }[]> = {
    e1: [
      { documentId: 'a', publishDate: '2020-01-02T00:00:00Z' },
      { documentId: 'b', publishDate: '2020-01-01T00:00:00Z' },
    ],
    e2: [
      { documentId: 'c', publishDate: '2020-02-02t00:00:00.5z' },
      { documentId: 'd', publishDate: '2020-02-01T00:00:00+00:00' },
    ],
  };
  const documents = sender((_, __, path) => ({ json: { value: docs[path!.event_id!] } }));
  const event = (eventId: string, top: string, count = 2) => ({
    eventId,
    documentCount: count,
    topDocument: docs[eventId]!.find((doc) => doc.documentId === top),
  });
  const run = (...events: unknown[]) =>
    eventDocumentsAgree.run(x('hotEvents', { date: 'd' }, { value: events }), documents.send);
  assert.deepEqual(await run(event('e1', 'a'), event('e2', 'c')), []);
  assert.deepEqual(documents.sent.length, 2, 'both events followed');
  assert.deepEqual(
    (await run(event('e1', 'a'), event('e2', 'd'))).map((v) => v.title),
    ["topDocument is not the latest of the event's documents"],
  );
  assert.deepEqual(
    (await run(event('e1', 'a'), event('e2', 'c', 3))).map((v) => v.title),
    ['documentCount disagrees with the documents listed'],
  );
});

test('model relation: an answer without model is the answer with model=latest', async () => {
  const answers = (shift: number) =>
    sender((_, p) => ({ json: { expr: 'e', num_entities: p.model === 'latest' ? 10 : 10 - shift } }));
  const without = x('calchistogramGet', { expr: 'Y>1', attributes: 'Y' }, { expr: 'e', num_entities: 10 });
  const same = answers(0);
  assert.deepEqual(await modelDefaultsToLatest.run(without, same.send), []);
  assert.deepEqual(same.sent, ['calchistogramGet expr=Y%3E1&attributes=Y&model=latest']);
  const older = answers(1);
  const found = await modelDefaultsToLatest.run({ ...without, json: { expr: 'e', num_entities: 9 } }, older.send);
  assert.deepEqual(
    found.map((v) => v.title),
    ["the default model answers differently from model='latest'"],
  );
  const withLatest = x('evaluateGet', { expr: 'e', model: 'latest' }, { expr: 'e', entities: [] });
  const back = sender(() => ({ json: { expr: 'e', entities: [] } }));
  assert.deepEqual(await modelDefaultsToLatest.run(withLatest, back.send), []);
  assert.deepEqual(back.sent, ['evaluateGet expr=e'], 'from model=latest, the request without it');
  assert.ok(
    !modelDefaultsToLatest.appliesTo({ ...withLatest, params: { expr: 'e', model: 'beta' } }),
    'another model says nothing of the default',
  );
});
