import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parse } from 'yaml';
import { loadSpec } from '../openapi/spec.ts';
import { diffSpecs, formatChange } from './spec-diff.ts';

/** A one-operation spec: GET /x with the given parameters, request body and 200 schema. */
function spec(parts: {
  params?: unknown[];
  body?: unknown;
  schema?: unknown;
  responses?: unknown;
  extra?: unknown;
  security?: unknown;
}) {
  return {
    openapi: '3.1.0',
    info: { title: 't', version: '1' },
    paths: {
      '/x': {
        get: {
          parameters: parts.params ?? [],
          ...(parts.body ? { requestBody: parts.body } : {}),
          ...(parts.security ? { security: parts.security } : {}),
          responses: parts.responses ?? {
            '200': {
              description: 'ok',
              content: { 'application/json': { schema: parts.schema ?? { type: 'object' } } },
            },
          },
        },
      },
      ...(isRecord(parts.extra) ? parts.extra : {}),
    },
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

const param = (schema: unknown, required = false, name = 'count') => ({ name, in: 'query', required, schema });
const obj = (properties: Record<string, unknown>, required: string[] = []) => ({
  type: 'object',
  properties,
  required,
});
const form = (schema: unknown, required = false) => ({
  required,
  content: { 'application/x-www-form-urlencoded': { schema } },
});

interface Case {
  given: { title: string; old: unknown; next: unknown };
  want: Array<[rule: string, breaking: boolean]>;
}

const CASES: Case[] = [
  {
    given: { title: 'identical specs', old: spec({}), next: spec({}) },
    want: [],
  },
  {
    given: { title: 'operation removed', old: spec({ extra: { '/y': { get: { responses: {} } } } }), next: spec({}) },
    want: [['operation-removed', true]],
  },
  {
    given: { title: 'operation added', old: spec({}), next: spec({ extra: { '/y': { get: { responses: {} } } } }) },
    want: [['operation-added', false]],
  },
  {
    given: {
      title: 'path parameter renamed is the same operation',
      old: { openapi: '3.1.0', paths: { '/e/{a}': { get: { responses: {} } } } },
      next: { openapi: '3.1.0', paths: { '/e/{b}': { get: { responses: {} } } } },
    },
    want: [],
  },
  {
    given: { title: 'parameter removed', old: spec({ params: [param({ type: 'integer' })] }), next: spec({}) },
    want: [['parameter-removed', true]],
  },
  {
    given: { title: 'optional parameter added', old: spec({}), next: spec({ params: [param({ type: 'integer' })] }) },
    want: [['parameter-added', false]],
  },
  {
    given: {
      title: 'required parameter added',
      old: spec({}),
      next: spec({ params: [param({ type: 'integer' }, true)] }),
    },
    want: [['required-parameter-added', true]],
  },
  {
    given: {
      title: 'parameter became required',
      old: spec({ params: [param({ type: 'integer' })] }),
      next: spec({ params: [param({ type: 'integer' }, true)] }),
    },
    want: [['parameter-became-required', true]],
  },
  {
    given: {
      title: 'parameter became optional',
      old: spec({ params: [param({ type: 'integer' }, true)] }),
      next: spec({ params: [param({ type: 'integer' })] }),
    },
    want: [['parameter-became-optional', false]],
  },
  {
    given: {
      title: 'request parameter maximum lowered (narrowed request: breaking)',
      old: spec({ params: [param({ type: 'integer', maximum: 1000 })] }),
      next: spec({ params: [param({ type: 'integer', maximum: 100 })] }),
    },
    want: [['limit-narrowed', true]],
  },
  {
    given: {
      title: 'request parameter maximum raised (widened request: fine)',
      old: spec({ params: [param({ type: 'integer', maximum: 100 })] }),
      next: spec({ params: [param({ type: 'integer', maximum: 1000 })] }),
    },
    want: [['limit-widened', false]],
  },
  {
    given: {
      title: 'request parameter minLength added',
      old: spec({ params: [param({ type: 'string' })] }),
      next: spec({ params: [param({ type: 'string', minLength: 3 })] }),
    },
    want: [['limit-narrowed', true]],
  },
  {
    given: {
      title: 'request parameter enum value removed',
      old: spec({ params: [param({ type: 'string', enum: ['Off', 'Moderate'] })] }),
      next: spec({ params: [param({ type: 'string', enum: ['Moderate'] })] }),
    },
    want: [['enum-value-removed', true]],
  },
  {
    given: {
      title: 'request parameter enum value added',
      old: spec({ params: [param({ type: 'string', enum: ['Moderate'] })] }),
      next: spec({ params: [param({ type: 'string', enum: ['Moderate', 'Strict'] })] }),
    },
    want: [['enum-value-added', false]],
  },
  {
    given: {
      title: 'request parameter type narrowed number -> integer',
      old: spec({ params: [param({ type: 'number' })] }),
      next: spec({ params: [param({ type: 'integer' })] }),
    },
    want: [['type-narrowed', true]],
  },
  {
    given: {
      title: 'request parameter type widened integer -> number',
      old: spec({ params: [param({ type: 'integer' })] }),
      next: spec({ params: [param({ type: 'number' })] }),
    },
    want: [['type-widened', false]],
  },
  {
    given: {
      title: 'request parameter format added',
      old: spec({ params: [param({ type: 'string' }, true, 'date')] }),
      next: spec({ params: [param({ type: 'string', format: 'date' }, true, 'date')] }),
    },
    want: [['format-added', true]],
  },
  {
    given: {
      title: 'request parameter pattern changed',
      old: spec({ params: [param({ type: 'string', pattern: '^a' })] }),
      next: spec({ params: [param({ type: 'string', pattern: '^b' })] }),
    },
    want: [['pattern-changed', true]],
  },
  {
    given: {
      title: 'parameter default changed',
      old: spec({ params: [param({ type: 'string', default: 'latest' }, false, 'model')] }),
      next: spec({ params: [param({ type: 'string', default: 'v2' }, false, 'model')] }),
    },
    want: [['default-changed', false]],
  },
  {
    given: {
      title: 'security required where none was',
      old: spec({ security: [{}] }),
      next: spec({ security: [{ subscriptionKey: [] }] }),
    },
    want: [['security-narrowed', true]],
  },
  {
    given: {
      title: 'security alternative added',
      old: spec({ security: [{ subscriptionKey: [] }] }),
      next: spec({ security: [{ subscriptionKey: [] }, { bearer: [] }] }),
    },
    want: [['security-widened', false]],
  },
  {
    given: {
      title: 'response header removed',
      old: spec({
        responses: { '429': { description: 'slow', headers: { 'Retry-After': { schema: { type: 'integer' } } } } },
      }),
      next: spec({ responses: { '429': { description: 'slow' } } }),
    },
    want: [['response-header-removed', true]],
  },
  {
    given: {
      title: 'response header added',
      old: spec({ responses: { '429': { description: 'slow' } } }),
      next: spec({
        responses: { '429': { description: 'slow', headers: { 'Retry-After': { schema: { type: 'integer' } } } } },
      }),
    },
    want: [['response-header-added', false]],
  },
  {
    given: {
      title: 'request body became required',
      old: spec({ body: form(obj({ expr: { type: 'string' } })) }),
      next: spec({ body: form(obj({ expr: { type: 'string' } }), true) }),
    },
    want: [['request-body-became-required', true]],
  },
  {
    given: {
      title: 'request media type removed',
      old: spec({ body: form({ type: 'object' }) }),
      next: spec({ body: { content: { 'application/json': { schema: { type: 'object' } } } } }),
    },
    want: [
      ['request-media-type-removed', true],
      ['request-media-type-added', false],
    ],
  },
  {
    given: {
      title: 'new required request field',
      old: spec({ body: form(obj({ s1: { type: 'string' } }, ['s1'])) }),
      next: spec({ body: form(obj({ s1: { type: 'string' }, s2: { type: 'string' } }, ['s1', 's2'])) }),
    },
    want: [['required-property-added', true]],
  },
  {
    given: {
      title: 'request field became required',
      old: spec({ body: form(obj({ s1: { type: 'string' } })) }),
      next: spec({ body: form(obj({ s1: { type: 'string' } }, ['s1'])) }),
    },
    want: [['property-became-required', true]],
  },
  {
    given: {
      title: 'response status removed',
      old: spec({ responses: { '200': { description: 'ok' }, '404': { description: 'nf' } } }),
      next: spec({ responses: { '200': { description: 'ok' } } }),
    },
    want: [['response-status-removed', true]],
  },
  {
    given: {
      title: 'response error status added',
      old: spec({ responses: { '200': { description: 'ok' } } }),
      next: spec({ responses: { '200': { description: 'ok' }, '429': { description: 'slow down' } } }),
    },
    want: [['response-status-added', false]],
  },
  {
    given: {
      title: 'response success status added',
      old: spec({ responses: { '200': { description: 'ok' } } }),
      next: spec({ responses: { '200': { description: 'ok' }, '202': { description: 'later' } } }),
    },
    want: [['response-status-added', true]],
  },
  {
    given: {
      title: 'response media type changed',
      old: spec({ responses: { '200': { description: 'ok', content: { 'application/json': { schema: {} } } } } }),
      next: spec({ responses: { '200': { description: 'ok', content: { 'text/plain': { schema: {} } } } } }),
    },
    want: [
      ['response-media-type-removed', true],
      ['response-media-type-added', false],
    ],
  },
  {
    given: {
      title: 'response field removed',
      old: spec({ schema: obj({ expr: { type: 'string' }, aborted: { type: 'boolean' } }) }),
      next: spec({ schema: obj({ expr: { type: 'string' } }) }),
    },
    want: [['property-removed', true]],
  },
  {
    given: {
      title: 'response field added',
      old: spec({ schema: obj({ expr: { type: 'string' } }) }),
      next: spec({ schema: obj({ expr: { type: 'string' }, logprob: { type: 'number' } }) }),
    },
    want: [['property-added', false]],
  },
  {
    given: {
      title: 'response field became optional',
      old: spec({ schema: obj({ expr: { type: 'string' } }, ['expr']) }),
      next: spec({ schema: obj({ expr: { type: 'string' } }) }),
    },
    want: [['property-became-optional', true]],
  },
  {
    given: {
      title: 'response field became expected (x-kgate-level): the gate warns, the wire is the same',
      old: spec({ schema: obj({ aborted: { type: 'boolean', 'x-kgate-level': 'optional' } }) }),
      next: spec({ schema: obj({ aborted: { type: 'boolean', 'x-kgate-level': 'expected' } }) }),
    },
    want: [['property-level-changed', false]],
  },
  {
    given: {
      title: 'response field became required',
      old: spec({ schema: obj({ expr: { type: 'string' } }) }),
      next: spec({ schema: obj({ expr: { type: 'string' } }, ['expr']) }),
    },
    want: [['property-became-required', false]],
  },
  {
    given: {
      title: 'response field type widened to nullable (3.1 type array)',
      old: spec({ schema: obj({ prob: { type: 'number' } }) }),
      next: spec({ schema: obj({ prob: { type: ['number', 'null'] } }) }),
    },
    want: [['type-widened', true]],
  },
  {
    given: {
      title: 'response field type narrowed number -> integer',
      old: spec({ schema: obj({ count: { type: 'number' } }) }),
      next: spec({ schema: obj({ count: { type: 'integer' } }) }),
    },
    want: [['type-narrowed', false]],
  },
  {
    given: {
      title: 'response field type changed string -> integer',
      old: spec({ schema: obj({ Id: { type: 'string' } }) }),
      next: spec({ schema: obj({ Id: { type: 'integer' } }) }),
    },
    want: [['type-changed', true]],
  },
  {
    given: {
      title: 'response enum value added',
      old: spec({ schema: obj({ t: { type: 'string', enum: ['query'] } }) }),
      next: spec({ schema: obj({ t: { type: 'string', enum: ['query', 'other'] } }) }),
    },
    want: [['enum-value-added', true]],
  },
  {
    given: {
      title: 'response enum value removed',
      old: spec({ schema: obj({ t: { type: 'string', enum: ['query', 'other'] } }) }),
      next: spec({ schema: obj({ t: { type: 'string', enum: ['query'] } }) }),
    },
    want: [['enum-value-removed', false]],
  },
  {
    given: {
      title: 'response enum opened into known values',
      old: spec({ schema: obj({ answerType: { type: 'string', enum: ['WebPages'] } }) }),
      next: spec({ schema: obj({ answerType: { type: 'string', 'x-kgate-known-values': ['WebPages'] } }) }),
    },
    want: [
      ['enum-removed', true],
      ['known-values-changed', false],
    ],
  },
  {
    given: {
      title: 'known values grown on an open set',
      old: spec({ schema: obj({ answerType: { type: 'string', 'x-kgate-known-values': ['WebPages'] } }) }),
      next: spec({ schema: obj({ answerType: { type: 'string', 'x-kgate-known-values': ['WebPages', 'News'] } }) }),
    },
    want: [['known-values-changed', false]],
  },
  {
    given: {
      title: 'response format changed',
      old: spec({ schema: obj({ d: { type: 'string', format: 'date-time' } }) }),
      next: spec({ schema: obj({ d: { type: 'string', format: 'date' } }) }),
    },
    want: [['format-changed', true]],
  },
  {
    given: {
      title: 'response format removed',
      old: spec({ schema: obj({ u: { type: 'string', format: 'uri' } }) }),
      next: spec({ schema: obj({ u: { type: 'string' } }) }),
    },
    want: [['format-removed', true]],
  },
  {
    given: {
      title: 'response maximum raised (widened response: breaking)',
      old: spec({ schema: obj({ prob: { type: 'number', maximum: 1 } }) }),
      next: spec({ schema: obj({ prob: { type: 'number', maximum: 2 } }) }),
    },
    want: [['limit-widened', true]],
  },
  {
    given: {
      title: 'response maxItems lowered (narrowed response: fine)',
      old: spec({ schema: obj({ v: { type: 'array', maxItems: 10, items: { type: 'string' } } }) }),
      next: spec({ schema: obj({ v: { type: 'array', maxItems: 5, items: { type: 'string' } } }) }),
    },
    want: [['limit-narrowed', false]],
  },
  {
    given: {
      title: 'field removed inside an array item, through $ref',
      old: {
        ...spec({ schema: { $ref: '#/components/schemas/List' } }),
        components: {
          schemas: {
            List: obj({ value: { type: 'array', items: { $ref: '#/components/schemas/Item' } } }),
            Item: obj({ id: { type: 'string' }, name: { type: 'string' } }),
          },
        },
      },
      next: {
        ...spec({ schema: { $ref: '#/components/schemas/List' } }),
        components: {
          schemas: {
            List: obj({ value: { type: 'array', items: { $ref: '#/components/schemas/Item' } } }),
            Item: obj({ id: { type: 'string' } }),
          },
        },
      },
    },
    want: [['property-removed', true]],
  },
  {
    given: {
      title: 'response oneOf variant added by _type',
      old: spec({ schema: { oneOf: [obj({ _type: { const: 'A' } }), obj({ _type: { const: 'B' } })] } }),
      next: spec({
        schema: {
          oneOf: [obj({ _type: { const: 'A' } }), obj({ _type: { const: 'B' } }), obj({ _type: { const: 'C' } })],
        },
      }),
    },
    want: [['variant-added', true]],
  },
  {
    given: {
      title: 'response oneOf variant removed by _type',
      old: spec({ schema: { oneOf: [obj({ _type: { const: 'A' } }), obj({ _type: { const: 'B' } })] } }),
      next: spec({ schema: { oneOf: [obj({ _type: { const: 'A' } })] } }),
    },
    want: [['variant-removed', false]],
  },
  {
    given: {
      title: 'field removed inside a matched oneOf variant',
      old: spec({ schema: { oneOf: [obj({ _type: { const: 'A' }, url: { type: 'string' } })] } }),
      next: spec({ schema: { oneOf: [obj({ _type: { const: 'A' } })] } }),
    },
    want: [['property-removed', true]],
  },
  {
    given: {
      title: 'allOf parts compare as one schema',
      old: spec({ schema: { allOf: [obj({ a: { type: 'string' } }), obj({ b: { type: 'string' } })] } }),
      next: spec({ schema: { allOf: [obj({ a: { type: 'string' } })] } }),
    },
    want: [['property-removed', true]],
  },
];

describe('drift spec: diffSpecs', () => {
  for (const { given, want } of CASES) {
    test(given.title, () => {
      const got = diffSpecs(given.old, given.next).map((change) => [change.rule, change.breaking]);
      assert.deepEqual(got, want);
    });
  }

  test('each change renders as one line naming the operation and location', () => {
    const old = spec({ params: [param({ type: 'integer' })] });
    const [change] = diffSpecs(old, spec({ params: [param({ type: 'integer' }, true)] }));
    const line = formatChange(change!);
    assert.equal(line.includes('\n'), false);
    assert.match(line, /^BREAKING parameter-became-required: GET \/x query parameter count: /);
  });

  test('the project spec: a shared component change shows up on every operation using it', () => {
    const old = loadSpec();
    const next = structuredClone(old) as {
      components: { schemas: Record<string, { properties: Record<string, unknown>; required: string[] }> };
      paths: Record<string, Record<string, { parameters: unknown[] }>>;
    };
    delete next.components.schemas.InterpretResponse!.properties.aborted;
    next.components.schemas.InterpretResponse!.required = ['query', 'interpretations'];
    next.paths['/answersearch/v7.0/search']!.get!.parameters.push({
      name: 'setLang',
      in: 'query',
      required: true,
      schema: { type: 'string' },
    });
    const got = diffSpecs(old, next).map((change) => `${change.rule} ${change.operation} ${change.location}`);
    assert.deepEqual(got.sort(), [
      'property-removed GET /academic/v1.0/interpret response 200 application/json $.aborted',
      'property-removed POST /academic/v1.0/interpret response 200 application/json $.aborted',
      'required-parameter-added GET /answersearch/v7.0/search query parameter setLang',
    ]);
  });

  test('YAML specs parse and compare like objects', () => {
    const old = parse(`
openapi: 3.1.0
paths:
  /academic/v1.0/evaluate:
    get:
      parameters:
        - { name: expr, in: query, required: true, schema: { type: string } }
      responses:
        '200': { description: ok, content: { application/json: { schema: { type: object, properties: { expr: { type: string } } } } } }
`);
    const next = parse(`
openapi: 3.1.0
paths:
  /academic/v1.0/evaluate:
    get:
      parameters:
        - { name: expr, in: query, required: true, schema: { type: string } }
      responses:
        '200': { description: ok, content: { application/json: { schema: { type: object, properties: { expr: { type: integer } } } } } }
`);
    const [change] = diffSpecs(old, next);
    assert.equal(change?.rule, 'type-changed');
    assert.equal(change?.location, 'response 200 application/json $.expr');
    assert.equal(change?.operation, 'GET /academic/v1.0/evaluate');
  });
});
