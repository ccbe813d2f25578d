import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  beyondJsonLimits,
  jsonDepth,
  jsonLimitPassed,
  jsonShape,
  MAX_JSON_CONTAINERS,
  MAX_OBJECT_MEMBERS,
} from './json-bounds.ts';

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

test('an object wider than the limit is refused', () => {
  const members = (count: number) =>
    Buffer.from(`{"entities":[{${Array.from({ length: count }, (_, i) => `"k${i}":0`).join(',')}}]}`);
  assert.equal(beyondJsonLimits(members(MAX_OBJECT_MEMBERS)), undefined, 'at the limit');
  assert.deepEqual(jsonLimitPassed(members(MAX_OBJECT_MEMBERS + 1))?.limit, 'members', 'one past it');
  assert.match(beyondJsonLimits(members(1_000_000)) ?? '', /holding an object of more than 10000 members, not parsed/);
  // The scan stops one member past the limit, however wide the object.
  assert.equal(jsonShape(members(1_000_000)).widestObject, MAX_OBJECT_MEMBERS + 1);
});

test('a body of more arrays and objects than the limit is refused; a long array of numbers or strings is not', () => {
  const entities = (count: number) => Buffer.from(`{"entities":[${'{},'.repeat(count - 1)}{}]}`);
  // The body itself is one object: the limit less one entities are in bounds.
  assert.equal(beyondJsonLimits(entities(MAX_JSON_CONTAINERS - 2)), undefined, 'at the limit');
  assert.deepEqual(jsonLimitPassed(entities(MAX_JSON_CONTAINERS - 1))?.limit, 'containers', 'one past it');
  assert.match(beyondJsonLimits(entities(1_000_000)) ?? '', /holding more than 500000 arrays and objects, not parsed/);
  assert.equal(jsonShape(entities(1_000_000)).containers, MAX_JSON_CONTAINERS + 1);
  assert.equal(beyondJsonLimits(Buffer.from(`{"RId":[${'2157025439,'.repeat(700_000)}1]}`)), undefined, 'numbers');
  assert.equal(beyondJsonLimits(Buffer.from(`{"W":[${'"word",'.repeat(1_000_000)}"x"]}`)), undefined, 'strings');
  // A page of 10,000 papers with five authors and five fields of study each: about 130,000.
  const paper = `{"prob":0.1,"Ti":"a paper","AA":[${'{"AuN":"an author","AuId":1},'.repeat(4)}{"AuN":"x","AuId":2}],"F":[${'{"FN":"a field"},'.repeat(4)}{"FN":"y"}]}`;
  const page = Buffer.from(`{"expr":"Y>2012","entities":[${`${paper},`.repeat(9_999)}${paper}]}`);
  assert.equal(beyondJsonLimits(page), undefined, `a page of 10,000 papers (${page.length} bytes)`);
});
