import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import SwaggerParser from '@apidevtools/swagger-parser';
import {
  expectedProperties,
  getOperation,
  type JsonObject,
  loadSpec,
  matchOperation,
  OPERATIONS,
  PROPERTY_LEVELS,
  propertyDeclarations,
  SPEC_PATH,
} from './spec.ts';

const EXPECTED = [
  { given: 'interpretGet', want: { method: 'get', path: '/academic/v1.0/interpret', group: 'academic' } },
  { given: 'interpretPost', want: { method: 'post', path: '/academic/v1.0/interpret', group: 'academic' } },
  { given: 'evaluateGet', want: { method: 'get', path: '/academic/v1.0/evaluate', group: 'academic' } },
  { given: 'evaluatePost', want: { method: 'post', path: '/academic/v1.0/evaluate', group: 'academic' } },
  { given: 'calchistogramGet', want: { method: 'get', path: '/academic/v1.0/calchistogram', group: 'academic' } },
  { given: 'calchistogramPost', want: { method: 'post', path: '/academic/v1.0/calchistogram', group: 'academic' } },
  { given: 'similarityGet', want: { method: 'get', path: '/academic/v1.0/similarity', group: 'similarity' } },
  { given: 'similarityPost', want: { method: 'post', path: '/academic/v1.0/similarity', group: 'similarity' } },
  { given: 'answerSearch', want: { method: 'get', path: '/answersearch/v7.0/search', group: 'answerSearch' } },
  { given: 'urlPreview', want: { method: 'get', path: '/urlpreview/v7.0/search', group: 'urlPreview' } },
  { given: 'hotEvents', want: { method: 'get', path: '/eventknowledge/v1.0/hotevents', group: 'eventKnowledge' } },
  {
    given: 'relatedEvents',
    want: { method: 'get', path: '/eventknowledge/v1.0/relatedevents', group: 'eventKnowledge' },
  },
  {
    given: 'eventDocuments',
    want: { method: 'get', path: '/eventknowledge/v1.0/events/{event_id}/documents', group: 'eventKnowledge' },
  },
] as const;

/** The statuses the interface documents, per group (401 and 403 apply to every operation). */
const STATUSES: Record<string, string[]> = {
  academic: ['200', '400', '401', '403', '404', '500'],
  similarity: ['200', '400', '401', '403', '408', '500'],
  answerSearch: ['200', '400', '401', '403', '429'],
  urlPreview: ['200', '400', '401', '403', '429'],
  eventKnowledge: ['200', '401', '403', '404'],
};

