import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { normalizePath, walkInstance } from './walk.ts';

const DOC = {
  components: {
    schemas: {
      List: {
        type: 'object',
        required: ['value'],
        properties: { value: { type: 'array', items: { $ref: '#/components/schemas/Item' } } },
      },
      Item: {
        type: 'object',
        required: ['id', 'when'],
        properties: {
          id: { type: 'string' },
          when: { type: 'string', format: 'date-time' },
          prob: { type: 'number', minimum: 0, maximum: 1 },
          kind: { type: 'string', 'x-kgate-known-values': ['WebPages', 'Facts'] },
          rule: { $ref: '#/components/schemas/Rule' },
        },
      },
      Rule: {
        oneOf: [
          { $ref: '#/components/schemas/Link' },
          { $ref: '#/components/schemas/Media' },
          { $ref: '#/components/schemas/OtherRule' },
        ],
        'x-kgate-discriminator': '_type',
      },
      Link: {
        type: 'object',
        required: ['_type', 'url'],
        properties: { _type: { const: 'Rules/Link' }, url: { type: 'string' } },
      },
      Media: {
        type: 'object',
        required: ['_type'],
        properties: { _type: { const: 'Rules/Media' }, width: { type: 'integer' } },
      },
      OtherRule: {
        type: 'object',
        required: ['_type'],
        properties: { _type: { type: 'string', not: { enum: ['Rules/Link', 'Rules/Media'] } } },
      },
      Answer: {
        type: 'object',
        required: ['id'],
        properties: {
          id: { type: 'string' },
          aborted: {
            type: 'boolean',
            'x-kgate-level': 'expected',
            'x-kgate-evidence': 'no recorded answer of the real service carries it',
          },
          sidebar: { $ref: '#/components/schemas/Group', 'x-kgate-level': 'expected' },
          merged: { allOf: [{ type: 'string' }, { 'x-kgate-level': 'expected' }] },
          note: { type: 'string', 'x-kgate-level': 'optional' },
        },
      },
      Group: { type: 'object', properties: { items: { type: 'array' } } },
      Strict: {
        type: 'object',
        required: ['aborted'],
        properties: { aborted: { type: 'boolean', 'x-kgate-level': 'expected' } },
      },
      Error401: {
        allOf: [
          {
            type: 'object',
            required: ['error'],
            properties: {
              error: {
                type: 'object',
                required: ['statusCode', 'message'],
                properties: { statusCode: { type: 'integer' }, message: { type: 'string' } },
              },
            },
          },
          { type: 'object', properties: { error: { type: 'object', properties: { statusCode: { const: 401 } } } } },
        ],
      },
    },
  },
};

const LIST = { $ref: '#/components/schemas/List' };
const item = (extra: Record<string, unknown> = {}) => ({ id: 'a', when: '2026-01-02T03:04:05Z', ...extra });

interface Case {
  given: { title: string; schema: unknown; instance: unknown };
  want: Array<[kind: string, path: string]>;
}

