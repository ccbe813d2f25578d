// The realistic profile as a deployment runs it: the answers the real service gave, served by a
// Node server at Node's default limit on the request line and headers (16 KB), where a longer GET
// gets Node's own 431 with an empty body. That is a front-server limit, not the interface's error:
// kgate conform and kgate fuzz must pass such a target, as they pass the real service.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { type ReferenceServer, startReferenceServer } from '../reference/index.ts';
import type { RunSummary } from '../reporting/summary.ts';
import { runKgate } from '../scripts/run-process.ts';

/** A seed whose generated requests include URL preview `q` values over 16 KB encoded (edge:long-q). */
const FUZZ_SEED = '285628053';

let server: ReferenceServer;
let dir: string;
before(async () => {
  server = await startReferenceServer({ quiet: true, profile: 'real' });
  dir = mkdtempSync(join(tmpdir(), 'kgate-real-gate-'));
});
after(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

function env(): Record<string, string> {
  return {
    KGATE_BASE_URL: '',
    KGATE_CONFORM_OPTIONS: '',
    GITHUB_STEP_SUMMARY: '',
    KGATE_KEY: server.keys.full,
    KGATE_KEY_UNSUBSCRIBED: server.keys.academicOnly,
    KGATE_KEY_EXHAUSTED: server.keys.exhausted,
    // The target is on this machine: no proxy of the machine running the tests applies.
    NO_PROXY: '*',
    no_proxy: '*',
  };
}

test("the target runs at Node's default header limit: a 20 KB GET gets 431 with an empty body", async () => {
  const long = `${server.url}/urlpreview/v7.0/search?q=${encodeURIComponent(`https://example.com/${'a/'.repeat(7000)}`)}`;
  const response = await fetch(long, { headers: { 'Ocp-Apim-Subscription-Key': server.keys.full } });
  assert.equal(response.status, 431, 'what the gate meets is the limit, not a raised one');
  assert.equal(await response.text(), '');
});

test('kgate conform passes the realistic profile, nothing skipped', async () => {
  const { code, stdout, stderr } = await runKgate(
    ['conform', '--base-url', server.url, '--report-dir', join(dir, 'conform'), '--json'],
    { cwd: dir, env: env(), timeoutMs: 600_000 },
  );
  const summary = JSON.parse(stdout) as RunSummary;
  const target = summary.targets[0]!;
  assert.equal(code, 0, `exit code 0: ${stderr.slice(-2000)}`);
  assert.equal(target.verdict, 'pass');
  assert.deepEqual(target.failures, [], 'no failure');
  assert.equal(target.counts.skipped, 0, 'no test skipped');
});

test('kgate fuzz passes the realistic profile, its longest GETs over the limit included', async () => {
  const { code, stdout, stderr } = await runKgate(
    ['fuzz', '--base-url', server.url, '--seed', FUZZ_SEED, '--report-dir', join(dir, 'fuzz'), '--json'],
    { cwd: dir, env: env(), timeoutMs: 600_000 },
  );
  const summary = JSON.parse(stdout) as {
    findings: { check: string; operation: string; level?: string }[];
    notes: string[];
  };
  const failing = summary.findings.filter((finding) => finding.level !== 'warn');
  assert.deepEqual(
    failing.map((finding) => `${finding.check} on ${finding.operation}`),
    [],
    `no failing finding: ${stderr.slice(-2000)}`,
  );
  assert.equal(code, 0, 'exit code 0');
  assert.match(
    summary.notes.join('\n'),
    /GET requests over about 1\d KB \(request line and headers\) got 431 .* from a server in front of the interface/,
    "Node's 431 is named once, as the limit it is",
  );
});
