import assert from 'node:assert/strict';
import { test } from 'node:test';
import { getOperation, OPERATION_IDS, OPERATIONS, type OperationInfo } from '../../openapi/spec.ts';
import { CHECKS } from '../checks/index.ts';
import { kindCase, planKinds } from '../generative/cases.ts';
import { DEFAULT_POOLS } from '../generative/values.ts';
import { CONTENT_TYPE_INPUT, HEADER_INPUTS, MISSING, REQUEST_INPUT, ROLES, roleOf } from './classes.ts';
import { classifyRequest, judgedByAnswer, valueClasses } from './classify.ts';
import { allInputItems, inputsWithoutClasses, intentOf, parseItemId, specInputs } from './inputs.ts';
import { coverageItems } from './items.ts';
import { caseItems, coverOf, inputItemsOf, planCases } from './plan.ts';

test('every input of every operation of the spec has classes, and an input without any is named', () => {
  assert.deepEqual(inputsWithoutClasses(), [], 'every parameter and form field of the spec has a role with classes');
  const evaluate = getOperation('evaluateGet')!;
  const grown: OperationInfo = {
    ...evaluate,
    parameters: [...evaluate.parameters, { name: 'sort', in: 'query', required: false, schema: { type: 'string' } }],
  };
  assert.deepEqual(inputsWithoutClasses([grown]), ['evaluateGet sort'], 'a new parameter of the spec without classes');
});

test('the items are the spec: every input with every class of its role, every cell of the matrix, each once', () => {
  const items = coverageItems();
  assert.equal(new Set(items.map((item) => item.id)).size, items.length, 'item ids are unique');
  const cells = items.filter((item) => item.kind === 'cell');
  const matrix = OPERATIONS.flatMap((op) => CHECKS.filter((check) => check.appliesTo(op)).map(() => 1)).length;
  assert.equal(cells.length, matrix, 'one cell item per operation x check the matrix shows');
  for (const op of OPERATIONS) {
    const optional = specInputs(op).some((entry) => !entry.required && entry.in !== 'path');
    for (const input of [...specInputs(op).map((entry) => entry.name), REQUEST_INPUT, ...HEADER_INPUTS]) {
      const role = roleOf(op.operationId, input, op.method);
      if (role === undefined) {
        assert.equal(input, CONTENT_TYPE_INPUT, `${op.operationId} ${input}: only a GET has no Content-Type`);
        assert.equal(op.method, 'get');
        continue;
      }
      const got = allInputItems()
        .filter((item) => item.operationId === op.operationId && item.input === input)
        .map((item) => item.class);
      const required = specInputs(op).find((entry) => entry.name === input);
      const want = [
        // An empty value is a class of an operation with an optional parameter to leave empty.
        ...ROLES[role]!.classes.map((cls) => cls.id).filter((cls) => optional || cls !== 'empty-value'),
        ...(required?.required && required.in !== 'path' ? [MISSING] : []),
      ];
      assert.deepEqual(got, want, `${op.operationId} ${input}: the classes of ${role}`);
    }
  }
  for (const item of items) assert.ok(parseItemId(item.id), `${item.id} parses`);
});

test('every input item of every operation is carried by a case of the generator (the plan can send it)', () => {
  for (const seed of [1, 7]) {
    for (const id of OPERATION_IDS) {
      const cover = coverOf(seed, id, DEFAULT_POOLS);
      assert.deepEqual(cover.uncovered, [], `${id} seed ${seed}: no case carries these`);
    }
  }
});

test('a case carries only items of its intent: a negative one exactly the rule it breaks', () => {
  for (const id of OPERATION_IDS) {
    for (const kind of planKinds(id)) {
      for (let variant = 0; variant < 3; variant++) {
        const c = kindCase(3, id, kind.name, variant, DEFAULT_POOLS);
        const items = caseItems(c);
        const want = { positive: 'valid', negative: 'invalid', edge: 'open' }[c.intent];
        for (const item of items) assert.equal(intentOf(item), want, `${id} ${kind.name}#${variant}: ${item}`);
        if (c.intent === 'negative')
          assert.ok(items.length <= 1, `${id} ${kind.name}#${variant} breaks one rule: ${items.join(', ')}`);
      }
    }
  }
});

