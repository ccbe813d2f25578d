import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { type ReferenceServer, startReferenceServer } from '../reference/index.ts';
import {
  compareArgs,
  compareOutputsOf,
  conformArgs,
  conformEnv,
  GateError,
  INPUTS,
  main,
  mergeArgs,
  outputsOf,
  readInputs,
} from './gate.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const input = (name: string) => `KGATE_INPUT_${name.toUpperCase().replace(/-/g, '_')}`;
const inputs = (given: Record<string, string>) =>
  readInputs(Object.fromEntries(Object.entries(given).map(([name, value]) => [input(name), value])));

test('readInputs takes each input from KGATE_INPUT_<NAME>, with the defaults of action.yml', () => {
  assert.deepEqual(readInputs({}), INPUTS, 'nothing given: the defaults');
  assert.equal(inputs({ 'base-url': ' https://api.example.org ' })['base-url'], 'https://api.example.org');
  const action = readFileSync(join(ROOT, 'action.yml'), 'utf8');
  for (const [name, fallback] of Object.entries(INPUTS)) {
    assert.match(
      action,
      new RegExp(`\\n  ${name}:\\n[\\s\\S]*?default: '?${fallback.replace(/[.]/g, '\\.')}'?\\n`),
      `${name} in action.yml`,
    );
    assert.ok(action.includes(`${input(name)}: \${{ inputs.${name} }}`), `action.yml hands ${name} over`);
  }
  const cases: { given: Record<string, string>; want: RegExp }[] = [
    { given: { strict: 'yes' }, want: /^input strict takes true or false, got 'yes'$/ },
    {
      given: { 'key-variable': '3f9a0c1d-2e4b' },
      want: /^input key-variable takes the NAME of an environment variable/,
    },
    {
      given: { 'client-cert': 'certs/client.pem' },
      want: /^inputs client-cert and client-key go together/,
    },
  ];
  for (const { given, want } of cases)
    assert.throws(
      () => inputs(given),
      (error: unknown) => error instanceof GateError && want.test(error.message),
      JSON.stringify(given),
    );
});

test('conformArgs turns the inputs into kgate conform options', () => {
  const cases: { given: Record<string, string>; want: string[] }[] = [
    { given: {}, want: ['conform', '--report-dir', 'kgate-reports'] },
    {
      given: {
        'base-url': 'https://api.example.org/v',
        checks: 'auth-required,paging-is-consistent',
        'exclude-checks': 'body-limit-enforced',
        strict: 'true',
        baseline: 'gate/kgate.baseline.json',
        'max-rps': '1',
        'max-rps-by-path': '/academic/v1.0/calchistogram=0.1',
        'max-duration': '20m',
        'max-requests': '300',
        quota: '10000/month',
        ledger: 'kgate-ledger.json',
        config: 'gate/kgate.config.json',
        proxy: 'http://proxy.internal:3128',
        'ca-file': 'certs/internal-ca.pem',
        'client-cert': 'certs/client.pem',
        'client-key': 'certs/client.key',
        args: '--grep  evaluate --timeout 20s',
      },
      want: [
        'conform',
        '--report-dir',
        'kgate-reports',
        '--base-url',
        'https://api.example.org/v',
        '--checks',
        'auth-required,paging-is-consistent',
        '--exclude-checks',
        'body-limit-enforced',
        '--baseline',
        'gate/kgate.baseline.json',
        '--max-rps',
        '1',
        '--max-rps-by-path',
        '/academic/v1.0/calchistogram=0.1',
        '--max-duration',
        '20m',
        '--max-requests',
        '300',
        '--quota',
        '10000/month',
        '--ledger',
        'kgate-ledger.json',
        '--config',
        'gate/kgate.config.json',
        '--proxy',
        'http://proxy.internal:3128',
        '--ca-file',
        'certs/internal-ca.pem',
        '--client-cert',
        'certs/client.pem',
        '--client-key',
        'certs/client.key',
        '--strict',
        '--grep',
        'evaluate',
        '--timeout',
        '20s',
      ],
    },
  ];
  for (const { given, want } of cases) assert.deepEqual(conformArgs(inputs(given)), want, JSON.stringify(given));
});

