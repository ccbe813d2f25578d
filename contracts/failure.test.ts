import assert from 'node:assert/strict';
import { test } from 'node:test';
import { curlLine, excerpt, formatFailure, type SentRequest, shellQuote, show } from './failure.ts';

test('excerpt flattens whitespace and truncates, saying how much was dropped', () => {
  const cases = [
    { given: { body: '{"a": 1}', limit: 300 }, want: '{"a": 1}' },
    { given: { body: '{\n  "a":\n 1\n}', limit: 300 }, want: '{ "a": 1 }' },
    { given: { body: 'x'.repeat(12), limit: 10 }, want: 'xxxxxxxxxx... (2 more characters)' },
  ];
  for (const { given, want } of cases) assert.equal(excerpt(given.body, given.limit), want);
});

test('curlLine reproduces the request and always masks the subscription key', () => {
  const cases: { given: SentRequest; want: string }[] = [
    {
      given: {
        method: 'GET',
        url: 'http://h/academic/v1.0/evaluate?expr=Y%3E1',
        headers: { 'Ocp-Apim-Subscription-Key': 'secret-key-123' },
      },
      want: "curl -sS -H 'Ocp-Apim-Subscription-Key: ***' 'http://h/academic/v1.0/evaluate?expr=Y%3E1'",
    },
    {
      given: {
        method: 'POST',
        url: 'http://h/s',
        headers: { 'ocp-apim-subscription-key': 'k2-abcdef', 'Content-Type': 'application/x-www-form-urlencoded' },
        body: "s1=it's&s2=b",
      },
      want: `curl -sS -X POST -H 'ocp-apim-subscription-key: ***' -H 'Content-Type: application/x-www-form-urlencoded' --data-raw 's1=it'\\''s&s2=b' 'http://h/s'`,
    },
    {
      given: { method: 'POST', url: 'http://h/s', headers: {}, body: 'a'.repeat(300) },
      want: `curl -sS -X POST --data-raw '<300 bytes: ${'a'.repeat(40)}...>' 'http://h/s'`,
    },
  ];
  for (const { given, want } of cases) {
    assert.equal(curlLine(given), want);
    assert.ok(!curlLine(given).includes('secret-key-123') && !curlLine(given).includes('k2-abcdef'));
  }
});

test('shellQuote survives single quotes', () => {
  const cases = [
    { given: 'plain', want: "'plain'" },
    { given: "it's", want: "'it'\\''s'" },
  ];
  for (const { given, want } of cases) assert.equal(shellQuote(given), want);
});

test('show renders values on one short line', () => {
  const cases = [
    { given: 'text', want: '"text"' },
    { given: undefined, want: 'nothing' },
    { given: { a: [1, 2] }, want: '{"a":[1,2]}' },
    { given: 'y'.repeat(200), want: `"${'y'.repeat(119)}...` },
  ];
  for (const { given, want } of cases) assert.equal(show(given), want);
});

test('formatFailure prints every part that is present, in a fixed order', () => {
  const cases = [
    {
      given: {
        check: 'paging-is-consistent',
        operation: 'GET /academic/v1.0/evaluate',
        title: 'consecutive pages overlap',
        received: '1 item',
        documented: 'none',
      },
      want: '[paging-is-consistent] GET /academic/v1.0/evaluate: consecutive pages overlap\n  received:   1 item\n  documented: none',
    },
    {
      given: {
        check: 'response-matches-spec',
        operation: 'GET /x',
        title: 't',
        received: 'r',
        documented: 'd',
        pointer: '',
        excerpt: '{}',
        curl: "curl 'u'",
      },
      want: "[response-matches-spec] GET /x: t\n  received:   r\n  documented: d\n  at:         /\n  body:       {}\n  reproduce:  curl 'u'",
    },
  ];
  for (const { given, want } of cases) assert.equal(formatFailure(given), want);
});
