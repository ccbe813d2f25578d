import assert from 'node:assert/strict';
import { test } from 'node:test';
import { NoiseModel } from './noise.ts';
import type { Diff } from './structural.ts';

const OP = 'GET /answersearch/v7.0/search';

test('NoiseModel sets aside what the current deployment varies by itself, and nothing more', () => {
  const noise = new NoiseModel();
  noise.learn(OP, [
    { pointer: '/webPages/value/0/dateLastCrawled', kind: 'value', candidate: '2026-01-01', current: '2026-01-02' },
    { pointer: '/webPages/totalEstimatedMatches', kind: 'value', candidate: 100, current: 102 },
  ]);
  noise.learn(OP, [{ pointer: '/webPages/totalEstimatedMatches', kind: 'value', candidate: 99, current: 100 }]);
  noise.learn('GET /eventknowledge/v1.0/hotevents', [
    { pointer: '/value', kind: 'set', candidate: ['a'], current: ['b'] },
  ]);
  noise.learn('GET /urlpreview/v7.0/search', [
    { pointer: '', kind: 'status', candidate: 429, current: 200 },
    {
      pointer: '',
      kind: 'transport',
      candidate: 'timeout: no response headers within 10000 ms',
      current: 'status 200',
    },
  ]);
  const cases: { name: string; op: string; diff: Diff; want: boolean }[] = [
    {
      name: 'a string that varied, at another array position',
      op: OP,
      diff: { pointer: '/webPages/value/4/dateLastCrawled', kind: 'value', candidate: 'a', current: 'b' },
      want: true,
    },
    {
      name: 'the same pointer on another operation',
      op: 'GET /urlpreview/v7.0/search',
      diff: { pointer: '/webPages/value/4/dateLastCrawled', kind: 'value', candidate: 'a', current: 'b' },
      want: false,
    },
    {
      name: 'a pointer that never varied',
      op: OP,
      diff: { pointer: '/webPages/value/0/url', kind: 'order', candidate: 'a', current: 'b' },
      want: false,
    },
    {
      name: 'a number within three times its spread (2 %)',
      op: OP,
      diff: { pointer: '/webPages/totalEstimatedMatches', kind: 'value', candidate: 100, current: 105 },
      want: true,
    },
    {
      name: 'a number within three times its absolute variation (2), however small its relative one',
      op: OP,
      diff: { pointer: '/webPages/totalEstimatedMatches', kind: 'value', candidate: 2000, current: 2006 },
      want: true,
    },
    {
      name: 'a number well beyond its spread',
      op: OP,
      diff: { pointer: '/webPages/totalEstimatedMatches', kind: 'value', candidate: 100, current: 120 },
      want: false,
    },
    {
      name: 'below a pointer that varies as a whole',
      op: 'GET /eventknowledge/v1.0/hotevents',
      diff: { pointer: '/value/3/title', kind: 'value', candidate: 'x', current: 'y' },
      want: true,
    },
    {
      name: 'a status that varied covers status differences',
      op: 'GET /urlpreview/v7.0/search',
      diff: { pointer: '', kind: 'status', candidate: 404, current: 200 },
      want: true,
    },
    {
      name: 'but not the bodies of answers with equal statuses',
      op: 'GET /urlpreview/v7.0/search',
      diff: { pointer: '/name', kind: 'value', candidate: 'a', current: 'b' },
      want: false,
    },
  ];
  for (const { name, op, diff, want } of cases) assert.equal(noise.explains(op, diff), want, name);
  assert.deepEqual(
    noise.list().map((entry) => [entry.operation, entry.pointer, entry.numeric, entry.seen]),
    [
      [OP, '/webPages/totalEstimatedMatches', true, 2],
      [OP, '/webPages/value/*/dateLastCrawled', false, 1],
      ['GET /eventknowledge/v1.0/hotevents', '/value', false, 1],
      ['GET /urlpreview/v7.0/search', '', false, 1],
    ].sort((a, b) => String(a[0]).localeCompare(String(b[0])) || String(a[1]).localeCompare(String(b[1]))),
  );
});
