import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formatQuota, parseQuota, QuotaError } from './quota.ts';

test('a quota is a whole number of requests a month', () => {
  const cases: { given: string; want: number | RegExp }[] = [
    { given: '10000/month', want: 10_000 },
    { given: ' 250 / Month ', want: 250 },
    { given: '10000', want: /no period/ },
    { given: '10000/week', want: /not N\/month/ },
    { given: '1.5/month', want: /not N\/month/ },
    { given: '0/month', want: /out of range/ },
    { given: '-3/month', want: /not N\/month/ },
  ];
  for (const { given, want } of cases) {
    if (typeof want === 'number') assert.equal(parseQuota(given).requests, want, given);
    else
      assert.throws(
        () => parseQuota(given),
        (error: unknown) => error instanceof QuotaError && want.test(error.message),
        given,
      );
  }
  assert.equal(formatQuota(parseQuota('10000/month')), '10000/month');
});
