import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { runKgate } from '../../scripts/run-process.ts';
import { browserOpener, findRuns, readRun } from './report.ts';

const root = mkdtempSync(join(tmpdir(), 'kgate-report-cmd-'));
after(() => rmSync(root, { recursive: true, force: true }));

/** Writes a run folder with a report page and its summary. */
function run(kind: string, id: string, summary: object | undefined, file = 'summary.json'): string {
  const dir = join(root, 'reports', kind, id);
  mkdirSync(dir, { recursive: true });
  if (summary) writeFileSync(join(dir, file), JSON.stringify(summary));
  writeFileSync(join(dir, 'report.html'), '<!doctype html><title>kgate</title>');
  return dir;
}

// Every kind of run, in the one naming and the older ones (conform, fuzz, compare; load).
const olderConform = run('conformance', '20261124-050000-000-aaaa', {
  verdict: 'pass',
  targets: [],
  baseUrl: 'http://127.0.0.1:9/api',
});
const newerConform = run('conformance', '20261124T051000Z-bbbb', {
  verdict: 'fail',
  targets: [],
  baseUrl: 'https://bob:PaSsWoRd-777@api.example.org',
});
const fuzz = run('fuzz', '20261124T052000Z-cccc', {
  verdict: 'pass',
  seed: 1,
  cases: {},
  baseUrl: 'http://127.0.0.1:9',
});
const drift = run(
  'drift',
  '20261124T053000Z-dddd',
  { kind: 'drift-live', baseUrl: 'http://127.0.0.1:9', summary: { new: 2 } },
  'drift.json',
);
const oldLoad = run('load', 'smoke-20261124T053500Z', {
  scenario: 'smoke',
  plan: {},
  passed: true,
  target: { baseUrl: 'http://127.0.0.1:7', embedded: true },
});
const load = run('load', '20261124T054000Z-eeee', {
  scenario: 'smoke',
  plan: {},
  passed: false,
  target: { baseUrl: 'http://127.0.0.1:7', embedded: false },
});
const compare = run('compare', '20261124T054500Z-ffff', {
  verdict: 'pass',
  candidate: 'http://127.0.0.1:8',
  current: 'http://127.0.0.1:9',
});
const merge = run('merge', '20261124T055000Z-0a0a', {
  verdict: 'fail',
  targets: [],
  shards: { total: 2, merged: [1], missing: [2] },
});
// A run that stopped before its verdict: its folder, no summary.
mkdirSync(join(root, 'reports', 'conformance', '20261124T055500Z-0b0b'));

test('findRuns lists every kind of run, newest first, with its verdict and target', () => {
  const cases: { given: string; want: [string, string, string, string | undefined][] }[] = [
    {
      given: join(root, 'reports'),
      want: [
        ['conformance', join(root, 'reports', 'conformance', '20261124T055500Z-0b0b'), 'error', undefined],
        ['merge', merge, 'fail', undefined],
        ['compare', compare, 'pass', 'http://127.0.0.1:8 against http://127.0.0.1:9'],
        ['load', load, 'fail', 'http://127.0.0.1:7'],
        ['load', oldLoad, 'pass', 'http://127.0.0.1:7 (embedded reference server)'],
        ['drift', drift, 'fail', 'http://127.0.0.1:9'],
        ['fuzz', fuzz, 'pass', 'http://127.0.0.1:9'],
        ['conformance', newerConform, 'fail', 'https://bob:***@api.example.org'],
        ['conformance', olderConform, 'pass', 'http://127.0.0.1:9/api'],
      ],
    },
    {
      given: join(root, 'reports', 'conformance'),
      want: [
        ['conformance', join(root, 'reports', 'conformance', '20261124T055500Z-0b0b'), 'error', undefined],
        ['conformance', newerConform, 'fail', 'https://bob:***@api.example.org'],
        ['conformance', olderConform, 'pass', 'http://127.0.0.1:9/api'],
      ],
    },
    { given: olderConform, want: [['conformance', olderConform, 'pass', 'http://127.0.0.1:9/api']] },
    { given: join(root, 'nothing-here'), want: [] },
  ];
  for (const { given, want } of cases)
    assert.deepEqual(
      findRuns(given).map((found) => [found.kind, found.dir, found.verdict, found.target]),
      want,
      given,
    );
});

