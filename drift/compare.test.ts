import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { getOperation } from '../openapi/spec.ts';
import { compareResponse } from './compare.ts';

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
