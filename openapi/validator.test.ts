import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { MAX_LISTED_ERRORS } from './compile-validators.ts';
import { type JsonObject, loadSpec } from './spec.ts';
import { mediaTypeOf, validateRequest, validateResponse } from './validator.ts';

const examples = (loadSpec().components as JsonObject).examples as Record<string, { value: JsonObject }>;
const example = (name: string) => structuredClone(examples[name]?.value) as JsonObject & Record<string, any>;

function edit<T>(value: T, change: (draft: any) => void): T {
  const copy = structuredClone(value);
  change(copy);
  return copy;
}

describe('validateResponse', () => {
  const cases = [
    {
      given: 'an undocumented extra property (drift, not a failure)',
      op: 'evaluateGet',
      status: 200,
      body: edit(example('EvaluateResponse'), (d) => {
        d.entities[0].logprob = -10.7;
        d.timed_out = false;
      }),
      want: { valid: true, documented: true, errors: [] },
    },
    {
      given: 'aborted missing (expected: a warning, as the real service answered)',
      op: 'evaluateGet',
      status: 200,
      body: edit(example('EvaluateResponse'), (d) => {
        delete d.aborted;
      }),
      want: { valid: true, documented: true, errors: [], warnings: ['/aborted'] },
    },
    {
      given: 'aborted missing beside a retyped count (the error still fails, the warning stays a warning)',
      op: 'calchistogramPost',
      status: 200,
      body: edit(example('HistogramResponse'), (d) => {
        delete d.aborted;
        d.histograms[0].histogram[1].count = '12';
      }),
      want: { valid: false, documented: true, errors: ['/histograms/0/histogram/1/count'], warnings: ['/aborted'] },
    },
    {
      given: 'aborted null (present with the wrong type fails)',
      op: 'evaluatePost',
      status: 200,
      body: edit(example('EvaluateResponse'), (d) => {
        d.aborted = null;
      }),
      want: { valid: false, documented: true, errors: ['/aborted'] },
    },
    {
      given: 'a required property missing (expr) with aborted missing too',
      op: 'evaluateGet',
      status: 200,
      body: edit(example('EvaluateResponse'), (d) => {
        delete d.expr;
        delete d.aborted;
      }),
      want: { valid: false, documented: true, errors: ['/expr'], warnings: ['/aborted'] },
    },
    {
      given: 'aborted as a string',
      op: 'interpretGet',
      status: 200,
      body: edit(example('InterpretResponse'), (d) => {
        d.aborted = 'false';
      }),
      want: { valid: false, documented: true, errors: ['/aborted'] },
    },
    {
      given: 'interpret without aborted, with the timed_out flags some real answers carry',
      op: 'interpretGet',
      status: 200,
      body: edit(example('InterpretResponse'), (d) => {
        delete d.aborted;
        d.timed_out = false;
        d.timed_out_count = 0;
      }),
      want: { valid: true, documented: true, errors: [], warnings: ['/aborted'] },
    },
    {
      given: 'an interpretation with two rules',
      op: 'interpretPost',
      status: 200,
      body: edit(example('InterpretResponse'), (d) => {
        d.interpretations[0].rules.push(d.interpretations[0].rules[0]);
      }),
      want: { valid: false, documented: true, errors: ['/interpretations/0/rules'] },
    },
    {
      given: 'a histogram count as a string',
      op: 'calchistogramGet',
      status: 200,
      body: edit(example('HistogramResponse'), (d) => {
        d.histograms[1].histogram[0].count = '24';
      }),
      want: { valid: false, documented: true, errors: ['/histograms/1/histogram/0/count'] },
    },
    {
      given: 'histogram entries out of order (a sample-level observation, not a schema rule)',
      op: 'calchistogramGet',
      status: 200,
      body: edit(example('HistogramResponse'), (d) => {
        d.histograms[0].histogram.reverse();
      }),
      want: { valid: true, documented: true, errors: [] },
    },
    {
      given: 'a facts-only answer as the real service sent it (no rules, attributions, sidebar, pages, entities)',
      op: 'answerSearch',
      status: 200,
      body: edit(example('AnswerSearchResponse'), (d) => {
        delete d.webPages;
        delete d.entities;
        delete d.facts.contractualRules;
        delete d.facts.attributions;
        delete d.rankingResponse.sidebar;
        d.rankingResponse.mainline.items = [d.rankingResponse.mainline.items[0]];
      }),
      want: {
        valid: true,
        documented: true,
        errors: [],
        warnings: ['/facts/contractualRules', '/facts/attributions', '/rankingResponse/sidebar'],
      },
    },
    {
      given: 'facts attributions as an object (present with the wrong type fails)',
      op: 'answerSearch',
      status: 200,
      body: edit(example('AnswerSearchResponse'), (d) => {
        d.facts.attributions = d.facts.attributions[0];
      }),
      want: { valid: false, documented: true, errors: ['/facts/attributions'] },
    },
    {
      given: 'a sidebar without items (the group is present, so its required items must be)',
      op: 'answerSearch',
      status: 200,
      body: edit(example('AnswerSearchResponse'), (d) => {
        d.rankingResponse.sidebar = {};
      }),
      want: { valid: false, documented: true, errors: ['/rankingResponse/sidebar/items'] },
    },
    {
      given: 'a ranking response without mainline (required, unlike sidebar)',
      op: 'answerSearch',
      status: 200,
      body: edit(example('AnswerSearchResponse'), (d) => {
        delete d.rankingResponse.mainline;
      }),
      want: { valid: false, documented: true, errors: ['/rankingResponse/mainline'] },
    },
    {
      given: 'an answer without facts and ranking (optional answers: nothing expected inside them)',
      op: 'answerSearch',
      status: 200,
      body: edit(example('AnswerSearchResponse'), (d) => {
        delete d.facts;
        delete d.rankingResponse;
      }),
      want: { valid: true, documented: true, errors: [], warnings: [] },
    },
    {
      given: 'a web page id not of the form <url>#WebPages.<i>',
      op: 'answerSearch',
      status: 200,
      body: edit(example('AnswerSearchResponse'), (d) => {
        d.webPages.value[1].id = 'page-1';
      }),
      want: { valid: false, documented: true, errors: ['/webPages/value/1/id'] },
    },
    {
      given: 'a bingId that is not a UUID',
      op: 'answerSearch',
      status: 200,
      body: edit(example('AnswerSearchResponse'), (d) => {
        d.entities.value[0].bingId = '12345';
      }),
      want: { valid: false, documented: true, errors: ['/entities/value/0/bingId'] },
    },
    {
      given: 'a license rule without its license (errors point into the tagged branch only)',
      op: 'answerSearch',
      status: 200,
      body: edit(example('AnswerSearchResponse'), (d) => {
        delete d.entities.value[0].contractualRules[0].license;
      }),
      want: { valid: false, documented: true, errors: ['/entities/value/0/contractualRules/0/license'] },
    },
    {
      given: 'a contractual rule of an undocumented _type (drift)',
      op: 'answerSearch',
      status: 200,
      body: edit(example('AnswerSearchResponse'), (d) => {
        d.entities.value[0].contractualRules.push({ _type: 'ContractualRules/TextAttribution', text: 'x' });
      }),
      want: { valid: true, documented: true, errors: [] },
    },
    {
      given: 'a new answerType in the ranking (drift)',
      op: 'answerSearch',
      status: 200,
      body: edit(example('AnswerSearchResponse'), (d) => {
        d.rankingResponse.mainline.items.push({ answerType: 'News' });
      }),
      want: { valid: true, documented: true, errors: [] },
    },
    {
      given: 'a crawl date without a UTC designator',
      op: 'answerSearch',
      status: 200,
      body: edit(example('AnswerSearchResponse'), (d) => {
        d.webPages.value[0].dateLastCrawled = '2026-11-01T10:15:00';
      }),
      want: { valid: false, documented: true, errors: ['/webPages/value/0/dateLastCrawled'] },
    },
    {
      given: 'a similarity above 1',
      op: 'similarityGet',
      status: 200,
      body: 1.0000001,
      want: { valid: false, documented: true, errors: ['/'] },
    },
    {
      given: 'a similarity of exactly -1',
      op: 'similarityPost',
      status: 200,
      body: -1,
      want: { valid: true, documented: true, errors: [] },
    },
    {
      given: 'a similarity 408 with any body (shape not shown)',
      op: 'similarityPost',
      status: 408,
      body: 'timed out',
      want: { valid: true, documented: true, errors: [] },
    },
    {
      given: 'an academic 400 with the wrong code',
      op: 'evaluateGet',
      status: 400,
      body: { error: { code: 'BadArgument', message: 'expr is missing' } },
      want: { valid: false, documented: true, errors: ['/error/code'] },
    },
    {
      given: 'an academic 403 with QuotaExceeded',
      op: 'calchistogramPost',
      status: 403,
      body: { error: { code: 'QuotaExceeded', message: 'Out of call volume quota.' } },
      want: { valid: true, documented: true, errors: [] },
    },
    {
      given: 'an answer-search 400 without the parameter',
      op: 'answerSearch',
      status: 400,
      body: {
        _type: 'ErrorResponse',
        instrumentation: {},
        errors: [{ code: 'InvalidRequest', subCode: 'ParameterMissing', message: 'Required parameter is missing.' }],
      },
      want: { valid: false, documented: true, errors: ['/errors/0/parameter'] },
    },
    {
      given: 'a 429 whose message does not state the seconds',
      op: 'urlPreview',
      status: 429,
      body: { error: { statusCode: 429, message: 'Rate limit is exceeded.' } },
      want: { valid: false, documented: true, errors: ['/error/message'] },
    },
    {
      given: 'a 401 in the academic shape on answer search',
      op: 'answerSearch',
      status: 401,
      body: { error: { code: 'Unspecified', message: 'Access denied.' } },
      want: { valid: false, documented: true, errors: ['/error/statusCode'] },
    },
    {
      given: 'an event 404 with the wrong status code',
      op: 'eventDocuments',
      status: 404,
      body: { statusCode: 400, message: 'Resource not found' },
      want: { valid: false, documented: true, errors: ['/statusCode'] },
    },
    {
      given: 'an undocumented status',
      op: 'similarityPost',
      status: 413,
      body: {},
      want: { valid: false, documented: false, errors: [''] },
    },
    {
      given: 'an event-knowledge 400 (not documented by the interface)',
      op: 'hotEvents',
      status: 400,
      body: { statusCode: 400, message: 'bad date' },
      want: { valid: false, documented: false, errors: [''] },
    },
  ];
  for (const { given, op, status, body, want } of cases) {
    test(given, () => {
      const result = validateResponse(op, status, 'application/json; charset=utf-8', body);
      assert.deepEqual(
        {
          valid: result.valid,
          documented: result.documented,
          errors: [...new Set(result.errors.map((e) => e.pointer))],
          warnings: result.warnings.map((w) => w.pointer),
        },
        { warnings: [], ...want },
        given,
      );
    });
  }

  test('a warning names the property, says why it is only expected, and points at its level in the spec', () => {
    const body = edit(example('AnswerSearchResponse'), (d) => {
      delete d.rankingResponse.sidebar;
    });
    const { warnings } = validateResponse('answerSearch', 200, 'application/json', body);
    assert.equal(warnings.length, 1, 'one warning');
    const [warning] = warnings;
    assert.deepEqual(
      { pointer: warning?.pointer, keyword: warning?.keyword, schemaPath: warning?.schemaPath },
      {
        pointer: '/rankingResponse/sidebar',
        keyword: 'expected',
        schemaPath: '#/components/schemas/RankingResponse/properties/sidebar/x-kgate-level',
      },
      'warning fields',
    );
    assert.match(
      warning?.message ?? '',
      /^\/rankingResponse\/sidebar is expected but missing \(interface 2\.5 .*answersearch-200-facts-docs-2018\.json.*\)$/,
      'the message carries the evidence',
    );
  });

  test('a body with more errors than a validator lists: the first MAX_LISTED_ERRORS listed, every other one counted', () => {
    for (const entities of [MAX_LISTED_ERRORS - 1, MAX_LISTED_ERRORS + 50, 1_000_000]) {
      const body = { expr: 'Y>2012', entities: Array.from({ length: entities }, () => ({})), aborted: false };
      const result = validateResponse('evaluateGet', 200, 'application/json', body);
      const listed = Math.min(entities, MAX_LISTED_ERRORS);
      assert.equal(result.valid, false, `${entities} entities without prob`);
      assert.deepEqual(
        result.errors.map((error) => error.pointer),
        Array.from({ length: listed }, (_, i) => `/entities/${i}/prob`),
        `${entities}: the first ${listed} listed, in order`,
      );
      assert.deepEqual(
        result.unlisted,
        entities > listed ? { errors: entities - listed, warnings: 0 } : undefined,
        `${entities}: the rest counted`,
      );
    }
    // Past the list, branches ajv drops (the if/then chain of a tagged union) are dropped from the
    // count too: a thousand rules count a hundred times the errors of ten, none of the chain's own.
    const rules = (count: number) =>
      edit(example('AnswerSearchResponse'), (d) => {
        d.facts.contractualRules = Array.from({ length: count }, (_, i) =>
          i % 2
            ? { _type: 'ContractualRules/LinkAttribution' }
            : { _type: 'ContractualRules/LicenseAttribution', targetPropertyName: 1 },
        );
      });
    const total = (result: ReturnType<typeof validateResponse>) =>
      result.errors.length + (result.unlisted?.errors ?? 0);
    const ten = validateResponse('answerSearch', 200, 'application/json', rules(10));
    const thousand = validateResponse('answerSearch', 200, 'application/json', rules(1_000));
    assert.equal(ten.unlisted, undefined, 'ten rules: every error listed');
    assert.equal(total(thousand), 100 * total(ten), 'a thousand rules: a hundred times the errors of ten');
    assert.ok(
      thousand.errors.every((error) => error.keyword !== 'if'),
      'the if/then chain adds no error of its own',
    );
    // Nothing counted beyond the list: a warning alone leaves a body valid.
    const warned = validateResponse('evaluateGet', 200, 'application/json', { expr: 'Y>2012', entities: [] });
    assert.deepEqual([warned.valid, warned.unlisted], [true, undefined], 'a warning alone leaves it valid');
  });

  test('an undocumented media type is reported as such', () => {
    const result = validateResponse('evaluateGet', 200, 'text/html', '<html></html>');
    assert.equal(result.documented, false);
    assert.match(result.errors[0]?.message ?? '', /media type text\/html is not documented/);
  });

  test('an unknown operationId is a programming error', () => {
    assert.throws(() => validateResponse('nope', 200, 'application/json', {}), /unknown operationId 'nope'/);
  });
});

