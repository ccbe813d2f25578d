import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { FormDecodeError, parseForm } from './form.ts';

describe('parseForm', () => {
  const cases: { given: string; want: Record<string, string> }[] = [
    { given: '', want: {} },
    { given: 's1=home&s2=house', want: { s1: 'home', s2: 'house' } },
    { given: "expr=Composite(AA.AuN=='jaime teevan')", want: { expr: "Composite(AA.AuN=='jaime teevan')" } },
    { given: "expr=Composite(AA.AuN%3D%3D'jaime+teevan')", want: { expr: "Composite(AA.AuN=='jaime teevan')" } },
    {
      given: 'expr=Composite%28AA.AuN%3D%3D%27jaime%20teevan%27%29',
      want: { expr: "Composite(AA.AuN=='jaime teevan')" },
    },
    { given: 'query=papers+by+jaime&complete=1', want: { query: 'papers by jaime', complete: '1' } },
    { given: 's1=c++ rocks&s2=x', want: { s1: 'c++ rocks', s2: 'x' } },
    { given: 's1=R&D work&s2=house', want: { s1: 'R&D work', s2: 'house' } },
    { given: 's1=100% sure&s2=50%25 off', want: { s1: '100% sure', s2: '50% off' } },
    { given: 's1=caf%C3%A9&s2=na%C3%AFve', want: { s1: 'café', s2: 'naïve' } },
    { given: 's1=café au lait&s2=x', want: { s1: 'café au lait', s2: 'x' } },
    { given: 'a=1&a=2', want: { a: '1' } },
    { given: 'flag&x=1&&=3', want: { flag: '', x: '1' } },
    { given: 'expr=Y%3E2012&count=10', want: { expr: 'Y>2012', count: '10' } },
    { given: 's%31=home', want: { s1: 'home' } },
    { given: 'x=%zz', want: { x: '%zz' } },
    { given: 'x=%E0%A4 y', want: { x: '%E0%A4 y' } },
  ];
  for (const { given, want } of cases) {
    test(`${JSON.stringify(given)} -> ${JSON.stringify(want)}`, () => {
      assert.deepEqual({ ...parseForm(given) }, want);
    });
  }

  const invalid: { given: string; want: string }[] = [
    { given: 'x=%E0%A4', want: 'x' },
    { given: 'expr=%FF&count=1', want: 'expr' },
  ];
  for (const { given, want } of invalid) {
    test(`${JSON.stringify(given)} is invalid UTF-8 in ${want}`, () => {
      assert.throws(
        () => parseForm(given),
        (error: unknown) => error instanceof FormDecodeError && error.field === want,
      );
    });
  }

  test('has no prototype keys', () => {
    assert.deepEqual(Object.entries(parseForm('toString=1&__proto__=2')), [
      ['toString', '1'],
      ['__proto__', '2'],
    ]);
    assert.equal(Object.getPrototypeOf(parseForm('a=1')), null);
  });
});
