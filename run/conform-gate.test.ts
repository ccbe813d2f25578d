// test-runner: long (conform runs through the CLI against faults)
// The gate as a team configures it: kgate.config.json (severity overrides, the baseline) and
// --baseline / --update-baseline, run through the real CLI against faults of the reference server.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { type ReferenceServer, startReferenceServer } from '../reference/index.ts';
import { type ConformanceBaseline, RECORDED_REASON } from '../reporting/baseline.ts';
import type { RunSummary } from '../reporting/summary.ts';
import { runKgate } from '../scripts/run-process.ts';

const EVALUATE = 'GET /academic/v1.0/evaluate';
/** A fault orderby-is-honoured catches on evaluate (fault-table.ts), judged by two tests. */
const FAULT = 'evaluate-orderby-ignored';
const SELECTION = ['--checks', 'orderby-is-honoured,auth-required', '--grep', EVALUATE];

let server: ReferenceServer;
let dir: string;
before(async () => {
  server = await startReferenceServer({ quiet: true });
  dir = mkdtempSync(join(tmpdir(), 'kgate-gate-'));
});
after(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

let runs = 0;
/** Runs `kgate conform --json` in the test's folder (where kgate.config.json is looked for). */
async function conform(
  args: string[],
  target = `${server.url}/faults/${FAULT}`,
): Promise<{ code: number | null; result?: RunSummary; stderr: string }> {
  const { code, stdout, stderr } = await runKgate(
    ['conform', '--base-url', target, '--report-dir', join(dir, `run-${++runs}`), '--json', ...args],
    {
      cwd: dir,
      env: {
        KGATE_BASE_URL: '',
        KGATE_CONFORM_OPTIONS: '',
        GITHUB_STEP_SUMMARY: '',
        KGATE_KEY: server.keys.full,
        KGATE_KEY_UNSUBSCRIBED: '',
        KGATE_KEY_EXHAUSTED: '',
      },
    },
  );
  let result: RunSummary | undefined;
  try {
    result = JSON.parse(stdout) as RunSummary;
  } catch {
    // A usage error prints no result.
  }
  return { code, result, stderr };
}

function writeConfig(config: object): void {
  writeFileSync(join(dir, 'kgate.config.json'), JSON.stringify(config));
}

test('severity overrides in kgate.config.json act on the matrix like the built-in levels', async () => {
  const cases: {
    given: { severity?: object; strict?: boolean };
    want: { code: number; cell: string | undefined; row: boolean };
  }[] = [
    { given: {}, want: { code: 1, cell: 'fail', row: true } },
    { given: { severity: { 'orderby-is-honoured': 'warn' } }, want: { code: 0, cell: 'warn', row: true } },
    {
      given: { severity: { 'orderby-is-honoured': 'warn' }, strict: true },
      want: { code: 1, cell: 'fail', row: true },
    },
    { given: { severity: { 'orderby-is-honoured': 'off' } }, want: { code: 0, cell: undefined, row: false } },
  ];
  for (const { given, want } of cases) {
    writeConfig(given);
    const { code, result, stderr } = await conform(SELECTION);
    const target = result?.targets[0];
    const markdown = result ? readFileSync(join(result.reportDir!, 'summary.md'), 'utf8') : '';
    assert.deepEqual(
      {
        code,
        cell: target?.matrix[EVALUATE]?.['orderby-is-honoured'],
        row: markdown.includes('`orderby-is-honoured`'),
      },
      want,
      `${JSON.stringify(given)}: ${stderr}`,
    );
  }
  rmSync(join(dir, 'kgate.config.json'));
});

test('baseline round trip: --update-baseline accepts the failures, a later run reports them known, then expired, then fixed', async () => {
  const file = join(dir, 'kgate.baseline.json');
  const written = await conform([...SELECTION, '--baseline', file, '--update-baseline']);
  assert.equal(written.code, 0, `the updated baseline accepts this run's failures: ${written.stderr}`);
  const baseline = JSON.parse(readFileSync(file, 'utf8')) as ConformanceBaseline;
  // One failed cell, shown by one request or more (the fixed test's, and any planned request the
  // property judged with another attribute, its own pointer): an entry for each, all on that cell.
  const entries = baseline.failures.length;
  assert.ok(entries >= 1, 'the failure is recorded');
  assert.match(
    written.stderr,
    new RegExp(
      `baseline .*kgate\\.baseline\\.json written: ${entries} failure\\(s\\) added, 0 fixed entry\\(ies\\) dropped`,
    ),
  );
  assert.deepEqual(
    baseline.failures.map((entry) => [entry.check, entry.operation, entry.reason]),
    Array.from({ length: entries }, () => ['orderby-is-honoured', EVALUATE, RECORDED_REASON]),
    'entries for the failed cell only',
  );
  assert.equal(written.result!.targets[0]!.matrix[EVALUATE]!['orderby-is-honoured'], 'known');

  // The baseline named by the configuration file, with a reason written by a person.
  for (const entry of baseline.failures) entry.reason = 'orderby lands in release 4.2, ticket API-31';
  writeFileSync(file, JSON.stringify(baseline));
  writeConfig({ baseline: 'kgate.baseline.json' });
  const known = await conform(SELECTION);
  assert.equal(known.code, 0, known.stderr);
  const target = known.result!.targets[0]!;
  assert.deepEqual(target.counts.known, 1, 'one known cell');
  assert.equal(target.known![0]!.baseline!.reason, 'orderby lands in release 4.2, ticket API-31');
  const junit = readFileSync(join(known.result!.reportDir!, 'junit.xml'), 'utf8');
  assert.match(junit, /<skipped message="known failure \(baseline\): orderby lands in release 4\.2, ticket API-31">/);
  assert.doesNotMatch(junit, /<failure /, 'no failed case');

  for (const entry of baseline.failures) entry.expires = '2020-01-31';
  writeFileSync(file, JSON.stringify(baseline));
  const expired = await conform(SELECTION);
  assert.equal(expired.code, 1, 'past its expiry the failure fails the gate again');
  assert.equal(expired.result!.targets[0]!.failures[0]!.baseline?.expired, true, 'and says which entry expired');

  const fixed = await conform(SELECTION, server.url);
  assert.equal(fixed.code, 0, fixed.stderr);
  assert.deepEqual(
    fixed.result!.targets[0]!.baseline!.fixed.map((entry) => entry.check),
    Array.from({ length: entries }, () => 'orderby-is-honoured'),
    'the clean server no longer fails it: fixed',
  );
  rmSync(join(dir, 'kgate.config.json'));
});

test('a bad configuration file or baseline is one line and exit 2', async () => {
  const cases: { given: { config?: object; baseline?: string; args?: string[] }; want: RegExp }[] = [
    {
      given: { config: { maxRPS: 1 } },
      want: /^kgate conform: kgate\.config\.json: unknown key 'maxRPS' \(did you mean maxRps\?\)$/,
    },
    {
      given: { config: { severity: { 'orderby-is-honoured': 'ignore' } } },
      want: /^kgate conform: kgate\.config\.json: key 'severity\.orderby-is-honoured' must be one of fail, warn, off$/,
    },
    {
      given: { baseline: '{"failures": []}' },
      want: /^kgate conform: option --baseline: .*b\.json: not a kgate conformance baseline/,
    },
    {
      given: { args: ['--baseline', 'no/such/folder/b.json', '--update-baseline'] },
      want: /^kgate conform: option --baseline: no such folder '.*no\/such\/folder' to write the baseline into$/,
    },
    {
      given: { config: { envelope: { urlLimitMin: 'big' } } },
      want: /^kgate conform: kgate\.config\.json: key 'envelope\.urlLimitMin' /,
    },
    {
      given: { args: ['--max-rps-by-path', 'calchistogram=0.1'] },
      want: /^kgate conform: option --max-rps-by-path takes PATH=R pairs .*\(unknown path 'calchistogram'; paths of the spec: /,
    },
  ];
  for (const { given, want } of cases) {
    if (given.config) writeConfig(given.config);
    if (given.baseline) writeFileSync(join(dir, 'b.json'), given.baseline);
    const { code, stderr } = await conform([
      ...(given.baseline ? ['--baseline', 'b.json'] : []),
      ...(given.args ?? []),
    ]);
    assert.equal(code, 2, stderr);
    assert.match(stderr.trim(), want);
    assert.equal(stderr.trim().split('\n').length, 1, `one line: ${stderr}`);
    rmSync(join(dir, 'kgate.config.json'), { force: true });
  }
});