describe('validateRequest', () => {
  type Parts = Record<string, string>;
  const cases: { given: { op: string; query?: Parts; form?: Parts; pathParams?: Parts }; want: string[] }[] = [
    { given: { op: 'evaluateGet', query: { expr: 'Y>2012', count: '10', offset: '0' } }, want: [] },
    { given: { op: 'evaluateGet', query: { count: '10' } }, want: ['expr'] },
    { given: { op: 'evaluateGet', query: { expr: 'Y>2012', count: '-1' } }, want: ['count'] },
    { given: { op: 'evaluateGet', query: { expr: 'Y>2012', offset: 'ten' } }, want: ['offset'] },
    { given: { op: 'evaluateGet', query: { expr: 'Y>2012', count: '' } }, want: ['count'] },
    { given: { op: 'evaluateGet', query: { expr: 'Y>2012', orderby: 'Y:up' } }, want: ['orderby'] },
    { given: { op: 'interpretGet', query: { query: 'papers by', complete: '2' } }, want: ['complete'] },
    { given: { op: 'interpretPost', form: { query: 'papers by', complete: '1', timeout: '50' } }, want: [] },
    { given: { op: 'similarityPost', form: { s1: 'a' } }, want: ['s2'] },
    { given: { op: 'answerSearch', query: { q: 'graph' } }, want: ['mkt'] },
    { given: { op: 'answerSearch', query: { q: 'graph', mkt: 'english' } }, want: ['mkt'] },
    { given: { op: 'urlPreview', query: { q: 'not a url' } }, want: ['q'] },
    { given: { op: 'urlPreview', query: { q: 'https://example.org/a?b=c' } }, want: [] },
    { given: { op: 'hotEvents', query: { date: '2026-13-01' } }, want: ['date'] },
    { given: { op: 'hotEvents', query: { date: '2026-11-01', $top: '5', $skip: 'x' } }, want: ['$skip'] },
    { given: { op: 'relatedEvents', query: {} }, want: ['wikipediaid'] },
    { given: { op: 'eventDocuments', query: {}, pathParams: { event_id: 'abc' } }, want: [] },
  ];
  for (const { given, want } of cases) {
    test(`${given.op} ${JSON.stringify(given.query ?? given.form)} -> ${want.join(', ') || 'valid'}`, () => {
      const result = validateRequest(given.op, { query: given.query, form: given.form, pathParams: given.pathParams });
      assert.deepEqual([...new Set(result.errors.map((e) => e.parameter))], want);
      assert.equal(result.valid, want.length === 0);
      for (const error of result.errors)
        assert.ok(error.message.includes(`parameter '${error.parameter}'`), error.message);
    });
  }
});

describe('mediaTypeOf', () => {
  const cases = [
    { given: 'application/json; charset=utf-8', want: 'application/json' },
    { given: 'Application/JSON', want: 'application/json' },
    { given: '', want: undefined },
    { given: undefined, want: undefined },
  ];
  for (const { given, want } of cases) {
    test(`${given} -> ${want}`, () => assert.equal(mediaTypeOf(given), want));
  }
});
