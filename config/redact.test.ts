import assert from 'node:assert/strict';
import { test } from 'node:test';
import { redactSecrets, registerSecret } from './redact.ts';

test('redactSecrets masks registered secrets, the key header, URL passwords and proxy credentials', () => {
  registerSecret('registered-secret-0001');
  const cases = [
    { given: 'a registered-secret-0001 b', want: 'a *** b' },
    { given: "-H 'Ocp-Apim-Subscription-Key: abc123'", want: "-H 'Ocp-Apim-Subscription-Key: ***'" },
    {
      given: 'proxy http://runner:s3cret@127.0.0.1:3128 failed',
      want: 'proxy http://runner:***@127.0.0.1:3128 failed',
    },
    { given: 'HTTPS_PROXY=http://u:p%40ss@proxy:8080', want: 'HTTPS_PROXY=http://u:***@proxy:8080' },
    { given: 'already http://runner:***@127.0.0.1:3128', want: 'already http://runner:***@127.0.0.1:3128' },
    { given: 'Proxy-Authorization: Basic cnVubmVyOnMzY3JldA==', want: 'Proxy-Authorization: Basic ***' },
    {
      given: 'no credentials http://127.0.0.1:3128/x and mail a@b',
      want: 'no credentials http://127.0.0.1:3128/x and mail a@b',
    },
  ];
  for (const { given, want } of cases) assert.equal(redactSecrets(given), want, given);
});
