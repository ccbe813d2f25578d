// test-runner: long (the whole gate through a real lighttpd at a path prefix)
// Debian's lighttpd as a reverse proxy at a path prefix, with its stock request parsing: it refuses
// a URL holding a control character (even percent-encoded) with a 400 page of its own. That refusal
// is the front server's: named with it, never judged as the interface's answer, never a transport
// failure nor a reason to give an operation up, and not sent there again. The gate passes the
// reference server behind it.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { type ReferenceServer, startReferenceServer } from '../reference/index.ts';
import { missingBinaries, type RealLighttpd, startLighttpd } from '../scripts/real-servers.ts';
import { referenceKeyEnv, runKgate } from '../scripts/run-process.ts';

const missing = missingBinaries(['lighttpd']);
let server: ReferenceServer;
let front: RealLighttpd | undefined;
let dir: string;
before(async () => {
  if (missing) return;
  server = await startReferenceServer({ quiet: true, rateLimit: 1e9 });
  front = await startLighttpd({ upstream: server.url, prefix: '/api/' });
  dir = mkdtempSync(join(tmpdir(), 'kgate-lighttpd-'));
});
after(async () => {
  await front?.stop();
  await server?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test('through lighttpd at a prefix with its stock settings the gate passes: its own 400 to control characters is named, not judged, and nothing is given up', {
  skip: missing,
}, async () => {
  const reports = join(dir, 'gate');
  const run = await runKgate(['conform', '--base-url', front!.url, '--report-dir', reports], {
    env: { ...referenceKeyEnv(server.keys), KGATE_BASE_URL: '', KGATE_CONFORM_OPTIONS: '' },
    timeoutMs: 300_000,
  });
  assert.equal(run.code, 0, `${run.stdout.slice(-4000)}\n${front!.log().slice(-2000)}`);
  assert.match(
    run.stdout,
    /GET requests whose URL held control characters were refused by the front server \(lighttpd\/[\d.]+\): 400 text\/html, not the interface's answer/,
  );
  assert.doesNotMatch(run.stdout, /given up|gave up|not run/, 'no operation given up on');
  const summary = JSON.parse(readFileSync(join(reports, 'summary.json'), 'utf8')) as {
    targets: { counts: { failed: number } }[];
  };
  assert.equal(summary.targets[0]!.counts.failed, 0);
  const envelope = JSON.parse(readFileSync(join(reports, 'envelope.json'), 'utf8')) as {
    infrastructure: { refuses?: string[] };
  };
  assert.deepEqual(
    envelope.infrastructure.refuses?.map((line) => line.replace(/lighttpd\/[\d.]+/, 'lighttpd')),
    ['control characters in GET URLs: 400 text/html (lighttpd)'],
    'the envelope records what the front refuses',
  );
});