const CASES: Case[] = [
  { given: { title: 'conforming list', schema: LIST, instance: { value: [item(), item({ prob: 0.5 })] } }, want: [] },
  {
    given: {
      title: 'undocumented property in an array item',
      schema: LIST,
      instance: { value: [item(), item({ logprob: -3 })] },
    },
    want: [['undocumented-property', '$.value[1].logprob']],
  },
  {
    given: { title: 'required property missing', schema: LIST, instance: { value: [{ id: 'a' }] } },
    want: [['missing-property', '$.value[0].when']],
  },
  {
    given: { title: 'type changed', schema: LIST, instance: { value: [item({ id: 7 })] } },
    want: [['type-changed', '$.value[0].id']],
  },
  {
    given: { title: 'format changed', schema: LIST, instance: { value: [item({ when: '02/01/2026' })] } },
    want: [['format-changed', '$.value[0].when']],
  },
  {
    given: { title: 'limit broken', schema: LIST, instance: { value: [item({ prob: 1.5 })] } },
    want: [['constraint-changed', '$.value[0].prob']],
  },
  {
    given: { title: 'value outside the known values', schema: LIST, instance: { value: [item({ kind: 'News' })] } },
    want: [['new-enum-value', '$.value[0].kind']],
  },
  {
    given: {
      title: 'oneOf branch chosen by _type',
      schema: LIST,
      instance: { value: [item({ rule: { _type: 'Rules/Media', width: 3 } })] },
    },
    want: [],
  },
  {
    given: {
      title: 'undocumented property inside the tagged branch',
      schema: LIST,
      instance: { value: [item({ rule: { _type: 'Rules/Link', url: 'u', text: 't' } })] },
    },
    want: [['undocumented-property', '$.value[0].rule.text']],
  },
  {
    given: {
      title: 'new _type value falls back to the catch-all branch',
      schema: LIST,
      instance: { value: [item({ rule: { _type: 'Rules/Text', text: 't' } })] },
    },
    want: [
      ['new-type-value', '$.value[0].rule._type'],
      ['undocumented-property', '$.value[0].rule.text'],
    ],
  },
  {
    given: {
      title: 'allOf parts merge without hiding inner properties',
      schema: { $ref: '#/components/schemas/Error401' },
      instance: { error: { statusCode: 401, message: 'no' } },
    },
    want: [],
  },
  {
    given: {
      title: 'const inside allOf reports a new value',
      schema: { $ref: '#/components/schemas/Error401' },
      instance: { error: { statusCode: 402, message: 'no', code: 'x' } },
    },
    want: [
      ['new-enum-value', '$.error.statusCode'],
      ['undocumented-property', '$.error.code'],
    ],
  },
  {
    given: {
      title: 'expected properties present',
      schema: { $ref: '#/components/schemas/Answer' },
      instance: { id: 'a', aborted: false, sidebar: { items: [] }, merged: 'm' },
    },
    want: [],
  },
  {
    given: {
      title: 'expected properties absent (inline, beside a $ref, in an allOf), optional one absent',
      schema: { $ref: '#/components/schemas/Answer' },
      instance: { id: 'a' },
    },
    want: [
      ['missing-expected-property', '$.aborted'],
      ['missing-expected-property', '$.sidebar'],
      ['missing-expected-property', '$.merged'],
    ],
  },
  {
    given: {
      title: 'an expected property that is also required is reported as required',
      schema: { $ref: '#/components/schemas/Strict' },
      instance: {},
    },
    want: [['missing-property', '$.aborted']],
  },
  {
    given: {
      title: 'an expected property present with the wrong type is a type change',
      schema: { $ref: '#/components/schemas/Answer' },
      instance: { id: 'a', aborted: 'false', sidebar: {}, merged: 'm' },
    },
    want: [['type-changed', '$.aborted']],
  },
  {
    given: { title: 'untyped schema accepts anything', schema: { description: 'any' }, instance: { a: 1 } },
    want: [],
  },
  {
    given: { title: 'bare number body', schema: { type: 'number', minimum: -1, maximum: 1 }, instance: 0.5 },
    want: [],
  },
  {
    given: { title: 'odd property names are quoted', schema: { type: 'object' }, instance: { 'a-b': 1 } },
    want: [['undocumented-property', '$["a-b"]']],
  },
];

describe('drift walk: walkInstance', () => {
  for (const { given, want } of CASES) {
    test(given.title, () => {
      const got = walkInstance(DOC, given.schema, given.instance).map((issue) => [issue.kind, issue.path]);
      assert.deepEqual(got, want, 'the issues found');
    });
  }

  test('normalized paths drop array indexes', () => {
    const [issue] = walkInstance(DOC, LIST, { value: [item(), item(), item({ logprob: 1 })] });
    assert.equal(issue?.normalizedPath, '$.value[].logprob');
    assert.equal(normalizePath('$.a[12].b[0]'), '$.a[].b[]');
  });

  test('a missing expected property says it is expected, not required', () => {
    const [issue] = walkInstance(DOC, { $ref: '#/components/schemas/Answer' }, { id: 'a', sidebar: {}, merged: 'm' });
    assert.equal(issue?.kind, 'missing-expected-property', 'its own kind');
    assert.match(issue?.message ?? '', /expected, not required/, 'the message names the level');
  });

  test('a new value is part of the identity, a sample of an extra property is not', () => {
    const issues = walkInstance(DOC, LIST, { value: [item({ kind: 'News', extra: 'x' })] });
    assert.deepEqual(
      issues.map((issue) => [issue.kind, issue.identity]),
      [
        ['new-enum-value', '"News"'],
        ['undocumented-property', undefined],
      ],
    );
  });
});
