import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type Answer, diffAnswers, diffJson, isOrdered, normalizePointer } from './structural.ts';

test('normalizePointer turns array positions into *', () => {
  const cases = [
    { given: '', want: '' },
    { given: '/entities/3/AA/0/AuN', want: '/entities/*/AA/*/AuN' },
    { given: '/webPages/value/12', want: '/webPages/value/*' },
    { given: '/a1/b22c', want: '/a1/b22c' },
  ];
  for (const { given, want } of cases) assert.equal(normalizePointer(given), want, given);
});

test('arrays are lists where the interface orders them, sets elsewhere', () => {
  const cases = [
    { given: ['interpretGet', '/interpretations'], want: true },
    { given: ['evaluatePost', '/entities'], want: true },
    { given: ['evaluateGet', '/entities/*/F'], want: false },
    { given: ['calchistogramGet', '/histograms/*/histogram'], want: true },
    { given: ['answerSearch', '/rankingResponse/mainline/items'], want: true },
    { given: ['answerSearch', '/entities/value/*/contractualRules'], want: false },
    { given: ['relatedEvents', '/value'], want: true },
    { given: ['hotEvents', '/value/*/relatedEntities'], want: false },
    // The interface states no order for an event's documents ("all news in the event").
    { given: ['eventDocuments', '/value'], want: false },
  ];
  for (const { given, want } of cases) assert.equal(isOrdered(given[0]!, given[1]!), want, given.join(' '));
});

