// test-runner: long (the whole gate behind a real HAProxy whose call quota runs out part-way, and behind the reference server's own quota)
// A key's call volume quota that runs out during the run is the deployment's budget ending: the run
// stops sending with that key within a few requests, judges none of the quota's answers, names the
// quota (which key, after how many requests, replenished when) in every report, and gives no
// verdict (exit 2), or FAIL when something it judged before failed. Behind Debian's HAProxy with a
// per-key call counter answering the gateway's 403 (facts.md), and behind the reference server's own
// quota (the interface's 403).
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { type ReferenceServer, startReferenceServer } from '../reference/index.ts';
import { type ArrivalsProxy, startArrivalsProxy } from '../scripts/arrivals-proxy.ts';
import { missingBinaries, type RealHaproxy, startHaproxy } from '../scripts/real-servers.ts';
import { runKgate } from '../scripts/run-process.ts';

const missing = missingBinaries(['haproxy']);
const QUOTA_KEY = 'kgate-quota-key-0a1b2c3d4e5f';
/** Calls the gateway lets through per key: about a third of a full gate's requests. */
const CALLS = 250;

let server: ReferenceServer;
let dir: string;
before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'kgate-quota-'));
  const keys = join(dir, 'keys.json');
  writeFileSync(
    keys,
    JSON.stringify({ keys: [{ name: 'quota', key: QUOTA_KEY, subscriptions: 'all', quota: CALLS }] }),
  );
  server = await startReferenceServer({ quiet: true, rateLimit: 1e9, configFile: keys });
});
after(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

interface Summary {
  verdict: string;
  exitCode: number;
  quota?: string;
  targets: { failures: { check: string; title: string; received: string }[]; counts: { failed: number } }[];
}

function conform(url: string, reports: string, key: string, extra: string[] = []) {
  return runKgate(['conform', '--base-url', url, '--report-dir', reports, ...extra], {
    env: {
      KGATE_KEY: key,
      KGATE_BASE_URL: '',
      KGATE_CONFORM_OPTIONS: '',
      KGATE_KEY_UNSUBSCRIBED: '',
      KGATE_KEY_EXHAUSTED: '',
    },
    timeoutMs: 300_000,
  });
}

/** What every report of a run says of the quota, and that it judged none of its answers. */
function assertQuotaNamed(reports: string, stdout: string, what: string): Summary {
  const summary = JSON.parse(readFileSync(join(reports, 'summary.json'), 'utf8')) as Summary;
  assert.match(
    summary.quota ?? '',
    /^not run: the call volume quota of KGATE_KEY ran out after \d+ requests \(replenished in (23:59:59|1\.00:00:00)\)$/,
    `${what}: summary.json names the quota`,
  );
  assert.match(
    stdout,
    /kgate conformance: (NO VERDICT|FAIL) .*call volume quota of KGATE_KEY ran out after \d+ requests|call volume quota of KGATE_KEY ran out/,
    what,
  );
  const envelope = JSON.parse(readFileSync(join(reports, 'envelope.json'), 'utf8')) as { quota?: { seen: string } };
  assert.match(
    envelope.quota?.seen ?? '',
    /^the call volume quota of KGATE_KEY ran out after \d+ requests/,
    `${what}: envelope.json`,
  );
  assert.match(
    readFileSync(join(reports, 'summary.md'), 'utf8'),
    /call volume quota of KGATE_KEY ran out/,
    `${what}: summary.md`,
  );
  assert.match(
    readFileSync(join(reports, 'report.html'), 'utf8'),
    /call volume quota of KGATE_KEY ran out/,
    `${what}: the page`,
  );
  for (const failure of summary.targets[0]!.failures)
    assert.doesNotMatch(
      `${failure.title} ${failure.received}`,
      /\b403\b|quota/i,
      `${what}: nothing judged from the quota's answers: ${failure.title}`,
    );
  return summary;
}

test("behind HAProxy's per-key call counter, the quota running out part-way stops the run within a few requests, judges none of its answers, and gives no verdict", {
  skip: missing,
}, async () => {
  let gateway: RealHaproxy | undefined;
  let counted: ArrivalsProxy | undefined;
  try {
    gateway = await startHaproxy({ upstream: server.url, limit: { kind: 'quota', calls: CALLS } });
    // In front of HAProxy, a proxy that counts what reaches it with the key after its first quota
    // answer (requests in flight then, and any sent later); a test's requests without the key (the
    // auth checks') are no calls of its quota.
    let afterQuota = 0;
    let quotaSeen = false;
    counted = await startArrivalsProxy(
      gateway.url,
      (request) => {
        if (quotaSeen && request.headers['ocp-apim-subscription-key'] === server.keys.full) afterQuota++;
      },
      (_request, status) => {
        if (status === 403) quotaSeen = true;
      },
    );
    const reports = join(dir, 'haproxy');
    // The server's own quota is out of the way: the gateway counts; the full key passes the server.
    const run = await conform(counted.url, reports, server.keys.full);
    assert.equal(run.code, 2, `no verdict: ${run.stdout.slice(-3000)}\n${run.stderr}`);
    assert.ok(quotaSeen, 'the gateway answered its quota 403');
    assert.ok(afterQuota < 20, `fewer than 20 requests with the key after the first quota answer: ${afterQuota}`);
    const summary = assertQuotaNamed(reports, run.stdout, 'haproxy');
    assert.equal(summary.verdict, 'error');
    assert.match(summary.quota!, /replenished in 23:59:59/, "the gateway's own time");
  } finally {
    counted?.close();
    await gateway?.stop();
  }
});

test("the interface's own quota 403 running out part-way: no verdict without a failure before it, FAIL with one; a ledger sends first what it cut short", async () => {
  // The reference server counts the key's calls over its lifetime: each run gets a fresh key.
  const keys = join(dir, 'more-keys.json');
  writeFileSync(
    keys,
    JSON.stringify({
      keys: [
        { name: 'clean', key: `${QUOTA_KEY}-clean`, subscriptions: 'all', quota: CALLS },
        { name: 'faulty', key: `${QUOTA_KEY}-faulty`, subscriptions: 'all', quota: 600 },
        { name: 'replenished', key: `${QUOTA_KEY}-replenished`, subscriptions: 'all', quota: 100_000 },
      ],
    }),
  );
  const own = await startReferenceServer({ quiet: true, rateLimit: 1e9, configFile: keys });
  try {
    const ledger = join(dir, 'ledger.json');
    const clean = await conform(own.url, join(dir, 'own-clean'), `${QUOTA_KEY}-clean`, ['--ledger', ledger]);
    assert.equal(clean.code, 2, clean.stdout.slice(-3000));
    assert.equal(assertQuotaNamed(join(dir, 'own-clean'), clean.stdout, 'own, clean').verdict, 'error');
    // The ledger keeps what the quota kept the run from judging; the next run (the quota replenished:
    // another key) sends it first, and what it judges is no longer cut short.
    const cut = (JSON.parse(readFileSync(ledger, 'utf8')) as { cutShort?: string[] }).cutShort ?? [];
    assert.ok(cut.length > 0, 'the ledger names what the quota cut short');
    const again = await conform(own.url, join(dir, 'own-again'), `${QUOTA_KEY}-replenished`, [
      '--ledger',
      ledger,
      '--max-requests',
      '120',
    ]);
    assert.equal(again.code, 0, again.stdout.slice(-3000));
    assert.match(
      again.stdout,
      /this run sends first (\d+ items? that failed the last time judged, then )?\d+ items? a call volume quota that ran out kept an earlier run from judging/,
    );
    const left = (JSON.parse(readFileSync(ledger, 'utf8')) as { cutShort?: string[] }).cutShort ?? [];
    assert.ok(
      left.length < cut.length,
      `the next run judged some of what was cut short: ${left.length} of ${cut.length} left`,
    );
    // A defect judged before the quota ran out still fails the run: evaluate's answers are read
    // early (the other operations' test data), and the quota holds most of the run.
    const faulty = await conform(
      `${own.url}/faults/evaluate-year-as-string`,
      join(dir, 'own-faulty'),
      `${QUOTA_KEY}-faulty`,
    );
    assert.equal(faulty.code, 1, faulty.stdout.slice(-3000));
    const summary = assertQuotaNamed(join(dir, 'own-faulty'), faulty.stdout, 'own, faulty');
    assert.ok(
      summary.targets[0]!.failures.some((failure) => failure.check === 'response-matches-spec'),
      'the defect judged before the quota ran out',
    );
  } finally {
    await own.close();
  }
});

test('kgate fuzz and kgate drift live stop at a quota that runs out too, and give no verdict', async () => {
  const keys = join(dir, 'fuzz-keys.json');
  writeFileSync(
    keys,
    JSON.stringify({
      keys: [
        { name: 'fuzz', key: `${QUOTA_KEY}-fuzz`, subscriptions: 'all', quota: 60 },
        { name: 'drift', key: `${QUOTA_KEY}-drift`, subscriptions: 'all', quota: 20 },
      ],
    }),
  );
  const own = await startReferenceServer({ quiet: true, rateLimit: 1e9, configFile: keys });
  try {
    const env = (key: string) => ({ KGATE_KEY: key, KGATE_BASE_URL: '', KGATE_KEY_EXHAUSTED: '' });
    const fuzz = await runKgate(
      [
        'fuzz',
        '--base-url',
        own.url,
        '--max-requests',
        '300',
        '--seed',
        '2',
        '--json',
        '--report-dir',
        join(dir, 'fuzz'),
      ],
      {
        env: env(`${QUOTA_KEY}-fuzz`),
      },
    );
    assert.equal(fuzz.code, 2, fuzz.stdout.slice(0, 2000));
    const result = JSON.parse(fuzz.stdout) as { verdict: string; stopped: string[]; findings: { title: string }[] };
    assert.equal(result.verdict, 'error');
    assert.ok(
      result.stopped.some((reason) => /call volume quota of KGATE_KEY ran out/.test(reason)),
      result.stopped.join('; '),
    );
    assert.ok(!result.findings.some((finding) => /403|quota/i.test(finding.title)), 'nothing judged from the quota');

    const drift = await runKgate(
      ['drift', 'live', '--base-url', own.url, '--json', '--report-dir', join(dir, 'drift')],
      {
        env: env(`${QUOTA_KEY}-drift`),
      },
    );
    assert.equal(drift.code, 2, drift.stdout.slice(0, 2000));
    assert.match(drift.stderr, /call volume quota of KGATE_KEY ran out/);
  } finally {
    await own.close();
  }
});
