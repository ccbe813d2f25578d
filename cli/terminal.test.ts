// What a person sees in the terminal agrees with the verdict: each command that judges a target
// (conform, fuzz, drift live, compare, load, probe) runs against a failing and a clean target of the
// reference server, and its captured output (stdout and stderr, as a CI log keeps them) is held to
// the verdict its own reports and exit code give: the verdict word is the exit code's, no line
// claims a count other than the verdict's, no line names a source file of kgate or lists tests one
// by one. Playwright's own reporter appears only when asked for (--playwright-reporter), and then
// the same checks see its contradicting counts and its test lines, so they are not blind to them.
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { CompareResult } from '../compare/run.ts';
import type { FuzzResult } from '../contracts/generative/fuzz.ts';
import type { RunSummary } from '../contracts/summary.ts';
import { causeCounts, groupByCause } from '../drift/findings.ts';
import type { LiveResult } from '../drift/live.ts';
import type { LoadSummary } from '../load/report.ts';
import { type ReferenceServer, startReferenceServer } from '../reference/index.ts';
import { type ProcessResult, runKgate } from '../scripts/run-process.ts';
import { contradictions, sourcePaths, testLines, type VerdictCounts } from '../scripts/terminal-claims.ts';

let server: ReferenceServer;
let dir: string;

