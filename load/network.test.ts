// kgate load and the probes on the routes real deployments need: Debian's squid as the forward
// proxy (open, and with basic credentials), and nginx requiring a client certificate (mutual TLS)
// with a CA made at test time. The shared client carries the preflight, the probes and the
// validated share along the route; autocannon cannot use a proxy, and the command says so once.
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { PREFLIGHT_PATHS } from '../contracts/preflight.ts';
import { type ReferenceServer, startReferenceServer } from '../reference/index.ts';
import { assertServed } from '../scripts/load-served.ts';
import {
  makeTestCertificates,
  missingBinaries,
  type RealSquid,
  startNginx,
  startSquid,
  type TestCertificates,
} from '../scripts/real-servers.ts';

import { runKgate } from '../scripts/run-process.ts';
import type { BodyLimitProbeResult } from './probes/body-limit.ts';
import type { RateLimitProbeResult } from './probes/rate-limit.ts';
import type { LoadSummary } from './report.ts';

const skip = missingBinaries(['nginx', 'squid', 'openssl', 'htpasswd', 'basicNcsaAuth']);
/** No proxy of the machine running the tests leaks into a run. */
const NO_PROXY_ENV = Object.fromEntries(
  ['HTTPS_PROXY', 'HTTP_PROXY', 'ALL_PROXY', 'NO_PROXY'].flatMap((name) => [
    [name, ''],
    [name.toLowerCase(), ''],
  ]),
);
const USER = 'kgate';
const PASSWORD = 'pr0xy-s3cret-word';
const NOTICE = /the load generator \(autocannon\) cannot use the proxy/;
const SHORT_LOAD = ['load', 'smoke', '--max-rps', '10', '--duration', '3s'];

let dir: string;
let server: ReferenceServer;
let squid: RealSquid;
let pki: TestCertificates;
let runs = 0;

