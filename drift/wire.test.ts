import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { OPERATIONS } from '../openapi/spec.ts';
import { exponentNumberIssues, exponentNumbers, headerIssues } from './wire.ts';

const op = (id: string) => OPERATIONS.find((operation) => operation.operationId === id)!;

describe('drift wire: headers', () => {
  const CASES: { given: { operationId: string; headers: Record<string, string> }; want: string[] }[] = [
    {
      given: {
        operationId: 'evaluateGet',
        headers: {
          'content-type': 'application/json; charset=utf-8',
          'content-length': '12',
          date: 'Mon, 23 Nov 2026 04:53:12 GMT',
          connection: 'keep-alive',
          'keep-alive': 'timeout=10',
        },
      },
      want: [],
    },
    {
      given: { operationId: 'answerSearch', headers: { 'Retry-After': '1', Vary: 'Accept', ETag: '"x"' } },
      want: [],
    },
    {
      given: {
        operationId: 'answerSearch',
        headers: { 'X-Powered-By': 'ASP.NET', 'BingAPIs-Market': 'en-US', 'content-type': 'application/json' },
      },
      want: ['header:x-powered-by', 'header:bingapis-market'],
    },
    {
      given: { operationId: 'hotEvents', headers: { ':status': '200', 'access-control-allow-origin': '*' } },
      want: ['header:access-control-allow-origin'],
    },
  ];
  for (const { given, want } of CASES) {
    test(`${given.operationId} ${Object.keys(given.headers).join(', ')}: ${want.join(', ') || 'nothing'}`, () => {
      const issues = headerIssues(op(given.operationId), given.headers);
      assert.deepEqual(
        issues.map((issue) => issue.path),
        want,
        'one finding per undocumented header',
      );
      for (const issue of issues) assert.equal(issue.kind, 'undocumented-header', 'kind');
    });
  }

  test('a header the spec documents for the operation is not drift, on that operation only', () => {
    const evaluate = op('evaluateGet');
    const doc = {
      paths: {
        [evaluate.path]: {
          [evaluate.method]: { responses: { '200': { $ref: '#/components/responses/Traced' } } },
        },
      },
      components: { responses: { Traced: { description: 'x', headers: { 'X-Trace-Id': { schema: {} } } } } },
    };
    assert.deepEqual(headerIssues(evaluate, { 'x-trace-id': 'abc' }, doc), [], 'documented through a $ref');
    assert.equal(headerIssues(op('interpretGet'), { 'x-trace-id': 'abc' }, doc).length, 1, 'not documented there');
  });
});

describe('drift wire: numbers in exponent form', () => {
  const CASES: { given: string; want: Array<[path: string, token: string]> }[] = [
    { given: '{"prob":0.00000173,"count":3}', want: [] },
    { given: '{"prob":2.266e-007,"count":3}', want: [['$.prob', '2.266e-007']] },
    {
      given: '{"entities":[{"prob":2.266e-007},{"prob":1.723E-07}],"n":1E+3}',
      want: [
        ['$.entities[0].prob', '2.266e-007'],
        ['$.entities[1].prob', '1.723E-07'],
        ['$.n', '1E+3'],
      ],
    },
    { given: '{"expr":"Y=1e5","s":"a\\"1e5\\"","x":[1,2,{"y e-5":3}]}', want: [] },
    { given: '{"a b":[[],{},"",-1e-5, true, null]}', want: [['$["a b"][3]', '-1e-5']] },
    { given: '0.520', want: [] },
    { given: '6.1e-1', want: [['$', '6.1e-1']] },
  ];
  for (const { given, want } of CASES) {
    test(`${given}: ${want.map(([path]) => path).join(', ') || 'none'}`, () => {
      assert.deepEqual(
        exponentNumbers(given).map(({ path, token }) => [path, token]),
        want,
        'each exponent number with its path',
      );
    });
  }

  test('one finding per normalized path, with the token as sample', () => {
    const issues = exponentNumberIssues('{"entities":[{"prob":2.266e-007},{"prob":1.723e-007}],"aborted":false}');
    assert.deepEqual(
      issues.map((issue) => [issue.kind, issue.path, issue.normalizedPath, issue.sample]),
      [['exponent-number', '$.entities[0].prob', '$.entities[].prob', '2.266e-007']],
      'repeats of a path are one finding',
    );
  });
});
