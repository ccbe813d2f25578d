import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { GeneratedCase } from '../contracts/generative/cases.ts';
import { buildBattery } from '../drift/battery.ts';
import { OPERATION_IDS } from '../openapi/spec.ts';
import { type ChainReader, fromBattery, fromCase, generatedCases, resolveChain, secondPage } from './requests.ts';

test('battery requests keep their query, form and key; the second page moves the offset one page on', () => {
  const battery = buildBattery({ exhaustedKey: false });
  const byName = (name: string) => battery.find((item) => item.name === name)!.build({ eventId: 'e'.repeat(32) })!;
  const cases = [
    {
      given: byName('evaluatePost: success'),
      want: { query: '', body: /^expr=Y%3E1900&attributes=.*&count=5$/, withKey: true, second: /&count=5&offset=5$/ },
    },
    {
      given: byName('hotEvents: no key'),
      want: { query: /^date=/, body: undefined, withKey: false, second: undefined },
    },
    {
      given: byName('answerSearch: success'),
      want: { query: /^q=.*&mkt=en-US&count=5$/, body: undefined, withKey: true, second: /&count=5&offset=5$/ },
    },
  ];
  for (const { given, want } of cases) {
    const request = fromBattery(given);
    if (typeof want.query === 'string') assert.equal(request.query, want.query, given.name);
    else assert.match(request.query, want.query, given.name);
    if (want.body) assert.match(request.body ?? '', want.body, given.name);
    else assert.equal(request.body, undefined, given.name);
    assert.equal(request.withKey, want.withKey, given.name);
    const second = given.name.endsWith('success') ? secondPage(given) : undefined;
    if (want.second) assert.match(second?.body ?? second?.query ?? '', want.second, `${given.name}: second page`);
    else assert.equal(second, undefined, `${given.name}: no second page`);
  }
  const documents = fromBattery(byName('eventDocuments: success'));
  assert.equal(documents.path, `/eventknowledge/v1.0/events/${'e'.repeat(32)}/documents`, 'the id found earlier');
});

test('chains carry what the current deployment answered; an unusable answer leaves the case as it was', async () => {
  const answers: Record<string, unknown> = {
    interpretGet: { interpretations: [{ rules: [{ output: { value: "Composite(AA.AuN=='jane doe')" } }] }] },
    hotEvents: { value: [{ eventId: 'a'.repeat(32), relatedEntities: ['Barack Obama'] }] },
    answerSearch: { webPages: { value: [{ url: 'https://example.test/page' }] } },
  };
  const read: ChainReader = async (operationId) => answers[operationId];
  const nothing: ChainReader = async () => undefined;
  const base = { index: 0, seed: 1, intent: 'positive', kind: 'chain', note: '', encoding: 'plus' } as const;
  const cases: { given: GeneratedCase; want: (c: GeneratedCase) => unknown; value: unknown }[] = [
    {
      given: {
        ...base,
        operationId: 'evaluateGet',
        params: [{ name: 'expr', value: 'Y>1900' }],
        chain: { kind: 'interpret-output', query: 'papers by jane doe', complete: '0', pick: 0 },
      },
      want: (c) => c.params[0]!.value,
      value: "Composite(AA.AuN=='jane doe')",
    },
    {
      given: {
        ...base,
        operationId: 'eventDocuments',
        params: [],
        pathParams: { event_id: 'x' },
        chain: { kind: 'hot-event', date: '2026-11-01', pick: 3, use: 'eventId' },
      },
      want: (c) => c.pathParams?.event_id,
      value: 'a'.repeat(32),
    },
    {
      given: {
        ...base,
        operationId: 'relatedEvents',
        params: [{ name: 'wikipediaid', value: 'x' }],
        chain: { kind: 'hot-event', date: '2026-11-01', pick: 0, use: 'wikipediaId' },
      },
      want: (c) => c.params.find((param) => param.name === 'wikipediaid')?.value,
      value: 'Barack_Obama',
    },
    {
      given: {
        ...base,
        operationId: 'urlPreview',
        params: [{ name: 'q', value: 'x' }],
        chain: { kind: 'answer-url', q: 'knowledge', pick: 0 },
      },
      want: (c) => c.params[0]!.value,
      value: 'https://example.test/page',
    },
  ];
  for (const { given, want, value } of cases) {
    assert.equal(want(await resolveChain(given, read)), value, given.operationId);
    assert.deepEqual(await resolveChain(given, nothing), given, `${given.operationId}: no answer, no change`);
  }
  const chained = fromCase(await resolveChain(cases[1]!.given, read));
  assert.equal(chained.path, `/eventknowledge/v1.0/events/${'a'.repeat(32)}/documents`);
});

test('generated cases: seeded, over every operation, interleaved operation by operation', () => {
  const cases = generatedCases(5, 30);
  assert.deepEqual(generatedCases(5, 30), cases, 'same seed, same cases');
  assert.deepEqual(new Set(cases.slice(0, OPERATION_IDS.length).map((c) => c.operationId)), new Set(OPERATION_IDS));
  assert.deepEqual(generatedCases(5, 0), []);
  const requests = cases.map(fromCase);
  assert.ok(
    requests.every((request) => request.path.startsWith('/') && !request.path.includes('{')),
    'paths filled',
  );
  assert.ok(requests.filter((request) => request.operation.method === 'post').every((request) => request.query === ''));
});