test('the plan sends every item once: one rule broken per request, each packed request carrying all it was planned for', () => {
  for (const id of OPERATION_IDS) {
    const targets = inputItemsOf(id);
    const { cases, uncovered } = planCases(1, id, targets, DEFAULT_POOLS);
    assert.deepEqual(uncovered, [], id);
    const carried = new Set(cases.flatMap((c) => c.items ?? []));
    assert.deepEqual(
      targets.filter((item) => !carried.has(item)),
      [],
      `${id}: every target carried by a planned request`,
    );
    for (const c of cases) {
      const invalid = (c.items ?? []).filter((item) => intentOf(item) === 'invalid');
      assert.ok(invalid.length <= 1, `${id} ${c.kind}: one invalid class per request (${invalid.join(', ')})`);
      assert.deepEqual(caseItems({ ...c, items: undefined }).sort(), [...(c.items ?? [])].sort(), `${id} ${c.kind}`);
    }
    assert.ok(cases.length < targets.length, `${id}: packing sends fewer requests than items`);
    assert.deepEqual(planCases(1, id, targets, DEFAULT_POOLS).cases, cases, `${id}: the same seed, the same plan`);
  }
});

test("an item's request depends on its seed and the item alone, not on what else is planned", () => {
  for (const id of ['evaluateGet', 'answerSearch', 'hotEvents']) {
    const cover = coverOf(4, id, DEFAULT_POOLS);
    for (const item of inputItemsOf(id).filter((_, i) => i % 7 === 0)) {
      const alone = planCases(4, id, [item], DEFAULT_POOLS, cover).cases;
      assert.equal(alone.length, 1, `${item} alone: one request`);
      const carrier = cover.carriers.get(item)!.case;
      assert.deepEqual(alone[0]!.params, carrier.params, `${item}: its canonical carrier`);
    }
  }
});

