import assert from 'node:assert/strict';
import { test } from 'node:test';
import { beyondJsonLimits, jsonDepth, jsonLimitPassed, jsonShape, MAX_OBJECT_MEMBERS } from './json-bounds.ts';

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

test('jsonShape counts the members of each object over the raw bytes, ignoring commas in strings and arrays', () => {
  const cases = [
    { given: '{}', want: 0 },
    { given: '{ }', want: 0 },
    { given: '{"a":1}', want: 1 },
    { given: '{ "a" : 1 , "b" : 2 }', want: 2 },
    { given: '{"a":"x,y,z"}', want: 1 },
    { given: '{"a\\",":1}', want: 1 },
    { given: '{"a":[1,2,3,4,5]}', want: 1 },
    { given: '[1,2,3]', want: 0 },
    { given: '{"a":{"b":1,"c":2,"d":3},"e":4}', want: 3 },
    { given: '[{"a":1,"b":2},{"c":3}]', want: 2 },
  ];
  for (const { given, want } of cases) assert.equal(jsonShape(Buffer.from(given)).widestObject, want, given);
});

test('an object wider than the limit is refused, a long array is not', () => {
  const members = (count: number) =>
    Buffer.from(`{"entities":[{${Array.from({ length: count }, (_, i) => `"k${i}":0`).join(',')}}]}`);
  assert.equal(beyondJsonLimits(members(MAX_OBJECT_MEMBERS)), undefined, 'at the limit');
  assert.deepEqual(jsonLimitPassed(members(MAX_OBJECT_MEMBERS + 1))?.limit, 'members', 'one past it');
  assert.match(beyondJsonLimits(members(1_000_000)) ?? '', /holding an object of more than 10000 members, not parsed/);
  // The scan stops one member past the limit, however wide the object.
  assert.equal(jsonShape(members(1_000_000)).widestObject, MAX_OBJECT_MEMBERS + 1);
  const entities = Buffer.from(`{"entities":[${'{"prob":0.5},'.repeat(1_000_000)}{"prob":0.5}]}`);
  assert.equal(beyondJsonLimits(entities), undefined, 'a million entities, each of one member');
});