test('the headers input: a --header per line for conform and compare, a line without a name and a colon refused', () => {
  const headers = 'Authorization: Bearer t0k3n\n\n  X-Tenant: acme  \r\n';
  assert.deepEqual(conformArgs(inputs({ headers })).slice(3), [
    '--header',
    'Authorization: Bearer t0k3n',
    '--header',
    'X-Tenant: acme',
  ]);
  assert.deepEqual(compareArgs(inputs({ headers, 'against-url': 'https://api.example.org' })).slice(-4), [
    '--header',
    'Authorization: Bearer t0k3n',
    '--header',
    'X-Tenant: acme',
  ]);
  assert.throws(
    () => readInputs({ KGATE_INPUT_HEADERS: 'X-Tenant: acme\nBearer t0k3n' }),
    /input headers takes one 'Name: value' per line/,
  );
  assert.equal(readInputs({ KGATE_INPUT_HEADERS: 'X-Tenant: acme' }).headers, 'X-Tenant: acme');
});

test('compareArgs turns the inputs into kgate compare options, reports in report-dir/compare', () => {
  const cases: { given: Record<string, string>; want: string[] }[] = [
    {
      given: { 'against-url': 'https://prod.example.org' },
      want: ['compare', '--against-url', 'https://prod.example.org', '--report-dir', join('kgate-reports', 'compare')],
    },
    {
      given: {
        'against-url': 'https://prod.example.org',
        'base-url': 'https://staging.example.org',
        config: 'gate/kgate.config.json',
        'max-rps': '2',
        'compare-args': '--latency  --max-requests 300',
        'ca-file': 'certs/internal-ca.pem',
      },
      want: [
        'compare',
        '--against-url',
        'https://prod.example.org',
        '--report-dir',
        join('kgate-reports', 'compare'),
        '--base-url',
        'https://staging.example.org',
        '--config',
        'gate/kgate.config.json',
        '--max-rps',
        '2',
        '--ca-file',
        'certs/internal-ca.pem',
        '--latency',
        '--max-requests',
        '300',
      ],
    },
  ];
  for (const { given, want } of cases) assert.deepEqual(compareArgs(inputs(given)), want, JSON.stringify(given));
  assert.deepEqual(
    compareOutputsOf(
      { verdict: 'fail', differences: [{}, {}], causes: 1, latency: [{ regression: true }, { regression: false }] },
      1,
    ),
    {
      'compare-verdict': 'fail',
      'compare-exit-code': '1',
      differences: '1',
      'difference-places': '2',
      regressions: '1',
    },
    'differences by cause, as the terminal and the page count them, and their places',
  );
  assert.equal(
    compareOutputsOf({ verdict: 'fail', differences: [{}, {}], latency: [] }, 1).differences,
    '2',
    'a summary of an older kgate, without causes: one per place',
  );
  assert.deepEqual(compareOutputsOf(undefined, 2)['compare-verdict'], 'error');
});

test('conformEnv hands the keys of the named variables to kgate, and names a variable the workflow did not set', () => {
  const cases: { given: { inputs: Record<string, string>; env: NodeJS.ProcessEnv }; want: object | RegExp }[] = [
    { given: { inputs: {}, env: {} }, want: {} },
    { given: { inputs: {}, env: { KGATE_KEY: 'k' } }, want: { KGATE_KEY: 'k' } },
    {
      given: {
        inputs: {
          'key-variable': 'PROD_KEY',
          'unsubscribed-key-variable': 'PROD_KEY_ACADEMIC',
          'unsubscribed-key-covers': 'academic',
        },
        env: { PROD_KEY: 'p', PROD_KEY_ACADEMIC: 'a' },
      },
      want: { KGATE_KEY: 'p', KGATE_KEY_UNSUBSCRIBED: 'a', KGATE_KEY_UNSUBSCRIBED_COVERS: 'academic' },
    },
    {
      given: {
        inputs: { 'key-variable': 'STAGING_KEY', 'against-key-variable': 'PROD_KEY' },
        env: { STAGING_KEY: 's', PROD_KEY: 'p' },
      },
      want: { KGATE_KEY: 's', KGATE_AGAINST_KEY: 'p' },
    },
    {
      given: { inputs: { 'exhausted-key-variable': 'SPENT_KEY' }, env: {} },
      want: /^input exhausted-key-variable names SPENT_KEY, which is not set in the step's environment \(map the secret: env: SPENT_KEY: \$\{\{ secrets\.SPENT_KEY \}\}\)$/,
    },
  ];
  for (const { given, want } of cases) {
    if (want instanceof RegExp)
      assert.throws(
        () => conformEnv(inputs(given.inputs), given.env),
        (error: unknown) => error instanceof GateError && want.test(error.message),
        JSON.stringify(given),
      );
    else {
      const env = conformEnv(inputs(given.inputs), given.env);
      const kgate = Object.fromEntries(Object.entries(env).filter(([name]) => name.startsWith('KGATE_')));
      assert.deepEqual(kgate, want, JSON.stringify(given));
    }
  }
});