test('a run folder outside reports/ is known by what its summary holds', () => {
  const dir = join(root, 'kgate-reports');
  mkdirSync(join(dir, 'compare'), { recursive: true });
  writeFileSync(join(dir, 'summary.json'), JSON.stringify({ verdict: 'pass', targets: [] }));
  writeFileSync(
    join(dir, 'compare', 'summary.json'),
    JSON.stringify({ verdict: 'fail', candidate: 'a', current: 'b' }),
  );
  assert.deepEqual(
    [readRun(dir).kind, readRun(join(dir, 'compare')).kind, readRun(join(dir, 'compare')).verdict],
    ['conformance', 'compare', 'fail'],
  );
  assert.deepEqual(
    findRuns(dir)
      .map((found) => [found.kind, found.verdict])
      .sort(),
    [
      ['compare', 'fail'],
      ['conformance', 'pass'],
    ],
    "the action's folder: its conformance run and the comparison in it",
  );
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

test('kgate report lists the runs, prints where the latest page is, opens nothing without a display, and explains its errors', async () => {
  const env = { CI: '', DISPLAY: '', WAYLAND_DISPLAY: '' };
  const plain = await runKgate(['report'], { cwd: root, env });
  assert.equal(plain.code, 0, plain.stderr);
  const lines = plain.stdout.trim().split('\n');
  assert.match(
    lines[0]!,
    /^2026-11-24 05:55:00 UTC {2}conformance ERROR {2}reports\/conformance\/20261124T055500Z-0b0b\/ \(no report page\)$/,
  );
  assert.match(
    lines[1]!,
    /^2026-11-24 05:50:00 UTC {2}merge {7}FAIL {3}reports\/merge\/20261124T055000Z-0a0a\/report\.html$/,
  );
  assert.match(
    plain.stdout,
    /^2026-11-24 05:40:00 UTC {2}load {8}FAIL {3}reports\/load\/20261124T054000Z-eeee\/report\.html {2}http:\/\/127\.0\.0\.1:7$/m,
  );
  assert.match(
    plain.stdout,
    /^2026-11-24 05:35:00 UTC {2}load {8}PASS {3}reports\/load\/smoke-20261124T053500Z\/report\.html {2}http:\/\/127\.0\.0\.1:7 \(embedded reference server\)$/m,
  );
  assert.match(
    plain.stdout,
    /^2026-11-24 05:10:00 UTC {2}conformance FAIL .* {2}https:\/\/bob:\*\*\*@api\.example\.org$/m,
  );
  assert.doesNotMatch(plain.stdout, /PaSsWoRd|\?/, 'no password, no unknown verdict');
  assert.match(plain.stdout, /^latest report: reports\/merge\/20261124T055000Z-0a0a\/report\.html$/m);
  assert.match(plain.stdout, /not opened \(no DISPLAY or WAYLAND_DISPLAY\)/);

  const inCi = await runKgate(['report', 'reports/conformance'], {
    cwd: root,
    env: { ...env, CI: 'true', DISPLAY: ':0' },
  });
  assert.match(inCi.stdout, /latest report: reports\/conformance\/20261124T051000Z-bbbb\/report\.html/);
  assert.match(inCi.stdout, /not opened \(CI is set\)/);

  const named = await runKgate(['report', '20261124T0520', '--no-open'], { cwd: root, env });
  assert.equal(named.code, 0, named.stderr);
  assert.match(named.stdout, /^report: reports\/fuzz\/20261124T052000Z-cccc\/report\.html$/m, 'a run named by its id');

  const kind = await runKgate(['report', '--kind', 'load', '--limit', '1', '--no-open'], { cwd: root, env });
  assert.match(kind.stdout, /^2026-11-24 05:40:00 UTC {2}load /);
  assert.match(kind.stdout, /^\(1 older run\(s\) not listed; --limit 0 lists every one\)$/m);

  const quiet = await runKgate(['report', '--no-open'], { cwd: root, env: { ...env, DISPLAY: ':0' } });
  assert.doesNotMatch(quiet.stdout, /opened/, '--no-open only prints');

  const json = await runKgate(['report', join(root, 'reports'), '--json'], { cwd: root, env });
  const parsed = JSON.parse(json.stdout) as {
    command: string;
    verdict: string;
    latest: { kind: string; report: string };
    runs: { kind: string; verdict: string }[];
  };
  assert.deepEqual([parsed.command, parsed.verdict, parsed.latest.kind], ['report', 'pass', 'merge']);
  assert.equal(parsed.runs.length, 9);
  assert.deepEqual([...new Set(parsed.runs.map((found) => found.kind))].sort(), [
    'compare',
    'conformance',
    'drift',
    'fuzz',
    'load',
    'merge',
  ]);

  const cases: { given: string[]; want: RegExp }[] = [
    { given: ['report', 'no-such-folder'], want: /^kgate report: no such folder or run 'no-such-folder'/ },
    { given: ['report', 'empty'], want: /^kgate report: no run under empty/ },
    { given: ['report', 'a', 'b'], want: /^kgate report: takes at most one folder or run, got 2/ },
    { given: ['report', '--open'], want: /^kgate report: unknown option --open/ },
    { given: ['report', '2026'], want: /^kgate report: '2026' names 8 runs/ },
    { given: ['report', 'merge', 'x'], want: /^kgate report merge: no such folder 'x'/ },
  ];
  mkdirSync(join(root, 'empty'), { recursive: true });
  for (const { given, want } of cases) {
    const result = await runKgate(given, { cwd: root, env });
    assert.equal(result.code, 2, `${given.join(' ')}: ${result.stdout}`);
    assert.match(result.stderr, want, given.join(' '));
  }
});
