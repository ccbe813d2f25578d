import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { runKgate } from '../../scripts/run-process.ts';
import { browserOpener, findReports } from './report.ts';

const root = mkdtempSync(join(tmpdir(), 'kgate-report-cmd-'));
after(() => rmSync(root, { recursive: true, force: true }));

/** Writes a run folder with a report page and its summary; `ageS` seconds old. */
function run(kind: string, id: string, summary: object, ageS: number, file = 'summary.json'): string {
  const dir = join(root, 'reports', kind, id);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, file), JSON.stringify(summary));
  writeFileSync(join(dir, 'report.html'), '<!doctype html><title>kgate</title>');
  const when = new Date(Date.now() - ageS * 1000);
  utimesSync(join(dir, 'report.html'), when, when);
  return dir;
}

const olderConform = run('conformance', '20261124-050000-000-aaaa', { verdict: 'pass' }, 300);
const newerConform = run('conformance', '20261124-051000-000-bbbb', { verdict: 'fail' }, 200);
const fuzz = run('fuzz', '20261124-052000-000-cccc', { verdict: 'pass' }, 100);
const drift = run('drift', '20261124T053000Z-dddd', { kind: 'drift-live', summary: { new: 2 } }, 10, 'drift.json');
// A run still going (its folder made, no page yet) is not the latest report.
mkdirSync(join(root, 'reports', 'conformance', '20261124-054000-000-eeee'));

test('findReports lists the latest run of each kind, newest first, with its verdict', () => {
  const cases: { given: string; want: [string, string, string | undefined][] }[] = [
    {
      given: join(root, 'reports'),
      want: [
        ['drift', drift, 'fail'],
        ['fuzz', fuzz, 'pass'],
        ['conformance', newerConform, 'fail'],
      ],
    },
    { given: join(root, 'reports', 'conformance'), want: [['conformance', newerConform, 'fail']] },
    { given: olderConform, want: [['run', olderConform, 'pass']] },
    { given: join(root, 'nothing-here'), want: [] },
  ];
  for (const { given, want } of cases)
    assert.deepEqual(
      findReports(given).map((report) => [report.kind, report.dir, report.verdict]),
      want,
      given,
    );
});

test("a kind's latest link wins over the newest folder name", () => {
  const base = join(root, 'linked');
  const dirs = ['20261124-050000-000-aaaa', '20261124-051000-000-bbbb'].map((id) => {
    const dir = join(base, 'conformance', id);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'report.html'), '');
    return dir;
  });
  symlinkSync('20261124-050000-000-aaaa', join(base, 'conformance', 'latest'));
  assert.equal(findReports(base)[0]!.dir.endsWith(dirs[0]!.split('/').pop()!), true);
});

test('a browser is opened only in a desktop session, never in CI', () => {
  const cases: { given: [{ ci: boolean; display: boolean }, NodeJS.Platform]; want: string }[] = [
    { given: [{ ci: true, display: true }, 'linux'], want: 'CI is set' },
    { given: [{ ci: true, display: false }, 'darwin'], want: 'CI is set' },
    { given: [{ ci: false, display: false }, 'linux'], want: 'no DISPLAY or WAYLAND_DISPLAY' },
    { given: [{ ci: false, display: true }, 'linux'], want: 'xdg-open' },
    { given: [{ ci: false, display: false }, 'darwin'], want: 'open' },
  ];
  for (const { given, want } of cases) {
    const opener = browserOpener(...given);
    assert.equal('reason' in opener ? opener.reason : opener.command, want, JSON.stringify(given));
  }
});

test('kgate report prints where the latest report is, opens nothing without a display, and explains its errors', async () => {
  const env = { CI: '', DISPLAY: '', WAYLAND_DISPLAY: '' };
  const plain = await runKgate(['report'], { cwd: root, env });
  assert.equal(plain.code, 0, plain.stderr);
  assert.match(plain.stdout, /^drift +FAIL .*reports\/drift\/20261124T053000Z-dddd\/report\.html$/m);
  assert.match(plain.stdout, /^conformance +FAIL .*reports\/conformance\/20261124-051000-000-bbbb\/report\.html$/m);
  assert.match(plain.stdout, /^latest report: reports\/drift\/20261124T053000Z-dddd\/report\.html$/m);
  assert.match(plain.stdout, /not opened \(no DISPLAY or WAYLAND_DISPLAY\)/);

  const inCi = await runKgate(['report', 'reports/conformance'], {
    cwd: root,
    env: { ...env, CI: 'true', DISPLAY: ':0' },
  });
  assert.match(inCi.stdout, /latest report: reports\/conformance\/20261124-051000-000-bbbb\/report\.html/);
  assert.match(inCi.stdout, /not opened \(CI is set\)/);

  const quiet = await runKgate(['report', '--no-open'], { cwd: root, env: { ...env, DISPLAY: ':0' } });
  assert.doesNotMatch(quiet.stdout, /opened/, '--no-open only prints');

  const json = await runKgate(['report', join(root, 'reports'), '--json'], { cwd: root, env });
  const parsed = JSON.parse(json.stdout) as { latest: { kind: string; report: string }; runs: unknown[] };
  assert.equal(parsed.latest.kind, 'drift');
  assert.equal(parsed.runs.length, 3);

  const cases: { given: string[]; want: RegExp }[] = [
    { given: ['report', 'no-such-folder'], want: /^kgate report: no such folder 'no-such-folder'/ },
    { given: ['report', 'empty'], want: /^kgate report: no report\.html under empty/ },
    { given: ['report', 'a', 'b'], want: /^kgate report: takes at most one folder, got 2/ },
    { given: ['report', '--open'], want: /^kgate report: unknown option --open/ },
    { given: ['report', 'merge', 'x'], want: /^kgate report merge: no such folder 'x'/ },
  ];
  mkdirSync(join(root, 'empty'), { recursive: true });
  for (const { given, want } of cases) {
    const result = await runKgate(given, { cwd: root, env });
    assert.equal(result.code, 2, `${given.join(' ')}: ${result.stdout}`);
    assert.match(result.stderr, want, given.join(' '));
  }
});
