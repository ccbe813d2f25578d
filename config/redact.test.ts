import assert from 'node:assert/strict';
import { test } from 'node:test';
import { maskUrl, redactSecrets, registerSecret } from './redact.ts';

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

test('redactSecrets masks the value of a query parameter named like a key, token or signature, and nothing else', () => {
  const cases = [
    {
      given: 'https://api.example.org/p?subscription-key=abc&x=1',
      want: 'https://api.example.org/p?subscription-key=***&x=1',
    },
    { given: "'http://h/e?expr=Y%3E1&apiToken=t0k&count=2'", want: "'http://h/e?expr=Y%3E1&apiToken=***&count=2'" },
    { given: '--data-raw expr=Y%3E1&attributes=Id%2CTi', want: '--data-raw expr=Y%3E1&attributes=Id%2CTi' },
    {
      given: 'http://127.0.0.1:8080/faults/auth-not-enforced-hotevents',
      want: 'http://127.0.0.1:8080/faults/auth-not-enforced-hotevents',
    },
    { given: 'a=b&c=d, no URL and no credential', want: 'a=b&c=d, no URL and no credential' },
  ];
  for (const { given, want } of cases) assert.equal(redactSecrets(given), want, given);
  assert.equal(maskUrl('https://u:p@h/x?sig=1'), 'https://u:***@h/x?sig=***');
});

test('registerSecret leaves out what would break the JSON reports: JSON literals and short numbers', () => {
  for (const secret of ['true', 'null', '1234', '12.5']) registerSecret(secret);
  registerSecret('98765432101');
  assert.equal(
    redactSecrets('{"a":true,"b":null,"c":1234,"d":12.5,"e":98765432101}'),
    '{"a":true,"b":null,"c":1234,"d":12.5,"e":***}',
  );
  assert.equal(
    redactSecrets("-H 'Authorization: Bearer abc' -H 'Cookie: s=1; t=2'"),
    "-H 'Authorization: Bearer ***' -H 'Cookie: ***'",
  );
});