describe('the spec', () => {
  test('is a valid OpenAPI 3.1 document (swagger-parser)', async () => {
    const api = (await SwaggerParser.validate(SPEC_PATH)) as unknown as JsonObject;
    assert.equal(api.openapi, '3.1.0');
  });

  test('has exactly the 13 operations of the interface', () => {
    assert.deepEqual(
      OPERATIONS.map((op) => op.operationId),
      EXPECTED.map((row) => row.given),
    );
  });

  for (const { given, want } of EXPECTED) {
    test(`${given}: ${want.method.toUpperCase()} ${want.path} in group ${want.group}`, () => {
      const op = getOperation(given);
      assert.ok(op, `${given} must exist`);
      assert.deepEqual({ method: op.method, path: op.path, group: op.group }, want);
      assert.deepEqual(Object.keys(op.responses).sort(), [...(STATUSES[op.group] ?? [])].sort());
    });
  }

  test('every operation requires the subscription key header', () => {
    const doc = loadSpec();
    const scheme = ((doc.components as JsonObject).securitySchemes as JsonObject).subscriptionKey as JsonObject;
    assert.deepEqual(scheme, { ...scheme, type: 'apiKey', in: 'header', name: 'Ocp-Apim-Subscription-Key' });
    for (const op of OPERATIONS) {
      const raw = ((doc.paths as JsonObject)[op.path] as JsonObject)[op.method] as JsonObject;
      assert.deepEqual(raw.security, [{ subscriptionKey: [] }], `${op.operationId} must declare the key`);
    }
  });

  test('POST variants take a form body with the same fields as the GET query', () => {
    for (const post of OPERATIONS.filter((op) => op.method === 'post')) {
      const get = OPERATIONS.find((op) => op.method === 'get' && op.path === post.path);
      assert.ok(get, `${post.operationId} has a GET twin`);
      assert.equal(post.requestMediaType, 'application/x-www-form-urlencoded');
      const form = post.requestSchema as JsonObject;
      const schemas = (loadSpec().components as JsonObject).schemas as JsonObject;
      const resolved = schemas[String(form.$ref).split('/').pop() as string] as JsonObject;
      const fields = Object.keys(resolved.properties as JsonObject).sort();
      assert.deepEqual(fields, get.parameters.map((p) => p.name).sort(), `${post.operationId} form fields`);
      assert.deepEqual(
        [...((resolved.required as string[]) ?? [])].sort(),
        get.parameters
          .filter((p) => p.required)
          .map((p) => p.name)
          .sort(),
        `${post.operationId} required form fields`,
      );
    }
  });

  test('the paged operations say how they page', () => {
    const paged = OPERATIONS.filter((op) => op.paging).map((op) => op.operationId);
    assert.deepEqual(paged, [
      'interpretGet',
      'interpretPost',
      'evaluateGet',
      'evaluatePost',
      'calchistogramGet',
      'calchistogramPost',
      'answerSearch',
      'hotEvents',
      'relatedEvents',
      'eventDocuments',
    ]);
    for (const op of OPERATIONS.filter((o) => o.paging)) {
      const names = op.parameters.map((p) => p.name);
      const formNames = Object.keys(
        (
          ((loadSpec().components as JsonObject).schemas as JsonObject)[
            String(op.requestSchema?.$ref ?? '')
              .split('/')
              .pop() ?? ''
          ] as JsonObject | undefined
        )?.properties ?? {},
      );
      for (const name of [op.paging?.count, op.paging?.offset]) {
        assert.ok(
          names.includes(name as string) || formNames.includes(name as string),
          `${op.operationId} has ${name}`,
        );
      }
    }
  });
});

describe('vendor extensions', () => {
  const schemas = (loadSpec().components as JsonObject).schemas as Record<string, JsonObject>;
  const prop = (schema: string, name: string) =>
    ((schemas[schema]?.properties ?? {}) as Record<string, JsonObject>)[name] ?? {};
  const cases = [
    { given: prop('RankingItem', 'answerType'), want: { 'x-kgate-known-values': ['WebPages', 'Entities', 'Facts'] } },
    { given: prop('ErrorResponseItem', 'subCode'), want: { 'x-kgate-known-values': ['ParameterInvalidValue'] } },
    { given: prop('EventError', 'message'), want: { 'x-kgate-known-values': ['Resource not found'] } },
    {
      given: prop('Event', 'eventId'),
      want: { 'x-kgate-observed': { pattern: '^[0-9a-f]{32}$', note: '32 hex characters in samples' } },
    },
    {
      given: prop('Histogram', 'histogram'),
      want: {
        'x-kgate-observed': {
          order: 'count-descending',
          note: 'Entries appear in descending order of count in the sample payloads.',
        },
      },
    },
    { given: schemas.ContractualRule ?? {}, want: { 'x-kgate-discriminator': '_type' } },
  ];
  for (const [i, { given, want }] of cases.entries()) {
    test(`extension ${Object.keys(want)[0]} #${i} is a real key, not text in a description`, () => {
      for (const [key, value] of Object.entries(want)) assert.deepEqual(given[key], value);
      assert.doesNotMatch(String(given.description ?? ''), /x-kgate-[a-z-]+: /);
    });
  }
});

