// test-runner: long (conform runs through the CLI)
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { scanForSecrets } from '../proof/secret-scan.ts';
import { type ReferenceServer, startReferenceServer } from '../reference/index.ts';
import { type ProcessResult, ROOT, runKgate } from '../scripts/run-process.ts';

/** Whether Node keeps compiled code itself (22 and later): only then does a run keep any. */
const { NATIVE } = createRequire(import.meta.url)('../config/compile-cache.cjs') as { NATIVE: boolean };

const REPORT_DIR = 'reports/conformance-cli-test';
/** A key no real deployment would use, so finding it anywhere is a leak. */
const DISTINCTIVE = 'kgate-leak-canary-7f3a9c2e51d84b06';

let server: ReferenceServer;
before(async () => {
  server = await startReferenceServer({ quiet: true });
});
after(async () => {
  await server.close();
  rmSync(join(ROOT, REPORT_DIR), { recursive: true, force: true });
});

/** Runs `kgate conform` in a child process (asynchronously: the reference server lives in this process). */
function conform(args: string[], env: Record<string, string> = {}, cwd = ROOT): Promise<ProcessResult> {
  return runKgate(['conform', ...args], {
    cwd,
    // GITHUB_STEP_SUMMARY is cleared so these runs never land in a real CI job summary.
    env: {
      KGATE_BASE_URL: '',
      GITHUB_STEP_SUMMARY: '',
      KGATE_CONFORM_OPTIONS: JSON.stringify({ reportDir: REPORT_DIR }),
      ...env,
    },
  });
}