test('diffJson reports each difference once, by pointer, with both values', () => {
  const cases: { name: string; op: string; a: unknown; b: unknown; want: unknown[] }[] = [
    { name: 'equal', op: 'evaluateGet', a: { x: 1, y: ['a'] }, b: { y: ['a'], x: 1 }, want: [] },
    { name: 'number within 1e-6', op: 'similarityGet', a: 0.8123456, b: 0.81234561, want: [] },
    {
      name: 'whole numbers agree only when equal, however large (an id off by one is another paper)',
      op: 'evaluateGet',
      a: { entities: [{ Id: 2140251882, CC: 3 }] },
      b: { entities: [{ Id: 2140251882, CC: 4 }] },
      want: [{ pointer: '/entities/0/CC', kind: 'value', candidate: 3, current: 4 }],
    },
    {
      name: 'a large id off by one',
      op: 'similarityGet',
      a: 2140251882,
      b: 2140251883,
      want: [{ pointer: '', kind: 'value', candidate: 2140251882, current: 2140251883 }],
    },
    {
      name: 'number beyond the tolerance',
      op: 'similarityGet',
      a: 0.8123,
      b: 0.8124,
      want: [{ pointer: '', kind: 'value', candidate: 0.8123, current: 0.8124 }],
    },
    {
      name: 'absent and new keys',
      op: 'urlPreview',
      a: { name: 'x', extra: true },
      b: { name: 'x', gone: 1 },
      want: [
        { pointer: '/gone', kind: 'absent-in-candidate', candidate: undefined, current: 1 },
        { pointer: '/extra', kind: 'absent-in-current', candidate: true, current: undefined },
      ],
    },
    {
      name: 'type',
      op: 'evaluateGet',
      a: { entities: [{ Id: 1, Y: '2004' }] },
      b: { entities: [{ Id: 1, Y: 2004 }] },
      want: [{ pointer: '/entities/0/Y', kind: 'type', candidate: '2004', current: 2004 }],
    },
    {
      name: 'an ordered list holding other elements: one difference per position, by identity',
      op: 'evaluateGet',
      a: {
        entities: [
          { Id: 2, Ti: 'b' },
          { Id: 3, Ti: 'c' },
        ],
      },
      b: {
        entities: [
          { Id: 1, Ti: 'a' },
          { Id: 2, Ti: 'b' },
        ],
      },
      want: [
        { pointer: '/entities/0', kind: 'order', candidate: 2, current: 1 },
        { pointer: '/entities/1', kind: 'order', candidate: 3, current: 2 },
      ],
    },
    {
      name: 'ties of an ordered list (equal prob) may come in any order',
      op: 'interpretGet',
      a: {
        interpretations: [
          { prob: 0.5, parse: 'b' },
          { prob: 0.5, parse: 'a' },
          { prob: 0.1, parse: 'c' },
        ],
      },
      b: {
        interpretations: [
          { prob: 0.5, parse: 'a' },
          { prob: 0.5, parse: 'b' },
          { prob: 0.1, parse: 'c' },
        ],
      },
      want: [],
    },
    {
      name: 'but elements that are not tied keep their positions',
      op: 'calchistogramGet',
      a: {
        histograms: [
          {
            attribute: 'Y',
            histogram: [
              { value: 2001, count: 3 },
              { value: 2000, count: 5 },
            ],
          },
        ],
      },
      b: {
        histograms: [
          {
            attribute: 'Y',
            histogram: [
              { value: 2000, count: 5 },
              { value: 2001, count: 3 },
            ],
          },
        ],
      },
      want: [
        { pointer: '/histograms/0/histogram/0', kind: 'order', candidate: 2001, current: 2000 },
        { pointer: '/histograms/0/histogram/1', kind: 'order', candidate: 2000, current: 2001 },
      ],
    },
    {
      name: 'a tie the candidate broke differently, with another element in it, is still reported',
      op: 'evaluateGet',
      a: {
        entities: [
          { Id: 3, logprob: -1 },
          { Id: 1, logprob: -1 },
        ],
      },
      b: {
        entities: [
          { Id: 1, logprob: -1 },
          { Id: 2, logprob: -1 },
        ],
      },
      want: [{ pointer: '/entities/1', kind: 'order', candidate: 3, current: 2 }],
    },
    {
      name: 'an ordered list of another length',
      op: 'relatedEvents',
      a: { value: [{ eventId: 'e1' }] },
      b: { value: [{ eventId: 'e1' }, { eventId: 'e2' }] },
      want: [{ pointer: '/value', kind: 'length', candidate: 1, current: 2 }],
    },
    {
      name: 'a set in another order is equal; its matched elements are compared by identity',
      op: 'evaluateGet',
      a: {
        entities: [
          {
            Id: 1,
            F: [
              { FId: 7, FN: 'x' },
              { FId: 8, FN: 'y' },
            ],
          },
        ],
      },
      b: {
        entities: [
          {
            Id: 1,
            F: [
              { FId: 8, FN: 'z' },
              { FId: 7, FN: 'x' },
            ],
          },
        ],
      },
      want: [{ pointer: '/entities/0/F/0/FN', kind: 'value', candidate: 'y', current: 'z' }],
    },
    {
      name: 'a set of plain values: the elements only one side has',
      op: 'hotEvents',
      a: { value: [{ eventId: 'e', relatedEntities: ['B', 'A', 'C'] }] },
      b: { value: [{ eventId: 'e', relatedEntities: ['A', 'B', 'D'] }] },
      want: [{ pointer: '/value/0/relatedEntities', kind: 'set', candidate: ['C'], current: ['D'] }],
    },
    {
      name: 'numbers of a set within the tolerance',
      op: 'evaluateGet',
      a: { entities: [{ Id: 1, RId: [2.0000001, 5] }] },
      b: { entities: [{ Id: 1, RId: [5, 2] }] },
      want: [],
    },
  ];
  for (const { name, op, a, b, want } of cases) assert.deepEqual(diffJson(op, a, b), want, name);
});

test('diffAnswers: transport first, then status, then the body', () => {
  const ok = (json: unknown): Answer => ({ status: 200, json, text: JSON.stringify(json) });
  const cases: { name: string; a: Answer; b: Answer; want: unknown[] }[] = [
    {
      name: 'both failed: nothing to compare',
      a: { text: '', error: 'timeout' },
      b: { text: '', error: 'reset' },
      want: [],
    },
    {
      name: 'one side gave no answer',
      a: { text: '', error: 'timeout: no response headers within 10 ms' },
      b: ok({}),
      want: [
        {
          pointer: '',
          kind: 'transport',
          candidate: 'timeout: no response headers within 10 ms',
          current: 'status 200',
        },
      ],
    },
    {
      name: 'status',
      a: { status: 404, json: {}, text: '{}' },
      b: ok({ value: [] }),
      want: [{ pointer: '', kind: 'status', candidate: 404, current: 200 }],
    },
    { name: 'bodies not JSON, alike', a: { status: 200, text: 'x' }, b: { status: 200, text: 'x' }, want: [] },
    {
      name: 'bodies not JSON, different',
      a: { status: 200, text: 'x' },
      b: { status: 200, text: 'y' },
      want: [{ pointer: '', kind: 'value', candidate: 'x', current: 'y' }],
    },
  ];
  for (const { name, a, b, want } of cases) assert.deepEqual(diffAnswers('urlPreview', a, b), want, name);
});