before(async () => {
  server = await startReferenceServer({ quiet: true });
  dir = mkdtempSync(join(tmpdir(), 'kgate-terminal-'));
});
after(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

const fault = (name: string) => `${server.url}/faults/${name}`;

/** Runs kgate as a CI job would: no terminal, the reference keys, nothing inherited that picks a target. */
function kgate(args: string[]): Promise<ProcessResult> {
  return runKgate(args, {
    cwd: dir,
    timeoutMs: 180_000,
    env: {
      KGATE_KEY: server.keys.full,
      KGATE_AGAINST_KEY: server.keys.full,
      KGATE_BASE_URL: '',
      KGATE_CONFORM_OPTIONS: '',
      GITHUB_STEP_SUMMARY: '',
      KGATE_KEY_UNSUBSCRIBED: '',
      KGATE_KEY_EXHAUSTED: '',
    },
  });
}

let folders = 0;
const folder = (name: string) => join(dir, `${name}-${++folders}`);
const readJson = <T>(path: string) => JSON.parse(readFileSync(path, 'utf8')) as T;
/** The one run folder a command made below `root`. */
const only = (root: string) =>
  join(root, readdirSync(root).find((name) => !name.startsWith('.') && name !== 'latest')!);

/** Holds a run's output to its verdict: the exit code, the counts, no source path, no test listing. */
function agrees(run: ProcessResult, want: { code: 0 | 1; verdict: VerdictCounts; command: string }): void {
  const output = `${run.stdout}\n${run.stderr}`;
  assert.equal(run.code, want.code, `${want.command} exit code\n${output}`);
  const word = want.code === 0 ? 'PASS' : 'FAIL';
  const lines = output.split('\n').filter((line) => /^kgate [a-z -]+: (PASS|FAIL)\b/.test(line));
  assert.ok(lines.length > 0, `${want.command}: a verdict line\n${output}`);
  for (const line of lines) assert.match(line, new RegExp(`: ${word}\\b`), `${want.command}: the exit code's word`);
  assert.deepEqual(contradictions(output, want.verdict), [], `${want.command}: counts\n${output}`);
  assert.deepEqual(sourcePaths(output), [], `${want.command}: source paths`);
  assert.deepEqual(testLines(output), [], `${want.command}: test lines`);
  assert.equal(output.includes(server.keys.full), false, `${want.command}: the key is never printed`);
}

describe('the terminal agrees with the verdict', () => {
  /** The cell counts of a conformance run, by the words the reports use. */
  const conformCounts = (summary: RunSummary): VerdictCounts => {
    const { passed, failed, warned, skipped, known } = summary.targets[0]!.counts;
    return { passed, failed, warnings: warned, skipped, ...(known !== undefined ? { known } : {}) };
  };
  const SELECTION = ['--grep', 'evaluate', '--generate', '0'];

  test('kgate conform', async () => {
    for (const [target, code] of [
      [fault('evaluate-entity-prob-missing'), 1],
      [server.url, 0],
    ] as const) {
      const reports = folder('conform');
      const run = await kgate(['conform', '--base-url', target, ...SELECTION, '--report-dir', reports]);
      const summary = readJson<RunSummary>(join(reports, 'summary.json'));
      assert.equal(summary.exitCode, code);
      agrees(run, { code, verdict: conformCounts(summary), command: `conform ${target}` });
      assert.match(run.stdout, /^ {2}cells: {5}\d+ passed, \d+ failed/m, 'the counts are printed');
    }
  });

  test("kgate conform --playwright-reporter list shows Playwright's own lines, which these checks catch", async () => {
    const reports = folder('conform-list');
    const run = await kgate([
      'conform',
      '--base-url',
      fault('evaluate-entity-prob-missing'),
      ...SELECTION,
      '--report-dir',
      reports,
      '--playwright-reporter',
      'list',
    ]);
    assert.equal(run.code, 1, run.stderr);
    const verdict = conformCounts(readJson<RunSummary>(join(reports, 'summary.json')));
    assert.ok(testLines(run.stderr).length > 0, 'Playwright lists its tests on stderr when asked');
    assert.ok(sourcePaths(run.stderr).length > 0, 'naming their source files');
    assert.ok(
      contradictions(run.stderr, verdict).some((item) => item.word === 'passed'),
      "its 'N passed' counts tests, not the verdict's cells",
    );
    assert.deepEqual(contradictions(run.stdout, verdict), [], "stdout keeps kgate's summary only");
    const bad = await kgate(['conform', '--playwright-reporter', 'html']);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /option --playwright-reporter takes one of list, line, dot, got 'html'/);
  });

  test('kgate fuzz', async () => {
    for (const [target, code] of [
      [fault('evaluate-wide-or-500'), 1],
      [server.url, 0],
    ] as const) {
      const reports = folder('fuzz');
      const run = await kgate([
        'fuzz',
        '--base-url',
        target,
        '--operations',
        'evaluateGet,evaluatePost',
        '--budget',
        '150',
        '--seed',
        '7',
        '--report-dir',
        reports,
      ]);
      const result = readJson<FuzzResult>(join(reports, 'summary.json'));
      const failing = result.findings.filter((finding) => (finding.level ?? 'fail') === 'fail').length;
      agrees(run, {
        code,
        verdict: { findings: failing, warnings: result.findings.length - failing },
        command: `fuzz ${target}`,
      });
    }
  });

  test('kgate drift live: one change on every answer is one entry, counted once', async () => {
    for (const [target, code] of [
      [fault('every-answer-extra-request-id'), 1],
      [server.url, 0],
    ] as const) {
      const reports = folder('drift');
      const run = await kgate(['drift', 'live', '--base-url', target, '--report-dir', reports]);
      const result = readJson<LiveResult>(join(only(reports), 'drift.json'));
      const causes = result.summary.causes ?? causeCounts(groupByCause(result.findings));
      agrees(run, {
        code,
        verdict: { changes: causes.total, new: causes.new, known: causes.known, places: result.summary.findings },
        command: `drift live ${target}`,
      });
      if (code === 1) {
        assert.equal(causes.total, 1, 'one change');
        assert.ok(result.summary.findings >= 20, `at every operation and status: ${result.summary.findings} places`);
        assert.equal(run.stdout.split('\n').filter((line) => /^NEW /.test(line)).length, 1, run.stdout);
      }
    }
  });

  test('kgate compare', async () => {
    for (const [candidate, code] of [
      [fault('every-answer-extra-request-id'), 1],
      [server.url, 0],
    ] as const) {
      const reports = folder('compare');
      const run = await kgate([
        'compare',
        '--base-url',
        candidate,
        '--against-url',
        server.url,
        '--requests',
        '20',
        '--report-dir',
        reports,
      ]);
      const result = readJson<CompareResult>(join(reports, 'summary.json'));
      agrees(run, {
        code,
        verdict: { differences: result.causes, places: result.differences.length },
        command: `compare ${candidate}`,
      });
      if (code === 1) assert.equal(result.causes, 1, 'a field on every answer is one difference');
    }
  });

  test('kgate load', async () => {
    // A reference server that lets one request a second through on the two rate-limited APIs: the
    // smoke scenario's error-rate threshold (no error at all) is breached.
    const limited = await startReferenceServer({ quiet: true, rateLimit: 1 });
    after(() => limited.close());
    for (const [target, code] of [
      [limited.url, 1],
      [server.url, 0],
    ] as const) {
      const reports = folder('load');
      const run = await kgate([
        'load',
        'smoke',
        '--base-url',
        target,
        '--rate',
        '20',
        '--duration',
        '2s',
        '--report-dir',
        reports,
      ]);
      const summary = readJson<LoadSummary>(join(only(reports), 'summary.json'));
      const breached = summary.verdicts.filter((verdict) => verdict.status === 'fail').length;
      agrees(run, { code, verdict: { breached }, command: `load ${target}` });
    }
  });

  test('kgate probe', async () => {
    for (const [target, code] of [
      [fault('similarity-body-limit-500'), 1],
      [server.url, 0],
    ] as const) {
      const json = await kgate(['probe', 'body-limit', '--base-url', target, '--json']);
      const problems = (JSON.parse(json.stdout) as { problems: string[] }).problems.length;
      const run = await kgate(['probe', 'body-limit', '--base-url', target]);
      agrees(run, { code, verdict: { problems }, command: `probe ${target}` });
    }
  });
});
