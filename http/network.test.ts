import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { missingBinaries } from '../scripts/real-servers.ts';
import {
  curlNetworkArgs,
  describeNetwork,
  describeTlsError,
  maskedProxy,
  matchesNoProxy,
  NetworkConfigError,
  networkSettings,
  parseProxyUrl,
  proxyAuthorization,
  proxyFor,
  proxySecrets,
  proxySettings,
} from './network.ts';

test('NO_PROXY entries match as curl reads them: host, domain suffix, leading dot, *, ports, IPs and ranges', () => {
  const cases: { given: { entry: string; host: string; port: number }; want: boolean }[] = [
    { given: { entry: '*', host: 'api.example.org', port: 443 }, want: true },
    { given: { entry: 'api.example.org', host: 'api.example.org', port: 443 }, want: true },
    { given: { entry: 'example.org', host: 'api.example.org', port: 443 }, want: true },
    { given: { entry: '.example.org', host: 'api.example.org', port: 443 }, want: true },
    { given: { entry: '.example.org', host: 'example.org', port: 443 }, want: true },
    { given: { entry: '*.example.org', host: 'api.example.org', port: 443 }, want: true },
    { given: { entry: 'example.org', host: 'badexample.org', port: 443 }, want: false },
    { given: { entry: 'example.org', host: 'example.org.evil.net', port: 443 }, want: false },
    { given: { entry: 'example.org.', host: 'api.example.org', port: 80 }, want: true },
    { given: { entry: 'example.org:8443', host: 'api.example.org', port: 8443 }, want: true },
    { given: { entry: 'example.org:8443', host: 'api.example.org', port: 443 }, want: false },
    { given: { entry: '127.0.0.1', host: '127.0.0.1', port: 8080 }, want: true },
    { given: { entry: '127.0.0.1:8080', host: '127.0.0.1', port: 8080 }, want: true },
    { given: { entry: '127.0.0.1:8080', host: '127.0.0.1', port: 9090 }, want: false },
    { given: { entry: '127.0.0.0/8', host: '127.3.4.5', port: 80 }, want: true },
    { given: { entry: '10.0.0.0/8', host: '11.0.0.1', port: 80 }, want: false },
    { given: { entry: '10.0.0.0/8', host: 'ten.example.org', port: 80 }, want: false },
    { given: { entry: '::1', host: '::1', port: 80 }, want: true },
    { given: { entry: '[::1]:8080', host: '::1', port: 8080 }, want: true },
    { given: { entry: '[::1]:8080', host: '::1', port: 80 }, want: false },
    { given: { entry: 'fd00::/8', host: 'fd12::5', port: 80 }, want: true },
    { given: { entry: '127.0.0.1', host: 'localhost', port: 80 }, want: false },
    { given: { entry: 'localhost', host: 'localhost', port: 80 }, want: true },
  ];
  for (const { given, want } of cases) {
    assert.equal(matchesNoProxy(given.entry, given.host, given.port), want, JSON.stringify(given));
  }
});

test('a proxy per scheme, as curl picks it: the explicit one, else HTTPS_PROXY / HTTP_PROXY, else ALL_PROXY; NO_PROXY bypasses', () => {
  const env = (url: string, source: string) => ({ url, source });
  const cases: {
    given: Parameters<typeof proxySettings>[0];
    want: { https?: string; http?: string; bypassed?: string };
  }[] = [
    { given: {}, want: {} },
    {
      given: { httpsProxy: env('http://s:3128', 'HTTPS_PROXY') },
      want: { https: 'http://s:3128/' },
    },
    {
      given: { httpProxy: env('h:3128', 'http_proxy'), allProxy: env('a:1', 'ALL_PROXY') },
      want: { https: 'http://a:1/', http: 'http://h:3128/' },
    },
    {
      given: { explicit: env('http://x:8080', '--proxy'), httpsProxy: env('http://s:3128', 'HTTPS_PROXY') },
      want: { https: 'http://x:8080/', http: 'http://x:8080/' },
    },
    {
      given: { httpsProxy: env('http://s:3128', 'HTTPS_PROXY'), noProxy: 'target.example.org, .internal' },
      want: { https: 'http://s:3128/', bypassed: 'https://target.example.org/api' },
    },
  ];
  for (const { given, want } of cases) {
    const settings = proxySettings(given);
    const through = (url: string) => proxyFor(new URL(url), settings)?.href;
    assert.equal(through('https://api.example.org/x'), want.https, `https: ${JSON.stringify(given)}`);
    assert.equal(through('http://api.example.org/x'), want.http, `http: ${JSON.stringify(given)}`);
    if (want.bypassed) assert.equal(through(want.bypassed), undefined, `bypassed: ${JSON.stringify(given)}`);
  }
});

