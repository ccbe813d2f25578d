// kgate through Debian's own nginx in front of the reference server, as deployments are served:
// TLS terminated by nginx with a CA the run must be told about, nginx's default limits (a request
// line over 8 KB gets its own 414 page, a body over 1m its 413), a gateway cutting at 2 KB, a path
// prefix, and a front that requires client certificates. The gate must give the deployment the
// verdict the deployment itself gets, name the front server's limits once, and turn a certificate
// problem into one line and exit 2.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type ReferenceServer, startReferenceServer } from '../reference/index.ts';
import type { RunSummary } from '../reporting/summary.ts';
import {
  makeTestCertificates,
  missingBinaries,
  type RealNginx,
  startNginx,
  type TestCertificates,
} from '../scripts/real-servers.ts';
import { type ProcessResult, RUN_ALONE_ENV, referenceKeyEnv, runKgate } from '../scripts/run-process.ts';

const skip = missingBinaries(['nginx', 'openssl']);

let server: ReferenceServer;
let pki: TestCertificates;
let reports: string;
const started: RealNginx[] = [];

before(async () => {
  if (skip) return;
  server = await startReferenceServer({ quiet: true });
  pki = makeTestCertificates();
  reports = mkdtempSync(join(tmpdir(), 'kgate-front-'));
});
after(async () => {
  for (const nginx of started) await nginx.stop();
  await server?.close();
  pki?.remove();
  if (reports) rmSync(reports, { recursive: true, force: true });
});

async function nginx(options: Omit<Parameters<typeof startNginx>[0], 'upstream'>): Promise<RealNginx> {
  const front = await startNginx({ upstream: server.url, ...options });
  started.push(front);
  return front;
}

let runs = 0;
function kgate(
  command: string,
  args: string[],
  env: Record<string, string> = {},
): Promise<ProcessResult & { dir: string }> {
  const dir = join(reports, `run-${++runs}`);
  return runKgate([command, ...args, '--report-dir', dir], {
    env: {
      ...RUN_ALONE_ENV,
      ...referenceKeyEnv(server.keys),
      ...env,
    },
    timeoutMs: 240_000,
  }).then((result) => ({ ...result, dir }));
}

function summaryOf(dir: string): RunSummary & { exitCode: number } {
  return JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8'));
}

/** The stderr lines a usage failure printed, but for the run header's network line. */
function problemLines(stderr: string): string[] {
  return stderr.split('\n').filter((line) => line.trim() !== '' && !/^kgate \w+( \w+)?: network: /.test(line));
}

