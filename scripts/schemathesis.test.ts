import assert from 'node:assert/strict';
import { test } from 'node:test';
import { excuseOf, parseSchemathesis } from './schemathesis.ts';

const REPORT = `
_________________________ GET /academic/v1.0/evaluate __________________________
1. Test Case ID: giVSj5

- API rejected schema-compliant request

    Valid data should have been accepted

[400] Bad Request:

    \`{"error":{"code":"Bad Argument","message":"Missing or invalid parameter: expr is required"}}\`

Reproduce with:

    curl -X GET -H 'Ocp-Apim-Subscription-Key: [Filtered]' 'http://127.0.0.1:1/academic/v1.0/evaluate?expr='

_____________ GET /eventknowledge/v1.0/events/{event_id}/documents _____________
1. Test Case ID: x

- Undocumented HTTP status code

[400] Bad Request:

    \`{"statusCode":400,"message":"Missing or invalid parameter: $top (must be at most 100)"}\`

Reproduce with:

    curl -X GET -H 'Ocp-Apim-Subscription-Key: [Filtered]' 'http://127.0.0.1:1/eventknowledge/v1.0/events/abc/documents?%24top=101'

=================================== SUMMARY ====================================
Test cases:
  997 generated, 19 found 19 unique failures, 532 skipped
`;

test('parseSchemathesis reads each failure with its operation, status, body and curl line', () => {
  const { failures, cases } = parseSchemathesis(REPORT);
  assert.equal(cases, 997);
  assert.deepEqual(
    failures.map((f) => [f.operation, f.title, f.status, f.body.slice(0, 20), f.curl.slice(0, 12)]),
    [
      [
        'GET /academic/v1.0/evaluate',
        'API rejected schema-compliant request',
        400,
        '{"error":{"code":"Ba',
        'curl -X GET ',
      ],
      [
        'GET /eventknowledge/v1.0/events/{event_id}/documents',
        'Undocumented HTTP status code',
        400,
        '{"statusCode":400,"m',
        'curl -X GET ',
      ],
    ],
  );
});

test('parseSchemathesis names the operation without the path prefix of the target', () => {
  const report = REPORT.replace(/127\.0\.0\.1:1\//g, '127.0.0.1:1/faults/x/');
  const { failures } = parseSchemathesis(report, '/faults/x');
  assert.deepEqual(
    failures.map((f) => f.operation),
    ['GET /academic/v1.0/evaluate', 'GET /eventknowledge/v1.0/events/{event_id}/documents'],
  );
});

test("excuseOf names why a failure is not the spec's fault, and nothing for one that is", () => {
  const base = { operation: 'GET /academic/v1.0/evaluate', status: 400, curl: '' };
  const cases = [
    {
      given: { ...base, title: 'API rejected schema-compliant request', body: 'invalid parameter: expr (unbalanced)' },
      want: true,
    },
    {
      given: {
        ...base,
        title: 'API rejected schema-compliant request',
        body: 'invalid parameter: count (must be at most 1000)',
      },
      want: false,
    },
    { given: { ...base, title: 'Response violates schema', body: '' }, want: false },
    {
      given: {
        ...base,
        operation: 'GET /eventknowledge/v1.0/hotevents',
        title: 'Undocumented HTTP status code',
        body: '',
      },
      want: true,
    },
    {
      given: { ...base, operation: 'GET /answersearch/v7.0/search', title: 'Undocumented HTTP status code', body: '' },
      want: false,
    },
  ];
  for (const { given, want } of cases) assert.equal(excuseOf(given) !== undefined, want, JSON.stringify(given));
});
