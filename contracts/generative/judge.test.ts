import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Group } from '../../openapi/spec.ts';
import type { GeneratedCase, Intent } from './cases.ts';
import { errorSignature, judgeCase } from './judge.ts';

function generated(intent: Intent, extra: Partial<GeneratedCase> = {}): GeneratedCase {
  return {
    operationId: 'evaluateGet',
    index: 3,
    seed: 1,
    intent,
    kind: 'expr:wide-or',
    note: 'a note',
    params: [],
    encoding: 'plus',
    ...extra,
  };
}

const response = (status: number, json: unknown = {}) => ({
  operation: 'GET /academic/v1.0/evaluate',
  status,
  json,
  text: JSON.stringify(json),
  curl: "curl 'http://x'",
});

test('each generated request is judged by what its input deserves', () => {
  const cases: { given: [Intent, Group, number, Partial<GeneratedCase>?]; want: string[] }[] = [
    { given: ['positive', 'academic', 200], want: [] },
    { given: ['positive', 'academic', 400], want: ['positive-input-accepted'] },
    { given: ['positive', 'academic', 500], want: ['no-server-error'] },
    { given: ['positive', 'similarity', 408, { alsoAccepted: [408] }], want: [] },
    { given: ['positive', 'eventKnowledge', 404, { alsoAccepted: [404] }], want: [] },
    { given: ['positive', 'eventKnowledge', 404], want: ['positive-input-accepted'] },
    { given: ['positive', 'answerSearch', 429], want: [] },
    { given: ['negative', 'academic', 400], want: [] },
    { given: ['negative', 'academic', 200], want: ['negative-input-rejected'] },
    { given: ['negative', 'academic', 404], want: ['negative-input-rejected'] },
    { given: ['negative', 'academic', 415, { contentType: 'application/json' }], want: [] },
    { given: ['negative', 'academic', 503], want: ['no-server-error'] },
    { given: ['negative', 'eventKnowledge', 422], want: [] },
    { given: ['negative', 'eventKnowledge', 200], want: ['negative-input-rejected'] },
    { given: ['negative', 'answerSearch', 401], want: [] },
    { given: ['edge', 'academic', 200], want: [] },
    { given: ['edge', 'academic', 414], want: [] },
    { given: ['edge', 'urlPreview', 500], want: ['no-server-error'] },
  ];
  for (const { given, want } of cases) {
    const [intent, group, status, extra] = given;
    const found = judgeCase(generated(intent, extra), group, response(status)).map((finding) => finding.check);
    assert.deepEqual(found, want, `${intent} ${group} ${status}`);
  }
});

test('a finding says what was sent, what came back, what was documented, and how to send it again', () => {
  const [finding] = judgeCase(
    generated('positive'),
    'academic',
    response(500, { error: { code: 'Unspecified', message: 'Internal server error' } }),
  );
  assert.equal(finding?.title, 'status 500 for a generated request (Unspecified: internal server error)', 'title');
  assert.match(finding?.received ?? '', /positive request: expr:wide-or/, 'received names the kind of case');
  assert.match(finding?.documented ?? '', /no 5xx for any input/, 'documented');
  assert.equal(
    finding?.seed,
    '1, evaluateGet case 3 (expr:wide-or): kgate fuzz --seed 1 --cases evaluateGet:3',
    'the seed line reproduces the case',
  );
  assert.equal(finding?.curl, "curl 'http://x'", 'the curl line');
});

test('the error signature reads the same error from different inputs the same way', () => {
  const cases: { given: unknown; want: string }[] = [
    {
      given: { error: { code: 'Bad Argument', message: "expr is not valid at position 11: found ','" } },
      want: 'Bad Argument: expr is not valid at position N: found …',
    },
    {
      given: { errors: [{ code: 'InvalidRequest', subCode: 'ParameterInvalidValue', message: 'Parameter q' }] },
      want: 'InvalidRequest/ParameterInvalidValue: parameter q',
    },
    { given: { statusCode: 400, message: "Invalid date '2021-02-30'" }, want: '400: invalid date …' },
  ];
  for (const { given, want } of cases) assert.equal(errorSignature(given, JSON.stringify(given)), want, want);
});
