// Every class kgate's generator ever produced is still an item of the model: each value any version
// of the generator sent (earlier-values.json, written by scripts/earlier-values.ts from the
// repository's history) falls into classes of its input that the model lists, and every kind of
// case a version had is a kind of the generator today or carried by one (so the plan, which sends
// every item, sends what the draws of any earlier version sent).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { getOperation } from '../../openapi/spec.ts';
import { planKinds } from '../generative/cases.ts';
import { ATTRIBUTES } from '../generative/expression.ts';
import { ROLES, roleOf } from './classes.ts';
import { valueClasses } from './classify.ts';
import { allInputItems, inputId } from './inputs.ts';

interface EarlierValue {
  operation: string;
  kind: string;
  input: string;
  value?: string;
  head?: string;
  fill?: string;
  length?: number;
}

const EARLIER = JSON.parse(readFileSync(new URL('./earlier-values.json', import.meta.url), 'utf8')) as {
  commits: string[];
  kinds: Record<string, string[]>;
  values: EarlierValue[];
};

/** A value as the generator sent it (a long one rebuilt from its start and its fill: the same characters, the same length). */
function textOf(value: EarlierValue): string {
  if (value.value !== undefined) return value.value;
  let text = value.head!;
  while (text.length < value.length!) text += value.fill!;
  return text.slice(0, value.length);
}

/**
 * Roles whose plain values are classes only the kind that made them can tell (a page the target
 * knows or not, an id it returned): a value of them with no character of note falls into none.
 */
const DECLARED_BY_KIND = new Set(['url', 'encyclopedia-id']);

/** Kinds of earlier versions the generator has under another name, with the kind that carries their classes today. */
const RENAMED: Record<string, string> = {
  'paging:deep-window': 'paging:window',
  'texts:same-long': 'texts:same',
  'q:generated-url': 'edge:unknown-site',
  'date:leap-day': 'date:calendar-boundary',
};

const ITEMS = new Set(allInputItems().map((item) => item.id));

test('the earlier values come from every version of the generator in the history', () => {
  assert.ok(EARLIER.commits.length >= 15, `versions: ${EARLIER.commits.length}`);
  assert.ok(EARLIER.values.length >= 2000, `values: ${EARLIER.values.length}`);
});

test('every value an earlier generator sent falls into classes of its input that the model lists', () => {
  const unclassed: string[] = [];
  const unlisted: string[] = [];
  for (const earlier of EARLIER.values) {
    const op = getOperation(earlier.operation);
    assert.ok(op, earlier.operation);
    const role = roleOf(earlier.operation, earlier.input, op.method);
    // A parameter the interface does not define: the request's unknown-parameter class.
    if (!role) continue;
    const text = textOf(earlier);
    const classes = valueClasses(role, text);
    if (classes.length === 0 && !DECLARED_BY_KIND.has(role))
      unclassed.push(`${earlier.operation} ${earlier.input} (${earlier.kind}): ${JSON.stringify(text.slice(0, 60))}`);
    for (const cls of classes) {
      const item = inputId(earlier.operation, earlier.input, cls);
      if (!ITEMS.has(item)) unlisted.push(`${item} (${JSON.stringify(text.slice(0, 60))})`);
    }
  }
  assert.deepEqual(unclassed, [], 'a value of no class: the model has nothing that stands for it');
  assert.deepEqual([...new Set(unlisted)], [], 'a class the model does not list');
});

test('an orderby an earlier generator sent is a class of its attribute: several values per paper only for those that have several', () => {
  const several = new Set(['AA.AuN', 'AA.AuId', 'AA.AfN', 'AA.AfId', 'AA.S', 'F.FN', 'F.FId', 'W', 'RId']);
  for (const earlier of EARLIER.values.filter((value) => value.input === 'orderby')) {
    const text = textOf(earlier);
    const attribute = text.split(':')[0]!;
    if (!(attribute in ATTRIBUTES) || !/^[A-Za-z][A-Za-z.]*(:(asc|desc))?$/.test(text)) continue;
    const classes = valueClasses('orderby', text);
    assert.equal(classes.includes('multivalued'), several.has(attribute), `${text}: ${classes.join(', ')}`);
  }
});

test('every kind of case an earlier generator had is a kind of the generator today, or carried by one', () => {
  const missing: string[] = [];
  for (const [operation, kinds] of Object.entries(EARLIER.kinds)) {
    const today = new Set(planKinds(operation).map((kind) => kind.name));
    for (const kind of kinds)
      if (!today.has(kind) && !today.has(RENAMED[kind] ?? '')) missing.push(`${operation} ${kind}`);
  }
  assert.deepEqual(missing, []);
});

test('SOURCES.md names the source of every class of the model', () => {
  const doc = readFileSync(new URL('./SOURCES.md', import.meta.url), 'utf8');
  const named = new Set([...doc.matchAll(/`([^`\s]+)`/g)].map((match) => match[1]!));
  // A family of classes is named once: a predicate on each attribute, each attribute named, a value of each class of text.
  const family = (cls: string) =>
    ['attribute-', 'names-', 'value-'].some(
      (prefix) => cls.startsWith(prefix) && named.has(`${prefix}<${prefix === 'value-' ? 'class' : 'name'}>`),
    );
  const classes = new Set(Object.values(ROLES).flatMap((role) => role.classes.map((cls) => cls.id)));
  assert.deepEqual(
    [...classes].filter((cls) => !named.has(cls) && !family(cls)),
    [],
  );
});
