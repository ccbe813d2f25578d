import assert from 'node:assert/strict';
import { test } from 'node:test';
import { OPERATION_IDS, OPERATIONS } from '../../openapi/spec.ts';
import { validateRequest } from '../../openapi/validator.ts';
import {
  allocate,
  caseAt,
  casesFor,
  encodePairs,
  fullRound,
  kindNames,
  pairsOf,
  rawSafe,
  roundLength,
} from './cases.ts';
import { parseExpression } from './expression.ts';
import { DEFAULT_POOLS } from './values.ts';

/**
 * Negative kinds whose rule the spec's schemas cannot state (a URL with an empty host or a
 * malformed port passes the `uri` format; the POST content type is not a parameter): they break
 * the interface all the same (4.2, 4.10 and RFC 7230's http URI).
 */
const BEYOND_THE_SCHEMA = new Set(['post:wrong-content-type', 'q:scheme-only', 'q:bad-port']);

test('same seed, same cases; another seed, other cases', () => {
  for (const id of OPERATION_IDS) {
    const count = roundLength(id);
    const once = JSON.stringify(casesFor(42, id, count, DEFAULT_POOLS));
    assert.equal(JSON.stringify(casesFor(42, id, count, DEFAULT_POOLS)), once, `${id}: seed 42 twice`);
    assert.notEqual(JSON.stringify(casesFor(43, id, count, DEFAULT_POOLS)), once, `${id}: seed 43 differs`);
  }
});

test('case k of an operation does not depend on how many cases are drawn', () => {
  for (const id of OPERATION_IDS) {
    const cases = casesFor(5, id, 3 * roundLength(id), DEFAULT_POOLS);
    for (const index of [0, 17, cases.length - 1]) {
      assert.deepEqual(caseAt(5, id, index, DEFAULT_POOLS), cases[index], `${id} case ${index}`);
    }
  }
});

test('the first round of an operation holds every kind of case once', () => {
  for (const id of OPERATION_IDS) {
    const kinds = casesFor(9, id, roundLength(id), DEFAULT_POOLS).map((c) => c.kind);
    const names = kindNames(id);
    assert.deepEqual(
      [...kinds].sort(),
      [...names.positive, ...names.negative, ...names.edge].sort(),
      `${id}: one round, every kind once`,
    );
    assert.ok(names.positive.length > 0 && names.negative.length > 0 && names.edge.length > 0, `${id}: all intents`);
  }
});

test('positive cases are valid by the spec and the grammar; negative ones break a rule', () => {
  for (const op of OPERATIONS) {
    for (const c of casesFor(3, op.operationId, 4 * roundLength(op.operationId), DEFAULT_POOLS)) {
      if (c.intent === 'edge') continue;
      const fields = Object.fromEntries(pairsOf(c.params));
      const parts = op.method === 'post' ? { form: fields } : { query: fields };
      const spec = validateRequest(op.operationId, { ...parts, pathParams: c.pathParams ?? {} }).valid;
      const grammar = fields.expr === undefined || parseExpression(fields.expr).ok;
      const where = `${op.operationId} case ${c.index} (${c.kind}): ${JSON.stringify(fields).slice(0, 200)}`;
      if (c.intent === 'positive') {
        assert.ok(spec && grammar, `${where} is valid`);
        assert.equal(
          new Set(pairsOf(c.params).map(([name]) => name)).size,
          c.params.length,
          `${where} names no parameter twice`,
        );
      } else {
        assert.ok(!spec || !grammar || BEYOND_THE_SCHEMA.has(c.kind), `${where} breaks a rule`);
      }
    }
  }
});

test('a form body goes unencoded only when its values say so unambiguously', () => {
  for (const op of OPERATIONS.filter((candidate) => candidate.method === 'post')) {
    for (const c of casesFor(8, op.operationId, 3 * roundLength(op.operationId), DEFAULT_POOLS)) {
      if (c.encoding !== 'raw') continue;
      for (const [name, value] of pairsOf(c.params)) {
        assert.ok(rawSafe(value), `${op.operationId} case ${c.index}: ${name}=${value.slice(0, 80)} is safe unencoded`);
      }
    }
  }
});

test('encodings write the same pairs three ways', () => {
  const pairs: [string, string][] = [
    ['expr', "Composite(AA.AuN=='jaime teevan')"],
    ['count', '2'],
  ];
  const cases: { given: Parameters<typeof encodePairs>[1]; want: string }[] = [
    { given: 'plus', want: 'expr=Composite%28AA.AuN%3D%3D%27jaime+teevan%27%29&count=2' },
    { given: 'percent', want: "expr=Composite(AA.AuN%3D%3D'jaime%20teevan')&count=2" },
    { given: 'raw', want: "expr=Composite(AA.AuN=='jaime teevan')&count=2" },
  ];
  for (const { given, want } of cases) assert.equal(encodePairs(pairs, given), want, given);
});

test('a budget is spread over the operations by their round lengths', () => {
  const round = fullRound(OPERATION_IDS);
  const plan = allocate(round, OPERATION_IDS);
  for (const id of OPERATION_IDS) assert.equal(plan.get(id), roundLength(id), `${id} gets one round`);
  assert.equal(allocate(5, ['evaluateGet']).get('evaluateGet'), 5, 'one operation takes the whole budget');
  assert.ok(
    [...allocate(1, OPERATION_IDS).values()].every((n) => n >= 1),
    'every operation gets a case',
  );
});
