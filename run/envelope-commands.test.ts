// test-runner: long (every command that talks to a target, each run once through the CLI)
// envelope.json is written by every judging command that talks to a target (conform, fuzz, drift
// live, compare, load, probe), valid against reporting/envelope.schema.json, each part saying how it
// was measured; drift live keeps it in its history and compare holds both deployments' with the
// changes between them.
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type ReferenceServer, startReferenceServer } from '../reference/index.ts';
import type { Envelope } from '../reporting/envelope.ts';
import { envelopeSchemaErrors } from '../reporting/envelope-schema.ts';
import { missingBinaries, type RealNginx, startNginx } from '../scripts/real-servers.ts';
import { envelopeIn } from '../scripts/run-folder-left.ts';
import { RUN_ALONE_ENV, referenceKeyEnv, runKgate } from '../scripts/run-process.ts';

let server: ReferenceServer;
let other: ReferenceServer;
let reports: string;
let front: RealNginx | undefined;

before(async () => {
  server = await startReferenceServer({ quiet: true });
  other = await startReferenceServer({ quiet: true });
  reports = mkdtempSync(join(tmpdir(), 'kgate-envelope-commands-'));
  if (!missingBinaries(['nginx'])) front = await startNginx({ upstream: other.url, gzip: false });
});
after(async () => {
  await front?.stop();
  await server?.close();
  await other?.close();
  if (reports) rmSync(reports, { recursive: true, force: true });
});

async function kgate(args: string[], env: Record<string, string> = {}) {
  return runKgate(args, {
    env: {
      ...RUN_ALONE_ENV,
      ...referenceKeyEnv(server.keys),
      KGATE_AGAINST_KEY: other.keys.full,
      ...env,
    },
    timeoutMs: 180_000,
    cwd: reports,
  });
}

/** The one run folder under a kind's default reports folder. */
function runFolder(kind: string): string {
  const root = join(reports, 'reports', kind);
  const names = readdirSync(root).filter((name) => name !== 'latest' && !name.startsWith('.'));
  return join(root, names.sort().at(-1)!);
}

describe('every command that talks to a target writes envelope.json', { concurrency: true }, () => {
  test('kgate fuzz', async () => {
    const dir = join(reports, 'fuzz');
    const run = await kgate(['fuzz', '--base-url', server.url, '--max-requests', '76', '--report-dir', dir]);
    assert.equal(run.code, 0, `${run.stdout}\n${run.stderr}`);
    const envelope = envelopeIn(dir);
    assert.equal(envelope.command, 'fuzz');
    assert.ok(envelope.latency.operations.length >= 10);
    assert.match(readFileSync(join(dir, 'report.html'), 'utf8'), /envelope\.json/);
  });

  test('kgate drift live, twice with a history: the envelope on each run line, and the changes since the previous run', async () => {
    const history = join(reports, 'history.jsonl');
    for (let i = 0; i < 2; i++) {
      const run = await kgate(['drift', 'live', '--base-url', server.url, '--history', history, '--json']);
      assert.equal(run.code, 0, `${run.stdout}\n${run.stderr}`);
    }
    const dir = runFolder('drift');
    const envelope = envelopeIn(dir);
    assert.equal(envelope.command, 'drift live');
    assert.deepEqual(envelope.protocol.http, ['HTTP/1.1']);
    const runs = readFileSync(history, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { type?: string; envelope?: Envelope })
      .filter((line) => line.type === 'run');
    assert.equal(runs.length, 2);
    for (const line of runs) assert.deepEqual(envelopeSchemaErrors(line.envelope), []);
    const drift = JSON.parse(readFileSync(join(dir, 'drift.json'), 'utf8')) as {
      history: { envelopeChanges: unknown[] };
    };
    assert.ok(Array.isArray(drift.history.envelopeChanges));
  });

  test('kgate compare: both deployments, and what changed from the current one to the candidate', async () => {
    const dir = join(reports, 'compare');
    const candidate = front?.url ?? server.url;
    const run = await kgate([
      'compare',
      '--base-url',
      candidate,
      '--against-url',
      other.url,
      '--max-requests',
      '110',
      '--report-dir',
      dir,
    ]);
    assert.equal(run.code, 0, `${run.stdout}\n${run.stderr}`);
    const envelope = envelopeIn(dir);
    assert.equal(envelope.command, 'compare');
    assert.ok(envelope.against, 'the current deployment is measured too');
    assert.equal(envelope.against.command, 'compare');
    if (front) {
      // The candidate is behind nginx: its Server header is the change.
      assert.ok(envelope.infrastructure.servers.some((name) => name.startsWith('nginx/')));
      assert.ok(
        envelope.changes?.some((change) => /^Server none -> nginx\//.test(change.text)),
        JSON.stringify(envelope.changes),
      );
    }
  });

  test('kgate load', async () => {
    const run = await kgate([
      'load',
      'smoke',
      '--base-url',
      server.url,
      '--duration',
      '3s',
      '--max-rps',
      '10',
      '--json',
    ]);
    if (run.code === 1) {
      // The smoke scenario's latency thresholds are a budget measured on this machine, which a loaded
      // one may hold its requests back past (load/thresholds.test.ts judges them); nothing else may fail.
      const summary = JSON.parse(run.stdout) as { verdicts: { id: string; status: string }[] };
      const breached = summary.verdicts.filter((verdict) => verdict.status !== 'pass').map((verdict) => verdict.id);
      assert.ok(breached.length > 0 && breached.every((id) => id.endsWith('-latency')), `${run.stdout}\n${run.stderr}`);
    } else assert.equal(run.code, 0, `${run.stdout}\n${run.stderr}`);
    const envelope = envelopeIn(runFolder('load'));
    assert.equal(envelope.command, 'load');
    assert.ok(envelope.latency.operations.length > 0);
    assert.match(envelope.latency.how, /smoke scenario/);
  });

  test('kgate probe rate-limit and body-limit', async () => {
    const rate = join(reports, 'probe-rate');
    const run = await kgate([
      'probe',
      'rate-limit',
      '--operation',
      'urlPreview',
      '--base-url',
      server.url,
      '--max-duration',
      '15s',
      '--report-dir',
      rate,
    ]);
    assert.equal(run.code, 0, `${run.stdout}\n${run.stderr}`);
    const envelope = envelopeIn(rate);
    assert.equal(envelope.command, 'probe rate-limit');
    assert.equal(envelope.rateLimits[0]?.conforms, true);
    assert.ok((envelope.rateLimits[0]?.rps ?? 0) > 50);
    assert.match(run.stdout, /^signalled: 429 application\/json with Retry-After in seconds by the interface/m);
    const body = join(reports, 'probe-body');
    const bodyRun = await kgate(['probe', 'body-limit', '--base-url', server.url, '--report-dir', body]);
    assert.equal(bodyRun.code, 0, `${bodyRun.stdout}\n${bodyRun.stderr}`);
    const bodyEnvelope = envelopeIn(body);
    assert.equal(bodyEnvelope.bodyLimit?.limitBytes, 1_048_576);
    assert.equal(bodyEnvelope.bodyLimit?.shortestRefused?.status, 400);
    assert.equal(bodyEnvelope.bodyLimit?.shortestRefused?.refusedBy, 'the interface');
  });
});