const usageCases = [
  {
    given: ['--checks', 'no-such-check'],
    want: /option --checks takes a comma-separated list of check ids .*\(unknown: 'no-such-check'; known: response-matches-spec/,
  },
  { given: ['--exclude-checks', 'auth-required,nope'], want: /option --exclude-checks takes .*\(unknown: 'nope'/ },
  {
    given: ['--shard', '3/2'],
    want: /--shard takes I\/N, shard I of N with 1 <= I <= N, such as 1\/4, got '3\/2' \(shard 3 of 2 does not exist\)/,
  },
  {
    given: ['--timeout', 'soon'],
    want: /--timeout takes a duration with a unit, ms, s, m or h \(such as 500ms, 10s, 2m\), from 100ms to 10m, got 'soon'/,
  },
  {
    given: ['--timeout', '5000'],
    want: /--timeout takes a duration .*, got '5000' \(a bare number has no unit: write 5000ms or 5000s\)/,
  },
  { given: ['--base-url', 'ftp://example.org'], want: /option --base-url takes an absolute http or https URL/ },
  {
    given: ['--base-url', 'http://127.0.0.1:1'],
    want: /no subscription key for http:\/\/127\.0\.0\.1:1: KGATE_KEY is not set/,
  },
  { given: ['--report-dir', ''], want: /option --report-dir takes a folder path/ },
  { given: ['--config', 'no-such-kgate.config.json'], want: /no-such-kgate\.config\.json: cannot read \(ENOENT\)/ },
  {
    given: ['--generate', 'many'],
    want: /option --generate takes a whole number of generated requests from 0 to 100000, got 'many' \(not a whole number\)/,
  },
  {
    given: ['--generate', '0', '--checks', 'no-server-error'],
    want: /option --checks: no-server-error judges generated requests, which --generate 0 turns off/,
  },
];
for (const { given, want } of usageCases) {
  test(`kgate conform ${given.join(' ')} exits 2 with a message`, async () => {
    const { code, stderr } = await conform(given);
    assert.equal(code, 2, stderr);
    assert.match(stderr, want);
  });
}

test('a wrong KGATE_KEY_UNSUBSCRIBED_COVERS, or a key every API refuses, exits 2 naming the problem', async () => {
  const cases: { given: Record<string, string>; want: RegExp }[] = [
    {
      given: { KGATE_KEY_UNSUBSCRIBED_COVERS: 'academic,search' },
      want: /KGATE_KEY_UNSUBSCRIBED_COVERS: 'search' is not an API/,
    },
    { given: { KGATE_KEY: 'not-a-key-of-this-server' }, want: /refused the key: every API answered 401/ },
  ];
  for (const { given, want } of cases) {
    const { code, stderr } = await conform(['--base-url', server.url], given);
    assert.equal(code, 2, stderr);
    assert.match(stderr, want);
  }
});

test('a hostile target yields a named failure, exit 1, and the key appears nowhere', async () => {
  const { code, stdout, stderr } = await conform(
    [
      '--base-url',
      `${server.url}/faults/huge-body`,
      '--grep',
      'GET /academic/v1.0/evaluate',
      '--checks',
      'response-matches-spec,auth-required',
      '--timeout',
      '10s',
      '--json',
    ],
    { KGATE_KEY: DISTINCTIVE, KGATE_KEY_UNSUBSCRIBED: `${DISTINCTIVE}-u`, KGATE_KEY_EXHAUSTED: `${DISTINCTIVE}-x` },
  );
  assert.equal(code, 1, stderr);
  const result = JSON.parse(stdout) as { verdict: string; targets: { failures: { check: string; curl?: string }[] }[] };
  assert.equal(result.verdict, 'fail');
  const failures = result.targets[0]!.failures;
  assert.ok(
    failures.some((failure) => failure.check === 'body-within-size-cap'),
    JSON.stringify(failures),
  );
  assert.ok(
    failures.every(
      (failure) =>
        !failure.curl ||
        failure.curl.includes('Ocp-Apim-Subscription-Key: ***') ||
        !failure.curl.includes('Subscription'),
    ),
  );
  assert.ok(!stdout.includes(DISTINCTIVE) && !stderr.includes(DISTINCTIVE), 'the key must not be printed');
  assert.ok(existsSync(join(ROOT, REPORT_DIR, 'report.html')), 'the scan covers the report page');
  assert.deepEqual(scanForSecrets(join(ROOT, REPORT_DIR), [DISTINCTIVE]), [], 'the key must not be in any report file');
});

test("--playwright-report writes Playwright's own reports into playwright-debug/, saying they are not the verdict, without the key", async () => {
  const dir = mkdtempSync(join(tmpdir(), 'kgate-playwright-debug-'));
  try {
    const { code, stderr } = await conform(
      [
        '--base-url',
        `${server.url}/faults/evaluate-orderby-ignored`,
        '--grep',
        'GET /academic/v1.0/evaluate',
        '--checks',
        'orderby-is-honoured',
        '--report-dir',
        dir,
        '--playwright-report',
        '--json',
      ],
      { KGATE_KEY: server.keys.full, KGATE_CONFORM_OPTIONS: '' },
    );
    assert.equal(code, 1, stderr);
    for (const file of ['html/index.html', 'results.json', 'README.txt'])
      assert.ok(existsSync(join(dir, 'playwright-debug', file)), `playwright-debug/${file}`);
    assert.match(readFileSync(join(dir, 'playwright-debug', 'README.txt'), 'utf8'), /NOT the verdict/);
    assert.ok(
      !existsSync(join(dir, 'html')) && !existsSync(join(dir, 'results.json')),
      'nothing of it beside report.html',
    );
    assert.match(readFileSync(join(dir, 'report.html'), 'utf8'), /<title>kgate conformance: FAIL/);
    assert.deepEqual(scanForSecrets(dir, [server.keys.full]), [], 'the key is in none of them, zip included');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a conforming target with --base-url passes a selection of checks, with a path prefix kept', async () => {
  const { code, stdout, stderr } = await conform(
    [
      '--base-url',
      `${server.url}/faults/evaluate-extra-timed-out`,
      '--grep',
      'evaluate',
      '--checks',
      'response-matches-spec,paging-is-consistent',
      '--json',
    ],
    { KGATE_KEY: server.keys.full },
  );
  assert.equal(code, 0, stderr + stdout);
  const result = JSON.parse(stdout) as {
    verdict: string;
    targets: { tests: { total: number }; matrix: Record<string, Record<string, string>> }[];
  };
  assert.equal(result.verdict, 'pass');
  // Two checks on two operations, and on each operation the generative test that sends the valid
  // generated requests paging-is-consistent judges as a property (its own cell stays empty).
  assert.equal(result.targets[0]!.tests.total, 6, '--grep and --checks both apply: two checks on two operations');
  assert.equal(
    result.targets[0]!.matrix['GET /academic/v1.0/evaluate']!['positive-input-accepted'] ?? 'n/a',
    'n/a',
    'a check that was not selected has no cell',
  );
  assert.equal(
    result.targets[0]!.matrix['GET /academic/v1.0/evaluate']!['paging-is-consistent'],
    'pass',
    'the selected check ran',
  );
});

test('a sample-level deviation is a warning (exit 0) unless --strict (exit 1), and the summary reaches $GITHUB_STEP_SUMMARY', async () => {
  const stepSummary = join(ROOT, REPORT_DIR, 'step-summary.md');
  mkdirSync(join(ROOT, REPORT_DIR), { recursive: true });
  rmSync(stepSummary, { force: true });
  const args = [
    '--base-url',
    `${server.url}/faults/eventknowledge-event-id-not-hex`,
    '--grep',
    'hotevents',
    '--checks',
    'event-ids-are-32-hex',
  ];
  const cases = [
    { given: args, want: { code: 0, verdict: 'PASS', warnings: 1 } },
    { given: [...args, '--strict'], want: { code: 1, verdict: 'FAIL', warnings: 0 } },
  ];
  for (const { given, want } of cases) {
    const { code, stdout, stderr } = await conform(given, {
      KGATE_KEY: server.keys.full,
      GITHUB_STEP_SUMMARY: stepSummary,
    });
    assert.equal(code, want.code, stderr + stdout);
    assert.match(stdout, new RegExp(`^kgate conformance: ${want.verdict} `, 'm'));
    assert.match(stdout, new RegExp(`${want.warnings} warnings`));
  }
  const summary = readFileSync(stepSummary, 'utf8');
  assert.match(summary, /\| `event-ids-are-32-hex` \(warn\) \|.* warn \|/);
  assert.match(summary, /\*\*FAIL\*\*/);
});

test('a target that echoes the key in its bodies does not get it into any report', async () => {
  const echo = createServer((req, res) => {
    res.writeHead(400, { 'content-type': 'application/json; charset=utf-8' });
    res.end(
      JSON.stringify({ error: { statusCode: 400, message: `bad key ${req.headers['ocp-apim-subscription-key']}` } }),
    );
  });
  await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', resolve));
  try {
    const url = `http://127.0.0.1:${(echo.address() as AddressInfo).port}`;
    const { code, stdout, stderr } = await conform(
      ['--base-url', url, '--grep', 'GET /urlpreview', '--checks', 'response-matches-spec'],
      {
        KGATE_KEY: DISTINCTIVE,
      },
    );
    assert.equal(code, 1, stderr + stdout);
    assert.match(stdout, /bad key \*\*\*/);
    assert.ok(!stdout.includes(DISTINCTIVE) && !stderr.includes(DISTINCTIVE), 'the key must not be printed');
    assert.deepEqual(
      scanForSecrets(join(ROOT, REPORT_DIR), [DISTINCTIVE]),
      [],
      'the key must not be in any report file',
    );
  } finally {
    echo.closeAllConnections();
    echo.close();
  }
});

test('two runs at once in one folder keep their own reports and verdicts', async () => {
  const cwd = mkdtempSync(join(tmpdir(), 'kgate-concurrent-'));
  try {
    const run = (fault: string) =>
      conform(
        [
          '--base-url',
          `${server.url}/faults/${fault}`,
          '--grep',
          'evaluate',
          '--checks',
          'response-matches-spec,paging-is-consistent',
        ],
        { KGATE_KEY: server.keys.full, KGATE_CONFORM_OPTIONS: '' },
        cwd,
      );
    const [passing, failing] = await Promise.all([run('evaluate-extra-timed-out'), run('evaluate-offset-off-by-one')]);
    assert.equal(passing.code, 0, passing.stderr + passing.stdout);
    assert.equal(failing.code, 1, failing.stderr + failing.stdout);
    assert.match(passing.stdout, /kgate conform: PASS/);
    assert.match(failing.stdout, /kgate conform: FAIL/);
    const folderOf = (stdout: string) => /open (\S+)\/report\.html/.exec(stdout)?.[1];
    const [passDir, failDir] = [folderOf(passing.stdout), folderOf(failing.stdout)];
    assert.ok(passDir && failDir && passDir !== failDir, `each run writes its own folder: ${passDir}, ${failDir}`);
    assert.ok(passDir.startsWith(join(cwd, 'reports', 'conformance')), 'reports go to the working directory');
    const verdictIn = (dir: string) =>
      (JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')) as { verdict: string }).verdict;
    assert.equal(verdictIn(passDir), 'pass', 'the passing run kept its own summary');
    assert.equal(verdictIn(failDir), 'fail', 'the failing run kept its own summary');
    assert.ok(
      existsSync(join(cwd, 'reports', 'conformance', 'latest', 'summary.json')),
      'latest points at a finished run',
    );
  } finally {
    rmSync(cwd, { recursive: true, force: true });
  }
});

test('--report-dir puts the reports exactly there', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'kgate-report-dir-'));
  try {
    const { code, stdout, stderr } = await conform(
      [
        '--base-url',
        server.url,
        '--grep',
        'GET /academic/v1.0/evaluate',
        '--checks',
        'response-matches-spec',
        '--report-dir',
        dir,
      ],
      { KGATE_KEY: server.keys.full, KGATE_CONFORM_OPTIONS: '' },
    );
    assert.equal(code, 0, stderr + stdout);
    for (const file of ['report.html', 'summary.md', 'summary.json', 'junit.xml']) {
      assert.ok(existsSync(join(dir, file)), `${file} is in the folder given`);
    }
    for (const file of ['html', 'results.json', 'playwright-debug'])
      assert.ok(!existsSync(join(dir, file)), `no ${file}: Playwright's own reports only with --playwright-report`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('auth-requires-subscription is exact once the covered APIs are known, and says so when they are not', async () => {
  const args = [
    '--base-url',
    `${server.url}/faults/auth-unsubscribed-accepted-answersearch`,
    '--grep',
    'answersearch',
    '--checks',
    'auth-requires-subscription',
    '--json',
  ];
  const keys = { KGATE_KEY: server.keys.full, KGATE_KEY_UNSUBSCRIBED: server.keys.academicOnly };
  const exact = await conform(args, { ...keys, KGATE_KEY_UNSUBSCRIBED_COVERS: 'academic' });
  assert.equal(exact.code, 1, 'a target accepting a key not subscribed to answer search fails once kgate knows');
  const loose = await conform(args, keys);
  assert.equal(loose.code, 0, loose.stderr + loose.stdout);
  const notes = (JSON.parse(loose.stdout) as { targets: { notes: string[] }[] }).targets[0]!.notes;
  assert.ok(
    notes.some((note) => /auth-requires-subscription could not be exact/.test(note)),
    `the summary says the check could not be exact: ${JSON.stringify(notes)}`,
  );
});

test('without the covered APIs, every operation of one API must answer the unsubscribed key alike', async () => {
  const keys = { KGATE_KEY: server.keys.full, KGATE_KEY_UNSUBSCRIBED: server.keys.academicOnly };
  const args = (base: string) => [
    '--base-url',
    base,
    '--grep',
    'eventknowledge',
    '--checks',
    'auth-requires-subscription',
    '--json',
  ];
  const clean = await conform(args(server.url), keys);
  assert.equal(clean.code, 0, clean.stderr + clean.stdout);
  // Related events accepts a key its API's other operations refuse as unsubscribed.
  const split = await conform(args(`${server.url}/faults/auth-unsubscribed-accepted-relatedevents`), keys);
  assert.equal(split.code, 1, split.stderr + split.stdout);
  const findings = (
    JSON.parse(split.stdout) as { targets: { failures: { check: string; operation: string; title: string }[] }[] }
  ).targets[0]!.failures;
  assert.ok(
    findings.some(
      (finding) =>
        finding.operation === 'GET /eventknowledge/v1.0/relatedevents' &&
        finding.title.startsWith('operations of one API answer one key differently'),
    ),
    JSON.stringify(findings),
  );
  assert.ok(
    findings.every((finding) => finding.check === 'auth-requires-subscription'),
    'nothing but the per-API promise fails',
  );
});

test('the generative phase finds what only some inputs trigger, and --generate 0 leaves the fixed battery alone', async () => {
  const target = [
    '--base-url',
    `${server.url}/faults/evaluate-uppercase-boolean-rejected`,
    '--grep',
    'GET /academic/v1.0/evaluate',
  ];
  const keys = { KGATE_KEY: server.keys.full };
  const generated = await conform(
    [...target, '--checks', 'positive-input-accepted,response-matches-spec', '--json'],
    keys,
  );
  assert.equal(generated.code, 1, generated.stderr);
  const found = JSON.parse(generated.stdout) as {
    targets: { matrix: Record<string, Record<string, string>>; failures: { check: string; seed?: string }[] }[];
  };
  const row = found.targets[0]!.matrix['GET /academic/v1.0/evaluate']!;
  assert.equal(row['positive-input-accepted'], 'fail', 'the generative check fails its cell');
  const seed = found.targets[0]!.failures.find((failure) => failure.check === 'positive-input-accepted')?.seed ?? '';
  assert.match(
    seed,
    /^1, evaluateGet expr:upper-case \(1 item\(s\).*: kgate fuzz --base-url http:\/\/127\.0\.0\.1:\d+\/faults\/evaluate-uppercase-boolean-rejected --seed 1 --items input:evaluateGet:expr:upper-case$/,
    'the finding names its seed and the items its request was planned for',
  );
  // The finding replays from its seed and item alone.
  const replay = await runKgate(
    ['fuzz', '--seed', '1', '--items', 'input:evaluateGet:expr:upper-case', '--base-url', target[1]!, '--json'],
    { env: { ...keys, KGATE_BASE_URL: '' } },
  );
  assert.equal(replay.code, 1, `${replay.stdout}\n${replay.stderr}`);
  assert.ok(
    ((JSON.parse(replay.stdout) as { findings?: { check: string }[] }).findings ?? []).some(
      (finding) => finding.check === 'positive-input-accepted',
    ),
    `kgate fuzz --seed --items sends the same request and finds the same failure: ${replay.stdout.slice(0, 1500)} ${replay.stderr}`,
  );
  const fixed = await conform([...target, '--generate', '0', '--json'], keys);
  assert.equal(fixed.code, 0, `the fixed battery alone misses it: ${fixed.stdout.slice(0, 2000)}`);
  const alone = JSON.parse(fixed.stdout) as { targets: { matrix: Record<string, Record<string, string>> }[] };
  assert.equal(
    alone.targets[0]!.matrix['GET /academic/v1.0/evaluate']!['positive-input-accepted'],
    undefined,
    'no generative cell without the phase',
  );
});

test('a clone runs a build of its sources with compiled code kept between runs; KGATE_FROM_SOURCES=1 runs the sources themselves with the same verdict', async () => {
  const cache = mkdtempSync(join(tmpdir(), 'kgate-compile-cache-'));
  try {
    const args = ['--json', '--checks', 'response-matches-spec', '--generate', '0', '--base-url', server.url];
    const keys = { KGATE_KEY: server.keys.full };
    const built = await conform(args, { ...keys, KGATE_COMPILE_CACHE: cache });
    const sources = await conform(args, { ...keys, KGATE_FROM_SOURCES: '1', KGATE_COMPILE_CACHE: 'off' });
    for (const [name, run] of [
      ['build', built],
      ['sources', sources],
    ] as const) {
      assert.equal(run.code, 0, `${name}: ${run.stderr}`);
    }
    const counts = (run: ProcessResult) => {
      const summary = JSON.parse(run.stdout) as { verdict: string; targets: { tests: { total: number } }[] };
      return { verdict: summary.verdict, tests: summary.targets[0]!.tests.total };
    };
    assert.deepEqual(counts(sources), counts(built));
    assert.ok(counts(built).tests > 0);
    // Playwright's runner and its worker (and on Node 22 and later the CLI) stored the code they
    // compiled; `off` stores nothing.
    const stored = readdirSync(cache, { recursive: true, encoding: 'utf8' }).filter((path) =>
      statSync(join(cache, path)).isFile(),
    );
    // Node 20 keeps none (it has no compile cache of its own, and kgate patches no loader).
    if (NATIVE) assert.ok(stored.length > 10, `${stored.length} entries`);
    else assert.equal(stored.length, 0, `${stored.length} entries`);
    const again = await conform(args, { ...keys, KGATE_COMPILE_CACHE: cache });
    assert.equal(again.code, 0, again.stderr);
    assert.deepEqual(counts(again), counts(built), 'the run from the cache gives the same verdict');
  } finally {
    rmSync(cache, { recursive: true, force: true });
  }
});
