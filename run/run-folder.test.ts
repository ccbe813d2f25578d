// test-runner: long (conform runs through the CLI)
// A conformance run folder is what a CI uploads: it holds the reports and nothing the run needed
// only while it ran, whether the run passed or ended at its deadline; the reports say when the
// target was the embedded reference server, and show the checks --checks left out as not selected.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import type { RunSummary } from '../reporting/summary.ts';
import { filesBelow, scratchLeft } from '../scripts/run-folder-left.ts';
import { RUN_ALONE_ENV, runKgate } from '../scripts/run-process.ts';

const work = mkdtempSync(join(tmpdir(), 'kgate-run-folder-'));
after(() => rmSync(work, { recursive: true, force: true }));

const REPORT_FILE =
  /^(report\.html|summary\.md|summary\.json|junit\.xml|tests\.json|run\.json|envelope\.json|plan\.json|repro\/[^/]+\.txt)$/;

/** `kgate conform` on the embedded reference server, reports into `dir`. */
function conform(dir: string, args: string[]) {
  return runKgate(['conform', ...args, '--report-dir', dir], {
    cwd: work,
    env: RUN_ALONE_ENV,
    timeoutMs: 180_000,
  });
}

test('a run on the embedded server with --checks: reports only, the embedded server named, the checks left out not selected', async () => {
  const dir = join(work, 'embedded');
  const { code, stderr } = await conform(dir, [
    '--grep',
    'GET /eventknowledge/v1.0/hotevents',
    '--checks',
    'response-matches-spec,auth-required',
    '--generate',
    '0',
  ]);
  assert.equal(code, 0, stderr);
  assert.deepEqual(
    filesBelow(dir).filter((file) => !REPORT_FILE.test(file)),
    [],
    'the folder holds reports only',
  );
  assert.deepEqual(scratchLeft(dir), [], 'the scratch folder is gone');
  const summary = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')) as RunSummary;
  assert.equal(summary.embedded, true, 'summary.json says the target was the embedded server');
  assert.ok(summary.notSelected?.includes('paging-is-consistent'), 'summary.json lists the checks left out');
  assert.ok(!summary.notSelected?.includes('auth-required') && !summary.notSelected?.includes('content-type-is-json'));
  const markdown = readFileSync(join(dir, 'summary.md'), 'utf8');
  assert.match(
    markdown,
    /^Target: the embedded reference server at http:\/\/127\.0\.0\.1:\d+ \(kgate's own stand-in, not a deployment\)$/m,
  );
  // A check left out reads "not selected" where it applies, and "does not apply" (·) where it does not.
  const row = (id: string) => markdown.split('\n').find((line) => line.startsWith(`| \`${id}\``)) ?? '';
  assert.match(row('paging-is-consistent'), /\(not selected\) \|/);
  assert.match(row('paging-is-consistent'), /\| not selected \|/);
  assert.match(row('similarity-is-symmetric'), /\| · \|/, 'similarity-is-symmetric does not apply to most operations');
  assert.match(row('similarity-is-symmetric'), /\| not selected \|/, 'and was left out where it applies');
  assert.doesNotMatch(row('auth-required'), /not selected/);
  assert.match(markdown, /· does not apply \/ not selected \(left out by --checks\)/);
  const page = readFileSync(join(dir, 'report.html'), 'utf8');
  assert.match(page, /the embedded reference server at http:\/\/127\.0\.0\.1:\d+/);
  assert.match(page, /Not selected in this run \(left out by --checks[^)]*\)[^:]*: [^<]*paging-is-consistent/);
  const junit = readFileSync(join(dir, 'junit.xml'), 'utf8');
  const named = /<property name="not selected \(--checks\)" value="([^"]*)"\/>/.exec(junit)?.[1] ?? '';
  assert.match(named, /\bpaging-is-consistent\b/, 'junit names the checks left out that apply to hot events');
  assert.doesNotMatch(named, /similarity-is-symmetric/, 'not one that does not apply to hot events');
  assert.match(
    junit,
    /<testsuites name="kgate conformance" tests="9" failures="0" skipped="0"/,
    'and counts cells only',
  );
});

test('a run that reaches its deadline leaves reports only, and its scratch folder goes', async () => {
  const dir = join(work, 'deadline');
  const { code, stderr } = await conform(dir, ['--max-duration', '1s']);
  assert.equal(code, 1, stderr);
  assert.match(readFileSync(join(dir, 'summary.md'), 'utf8'), /not run: deadline/);
  assert.deepEqual(
    filesBelow(dir).filter((file) => !REPORT_FILE.test(file)),
    [],
    'the folder holds reports only',
  );
  assert.deepEqual(scratchLeft(dir), [], 'the scratch folder is gone');
});
