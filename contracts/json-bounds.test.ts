import assert from 'node:assert/strict';
import { test } from 'node:test';
import { beyondJsonLimits, jsonDepth } from './json-bounds.ts';

test('jsonDepth counts nesting over the raw bytes, ignoring brackets in strings', () => {
  const cases = [
    { given: '{}', want: 1 },
    { given: '[[[]]]', want: 3 },
    { given: '{"a":[1,{"b":2}]}', want: 3 },
    { given: '{"a":"[[[[{{{{"}', want: 1 },
    { given: '{"a":"\\"[[[["}', want: 1 },
    { given: '"just a string"', want: 0 },
    { given: '[]]]][[', want: 1 },
  ];
  for (const { given, want } of cases) assert.equal(jsonDepth(Buffer.from(given)), want, given);
});

test('jsonDepth stops one level past the limit, however deep the body', () => {
  const deep = Buffer.from(`${'['.repeat(400_000)}${']'.repeat(400_000)}`);
  assert.equal(jsonDepth(deep, 128), 129);
  assert.match(beyondJsonLimits(deep) ?? '', /800000 bytes nested more than 128 levels deep/);
  assert.equal(beyondJsonLimits(Buffer.from('{"entities":[{"AA":[{"AuN":"x"}]}]}')), undefined);
});
