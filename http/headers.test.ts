import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  addedHeadersFor,
  configureHeaders,
  credentialSecrets,
  curlHeaderArgs,
  fieldValueProblem,
  headerSecrets,
  isHeaderName,
  withoutCredentials,
} from './headers.ts';

test('fieldValueProblem: what RFC 9110 field-value forbids, said without the value', () => {
  const cases = [
    { given: 'abc-123 x=y; "q"', want: undefined },
    { given: '', want: undefined },
    { given: 'tab\tinside', want: undefined },
    { given: 'latin1 \u00e9', want: undefined },
    { given: 'key\n', want: 'holds a line break (LF) at its end (character 4 of 4)' },
    { given: 'a\rb', want: 'holds a carriage return (CR) at character 2 of 3' },
    { given: 'a\0b', want: 'holds a NUL byte at character 2 of 3' },
    { given: 'bell\u0007', want: 'holds the control character U+0007 at its end (character 5 of 5)' },
    { given: 'del\u007f!', want: 'holds the control character U+007F at character 4 of 5' },
    { given: 'euro \u20ac', want: 'holds the character U+20AC (beyond one byte) at its end (character 6 of 6)' },
    { given: ' lead', want: 'begins with a space' },
    { given: 'trail\t', want: 'ends with a tab' },
  ];
  for (const { given, want } of cases) assert.equal(fieldValueProblem(given), want, JSON.stringify(given));
});

test('isHeaderName: an RFC 9110 token', () => {
  const cases = [
    { given: 'X-Tenant', want: true },
    { given: "a!#$%&'*+.^_`|~-9", want: true },
    { given: 'Bad Name', want: false },
    { given: 'Colon:', want: false },
    { given: '', want: false },
  ];
  for (const { given, want } of cases) assert.equal(isHeaderName(given), want, given);
});

test("the added headers: configured ones, then a URL's Basic credentials, none a request sets itself", () => {
  try {
    configureHeaders([
      { name: 'User-Agent', value: 'kgate/9.9.9', secret: false, implied: true },
      { name: 'X-Tenant', value: 'acme', secret: true },
    ]);
    const cases = [
      {
        given: { url: 'http://h/api', own: {} },
        want: [
          ['User-Agent', 'kgate/9.9.9'],
          ['X-Tenant', 'acme'],
        ],
      },
      {
        given: { url: 'http://bob:p%40ss@h/api', own: { 'x-tenant': 'own' } },
        want: [
          ['User-Agent', 'kgate/9.9.9'],
          ['Authorization', `Basic ${Buffer.from('bob:p@ss').toString('base64')}`],
        ],
      },
      {
        given: { url: 'http://bob:pw@h/api', own: { Authorization: 'Bearer x', 'User-Agent': 'u' } },
        want: [['X-Tenant', 'acme']],
      },
    ] as { given: { url: string; own: Record<string, string> }; want: string[][] }[];
    for (const { given, want } of cases)
      assert.deepEqual(addedHeadersFor(new URL(given.url), given.own), want, JSON.stringify(given));
    assert.deepEqual(curlHeaderArgs(new URL('http://bob:pw@h/api'), { 'Ocp-Apim-Subscription-Key': '***' }), [
      "-u 'bob:***'",
      "-H 'X-Tenant: ***'",
    ]);
    // A configured Authorization wins over the URL's credentials, as curl's -H wins over -u.
    configureHeaders([{ name: 'Authorization', value: 'Bearer t0ken-value', secret: true }]);
    assert.deepEqual(addedHeadersFor(new URL('http://bob:pw@h/api'), {}), [['Authorization', 'Bearer t0ken-value']]);
    assert.deepEqual(curlHeaderArgs(new URL('http://bob:pw@h/api'), {}), ["-H 'Authorization: ***'"]);
    assert.throws(() => configureHeaders([{ name: 'X', value: 'a\nb', secret: false }]), /invalid header "X"/);
  } finally {
    configureHeaders([]);
  }
});

test('the forms a secret could be printed in, and a URL without its credentials', () => {
  assert.deepEqual(headerSecrets({ name: 'Authorization', value: 'Bearer abc.def', secret: true }), [
    'Bearer abc.def',
    'abc.def',
  ]);
  assert.deepEqual(headerSecrets({ name: 'X-Request-Id', value: 'r-1', secret: false }), []);
  assert.deepEqual(credentialSecrets(new URL('http://bob:p%40ss@h/')), [
    'p@ss',
    'p%40ss',
    Buffer.from('bob:p@ss').toString('base64'),
  ]);
  assert.deepEqual(credentialSecrets(new URL('http://bob@h/')), []);
  const cases = [
    { given: 'https://u:p@h:8/api?x=1', want: 'https://h:8/api?x=1' },
    { given: 'https://h/api/a@b', want: 'https://h/api/a@b' },
    { given: 'http://u@h/', want: 'http://h/' },
  ];
  for (const { given, want } of cases) assert.equal(withoutCredentials(given), want, given);
});
