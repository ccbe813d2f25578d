// kgate through Debian's squid, as on a CI runner whose only way out is a forward proxy: every
// request of every command goes through it where curl would (HTTP_PROXY / HTTPS_PROXY, NO_PROXY,
// --proxy), with basic credentials when the proxy wants them, and a proxy that cannot be reached
// or refuses is one line and exit 2. squid's access log is the witness: one line per request it
// carried (absolute-form http), one per CONNECT tunnel (https).
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { proxySecrets } from '../http/network.ts';
import { scanForSecrets } from '../proof/secret-scan.ts';
import { type ReferenceServer, startReferenceServer } from '../reference/index.ts';
import type { RunSummary } from '../reporting/summary.ts';
import {
  makeTestCertificates,
  missingBinaries,
  type RealNginx,
  type RealSquid,
  startNginx,
  startSquid,
  type TestCertificates,
} from '../scripts/real-servers.ts';
import { type ProcessResult, RUN_ALONE_ENV, referenceKeyEnv, runKgate } from '../scripts/run-process.ts';

const skip = missingBinaries(['squid', 'htpasswd', 'basicNcsaAuth', 'nginx', 'openssl']);

/** A password no one would use, so that finding it (in any form) anywhere is a leak. */
const PASSWORD = 'kgate-proxy-canary 9c1f@e7';
const USER = 'runner';

let server: ReferenceServer;
let squid: RealSquid;
let authed: RealSquid;
let tlsFront: RealNginx;
let pki: TestCertificates;
let reports: string;

before(async () => {
  if (skip) return;
  server = await startReferenceServer({ quiet: true });
  pki = makeTestCertificates();
  // Each one that started is kept for after() to stop, also when another failed to start: a server
  // left running would keep this file's process from ever ending.
  const started = await Promise.allSettled([
    startSquid(),
    startSquid({ auth: { user: USER, password: PASSWORD } }),
    startNginx({ upstream: server.url, tls: pki }),
  ]);
  const [plain, guarded, front] = started.map((result) => (result.status === 'fulfilled' ? result.value : undefined));
  [squid, authed, tlsFront] = [plain as RealSquid, guarded as RealSquid, front as RealNginx];
  for (const result of started) if (result.status === 'rejected') throw result.reason;
  reports = mkdtempSync(join(tmpdir(), 'kgate-proxies-'));
});
after(async () => {
  for (const real of [squid, authed, tlsFront]) await real?.stop();
  await server?.close();
  pki?.remove();
  if (reports) rmSync(reports, { recursive: true, force: true });
});

let runs = 0;
function kgate(args: string[], env: Record<string, string> = {}): Promise<ProcessResult & { dir: string }> {
  const dir = join(reports, `run-${++runs}`);
  return runKgate([...args, '--report-dir', dir], {
    env: {
      ...RUN_ALONE_ENV,
      ...referenceKeyEnv(server.keys),
      ...env,
    },
    timeoutMs: 240_000,
  }).then((result) => ({ ...result, dir }));
}

/** Lines squid logged from `from` on. */
const linesSince = (proxy: RealSquid, from: number) => proxy.accessLog().slice(from);

/** The requests the preflight sends before a run: one cheap question per API. */
const PREFLIGHT_REQUESTS = 4;