test('values are classed by the grammar of their input', () => {
  const cases: { role: string; given: string; want: string[] }[] = [
    { role: 'search-query', given: 'knowledge graph', want: ['letters'] },
    { role: 'search-query', given: 'rock & roll! 100%', want: ['sub-delims', 'percent', 'digits', 'form-delimiters'] },
    {
      role: 'search-query',
      given: 'c++ #1; ~x',
      want: ['sub-delims', 'gen-delims', 'digits', 'plus', 'hash', 'semicolon', 'tilde-asterisk'],
    },
    {
      role: 'search-query',
      given: 'наука ∑ “x” 𝔤 ｇ a\u200bb',
      want: ['other-scripts', 'symbols', 'quotes', 'astral', 'full-width', 'invisible'],
    },
    { role: 'search-query', given: '2021', want: ['digits', 'only-digits'] },
    { role: 'search-query', given: '?!', want: ['sub-delims', 'gen-delims', 'only-punctuation'] },
    {
      role: 'academic-count',
      given: ' +03.0e0 ',
      want: ['white-space', 'plus-sign', 'leading-zeros', 'point-zero', 'exponent', 'several'],
    },
    { role: 'academic-count', given: '-٠', want: ['negative-zero', 'other-digits', 'zero'] },
    { role: 'academic-count', given: '2147483648', want: ['beyond-int32'] },
    { role: 'academic-count', given: '1e-1', want: ['fractional'] },
    { role: 'page-start', given: '9007199254740993', want: ['beyond-safe-integer'] },
    { role: 'page-start', given: '2147483648', want: ['beyond-int32'] },
    { role: 'complete', given: '01', want: ['leading-zeros', 'one'] },
    { role: 'market', given: 'zh-Hans-CN', want: ['script-subtag'] },
    { role: 'market', given: 'es-419', want: ['numeric-region'] },
    { role: 'market', given: 'en_US.UTF-8', want: ['posix-encoding'] },
    { role: 'market', given: 'en', want: ['language-only'] },
    { role: 'date', given: '1970-01-01', want: ['far-date', 'unix-epoch'] },
    { role: 'date', given: '0999-12-31', want: ['far-date', 'before-epoch', 'early-year'] },
    { role: 'date', given: '9999-12-31', want: ['far-date', 'year-9999'] },
    { role: 'date', given: '2038-01-19', want: ['any-date', 'y2038'] },
    { role: 'date', given: '0000-01-01', want: ['year-zero'] },
    { role: 'date', given: ' 2021-03-15', want: ['padded', 'any-date'] },
    { role: 'date', given: '2021-W11-1', want: ['iso-week-date'] },
    { role: 'date', given: '2021-074', want: ['ordinal-date'] },
    { role: 'date', given: '+002021-03-15', want: ['expanded-year'] },
    {
      role: 'url',
      given: 'HTTPS://user:pw@127.0.0.1:8443/a/./b/../c\\d',
      want: ['upper-case-scheme-host', 'backslashes', 'userinfo', 'ip-literal', 'port', 'dot-segments'],
    },
    { role: 'orderby', given: 'Ti:asc', want: ['Ti'] },
    { role: 'orderby', given: 'Id', want: ['Id'] },
    { role: 'attribute-list', given: 'Ti, Y', want: ['names-Ti', 'names-Y', 'several', 'spaces'] },
    { role: 'attribute-list', given: 'Ti,Y,', want: ['names-Ti', 'names-Y', 'several', 'trailing-comma'] },
    { role: 'model', given: 'LATEST', want: ['case-variant'] },
    { role: 'encyclopedia-id', given: 'Barack Obama', want: ['spaces'] },
    { role: 'event-id', given: '6F1C0A2B9D8E4F3A5B6C7D8E9F0A1B2C', want: ['upper-case'] },
    { role: 'event-id', given: 'a/b', want: ['segment-delimiters'] },
    { role: 'search-query', given: ' a ', want: ['letters', 'padded'] },
    { role: 'search-query', given: '', want: ['empty'] },
    { role: 'text', given: 'line one\nline two', want: ['line-breaks'] },
    { role: 'academic-count', given: '0', want: ['zero'] },
    { role: 'academic-count', given: '10000', want: ['maximum'] },
    { role: 'academic-count', given: '10001', want: ['above-maximum'] },
    { role: 'event-top', given: '-1', want: ['negative'] },
    { role: 'event-top', given: '2.5', want: ['fractional'] },
    { role: 'event-top', given: 'ten', want: ['non-numeric'] },
    { role: 'page-start', given: '7', want: ['deep'] },
    { role: 'market', given: 'en-US', want: ['en-US'] },
    { role: 'market', given: 'EN-us', want: ['case-variant'] },
    { role: 'market', given: 'de-DE', want: ['other-market'] },
    { role: 'market', given: 'en_US', want: ['underscore'] },
    { role: 'market', given: 'english', want: ['malformed'] },
    { role: 'date', given: '2000-02-29', want: ['any-date', 'leap-day', 'century-boundary'] },
    { role: 'date', given: '2021-02-29', want: ['february-29-common-year'] },
    { role: 'date', given: '2021-04-31', want: ['day-beyond-month'] },
    { role: 'date', given: '2021-03-15T00:00:00Z', want: ['date-time'] },
    { role: 'date', given: '２０２１-０３-１５', want: ['non-ascii-digits'] },
    { role: 'date', given: '2021/03/15', want: ['other-format'] },
    {
      role: 'url',
      given: 'https://bücher.example:8080/a%20b?q=1#x',
      want: ['port', 'international-host', 'percent-encoded-path', 'with-query', 'with-fragment'],
    },
    { role: 'url', given: 'https://exa mple.com/', want: ['space-in-host'] },
    { role: 'url', given: 'https://example.com:port/', want: ['bad-port'] },
    { role: 'url', given: 'http://', want: ['scheme-only'] },
    { role: 'url', given: 'www.example.com', want: ['relative'] },
    { role: 'url', given: 'not a url', want: ['not-a-url'] },
    { role: 'url', given: 'ftp://example.com/file', want: ['other-scheme'] },
    { role: 'orderby', given: 'CC:desc', want: ['CC-desc'] },
    { role: 'orderby', given: 'Y', want: ['Y-plain'] },
    { role: 'orderby', given: 'AA.AuN:desc', want: ['multivalued'] },
    { role: 'orderby', given: 'Y desc', want: ['malformed'] },
    { role: 'attribute-list', given: 'Ti', want: ['names-Ti', 'single'] },
    { role: 'attribute-list', given: 'Id,AA.AuN', want: ['names-Id', 'names-AA.AuN', 'composite-part', 'several'] },
    { role: 'attribute-list', given: 'ti', want: ['wrong-case'] },
    { role: 'attribute-list', given: 'AA', want: ['group-name'] },
    {
      role: 'expression',
      given: "And(Y=[2010,2012),Composite(AA.AuN=='mike smith'))",
      want: ['attribute-Y', 'number-range', 'composite', 'attribute-AA.AuN', 'canonical-equals'],
    },
    { role: 'expression', given: 'Or(Y=1,Y=2,Y=3,Y=4)', want: ['wide-or', 'attribute-Y'] },
    { role: 'expression', given: "Ti='知识图谱'", want: ['attribute-Ti', 'value-cjk', 'string-equals'] },
    { role: 'expression', given: 'Y>', want: [] },
  ];
  for (const { role, given, want } of cases)
    assert.deepEqual(valueClasses(role, given).sort(), [...want].sort(), `${role} ${JSON.stringify(given)}`);
});

