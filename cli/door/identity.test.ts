import assert from 'node:assert/strict';
import { test } from 'node:test';
import { UsageError } from './args.ts';
import { checkKeyVariables, defaultUserAgent, interpolate, isSecretHeader, resolveHeaders } from './identity.ts';

const UA = { name: 'User-Agent', value: defaultUserAgent(), secret: false, implied: true };

test("resolveHeaders: the User-Agent, the file's headers (variables read), --header over them by name", () => {
  const env = { TENANT_TOKEN: 't0k-abc', EMPTY: '' };
  const cases = [
    { given: { values: {}, config: {} }, want: [UA] },
    {
      given: { values: { header: ['X-Tenant: acme', 'Accept:  application/json '] }, config: {} },
      want: [
        UA,
        { name: 'X-Tenant', value: 'acme', secret: true },
        { name: 'Accept', value: 'application/json', secret: false },
      ],
    },
    {
      given: {
        values: { header: ['x-request-id: from-flag'] },
        // biome-ignore lint/suspicious/noTemplateCurlyInString: the configuration file's own ${NAME} syntax.
        config: { headers: { Authorization: 'Bearer ${TENANT_TOKEN}', 'X-Request-Id': 'from-file', Accept: '$${x}' } },
      },
      want: [
        UA,
        { name: 'Authorization', value: 'Bearer t0k-abc', secret: true },
        // biome-ignore lint/suspicious/noTemplateCurlyInString: a literal ${ written as $${.
        { name: 'Accept', value: '${x}', secret: false },
        { name: 'x-request-id', value: 'from-flag', secret: false },
      ],
    },
    {
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the configuration file's own ${NAME} syntax.
      given: { values: { 'user-agent': 'team-ci/2' }, config: { headers: ['X-Request-Id: ${TENANT_TOKEN}'] } },
      want: [
        { name: 'User-Agent', value: 'team-ci/2', secret: false },
        { name: 'X-Request-Id', value: 't0k-abc', secret: true },
      ],
    },
    { given: { values: { header: ['User-Agent:'] }, config: {} }, want: [] },
  ];
  for (const { given, want } of cases)
    assert.deepEqual(resolveHeaders(given.values, given.config, 'kgate.config.json', env), want, JSON.stringify(given));
});

test('resolveHeaders refuses, in one line naming the option, key or variable, and never the value', () => {
  const env = { BROKEN: 'secret-value\n', EMPTY: '' };
  const cases = [
    { given: { values: { header: ['X-Tenant'] }, config: {} }, want: /^option --header takes 'Name: value'/ },
    {
      given: { values: { header: ['Bad Name: x'] }, config: {} },
      want: /^option --header: 'Bad Name' is not a header name/,
    },
    {
      given: { values: { header: ['X-A: a\rInjected: 1'] }, config: {} },
      want: /^option --header: the value of X-A holds a carriage return \(CR\) at character 2 of 13; a header value holds/,
    },
    { given: { values: { header: ['host: x'] }, config: {} }, want: /^option --header: host is kgate's own header/ },
    { given: { values: { header: ['Content-Type: text/plain'] }, config: {} }, want: /kgate's own header/ },
    { given: { values: { 'user-agent': ' lead' }, config: {} }, want: /^option --user-agent begins with a space/ },
    {
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the configuration file's own ${NAME} syntax.
      given: { values: {}, config: { headers: { 'X-T': '${MISSING}' } } },
      want: /^kgate\.config\.json: key 'headers\.X-T' names the environment variable MISSING, which is not set$/,
    },
    {
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the configuration file's own ${NAME} syntax.
      given: { values: {}, config: { headers: { 'X-T': '${EMPTY}' } } },
      want: /names the environment variable EMPTY, which is not set/,
    },
    {
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the configuration file's own ${NAME} syntax.
      given: { values: {}, config: { headers: { 'X-T': 'a ${BROKEN}' } } },
      want: /^the environment variable BROKEN \(named by kgate\.config\.json: key 'headers\.X-T'\) holds a line break \(LF\) at its end/,
    },
    {
      given: { values: {}, config: { headers: { 'X-T': 'a ${not closed' } } },
      want: /key 'headers\.X-T': a variable is named as \$\{NAME\}/,
    },
    {
      given: { values: {}, config: { headers: ['Ocp-Apim-Subscription-Key: k'] } },
      want: /key 'headers\.0': Ocp-Apim-Subscription-Key is kgate's own header \(the subscription key comes from KGATE_KEY/,
    },
  ];
  for (const { given, want } of cases) {
    assert.throws(
      () => resolveHeaders(given.values, given.config as never, 'kgate.config.json', env),
      (error: unknown) => {
        assert.ok(error instanceof UsageError, String(error));
        assert.match(error.message, want);
        assert.ok(!error.message.includes('secret-value') && !error.message.includes('\n'), error.message);
        return true;
      },
      JSON.stringify(given),
    );
  }
});

test('interpolate reads $NAME in braces and says whether a variable was read', () => {
  const env = { A: 'x', B: 'y' };
  // biome-ignore lint/suspicious/noTemplateCurlyInString: the configuration file's own ${NAME} syntax.
  assert.deepEqual(interpolate('${A}-${B}', 'k', env), { value: 'x-y', fromVariable: true });
  // biome-ignore lint/suspicious/noTemplateCurlyInString: $${ writes a literal ${ in the file's syntax.
  assert.deepEqual(interpolate('$A and $${B}', 'k', env), { value: '$A and ${B}', fromVariable: false });
});

test('isSecretHeader: every value masked but a harmless name written out', () => {
  const cases = [
    { given: ['Authorization', false], want: true },
    { given: ['Cookie', false], want: true },
    { given: ['X-Tenant', false], want: true },
    { given: ['X-Api-Key', false], want: true },
    { given: ['User-Agent', false], want: false },
    { given: ['traceparent', false], want: false },
    { given: ['X-Request-Id', true], want: true },
  ] as const;
  for (const { given, want } of cases) assert.equal(isSecretHeader(given[0], given[1]), want, given.join(' '));
});

test('checkKeyVariables refuses a key HTTP cannot carry, naming its variable', () => {
  const cases = [
    { given: { env: { KGATE_KEY: 'good-key' }, config: {} }, want: undefined },
    { given: { env: { KGATE_KEY: 'k\n' }, config: {} }, want: /^KGATE_KEY holds a line break \(LF\) at its end/ },
    { given: { env: { KGATE_AGAINST_KEY: 'k\r\n' }, config: {} }, want: /^KGATE_AGAINST_KEY holds a carriage return/ },
    {
      given: { env: { STAGING_KEY: ' k' }, config: { keyVariables: { full: 'STAGING_KEY' } } },
      want: /^STAGING_KEY begins with a space: a key is sent as the value of the Ocp-Apim-Subscription-Key header/,
    },
    { given: { env: { KGATE_KEY: '\n' }, config: {} }, want: undefined },
  ];
  for (const { given, want } of cases) {
    if (want === undefined) checkKeyVariables(given.config, given.env);
    else assert.throws(() => checkKeyVariables(given.config, given.env), { message: want }, JSON.stringify(given));
  }
});