describe('property levels', () => {
  const doc = loadSpec();
  const declarations = propertyDeclarations(doc);
  const schemas = (doc.components as JsonObject).schemas as Record<string, JsonObject>;

  test('cover every response schema that declares properties, and no request form', () => {
    const declaring = new Set(declarations.map((d) => d.schema.split('.')[0]));
    const withProperties = Object.keys(schemas).filter((name) => schemas[name]?.properties && !name.endsWith('Form'));
    assert.deepEqual([...declaring].sort(), withProperties.sort(), 'schemas whose properties carry levels');
    assert.ok(declarations.length > 150, `only ${declarations.length} properties found`);
  });

  test('every property has a level and non-empty evidence', () => {
    for (const d of declarations) {
      assert.ok(d.level && PROPERTY_LEVELS.includes(d.level), `${d.specPointer}: x-kgate-level is ${d.level}`);
      assert.ok(d.evidence && d.evidence.trim().length > 10, `${d.specPointer}: x-kgate-evidence is '${d.evidence}'`);
    }
  });

  test('required arrays list exactly the required-level properties', () => {
    for (const d of declarations)
      assert.equal(
        d.inRequired,
        d.level === 'required',
        `${d.specPointer}: level ${d.level}, in required: ${d.inRequired}`,
      );
  });

  test('the expected properties are exactly those the real service omitted', () => {
    assert.deepEqual(
      expectedProperties(doc)
        .map((d) => `${d.schema}.${d.name}`)
        .sort(),
      [
        'EvaluateResponse.aborted',
        'FactsAnswer.attributions',
        'FactsAnswer.contractualRules',
        'HistogramResponse.aborted',
        'InterpretResponse.aborted',
        'RankingResponse.sidebar',
      ],
    );
    for (const d of expectedProperties(doc))
      assert.match(
        d.evidence ?? '',
        /real-payloads\/.*facts\.md/,
        `${d.specPointer} cites a real payload and facts.md`,
      );
  });

  test('evidence cites only real payloads that are in the corpus', () => {
    const cited = new Set(declarations.flatMap((d) => (d.evidence ?? '').match(/real-payloads\/[\w.-]+\.json/g) ?? []));
    assert.ok(cited.size >= 5, `only ${cited.size} payloads cited`);
    for (const path of cited)
      assert.ok(existsSync(fileURLToPath(new URL(path, import.meta.url))), `${path} is cited but not in openapi/`);
  });
});

describe('matchOperation', () => {
  const cases = [
    { given: ['GET', '/academic/v1.0/evaluate'], want: { id: 'evaluateGet', prefix: '', params: {} } },
    { given: ['POST', '/academic/v1.0/evaluate'], want: { id: 'evaluatePost', prefix: '', params: {} } },
    { given: ['GET', '/gw/v2/academic/v1.0/similarity'], want: { id: 'similarityGet', prefix: '/gw/v2', params: {} } },
    {
      given: ['GET', '/eventknowledge/v1.0/events/ab%2Fc/documents'],
      want: { id: 'eventDocuments', prefix: '', params: { event_id: 'ab/c' } },
    },
    {
      given: ['GET', '/eventknowledge/v1.0/events/%E0%A4%A/documents'],
      want: { id: 'eventDocuments', prefix: '', params: { event_id: '%E0%A4%A' } },
    },
    { given: ['DELETE', '/academic/v1.0/evaluate'], want: undefined },
    { given: ['GET', '/academic/v1.0/nothing'], want: undefined },
  ] as const;
  for (const { given, want } of cases) {
    test(`${given.join(' ')}`, () => {
      const match = matchOperation(given[0], given[1]);
      assert.deepEqual(
        match && { id: match.operation.operationId, prefix: match.prefix, params: match.pathParams },
        want,
      );
    });
  }
});

describe('requiredInputs', () => {
  const cases = [
    { given: 'evaluateGet', want: ['expr'] },
    { given: 'evaluatePost', want: ['expr'] },
    { given: 'similarityPost', want: ['s1', 's2'] },
    { given: 'answerSearch', want: ['q', 'mkt'] },
    { given: 'eventDocuments', want: ['event_id'] },
    { given: 'hotEvents', want: ['date'] },
  ];
  for (const { given, want } of cases) {
    test(`${given} requires ${want.join(', ')}`, () => assert.deepEqual(getOperation(given)?.requiredInputs, want));
  }
});
