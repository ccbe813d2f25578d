// test-runner: long (three commands against a deployment with an input-triggered fault, each line they print run again as printed)
// The lines kgate prints to send a finding again carry the target and never a secret: copied as
// printed into a shell (with the key in KGATE_KEY, as for the run itself), each gives the same
// finding. For conform's and fuzz's seed lines and compare's line that runs the comparison again.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { type ReferenceServer, startReferenceServer } from '../reference/index.ts';
import { ROOT, runKgate, runProcess } from '../scripts/run-process.ts';

let server: ReferenceServer;
let dir: string;
before(async () => {
  server = await startReferenceServer({ quiet: true, rateLimit: 1e9 });
  dir = mkdtempSync(join(tmpdir(), 'kgate-reproduce-'));
});
after(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The environment of every run: the key, and nothing else that names a target. */
const env = () => ({ KGATE_KEY: server.keys.full, KGATE_BASE_URL: '', KGATE_CONFORM_OPTIONS: '', CI: '1' });

/** Runs a line kgate printed, as printed, in a shell (its `kgate` is this checkout's), from `cwd`. */
function runAsPrinted(line: string, cwd: string) {
  assert.match(line, /^kgate /, `a kgate line: ${line}`);
  assert.ok(!line.includes(server.keys.full), 'the line carries no key');
  const kgate = `'${process.execPath}' '${join(ROOT, 'bin/kgate.mjs')}'`;
  return runProcess('sh', ['-c', `${kgate}${line.slice('kgate'.length)}`], {
    cwd,
    env: { ...process.env, ...env() },
    timeoutMs: 120_000,
  });
}

/** The command a seed line names: what follows its case and detail. */
const commandOf = (seed: string) => seed.slice(seed.indexOf('): ') + 3);

interface Finding {
  check: string;
  title: string;
  operation: string;
  seed?: string;
}

test("kgate conform's seed line, run as printed, finds the same failure on the same target", async () => {
  const fault = `${server.url}/faults/evaluate-uppercase-boolean-rejected`;
  const gate = await runKgate(
    [
      'conform',
      '--base-url',
      fault,
      '--grep',
      'GET /academic/v1.0/evaluate',
      '--json',
      '--report-dir',
      join(dir, 'conform'),
    ],
    { env: env(), timeoutMs: 240_000 },
  );
  assert.equal(gate.code, 1, gate.stderr);
  const failures = (JSON.parse(gate.stdout) as { targets: { failures: Finding[] }[] }).targets[0]!.failures;
  const seeded = failures.find((failure) => failure.seed && failure.check === 'positive-input-accepted');
  assert.ok(seeded?.seed, `a generated finding with its seed line: ${failures.map((f) => f.check).join(', ')}`);
  assert.match(commandOf(seeded.seed!), new RegExp(`^kgate fuzz --base-url ${fault} --seed \\d+ --items `));
  const cwd = mkdtempSync(join(dir, 'conform-again-'));
  const again = await runAsPrinted(commandOf(seeded.seed!), cwd);
  assert.equal(again.code, 1, `the same finding, exit 1: ${again.stdout.slice(-2000)}${again.stderr}`);
  const found = JSON.parse(
    readFileSync(join(realpathSync(join(cwd, 'reports', 'fuzz', 'latest')), 'summary.json'), 'utf8'),
  ) as { findings: Finding[]; baseUrl: string };
  assert.equal(found.baseUrl, fault, 'sent to the same target');
  assert.ok(
    found.findings.some((finding) => finding.check === seeded.check && finding.title === seeded.title),
    `the same finding: ${found.findings.map((f) => `${f.check}: ${f.title}`).join('; ')}`,
  );
});

test("kgate fuzz's seed line, run as printed, finds the same failure on the same target", async () => {
  const fault = `${server.url}/faults/relatedevents-non-ascii-500`;
  const run = await runKgate(
    [
      'fuzz',
      '--base-url',
      fault,
      '--operations',
      'relatedEvents',
      '--max-requests',
      '70',
      '--seed',
      '4',
      '--json',
      '--report-dir',
      join(dir, 'fuzz'),
    ],
    { env: env() },
  );
  assert.equal(run.code, 1, run.stderr);
  const finding = (JSON.parse(run.stdout) as { findings: Finding[] }).findings.find(
    (f) => f.check === 'no-server-error',
  );
  assert.ok(finding?.seed, 'the 500 is found, with its seed line');
  assert.match(commandOf(finding.seed!), new RegExp(`^kgate fuzz --base-url ${fault} --seed 4 --(cases|items) `));
  const cwd = mkdtempSync(join(dir, 'fuzz-again-'));
  const again = await runAsPrinted(commandOf(finding.seed!), cwd);
  assert.equal(again.code, 1, `${again.stdout.slice(-2000)}${again.stderr}`);
  assert.match(again.stdout, /\[no-server-error\] GET \/eventknowledge\/v1.0\/relatedevents: status 500/);
  assert.match(again.stdout, new RegExp(`^kgate fuzz: target: ${fault} \\(from --base-url\\)$`, 'm'));
});

test("kgate compare's line, run as printed, finds the same difference between the same deployments", async () => {
  const candidate = `${server.url}/faults/answersearch-offset-off-by-one`;
  const run = await runKgate(
    [
      'compare',
      '--base-url',
      candidate,
      '--against-url',
      server.url,
      '--max-requests',
      '110',
      '--report-dir',
      join(dir, 'compare'),
    ],
    { env: env() },
  );
  assert.equal(run.code, 1, run.stderr);
  const line = /^Again: (kgate compare .*)$/m.exec(run.stdout)?.[1];
  assert.ok(line, `the line that runs it again: ${run.stdout.slice(-1500)}`);
  assert.equal(line, `kgate compare --base-url ${candidate} --against-url ${server.url} --seed 1 --max-requests 110`);
  const first = JSON.parse(readFileSync(join(dir, 'compare', 'summary.json'), 'utf8')) as {
    differences: { operation: string; pointer: string; kind: string }[];
  };
  const cwd = mkdtempSync(join(dir, 'compare-again-'));
  const again = await runAsPrinted(line, cwd);
  assert.equal(again.code, 1, `${again.stdout.slice(-2000)}${again.stderr}`);
  const second = JSON.parse(
    readFileSync(join(realpathSync(join(cwd, 'reports', 'compare', 'latest')), 'summary.json'), 'utf8'),
  ) as typeof first;
  const key = (d: { operation: string; pointer: string; kind: string }) => `${d.operation} ${d.pointer} ${d.kind}`;
  assert.deepEqual(second.differences.map(key).sort(), first.differences.map(key).sort(), 'the same differences');
});
