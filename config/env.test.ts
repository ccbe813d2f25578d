import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readCompareKeys, readKeys } from './env.ts';

test('readKeys takes KGATE_KEY* first, then the variables a configuration file names', () => {
  const cases: {
    given: { names: Parameters<typeof readKeys>[0]; env: NodeJS.ProcessEnv };
    want: ReturnType<typeof readKeys>;
  }[] = [
    { given: { names: {}, env: {} }, want: { keys: {}, unset: [] } },
    { given: { names: {}, env: { KGATE_KEY: 'k1' } }, want: { keys: { full: 'k1' }, unset: [] } },
    {
      given: { names: { full: 'PROD_KEY', exhausted: 'SPENT_KEY' }, env: { PROD_KEY: 'p1', SPENT_KEY: 's1' } },
      want: { keys: { full: 'p1', exhausted: 's1' }, unset: [] },
    },
    {
      given: { names: { full: 'PROD_KEY' }, env: { KGATE_KEY: 'k1', PROD_KEY: 'p1' } },
      want: { keys: { full: 'k1' }, unset: [] },
    },
    {
      given: { names: { full: 'PROD_KEY', unsubscribed: 'ACADEMIC_KEY' }, env: { KGATE_KEY: ' ', PROD_KEY: '' } },
      want: { keys: {}, unset: ['PROD_KEY', 'ACADEMIC_KEY'] },
    },
  ];
  for (const { given, want } of cases) {
    assert.deepEqual(readKeys(given.names, given.env), want, JSON.stringify(given));
  }
});

test("readCompareKeys: KGATE_KEY for the candidate, KGATE_AGAINST_KEY for the current deployment (default the candidate's)", () => {
  const cases: {
    given: { names: Parameters<typeof readCompareKeys>[0]; env: NodeJS.ProcessEnv };
    want: ReturnType<typeof readCompareKeys>;
  }[] = [
    { given: { names: {}, env: {} }, want: { candidate: undefined, current: undefined, unset: [] } },
    { given: { names: {}, env: { KGATE_KEY: 'k1' } }, want: { candidate: 'k1', current: 'k1', unset: [] } },
    {
      given: { names: {}, env: { KGATE_KEY: 'k1', KGATE_AGAINST_KEY: 'a1' } },
      want: { candidate: 'k1', current: 'a1', unset: [] },
    },
    {
      given: { names: { full: 'STAGING_KEY', against: 'PROD_KEY' }, env: { STAGING_KEY: 's1', PROD_KEY: 'p1' } },
      want: { candidate: 's1', current: 'p1', unset: [] },
    },
    {
      given: { names: { against: 'PROD_KEY' }, env: { KGATE_KEY: 'k1', KGATE_AGAINST_KEY: 'a1', PROD_KEY: 'p1' } },
      want: { candidate: 'k1', current: 'a1', unset: [] },
    },
    {
      given: { names: { full: 'STAGING_KEY', against: 'PROD_KEY' }, env: { PROD_KEY: ' ' } },
      want: { candidate: undefined, current: undefined, unset: ['STAGING_KEY', 'PROD_KEY'] },
    },
  ];
  for (const { given, want } of cases) {
    assert.deepEqual(readCompareKeys(given.names, given.env), want, JSON.stringify(given));
  }
});
