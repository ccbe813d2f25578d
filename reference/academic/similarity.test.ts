import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createAcademicEngine } from './engine.ts';
import { cosine } from './similarity.ts';

const engine = createAcademicEngine({ seed: 7, papers: 3000 });

function score(s1: string, s2: string): number {
  const result = engine.similarity({ s1, s2 });
  assert.equal(result.status, 200, JSON.stringify(result.body));
  assert.equal(typeof result.body, 'number');
  return result.body as number;
}

describe('similarity', () => {
  const cases: { given: [string, string]; want: (value: number) => boolean; why: string }[] = [
    { given: ['machine learning', 'machine learning'], want: (v) => v === 1, why: 'identical texts' },
    { given: ['Machine Learning!', 'machine   learning'], want: (v) => v === 1, why: 'same concepts, other spelling' },
    { given: ['home', 'house'], want: (v) => v === 0, why: 'no academic concepts' },
    { given: ['', 'machine learning'], want: (v) => v === 0, why: 'an empty text has no concepts' },
    {
      given: ['deep neural networks for image retrieval', 'neural retrieval models'],
      want: (v) => v > 0 && v < 1,
      why: 'shared concepts',
    },
    { given: ['computer vision', 'information retrieval'], want: (v) => v === 0, why: 'different fields' },
    { given: ['indexing documents', 'indexing'], want: (v) => v > 0.3 && v < 1, why: 'one concept in common' },
  ];
  for (const { given, want, why } of cases) {
    it(`${JSON.stringify(given)}: ${why}`, () => {
      const forward = score(given[0], given[1]);
      assert.ok(want(forward), `got ${forward}`);
      assert.ok(Object.is(forward, score(given[1], given[0])), 'symmetric to the bit');
    });
  }

  it('handles a 1 MB text in linear time', () => {
    const big = 'scalable retrieval of semantic documents with neural ranking models '.repeat(15_000);
    assert.ok(big.length > 1_000_000);
    const started = performance.now();
    const value = score(big, `${big} caching`);
    assert.ok(value > 0.9 && value < 1, `got ${value}`);
    // About a second on a quiet machine; a quadratic pass over a megabyte would take hours, so a
    // minute is a loaded machine's margin.
    assert.ok(performance.now() - started < 60_000, 'in linear time');
  });

  it('answers 408 Timeout past the compute deadline', () => {
    const hurried = createAcademicEngine({ seed: 7, papers: 500, similarityDeadlineMs: 0 });
    const result = hurried.similarity({ s1: 'machine learning', s2: 'data mining' });
    assert.equal(result.status, 408);
    assert.deepEqual(Object.keys((result.body as { error: object }).error), ['code', 'message']);
    assert.equal((result.body as { error: { code: string } }).error.code, 'Timeout');
  });

  const missing: { given: Record<string, string>; want: string }[] = [
    { given: { s2: 'x' }, want: 's1' },
    { given: { s1: 'x' }, want: 's2' },
    { given: {}, want: 's1' },
  ];
  for (const { given, want } of missing) {
    it(`${JSON.stringify(given)} -> 400 naming ${want}`, () => {
      const result = engine.similarity(given);
      assert.equal(result.status, 400);
      const body = result.body as { error: { code: string; message: string } };
      assert.equal(body.error.code, 'Bad Argument');
      assert.match(body.error.message, new RegExp(`\\b${want}\\b`));
    });
  }

  it('cosine stays in [-1, 1] and is exactly 1 for equal vectors', () => {
    const a = new Map([
      [3, 0.1],
      [7, 2.5],
    ]);
    assert.equal(cosine(a, new Map(a)), 1);
    assert.equal(cosine(a, new Map()), 0);
    const b = new Map([[7, 1e308]]);
    const value = cosine(a, b);
    assert.ok(value >= -1 && value <= 1, `got ${value}`);
  });
});
