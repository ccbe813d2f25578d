import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseExpression } from './expression.ts';
import { Random } from './random.ts';
import { isCalendarDate } from './values.ts';
import {
  abstractText,
  BOUNDARY_DATES,
  CENTURY_DATES,
  classesOf,
  EXPRESSION_CLASSES,
  encyclopediaId,
  expressionValues,
  freeText,
  LOOKALIKE_DATES,
  paddedText,
  WORLD_CLASSES,
  worldText,
  worldUrl,
} from './world.ts';

const SEEDS = Array.from({ length: 40 }, (_, i) => i + 1);

test('a free text of the world shows every class, one part each', () => {
  for (const seed of SEEDS) {
    const value = freeText(new Random(seed));
    assert.equal(value.parts.length, WORLD_CLASSES.length, `seed ${seed}: one part per class`);
    assert.deepEqual([...classesOf(worldText(value))].sort(), [...WORLD_CLASSES].sort(), `seed ${seed}: every class`);
  }
});

test('a padded query has white space at both ends; an abstract has line breaks and tabs', () => {
  for (const seed of SEEDS) {
    const padded = worldText(paddedText(new Random(seed)));
    assert.notEqual(padded.trim(), padded, `seed ${seed}: ${JSON.stringify(padded)}`);
    assert.match(padded, /^\s.*\S.*\s$/su, `seed ${seed}: both ends`);
    const abstract = worldText(abstractText(new Random(seed)));
    assert.match(abstract, /\n/, `seed ${seed}: a line break`);
    assert.match(abstract, /\t/, `seed ${seed}: a tab`);
  }
});

test('every expression value is a valid quoted value (lower case, no quote) and shows its class', () => {
  const shown = new Set<string>();
  for (const seed of SEEDS) {
    for (const value of expressionValues(new Random(seed))) {
      for (const form of ['==', '=']) {
        const parsed = parseExpression(`Ti${form}'${value}'`);
        assert.ok(parsed.ok, `Ti${form}'${value}' parses: ${parsed.ok ? '' : parsed.error}`);
      }
      for (const name of classesOf(value)) shown.add(name);
    }
  }
  for (const name of EXPRESSION_CLASSES) assert.ok(shown.has(name), `${name} is shown`);
  assert.ok(!shown.has('capitals') && !shown.has('apostrophe'), 'no capital, no apostrophe');
});

test('the decomposed class differs from its composed twin only in Unicode form', () => {
  const value = expressionValues(new Random(3)).find((text) => text.normalize('NFC') !== text);
  assert.ok(value, 'a decomposed value is drawn');
  assert.notEqual(value.normalize('NFC'), value);
  assert.equal(value.normalize('NFC').normalize('NFD'), value);
});

test('encyclopedia ids, URLs and dates are what they say', () => {
  for (const seed of SEEDS) {
    const id = worldText(encyclopediaId(new Random(seed)));
    assert.match(id, /_/, `${id}: underscores`);
    assert.match(id, /,/, `${id}: a comma`);
    assert.match(id, /\(.+\)/, `${id}: a qualifier`);
    assert.doesNotMatch(id, /\s/, `${id}: no white space`);
    const url = worldUrl(new Random(seed));
    assert.doesNotThrow(() => new URL(url), `${url} is a URL`);
  }
  for (const date of BOUNDARY_DATES) assert.ok(isCalendarDate(date), `${date} is a calendar date`);
  assert.ok(CENTURY_DATES.length >= 5 && CENTURY_DATES.every((date) => /^\d\d00-/.test(date)), 'century dates');
  for (const date of LOOKALIKE_DATES) assert.equal(isCalendarDate(date), false, `${date} is not yyyy-mm-dd`);
});