describe('kgate behind nginx', { skip }, () => {
  test('the whole gate through a TLS-terminating nginx with its default limits passes, trusting its CA through NODE_EXTRA_CA_CERTS, with the 414 and 413 named once', async () => {
    // The issue's front: nginx's default 8 KB buffers and 1m body limit, short keep-alive, gzip on.
    const front = await nginx({ tls: pki, keepaliveRequests: 50, keepaliveTimeout: '2s', gzip: true });
    const run = await kgate('conform', ['--base-url', front.url], { NODE_EXTRA_CA_CERTS: pki.ca });
    assert.equal(run.code, 0, `${run.stdout}\n${run.stderr}`);
    const summary = summaryOf(run.dir);
    const target = summary.targets[0]!;
    assert.equal(target.verdict, 'pass');
    assert.deepEqual(target.skips, [], 'no test is skipped');
    assert.equal(target.counts.skipped, 0);
    const notes = target.notes.filter((note) => /from a server in front of the interface/.test(note));
    assert.equal(
      notes.filter((note) => /^GET requests over about 8 KB .* got 414 text\/html/.test(note)).length,
      1,
      notes.join('\n'),
    );
    assert.equal(
      notes.filter((note) => /^POST requests over about 1\.0 MB .* got 413 text\/html/.test(note)).length,
      1,
      notes.join('\n'),
    );
    assert.ok(
      front.accessLog().some((line) => line.startsWith('414 ')),
      'nginx did refuse long GETs',
    );
  });

  test('through nginx cutting request lines at 2 KB, the checks that send long inputs pass with the limit named', async () => {
    const front = await nginx({ largeClientHeaderBuffers: '4 2k' });
    const run = await kgate('conform', [
      '--base-url',
      front.url,
      '--checks',
      'positive-input-accepted,negative-input-rejected,no-server-error,get-and-post-agree,similarity-is-symmetric,body-limit-enforced,content-type-is-json,body-is-json',
    ]);
    assert.equal(run.code, 0, `${run.stdout}\n${run.stderr}`);
    const target = summaryOf(run.dir).targets[0]!;
    assert.deepEqual(target.skips, [], 'no test is skipped');
    const note = target.notes.find((text) => /^GET requests over about 2 KB .* got 414 text\/html/.test(text));
    assert.ok(note, target.notes.join('\n'));
    assert.match(note, /generated input\(s\) went through the POST variant instead/);
  });

  for (const buffers of [undefined, '4 2k']) {
    test(`kgate fuzz through nginx ${buffers ? `with large_client_header_buffers ${buffers}` : 'with its defaults'} passes and names the limit`, async () => {
      const front = await nginx(buffers ? { largeClientHeaderBuffers: buffers } : {});
      const run = await kgate('fuzz', ['--base-url', front.url, '--max-requests', '450', '--seed', '3', '--json']);
      assert.equal(run.code, 0, `${run.stdout}\n${run.stderr}`);
      const result = JSON.parse(run.stdout) as { verdict: string; notes: string[]; findings: unknown[] };
      assert.deepEqual(result.findings, []);
      assert.ok(
        result.notes.some((note) =>
          /^GET requests over about \d+ KB .* got 414 text\/html from a server in front/.test(note),
        ),
        result.notes.join('\n'),
      );
    });
  }

  test('a CA given with --ca-file, and a path prefix: the deployment behind /api/ passes', async () => {
    const front = await nginx({ tls: pki, prefix: '/api/' });
    const run = await kgate('conform', [
      '--base-url',
      front.url,
      '--ca-file',
      pki.ca,
      '--checks',
      'auth-required,paging-respects-size',
      '--generate',
      '0',
    ]);
    assert.equal(run.code, 0, `${run.stdout}\n${run.stderr}`);
    assert.match(
      run.stdout,
      new RegExp(`network: CA certificates from ${pki.ca.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`),
    );
    assert.ok(front.accessLog().every((line) => line.includes('"GET /api/') || line.includes('"POST /api/')));
  });

  test('a certificate kgate cannot trust is one line naming the host, the reason and the certificate (subject, issuer, names), exit 2', async () => {
    const cases = [
      {
        given: { front: { tls: pki }, args: [] as string[] },
        want: /TLS with 127\.0\.0\.1:\d+: its certificate is not signed by a trusted CA .*--ca-file or NODE_EXTRA_CA_CERTS\); the certificate: subject CN=localhost, issued by CN=kgate test CA, for 127\.0\.0\.1, localhost \[/,
      },
      {
        given: {
          front: { tls: pki, serverCertificate: { cert: pki.wrongHostCert, key: pki.wrongHostKey } },
          args: ['--ca-file', pki.ca],
        },
        want: /TLS with 127\.0\.0\.1:\d+: its certificate is for another host; the certificate: subject CN=elsewhere\.invalid, issued by CN=kgate test CA, for elsewhere\.invalid, not for 127\.0\.0\.1: a server between kgate and the target \(an intercepting proxy\?\) answers with a certificate of its own \[ERR_TLS_CERT_ALTNAME_INVALID\]/,
      },
      {
        given: {
          front: { tls: pki, serverCertificate: { cert: pki.expiredCert, key: pki.expiredKey } },
          args: ['--ca-file', pki.ca],
        },
        want: /TLS with 127\.0\.0\.1:\d+: its certificate has expired; the certificate: subject CN=localhost, issued by CN=kgate test CA, for 127\.0\.0\.1, localhost \[CERT_HAS_EXPIRED\]/,
      },
    ];
    for (const { given, want } of cases) {
      const front = await nginx(given.front);
      const run = await kgate('conform', ['--base-url', front.url, ...given.args, '--checks', 'auth-required']);
      assert.equal(run.code, 2, `${run.stdout}\n${run.stderr}`);
      const lines = problemLines(run.stderr);
      assert.equal(lines.length, 1, run.stderr);
      assert.match(lines[0]!, want);
      assert.match(lines[0]!, new RegExp(`^kgate conform: ${front.url}: `));
    }
  });

  test('a front requiring client certificates passes with --client-cert and --client-key, and without them is one line, exit 2', async () => {
    const front = await nginx({ tls: pki, verifyClient: true });
    const base = [
      '--base-url',
      front.url,
      '--ca-file',
      pki.ca,
      '--checks',
      'auth-required,paging-respects-size',
      '--generate',
      '0',
    ];
    const withCert = await kgate('conform', [...base, '--client-cert', pki.clientCert, '--client-key', pki.clientKey]);
    assert.equal(withCert.code, 0, `${withCert.stdout}\n${withCert.stderr}`);
    const without = await kgate('conform', base);
    assert.equal(without.code, 2, `${without.stdout}\n${without.stderr}`);
    const lines = problemLines(without.stderr);
    assert.equal(lines.length, 1, without.stderr);
    assert.match(
      lines[0]!,
      /every API answered 400 text\/html \("400 No required SSL certificate was sent"\), not the interface's JSON: .*--client-cert/,
    );
    const halfPair = await kgate('conform', [...base, '--client-cert', pki.clientCert]);
    assert.equal(halfPair.code, 2);
    assert.match(halfPair.stderr, /option --client-cert needs its pair/);
  });
});