describe('kgate through squid', { skip }, () => {
  test('the whole gate with squid as the route passes, and squid carried every request of the run', async () => {
    const from = squid.accessLog().length;
    const run = await kgate(['conform', '--base-url', server.url], { HTTP_PROXY: squid.url });
    assert.equal(run.code, 0, `${run.stdout}\n${run.stderr}`);
    const summary = JSON.parse(readFileSync(join(run.dir, 'summary.json'), 'utf8')) as RunSummary;
    assert.equal(summary.targets[0]!.verdict, 'pass');
    assert.deepEqual(summary.targets[0]!.skips, [], 'no test is skipped');
    // squid caches nothing here (cache deny all): it names itself (Via, X-Cache: MISS) but served no
    // hit, so no note calls it a cache keying its answers.
    const cacheNotes = summary.targets[0]!.notes.filter((note) => /keys its answers/.test(note));
    assert.deepEqual(cacheNotes, [], 'a proxy that served no hit is called no cache');
    // squid logs each request it carried when it ends; the run has ended.
    const lines = linesSince(squid, from);
    // Counted: every request of the run (tests, test data discovery, retries, probes: the
    // summary's request total) and the preflight's four, one access log line each.
    assert.equal(lines.length, summary.requests! + PREFLIGHT_REQUESTS, 'squid logged every request of the run');
    assert.ok(lines.every((line) => line.includes(` http://127.0.0.1:${new URL(server.url).port}/`)));
    assert.match(run.stdout, /network: http through proxy http:\/\/127\.0\.0\.1:\d+ \(HTTP_PROXY\)/);
  });

  test('NO_PROXY naming the host bypasses squid: it logs nothing', async () => {
    const from = squid.accessLog().length;
    const cases = ['127.0.0.1', `localhost,127.0.0.1:${new URL(server.url).port}`];
    for (const noProxy of cases) {
      const run = await kgate(['conform', '--base-url', server.url, '--checks', 'auth-required', '--generate', '0'], {
        HTTP_PROXY: squid.url,
        NO_PROXY: noProxy,
      });
      assert.equal(run.code, 0, `NO_PROXY=${noProxy}: ${run.stdout}\n${run.stderr}`);
    }
    assert.deepEqual(linesSince(squid, from), [], 'squid carried none of it');
  });

  test('https targets go through a CONNECT tunnel, TLS inside it', async () => {
    const from = squid.accessLog().length;
    const run = await kgate(
      ['conform', '--base-url', tlsFront.url, '--ca-file', pki.ca, '--checks', 'auth-required', '--generate', '0'],
      {
        HTTPS_PROXY: squid.url,
      },
    );
    assert.equal(run.code, 0, `${run.stdout}\n${run.stderr}`);
    const lines = linesSince(squid, from);
    assert.ok(
      lines.length > 0 && lines.every((line) => line.includes(`CONNECT 127.0.0.1:${tlsFront.port}`)),
      lines.join('\n'),
    );
    assert.ok(lines.some((line) => line.includes('TCP_TUNNEL/200')));
    assert.ok(tlsFront.accessLog().length >= PREFLIGHT_REQUESTS, 'the requests reached nginx through the tunnels');
  });

  test('basic credentials in the proxy URL work, and the password appears in no output or report', async () => {
    const proxy = authed.proxyUrl({ user: USER, password: PASSWORD });
    const from = authed.accessLog().length;
    const run = await kgate(
      ['conform', '--base-url', server.url, '--checks', 'auth-required,paging-respects-size', '--generate', '0'],
      {
        HTTP_PROXY: proxy,
      },
    );
    assert.equal(run.code, 0, `${run.stdout}\n${run.stderr}`);
    const lines = linesSince(authed, from);
    assert.ok(
      lines.length > 0 && lines.every((line) => line.includes(` ${USER} `)),
      'every request carried the credentials',
    );
    assert.match(run.stdout, /proxy http:\/\/runner:\*\*\*@127\.0\.0\.1:\d+/);
    const secrets = proxySecrets(new URL(proxy));
    for (const secret of secrets)
      assert.ok(!`${run.stdout}${run.stderr}`.includes(secret), 'no password in the output');
    assert.deepEqual(scanForSecrets(run.dir, secrets), [], 'no password in any report');
  });

  test('a wrong password, an unreachable proxy, a proxy refusing the tunnel or a certificate behind it is one line, exit 2', async () => {
    const wrong = authed.proxyUrl({ user: USER, password: 'wrong-password-1' });
    const cases: { given: { args: string[]; env: Record<string, string> }; want: RegExp }[] = [
      {
        given: { args: ['--base-url', server.url], env: { HTTP_PROXY: wrong } },
        want: /^kgate conform: http:\/\/127\.0\.0\.1:\d+: the proxy http:\/\/runner:\*\*\*@127\.0\.0\.1:\d+ refused the request: 407/,
      },
      {
        given: { args: ['--base-url', tlsFront.url, '--ca-file', pki.ca], env: { HTTPS_PROXY: wrong } },
        want: /the proxy http:\/\/runner:\*\*\*@127\.0\.0\.1:\d+ refused CONNECT 127\.0\.0\.1:\d+: 407 Proxy Authentication Required/,
      },
      {
        given: { args: ['--base-url', server.url, '--proxy', 'http://127.0.0.1:9'], env: {} },
        want: /cannot connect to the proxy http:\/\/127\.0\.0\.1:9: ECONNREFUSED/,
      },
      {
        // Through the tunnel, a certificate of a CA kgate does not trust names its issuer and the proxy.
        given: { args: ['--base-url', tlsFront.url], env: { HTTPS_PROXY: squid.url } },
        want: /its certificate is not signed by a trusted CA .*; the certificate: subject CN=localhost, issued by CN=kgate test CA, for 127\.0\.0\.1, localhost; if CN=kgate test CA is the CA of the proxy http:\/\/127\.0\.0\.1:\d+, the proxy re-signs \(intercepts\) the connection: trust that CA with --ca-file \[/,
      },
    ];
    for (const { given, want } of cases) {
      const run = await kgate(['conform', ...given.args, '--checks', 'auth-required', '--generate', '0'], given.env);
      assert.equal(run.code, 2, `${run.stdout}\n${run.stderr}`);
      const lines = run.stderr.split('\n').filter((line) => line.trim() !== '');
      assert.equal(lines.length, 1, run.stderr);
      assert.match(lines[0]!, want);
      assert.ok(!run.stderr.includes('wrong-password-1'), 'the wrong password is masked too');
    }
  });

  test('kgate fuzz, drift live and compare go through the proxy as conform does', async () => {
    const cases = [
      { given: ['fuzz', '--base-url', server.url, '--max-requests', '76', '--seed', '2', '--json'] },
      { given: ['drift', 'live', '--base-url', server.url, '--json'] },
      { given: ['compare', '--base-url', server.url, '--against-url', server.url, '--max-requests', '102', '--json'] },
    ];
    for (const { given } of cases) {
      const from = squid.accessLog().length;
      const run = await kgate(given, { HTTP_PROXY: squid.url, KGATE_KEY_EXHAUSTED: '' });
      assert.ok(run.code === 0 || run.code === 1, `${given.join(' ')}: ${run.stdout}\n${run.stderr}`);
      const lines = linesSince(squid, from);
      assert.ok(lines.length > 0, `${given.join(' ')}: squid carried its requests`);
      assert.match(run.stderr, /network: http through proxy http:\/\/127\.0\.0\.1:\d+ \(HTTP_PROXY\)/);
      // The reports name the route too: the result's notes (fuzz, compare) or its network (drift live).
      const result = JSON.parse(run.stdout) as { notes?: string[]; network?: string };
      assert.match(
        [...(result.notes ?? []), result.network ?? ''].join('\n'),
        /http through proxy http:\/\/127\.0\.0\.1:\d+ \(HTTP_PROXY\)/,
        `${given.join(' ')}: the route in the result`,
      );
    }
  });
});