test('a proxy URL: scheme and port as curl defaults them, only http://, and an error that never echoes it', () => {
  assert.equal(parseProxyUrl('proxy.example.org', '--proxy').href, 'http://proxy.example.org:1080/');
  assert.equal(parseProxyUrl('http://u:p@proxy:3128', '--proxy').host, 'proxy:3128');
  const refused = [
    { given: 'socks5://proxy:1080', want: /socks5:\/\/ proxy; kgate speaks to http:\/\/ proxies/ },
    { given: 'https://proxy:443', want: /https:\/\/ proxy/ },
    { given: 'http://u:secret@proxy:3128/path', want: /without a path/ },
    { given: 'http://u:secret@[bad', want: /takes a proxy URL such as/ },
  ];
  for (const { given, want } of refused) {
    assert.throws(
      () => parseProxyUrl(given, '--proxy'),
      (error: unknown) =>
        error instanceof NetworkConfigError && want.test(error.message) && !error.message.includes('secret'),
      given,
    );
  }
});

test('proxy credentials: basic Proxy-Authorization decoded from the URL, and masked everywhere they are shown', () => {
  const proxy = parseProxyUrl('http://runner:p%40ss%20word@127.0.0.1:3128', '--proxy');
  assert.equal(proxyAuthorization(proxy), `Basic ${Buffer.from('runner:p@ss word').toString('base64')}`);
  assert.equal(maskedProxy(proxy), 'http://runner:***@127.0.0.1:3128');
  assert.deepEqual(
    proxySecrets(proxy).sort(),
    ['p%40ss%20word', 'p@ss word', Buffer.from('runner:p@ss word').toString('base64')].sort(),
  );
  const settings = {
    proxy: proxySettings({ explicit: { url: proxy.href, source: '--proxy' }, noProxy: 'direct.example.org' }),
  };
  const description = describeNetwork(settings)!;
  assert.match(
    description,
    /proxy http:\/\/runner:\*\*\*@127\.0\.0\.1:3128 \(--proxy\); no proxy for direct\.example\.org/,
  );
  assert.doesNotMatch(description, /p@ss|p%40ss/);
  assert.deepEqual(curlNetworkArgs(new URL('http://api.example.org/x'), settings), [
    "--proxy 'http://127.0.0.1:3128'",
    "--proxy-user 'runner:***'",
  ]);
  assert.deepEqual(curlNetworkArgs(new URL('http://direct.example.org/x'), settings), [
    "--noproxy 'direct.example.org'",
  ]);
  assert.equal(proxyAuthorization(parseProxyUrl('http://proxy:3128', '--proxy')), undefined);
});