test('outputsOf reads the verdict and counts from summary.json, and says error when kgate stopped early', () => {
  const summary = {
    verdict: 'fail',
    requests: 287,
    reportDir: '/w/kgate-reports',
    targets: [{ counts: { passed: 200, failed: 2, known: 1, warned: 3, skipped: 4 } }],
  };
  assert.deepEqual(outputsOf(summary, 1, '/w/r'), {
    verdict: 'fail',
    'exit-code': '1',
    passed: '200',
    failed: '2',
    known: '1',
    warnings: '3',
    skipped: '4',
    requests: '287',
    'coverage-items': '0',
    'coverage-judged': '0',
    'coverage-not-judged': '0',
    'coverage-cycle': '',
    'coverage-judged-since-ledger': '',
    'coverage-never-judged': '',
    'missing-shards': '',
    'report-dir': '/w/kgate-reports',
    'report-html': '/w/kgate-reports/report.html',
  });
  const coverage = {
    items: 1231,
    judged: 775,
    notJudged: ['cell:a:b', 'input:a:b:c'],
    ledger: { judged: 1100 },
    cycle: 3,
    never: 40,
  };
  const covered = outputsOf({ ...summary, coverage }, 1, '/w/r');
  assert.deepEqual(
    [
      covered['coverage-items'],
      covered['coverage-judged'],
      covered['coverage-not-judged'],
      covered['coverage-cycle'],
      covered['coverage-judged-since-ledger'],
      covered['coverage-never-judged'],
    ],
    ['1231', '775', '2', '3', '1100', '40'],
    'the coverage a run with a ledger reports',
  );
  assert.equal(outputsOf({ ...summary, shards: { missing: [2, 4] } }, 1, '/w/r')['missing-shards'], '2,4');
  assert.deepEqual(outputsOf(undefined, 2, '/w/r'), {
    verdict: 'error',
    'exit-code': '2',
    passed: '0',
    failed: '0',
    known: '0',
    warnings: '0',
    skipped: '0',
    requests: '0',
    'coverage-items': '0',
    'coverage-judged': '0',
    'coverage-not-judged': '0',
    'coverage-cycle': '',
    'coverage-judged-since-ledger': '',
    'coverage-never-judged': '',
    'missing-shards': '',
    'report-dir': '/w/r',
    'report-html': '',
  });
});

test('shard runs one part of the gate; merge runs kgate report merge over the shards instead', () => {
  assert.deepEqual(conformArgs(inputs({ shard: '2/4' })), [
    'conform',
    '--report-dir',
    'kgate-reports',
    '--shard',
    '2/4',
  ]);
  assert.deepEqual(mergeArgs(inputs({ merge: 'shards/kgate-shard-1\n shards/kgate-shard-2', 'expect-shards': '4' })), [
    'report',
    'merge',
    'shards/kgate-shard-1',
    'shards/kgate-shard-2',
    '--report-dir',
    'kgate-reports',
    '--expect-shards',
    '4',
  ]);
  const cases: { given: Record<string, string>; want: RegExp }[] = [
    { given: { shard: '2' }, want: /^input shard takes I\/N, such as 1\/4/ },
    { given: { merge: 'shards', 'expect-shards': 'four' }, want: /^input expect-shards takes a whole number/ },
    { given: { 'expect-shards': '4' }, want: /^input expect-shards goes with merge/ },
    { given: { merge: 'shards', shard: '1/4' }, want: /^inputs merge and shard exclude each other/ },
  ];
  for (const { given, want } of cases)
    assert.throws(
      () => inputs(given),
      (error: unknown) => error instanceof GateError && want.test(error.message),
      JSON.stringify(given),
    );
});

let server: ReferenceServer;
let project: string;
before(async () => {
  server = await startReferenceServer({ quiet: true });
  // A project that depends on kgate: the action uses its node_modules/.bin/kgate.
  project = mkdtempSync(join(tmpdir(), 'kgate-action-'));
  mkdirSync(join(project, 'node_modules', '.bin'), { recursive: true });
  symlinkSync(join(ROOT, 'bin', 'kgate.mjs'), join(project, 'node_modules', '.bin', 'kgate'));
});
after(async () => {
  await server.close();
  rmSync(project, { recursive: true, force: true });
});