test('a request is classed as a whole: missing, repeated and unknown inputs, its encoding, and the items its answer judges', () => {
  const items = classifyRequest({
    operationId: 'answerSearch',
    pairs: [
      ['mkt', 'en-US'],
      ['count', '-1'],
      ['count', '2'],
      ['debug', '1'],
    ],
    encoding: 'percent',
  });
  for (const item of [
    'input:answerSearch:q:missing',
    'input:answerSearch:count:negative',
    'input:answerSearch:(request):repeated-parameter',
    'input:answerSearch:(request):unknown-parameter',
    'input:answerSearch:(request):percent-encoded',
  ])
    assert.ok(items.includes(item), item);
  assert.deepEqual(judgedByAnswer(items, 400), [], 'two rules broken at once judge neither');
  const one = classifyRequest({
    operationId: 'answerSearch',
    pairs: [
      ['q', 'graph'],
      ['mkt', 'en_US'],
    ],
  });
  assert.deepEqual(judgedByAnswer(one, 400), ['input:answerSearch:mkt:underscore'], 'one rule broken: that rule');
  assert.deepEqual(judgedByAnswer(one, 401), [], 'an answer about the key judges no input');
  const open = classifyRequest({
    operationId: 'answerSearch',
    pairs: [
      ['q', ''],
      ['mkt', 'en-US'],
    ],
  });
  assert.deepEqual(judgedByAnswer(open, 400), ['input:answerSearch:q:empty'], 'an open class refused: itself only');
  assert.ok(judgedByAnswer(open, 200).includes('input:answerSearch:mkt:en-US'), 'accepted: its valid classes too');
  const post = classifyRequest({
    operationId: 'evaluatePost',
    pairs: [['expr', 'Y>2000']],
    contentType: 'application/json',
  });
  assert.ok(post.includes('input:evaluatePost:(request):json-body'));
  const written = classifyRequest({
    operationId: 'interpretPost',
    pairs: [
      ['query', 'graph'],
      ['count', ''],
    ],
    encoding: 'empty-pairs',
    headers: { contentType: 'charset', keyHeader: 'lower-case', accept: 'browser' },
  });
  for (const item of [
    'input:interpretPost:(request):empty-value',
    'input:interpretPost:(request):empty-pairs',
    'input:interpretPost:(content-type):charset',
    'input:interpretPost:(key-header):lower-case',
    'input:interpretPost:(accept):browser',
  ])
    assert.ok(written.includes(item), item);
  assert.ok(
    !written.some((item) => item.includes(':count:')),
    'an optional parameter sent empty is no value of its grammar',
  );
  const plain = classifyRequest({ operationId: 'evaluateGet', pairs: [['expr', 'Y=2010']] });
  for (const item of ['input:evaluateGet:(key-header):as-written', 'input:evaluateGet:(accept):absent'])
    assert.ok(plain.includes(item), `a request of the fixed battery carries the default ${item}`);
  const escaped = classifyRequest({
    operationId: 'eventDocuments',
    pairs: [],
    pathParams: { event_id: '6f1c0a2b9d8e4f3a5b6c7d8e9f0a1b2c' },
    pathEscaped: true,
  });
  assert.ok(escaped.includes('input:eventDocuments:event_id:percent-encoded'));
});