test('TLS settings: the CA file and a client certificate with its key are read and checked; errors name the source', (t) => {
  const skip = missingBinaries(['openssl']);
  if (skip) return t.skip(skip);
  const dir = mkdtempSync(join(tmpdir(), 'kgate-network-'));
  try {
    // A certificate and key pair, and a second key that does not go with it.
    const make = (name: string) =>
      spawnSync(
        'openssl',
        [
          'req',
          '-x509',
          '-newkey',
          'ec',
          '-pkeyopt',
          'ec_paramgen_curve:prime256v1',
          '-nodes',
          '-keyout',
          `${name}.key`,
          '-out',
          `${name}.pem`,
          '-days',
          '1',
          '-subj',
          `/CN=${name}`,
        ],
        { cwd: dir, stdio: 'ignore' },
      );
    make('a');
    make('b');
    writeFileSync(join(dir, 'empty.pem'), 'not a certificate\n');
    const file = (name: string, source: string) => ({ value: join(dir, name), source });
    const settings = networkSettings({
      caFile: file('a.pem', '--ca-file'),
      clientCert: file('a.pem', '--client-cert'),
      clientKey: file('a.key', '--client-key'),
    });
    assert.deepEqual(settings.tls?.ca, readFileSync(join(dir, 'a.pem')));
    assert.equal(settings.tls?.certFile, join(dir, 'a.pem'));
    assert.deepEqual(curlNetworkArgs(new URL('https://api.example.org/x'), settings), [
      `--cacert '${join(dir, 'a.pem')}'`,
      `--cert '${join(dir, 'a.pem')}'`,
      `--key '${join(dir, 'a.key')}'`,
    ]);
    const refused: { given: Parameters<typeof networkSettings>[0]; want: RegExp }[] = [
      {
        given: { caFile: file('missing.pem', '--ca-file') },
        want: /^--ca-file: cannot read .*missing\.pem' \(ENOENT\)$/,
      },
      {
        given: { caFile: file('empty.pem', '--ca-file') },
        want: /^--ca-file: .*empty\.pem' holds no PEM certificate$/,
      },
      { given: { clientCert: file('a.pem', '--client-cert') }, want: /^--client-cert needs its pair/ },
      {
        given: { clientCert: file('a.pem', '--client-cert'), clientKey: file('b.key', '--client-key') },
        want: /^--client-key: .*b\.key' does not go with the certificate/,
      },
    ];
    for (const { given, want } of refused)
      assert.throws(
        () => networkSettings(given),
        (error: unknown) => error instanceof NetworkConfigError && want.test(error.message),
        String(want),
      );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a certificate that failed is named: its subject, issuer and names, and whether it is for another host', () => {
  const error = (code: string) => Object.assign(new Error(code), { code });
  const cases = [
    {
      given: {
        code: 'SELF_SIGNED_CERT_IN_CHAIN',
        seen: {
          certificate: {
            subject: 'CN=api.example.org',
            issuer: 'CN=Corp Proxy CA, O=Corp',
            names: ['api.example.org'],
          },
          proxy: 'http://proxy.corp:3128',
        },
      },
      want: 'TLS with api.example.org:443: its certificate chain ends in a CA that is not trusted (trust its CA with --ca-file or NODE_EXTRA_CA_CERTS); the certificate: subject CN=api.example.org, issued by CN=Corp Proxy CA, O=Corp, for api.example.org; if CN=Corp Proxy CA, O=Corp is the CA of the proxy http://proxy.corp:3128, the proxy re-signs (intercepts) the connection: trust that CA with --ca-file [SELF_SIGNED_CERT_IN_CHAIN]',
    },
    {
      given: {
        code: 'ERR_TLS_CERT_ALTNAME_INVALID',
        seen: { certificate: { subject: 'CN=gateway.corp', issuer: 'CN=Corp CA', names: ['gateway.corp', '*.corp'] } },
      },
      want: 'TLS with api.example.org:443: its certificate is for another host; the certificate: subject CN=gateway.corp, issued by CN=Corp CA, for gateway.corp, *.corp, not for api.example.org: a server between kgate and the target (an intercepting proxy?) answers with a certificate of its own [ERR_TLS_CERT_ALTNAME_INVALID]',
    },
    {
      // A wildcard covers one label: the target's own certificate, only expired.
      given: {
        code: 'CERT_HAS_EXPIRED',
        seen: { certificate: { subject: 'CN=*.example.org', issuer: 'CN=Public CA', names: ['*.example.org'] } },
      },
      want: 'TLS with api.example.org:443: its certificate has expired; the certificate: subject CN=*.example.org, issued by CN=Public CA, for *.example.org [CERT_HAS_EXPIRED]',
    },
  ];
  for (const { given, want } of cases)
    assert.equal(describeTlsError(error(given.code), 'api.example.org:443', given.seen), want, given.code);
});

test('a TLS error is one line naming the host, the reason in words and what to do', () => {
  const error = (code: string, message = 'x') => Object.assign(new Error(message), { code });
  const cases = [
    {
      given: error('UNABLE_TO_VERIFY_LEAF_SIGNATURE'),
      want: 'TLS with api.example.org:443: its certificate is not signed by a trusted CA (trust its CA with --ca-file or NODE_EXTRA_CA_CERTS) [UNABLE_TO_VERIFY_LEAF_SIGNATURE]',
    },
    {
      given: error(
        'ERR_TLS_CERT_ALTNAME_INVALID',
        "Hostname/IP does not match certificate's altnames: IP: 127.0.0.1 is not in the cert's list: ",
      ),
      want: "TLS with api.example.org:443: its certificate is for another host: IP: 127.0.0.1 is not in the cert's list:  [ERR_TLS_CERT_ALTNAME_INVALID]",
    },
    {
      given: error('CERT_HAS_EXPIRED'),
      want: 'TLS with api.example.org:443: its certificate has expired [CERT_HAS_EXPIRED]',
    },
    {
      given: error('ERR_SSL_TLSV13_ALERT_CERTIFICATE_REQUIRED'),
      want: 'TLS with api.example.org:443: it requires a client certificate (give one with --client-cert and --client-key) [ERR_SSL_TLSV13_ALERT_CERTIFICATE_REQUIRED]',
    },
    {
      given: error('ERR_SSL_SOMETHING', 'odd'),
      want: 'TLS with api.example.org:443: TLS failed: odd [ERR_SSL_SOMETHING]',
    },
  ];
  for (const { given, want } of cases) assert.equal(describeTlsError(given, 'api.example.org:443'), want);
});