before(async () => {
  if (skip) return;
  dir = mkdtempSync(join(tmpdir(), 'kgate-route-'));
  server = await startReferenceServer({ quiet: true, papers: 2000, rateLimit: 50 });
  squid = await startSquid();
  pki = makeTestCertificates();
});
after(async () => {
  await squid?.stop();
  await server?.close();
  pki?.remove();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Runs kgate with `--json` in its own folder; the environment names no proxy unless `env` does. */
async function kgate(args: string[], env: Record<string, string> = {}) {
  const folder = join(dir, `run-${++runs}`);
  const run = await runKgate([...args, '--json', ...(args[0] === 'load' ? ['--report-dir', folder] : [])], {
    cwd: dir,
    env: { KGATE_BASE_URL: '', KGATE_KEY: server.keys.full, ...NO_PROXY_ENV, ...env },
    timeoutMs: 120_000,
  });
  let parsed: unknown;
  try {
    parsed = JSON.parse(run.stdout);
  } catch {
    parsed = undefined;
  }
  return { ...run, parsed, folder };
}

/** Every file a run wrote, read as text. */
function written(folder: string): string {
  let text = '';
  let entries: string[] = [];
  try {
    entries = readdirSync(folder);
  } catch {
    return text;
  }
  for (const entry of entries) {
    const path = join(folder, entry);
    text += statSync(path).isDirectory() ? written(path) : readFileSync(path, 'utf8');
  }
  return text;
}

describe('through squid, the forward proxy', { skip, concurrency: false }, () => {
  test('kgate load: one line says autocannon goes direct; the preflight and the validated share go through squid', async () => {
    const before = squid.accessLog().length;
    const { code, parsed, stderr } = await kgate([
      ...SHORT_LOAD,
      '--validate-share',
      '50',
      '--base-url',
      server.url,
      '--proxy',
      squid.proxyUrl(),
    ]);
    const summary = parsed as LoadSummary;
    assertServed(code, summary, stderr);
    const notices = stderr.split('\n').filter((line) => NOTICE.test(line));
    assert.equal(notices.length, 1, `one line about the load generator: ${stderr}`);
    assert.match(
      notices[0]!,
      /50 % of the requests go straight to 127\.0\.0\.1:\d+; the preflight and the validated 50 % go through the proxy/,
    );
    assert.match(stderr, /kgate load: network: proxy http:\/\/127\.0\.0\.1:\d+ \(option --proxy\)/);
    const checked = summary.result.validation.checked;
    assert.ok(checked > 0 && checked < summary.result.sent, `${checked} of ${summary.result.sent} validated`);
    assert.equal(
      squid.accessLog().length - before,
      PREFLIGHT_PATHS.length + 1 + checked,
      "squid carried the door's preflight, the load's own and every validated request",
    );
  });

  test('NO_PROXY naming the host: nothing goes through squid and nothing is said about it', async () => {
    const before = squid.accessLog().length;
    const { code, parsed, stderr } = await kgate([...SHORT_LOAD, '--base-url', server.url], {
      HTTP_PROXY: squid.proxyUrl(),
      NO_PROXY: '127.0.0.1',
    });
    assertServed(code, parsed as LoadSummary, stderr);
    assert.doesNotMatch(stderr, NOTICE);
    assert.equal(squid.accessLog().length, before, 'squid logged nothing');
  });

  test('kgate probe body-limit and rate-limit: every request through squid, the limits found', async () => {
    let before = squid.accessLog().length;
    const body = await kgate(['probe', 'body-limit', '--base-url', server.url], { HTTP_PROXY: squid.proxyUrl() });
    const found = body.parsed as BodyLimitProbeResult;
    assert.equal(body.code, 0, body.stderr.slice(-2000));
    assert.equal(found.limitBytes, 1_048_576);
    assert.equal(found.overStatus, 400);
    assert.equal(
      squid.accessLog().length - before,
      PREFLIGHT_PATHS.length + 1 + found.requests,
      "the door's preflight, the route check and every request of the probe",
    );

    before = squid.accessLog().length;
    const rate = await kgate(
      ['probe', 'rate-limit', '--operation', 'urlPreview', '--base-url', server.url, '--max-duration', '15s'],
      { HTTP_PROXY: squid.proxyUrl() },
    );
    const limit = rate.parsed as RateLimitProbeResult;
    assert.equal(rate.code, 0, rate.stderr.slice(-2000));
    assert.ok(limit.thresholdRps !== null && Math.abs(limit.thresholdRps - 50) <= 5, `found ${limit.thresholdRps}/s`);
    assert.equal(
      squid.accessLog().length - before,
      PREFLIGHT_PATHS.length + 1 + limit.requests,
      "the door's preflight, the route check and every request of the probe",
    );
  });
});

describe('through squid with basic credentials', { skip, concurrency: false }, () => {
  let guarded: RealSquid;
  before(async () => {
    guarded = await startSquid({ auth: { user: USER, password: PASSWORD } });
  });
  after(() => guarded?.stop());

  test('the right password works and appears in no output or report', async () => {
    const { code, parsed, stdout, stderr, folder } = await kgate([
      ...SHORT_LOAD,
      '--base-url',
      server.url,
      '--proxy',
      guarded.proxyUrl({ user: USER, password: PASSWORD }),
    ]);
    assertServed(code, parsed as LoadSummary, stderr);
    assert.match(stderr, NOTICE);
    assert.ok(guarded.accessLog().length > 0, 'squid carried the requests');
    for (const [where, text] of [
      ['stdout', stdout],
      ['stderr', stderr],
      ['the reports', written(folder)],
    ])
      assert.ok(!text.includes(PASSWORD), `the proxy password is in ${where}`);
  });

  const commands = [
    { name: 'kgate load', args: [...SHORT_LOAD] },
    { name: 'kgate probe body-limit', args: ['probe', 'body-limit'] },
    { name: 'kgate probe rate-limit', args: ['probe', 'rate-limit', '--operation', 'answerSearch'] },
  ];
  for (const { name, args } of commands) {
    test(`${name} with a wrong password: one line, exit 2`, async () => {
      const { code, stdout, stderr } = await kgate([
        ...args,
        '--base-url',
        server.url,
        '--proxy',
        guarded.proxyUrl({ user: USER, password: 'wrong-password' }),
      ]);
      assert.equal(code, 2, stderr);
      // The status with its reason: a port in a URL may hold the digits 407 too.
      const refusal = stderr.split('\n').filter((line) => /\b407 \(/.test(line));
      assert.equal(refusal.length, 1, `one line names the refusal: ${stderr}`);
      assert.match(refusal[0]!, /refused the request: 407 \(Proxy Authentication Required\)/);
      assert.ok(!`${stdout}${stderr}`.includes('wrong-password'), 'the password is masked');
    });
  }
});

describe('nginx requiring a client certificate', { skip, concurrency: false }, () => {
  test('kgate load and the body-limit probe pass with the certificate, stop in one line without it', async () => {
    const front = await startNginx({
      upstream: server.url,
      tls: pki,
      verifyClient: true,
      prefix: '/api/',
      clientMaxBodySize: '4m',
    });
    try {
      const tls = ['--base-url', front.url, '--ca-file', pki.ca];
      const certificate = ['--client-cert', pki.clientCert, '--client-key', pki.clientKey];
      const load = await kgate([...SHORT_LOAD, '--validate-share', '50', ...tls, ...certificate]);
      const summary = load.parsed as LoadSummary;
      assertServed(load.code, summary, load.stderr);
      const lines = front.accessLog();
      assert.equal(
        lines.length,
        PREFLIGHT_PATHS.length + 1 + summary.result.sent,
        "nginx saw the door's preflight, the load's own and every request",
      );
      assert.deepEqual(
        lines.filter((line) => !/^200 \d+ "(GET|POST) \/api\/\S+ HTTP\/1\.1"$/.test(line)),
        [],
        "autocannon's requests and the shared client's carried the certificate: every one answered 200",
      );

      const probe = await kgate(['probe', 'body-limit', ...tls, ...certificate]);
      assert.equal(probe.code, 0, probe.stderr.slice(-2000));
      assert.equal((probe.parsed as BodyLimitProbeResult).limitBytes, 1_048_576);

      for (const args of [SHORT_LOAD, ['probe', 'body-limit']]) {
        const refused = await kgate([...args, ...tls]);
        assert.equal(refused.code, 2, refused.stderr);
        assert.match(
          refused.stderr,
          /every API answered 400 text\/html \("400 No required SSL certificate was sent"\), not the interface's JSON: a server in front of the deployment refuses the requests \(a client certificate it requires\?/,
        );
      }
    } finally {
      await front.stop();
    }
  });
});