/** Runs the action's main with GitHub's files in the project folder; returns the exit code, outputs and job summary. */
async function runAction(given: Record<string, string>, env: NodeJS.ProcessEnv = {}) {
  const outputFile = join(project, 'github-output');
  const summaryFile = join(project, 'step-summary.md');
  writeFileSync(outputFile, '');
  writeFileSync(summaryFile, '');
  const code = await main({
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    GITHUB_OUTPUT: outputFile,
    GITHUB_STEP_SUMMARY: summaryFile,
    ...env,
    ...Object.fromEntries(Object.entries({ 'working-directory': project, ...given }).map(([n, v]) => [input(n), v])),
  });
  const outputs = Object.fromEntries(
    readFileSync(outputFile, 'utf8')
      .trim()
      .split('\n')
      .map((line) => line.split(/=(.*)/s).slice(0, 2)),
  );
  return { code, outputs, jobSummary: readFileSync(summaryFile, 'utf8') };
}

test('the action runs the gate with the keys of the named secrets and sets its outputs', async () => {
  const { code, outputs, jobSummary } = await runAction(
    {
      'base-url': `${server.url}/faults/evaluate-orderby-ignored`,
      'key-variable': 'PROD_KEY',
      checks: 'orderby-is-honoured,auth-required',
      args: '--grep GET\\s/academic/v1.0/evaluate',
    },
    { PROD_KEY: server.keys.full },
  );
  assert.equal(code, 1, 'the fault fails the gate');
  assert.deepEqual(
    { verdict: outputs.verdict, exit: outputs['exit-code'], failed: outputs.failed, passed: outputs.passed },
    { verdict: 'fail', exit: '1', failed: '1', passed: '9' },
    JSON.stringify(outputs),
  );
  assert.equal(outputs['report-dir'], join(project, 'kgate-reports'), 'reports in the working directory');
  assert.ok(
    readFileSync(join(project, 'kgate-reports', 'junit.xml'), 'utf8').includes('<failure'),
    'junit for the upload',
  );
  assert.match(jobSummary, /# kgate conformance: FAIL/, 'kgate appended its summary to the job summary');
  assert.equal(outputs['report-html'], join(project, 'kgate-reports', 'report.html'), 'the report page output');
  assert.match(
    readFileSync(outputs['report-html']!, 'utf8'),
    /<title>kgate conformance: FAIL/,
    'the page the action points at says what the verdict says',
  );
  assert.ok(
    jobSummary.includes(`Report page: \`${outputs['report-html']}\``),
    'the job summary points at the report page',
  );
  assert.ok(!jobSummary.includes(server.keys.full), 'the key is nowhere in the job summary');
});

test('an unreachable target is verdict error, exit 2, with the reason in the job summary', async () => {
  const { code, outputs, jobSummary } = await runAction({ 'base-url': 'http://127.0.0.1:1' }, { KGATE_KEY: 'k' });
  assert.equal(code, 2);
  assert.equal(outputs.verdict, 'error');
  assert.equal(outputs['report-html'], '', 'no report page when kgate stopped before judging');
  assert.match(
    jobSummary,
    /kgate conform could not judge the target \(exit 2\): kgate conform: cannot reach http:\/\/127\.0\.0\.1:1 \(from --base-url\)/,
  );
});

test('with against-url the action also compares the target with that deployment, and a difference fails the job', async () => {
  const { code, outputs, jobSummary } = await runAction(
    {
      'base-url': `${server.url}/faults/answersearch-offset-off-by-one`,
      'against-url': server.url,
      checks: 'auth-required',
      args: '--grep GET\\s/academic/v1.0/evaluate',
      'compare-args': '--max-requests 102',
    },
    { KGATE_KEY: server.keys.full },
  );
  assert.equal(outputs.verdict, 'pass', `the gate passes: ${JSON.stringify(outputs)}`);
  assert.deepEqual(
    [code, outputs['compare-verdict'], outputs['compare-exit-code'], outputs.regressions],
    [1, 'fail', '1', '0'],
    JSON.stringify(outputs),
  );
  assert.ok(Number(outputs.differences) > 0, 'the shifted pages are a difference');
  assert.ok(
    readFileSync(join(project, 'kgate-reports', 'compare', 'junit.xml'), 'utf8').includes('<failure'),
    'the comparison has its own reports',
  );
  assert.match(jobSummary, /# kgate compare: FAIL/, 'kgate compare appended its summary to the job summary');
  assert.ok(!jobSummary.includes(server.keys.full), 'the key is nowhere in the job summary');
});
