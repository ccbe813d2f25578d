import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { getOperation, loadSpec } from '../openapi/spec.ts';
import { compareExchange, compareResponse } from './compare.ts';

const JSON_TYPE = 'application/json; charset=utf-8';

interface Case {
  given: { title: string; operationId: string; status: number; contentType?: string; text: string };
  want: Array<[kind: string, path: string]>;
}

const CASES: Case[] = [
  {
    given: {
      title: 'similarity bare number',
      operationId: 'similarityGet',
      status: 200,
      contentType: JSON_TYPE,
      text: '0.61',
    },
    want: [],
  },
  {
    given: {
      title: 'similarity error as plain text (documented)',
      operationId: 'similarityPost',
      status: 400,
      contentType: 'text/plain',
      text: 'bad',
    },
    want: [],
  },
  {
    given: {
      title: 'similarity out of range',
      operationId: 'similarityGet',
      status: 200,
      contentType: JSON_TYPE,
      text: '1.5',
    },
    want: [['constraint-changed', '$']],
  },
  {
    given: { title: 'undocumented status', operationId: 'urlPreview', status: 418, contentType: JSON_TYPE, text: '{}' },
    want: [['undocumented-status', '$']],
  },
  {
    given: {
      title: 'undocumented media type',
      operationId: 'urlPreview',
      status: 200,
      contentType: 'text/html',
      text: '<html></html>',
    },
    want: [['undocumented-media-type', '$']],
  },
  {
    given: { title: 'no content type at all', operationId: 'urlPreview', status: 200, text: '{}' },
    want: [['undocumented-media-type', '$']],
  },
  {
    given: {
      title: 'truncated JSON',
      operationId: 'hotEvents',
      status: 200,
      contentType: JSON_TYPE,
      text: '{"value":[',
    },
    want: [['unparseable-body', '$']],
  },
  {
    given: {
      title: 'event 404 with an extra field',
      operationId: 'eventDocuments',
      status: 404,
      contentType: JSON_TYPE,
      text: '{"statusCode":404,"message":"Resource not found","traceId":"x"}',
    },
    want: [['undocumented-property', '$.traceId']],
  },
  {
    given: {
      title: 'answer search 401 shape',
      operationId: 'answerSearch',
      status: 401,
      contentType: JSON_TYPE,
      text: '{"error":{"statusCode":401,"message":"Access denied"}}',
    },
    want: [],
  },
  {
    given: {
      title: 'answer search 401 with the wrong statusCode',
      operationId: 'answerSearch',
      status: 401,
      contentType: JSON_TYPE,
      text: '{"error":{"statusCode":403,"message":"Access denied"}}',
    },
    want: [['new-enum-value', '$.error.statusCode']],
  },
  {
    given: {
      title: 'URL preview with a new _type',
      operationId: 'urlPreview',
      status: 200,
      contentType: JSON_TYPE,
      text: '{"_type":"WebPageV2","name":"n","url":"u","description":"d","primaryImageOfPage":{"contentUrl":"c"}}',
    },
    want: [['new-type-value', '$._type']],
  },
];

describe('drift compare: one response against the spec', () => {
  for (const { given, want } of CASES) {
    test(given.title, () => {
      const op = getOperation(given.operationId)!;
      const { issues } = compareResponse(op, given.status, given.contentType, given.text);
      assert.deepEqual(
        issues.map((issue) => [issue.kind, issue.path]),
        want,
      );
    });
  }
});

describe('drift compare: one exchange, beyond the schema', () => {
  const EVALUATE = '{"expr":"y>2012","entities":[{"prob":2.266e-007,"Y":2013}],"aborted":false}';
  const CASES: {
    given: { title: string; status: number; headers: Record<string, string>; text: string };
    want: string[];
  }[] = [
    {
      given: {
        title: 'plain answer, generic headers',
        status: 200,
        headers: { 'Content-Type': JSON_TYPE, 'Content-Length': '60' },
        text: '{"expr":"Y>2012","entities":[{"prob":0.0000002266,"Y":2013}],"aborted":false}',
      },
      want: [],
    },
    {
      given: {
        title: 'a vendor header, an exponent number and a normalized echo',
        status: 200,
        headers: { 'content-type': JSON_TYPE, 'X-Powered-By': 'ASP.NET' },
        text: EVALUATE,
      },
      want: ['undocumented-header header:x-powered-by', 'exponent-number $.entities[0].prob', 'echo-differs $.expr'],
    },
    {
      given: {
        title: 'a 400 is not an echo',
        status: 400,
        headers: { 'content-type': JSON_TYPE },
        text: '{"error":{"code":"Bad Argument","message":"Missing or invalid parameter: expr"}}',
      },
      want: [],
    },
  ];
  for (const { given, want } of CASES) {
    test(given.title, () => {
      const { issues } = compareExchange(getOperation('evaluateGet')!, {
        sent: { expr: 'Y>2012' },
        status: given.status,
        headers: given.headers,
        text: given.text,
      });
      assert.deepEqual(
        issues.map((issue) => `${issue.kind} ${issue.path}`),
        want,
        'the findings of the exchange',
      );
    });
  }

  test('a spec that marks aborted expected (not required) reports it missing as expected', () => {
    const doc = structuredClone(loadSpec()) as {
      components: { schemas: Record<string, { required: string[]; properties: Record<string, object> }> };
    };
    const evaluate = doc.components.schemas.EvaluateResponse!;
    evaluate.required = evaluate.required.filter((name) => name !== 'aborted');
    evaluate.properties.aborted = { ...evaluate.properties.aborted, 'x-kgate-level': 'expected' };
    const exchange = {
      sent: { expr: 'Y>2012' },
      status: 200,
      headers: { 'content-type': JSON_TYPE },
      text: '{"expr":"Y>2012","entities":[]}',
    };
    const kinds = (spec: unknown) =>
      compareExchange(getOperation('evaluateGet')!, exchange, spec).issues.map(
        (issue) => `${issue.kind} ${issue.path}`,
      );
    assert.deepEqual(kinds(doc), ['missing-expected-property $.aborted'], 'expected level');
    assert.deepEqual(
      kinds(loadSpec()),
      [
        `${(loadSpec() as typeof doc).components.schemas.EvaluateResponse!.required.includes('aborted') ? 'missing-property' : 'missing-expected-property'} $.aborted`,
      ],
      'the project spec, whichever level it gives',
    );
  });
});
