import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { scanForSecrets } from '../../proof/secret-scan.ts';
import { type ReferenceServer, startReferenceServer } from '../../reference/index.ts';
import { startArrivalsProxy } from '../../scripts/arrivals-proxy.ts';
import { kgateInProcess } from '../../scripts/kgate-in-process.ts';
import { type ProcessResult, runKgate } from '../../scripts/run-process.ts';
import { UsageError } from '../door/args.ts';
import { parseFuzzArgs } from './fuzz.ts';

/** A key no real deployment would use, so finding it anywhere is a leak. */
const DISTINCTIVE = 'kgate-fuzz-canary-5b1e0c9d7a2f4e63';

let server: ReferenceServer;
let dir: string;
before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'kgate-fuzz-cli-'));
  // The distinctive key is one the server accepts: a run with it judges, and its reports could leak it.
  const keys = join(dir, 'keys.json');
  writeFileSync(keys, JSON.stringify({ keys: [{ name: 'canary', key: DISTINCTIVE, subscriptions: 'all' }] }));
  server = await startReferenceServer({ quiet: true, rateLimit: 1e9, configFile: keys });
});
after(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Runs `kgate fuzz` in a child process (the reference server lives in this one). */
function fuzz(args: string[], env: Record<string, string> = {}): Promise<ProcessResult> {
  return runKgate(['fuzz', ...args], { env: { KGATE_BASE_URL: '', KGATE_KEY: '', ...env } });
}

test('bad usage is one line naming the option and the rule', async () => {
  const cases: { given: string[]; want: RegExp }[] = [
    { given: ['--max-requests', '0'], want: /^option --max-requests takes a whole number of requests from 1 to/ },
    { given: ['--budget', '0'], want: /^option --budget takes a whole number of requests from 1 to/ },
    {
      given: ['--operations', 'evaluate'],
      want: /^option --operations takes a comma-separated list of operation ids, got 'evaluate' \(unknown: 'evaluate'; did you mean/,
    },
    { given: ['--max-duration', 'forever'], want: /^option --max-duration takes a duration/ },
    {
      given: ['--max-duration', '30'],
      want: /^option --max-duration takes a duration .*a bare number has no unit: write 30ms or 30s/,
    },
    { given: ['--max-rps', '0'], want: /^option --max-rps takes a number of requests per second from 0.001/ },
    { given: ['--seed', 'x'], want: /^option --seed takes a whole number/ },
    { given: ['--base-url', 'ftp://x'], want: /^option --base-url takes an absolute http or https URL/ },
    {
      given: ['--cases', 'evaluateGet'],
      want: /^option --cases takes a comma-separated list of generated cases .*'evaluateGet' is not operation:K/,
    },
    { given: ['--cases', 'evaluate:3'], want: /^option --cases .*unknown operation 'evaluate'/ },
    { given: ['--report-dir', ''], want: /^option --report-dir takes a folder path/ },
    {
      given: ['--budget', '5', '--max-requests', '6'],
      want: /^option --budget is the old name of --max-requests: give --max-requests alone$/,
    },
    { given: ['extra'], want: /^unexpected argument 'extra'/ },
  ];
  for (const { given, want } of cases) {
    assert.throws(
      () => parseFuzzArgs(given),
      (error: unknown) => error instanceof UsageError && want.test(error.message) && !error.message.includes('\n'),
      given.join(' '),
    );
  }
  const remote = await kgateInProcess(['fuzz', '--base-url', 'https://api.example.org', '--max-requests', '1001']);
  assert.equal(remote.code, 2);
  assert.match(
    remote.err.at(-1) ?? '',
    /^kgate fuzz: option --max-requests: 1001 requests to the non-loopback target api\.example\.org is more than 1000; lower --max-requests or pass --allow-remote$/,
  );
});

test('a remote target takes the documented budget, and more with --allow-remote; the old spelling says its new name', async () => {
  const env = { KGATE_KEY: process.env.KGATE_KEY };
  delete process.env.KGATE_KEY;
  try {
    // Past the budget's rule, a run against a deployment without a key stops at the door: the key.
    for (const given of [
      ['--max-requests', '1000'],
      ['--max-requests', '9000', '--allow-remote'],
    ]) {
      const run = await kgateInProcess(['fuzz', '--base-url', 'https://api.example.org', ...given]);
      assert.equal(run.code, 2, given.join(' '));
      assert.match(
        run.err.at(-1) ?? '',
        /no subscription key for https:\/\/api\.example\.org: KGATE_KEY is not set/,
        given.join(' '),
      );
    }
    const old = parseFuzzArgs([
      '--budget',
      '9000',
      '--duration',
      '2m',
      '--seed',
      '12',
      '--operations',
      'hotEvents,evaluateGet',
    ]);
    assert.deepEqual(
      [old.options['max-requests'], old.options['max-duration'], old.options.seed, old.options.operations],
      [9000, 120_000, 12, ['hotEvents', 'evaluateGet']],
      'parsed under the new names',
    );
    assert.deepEqual(old.notes, [
      'kgate fuzz: note: --budget is now --max-requests (at most N requests in the whole run, every request counted); the old name goes in the next release',
      'kgate fuzz: note: --duration is now --max-duration; the old name goes in the next release',
    ]);
  } finally {
    if (env.KGATE_KEY !== undefined) process.env.KGATE_KEY = env.KGATE_KEY;
  }
});

test('kgate fuzz passes the embedded reference server (exit 0) and fails a target with an input-triggered fault (exit 1)', async () => {
  const clean = await fuzz(['--max-requests', '320', '--seed', '3', '--json', '--report-dir', join(dir, 'clean')]);
  assert.equal(clean.code, 0, `clean run: ${clean.stderr}`);
  const result = JSON.parse(clean.stdout) as { verdict: string; cases: { total: number }; seed: number };
  assert.deepEqual([result.verdict, result.seed], ['pass', 3], 'verdict and seed');
  assert.ok(result.cases.total >= 290, `cases sent: ${result.cases.total}`);
  // The reports say the target was kgate's own stand-in, and a deployment's run says nothing of it.
  assert.equal((result as { embedded?: boolean }).embedded, true, 'summary.json: embedded');
  for (const file of ['summary.md', 'report.html'])
    assert.match(readFileSync(join(dir, 'clean', file), 'utf8'), /embedded reference server/, file);

  const faulty = await fuzz(
    [
      '--base-url',
      `${server.url}/faults/relatedevents-non-ascii-500`,
      '--operations',
      'relatedEvents',
      '--max-requests',
      '70',
      '--seed',
      '4',
      '--report-dir',
      join(dir, 'faulty'),
    ],
    { KGATE_KEY: server.keys.full },
  );
  assert.equal(faulty.code, 1, `faulty run: ${faulty.stderr}`);
  assert.match(
    faulty.stdout,
    /\[no-server-error\] GET \/eventknowledge\/v1.0\/relatedevents: status 500/,
    'the finding',
  );
  assert.match(
    faulty.stdout,
    /reproduce: {2}curl -sS -H 'Ocp-Apim-Subscription-Key: \*\*\*'/,
    'a curl line, key masked',
  );
  // The model's plan goes first: a planned request's seed line names its items, a drawn case its number.
  assert.match(faulty.stdout, /seed: {7}4, relatedEvents (case \d+ \()?(edge:|wikipediaid:world)/, 'the seed line');
  assert.match(readFileSync(join(dir, 'faulty', 'summary.md'), 'utf8'), /# kgate fuzz: FAIL/, 'summary.md');
  assert.doesNotMatch(readFileSync(join(dir, 'faulty', 'summary.md'), 'utf8'), /embedded reference server/);
});

test('summary.json, summary.md and the report page count the same requests, test data included: what the target received but the key preflight', async () => {
  // A proxy in front of the reference server counts what arrives.
  let arrived = 0;
  const proxy = await startArrivalsProxy(server.url, () => arrived++);
  try {
    const out = join(dir, 'counted');
    const run = await fuzz(
      [
        '--base-url',
        proxy.url,
        '--operations',
        'evaluateGet,relatedEvents',
        '--max-requests',
        '44',
        '--seed',
        '5',
        '--json',
        '--report-dir',
        out,
      ],
      { KGATE_KEY: server.keys.full },
    );
    assert.equal(run.code, 0, run.stderr);
    const summary = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')) as {
      requests: number;
      cases: { total: number };
    };
    // As for kgate conform, the run's count leaves out the CLI's key preflight, which under a request
    // budget asks one question at a time: the first answer (a conforming one) settles it.
    const counted = summary.requests;
    assert.equal(counted + 1, arrived, 'summary.json counts what the target received, but the preflight');
    assert.ok(arrived <= 44, `the budget holds, the preflight included: ${arrived}`);
    assert.ok(summary.requests > summary.cases.total, 'test data and chains are counted besides the cases');
    assert.match(readFileSync(join(out, 'summary.md'), 'utf8'), new RegExp(`\\(${counted} in all\\)`), 'summary.md');
    const page = readFileSync(join(out, 'report.html'), 'utf8');
    const rows = [...page.matchAll(/<tr[^>]*><th scope="row">[^<]+<\/th><td class="num">([\d,]+)<\/td>/g)].map((m) =>
      Number(m[1]!.replace(/,/g, '')),
    );
    assert.ok(rows.length >= 2, 'the page has a row per operation');
    assert.equal(
      rows.reduce((a, b) => a + b, 0),
      counted,
      'the page counts the same requests, operation by operation',
    );
  } finally {
    proxy.close();
  }
});

test('an unreachable target exits 2, and the key never appears in output or reports', async () => {
  const unreachable = await fuzz(['--base-url', 'http://127.0.0.1:9', '--max-requests', '5'], { KGATE_KEY: 'k' });
  assert.equal(unreachable.code, 2, 'unreachable');
  assert.match(unreachable.stderr, /cannot reach http:\/\/127\.0\.0\.1:9/, 'names the target');

  const reports = join(dir, 'secret');
  const leaky = await fuzz(
    [
      '--base-url',
      `${server.url}/faults/answersearch-long-query-500`,
      '--operations',
      'answerSearch',
      '--max-requests',
      '34',
      '--report-dir',
      reports,
    ],
    { KGATE_KEY: DISTINCTIVE },
  );
  // The key is one the server accepts: the run judged (whether this draw hit the long query or not).
  assert.ok(leaky.code === 0 || leaky.code === 1, `the run judged with that key: ${leaky.stderr}`);
  assert.ok(!`${leaky.stdout}${leaky.stderr}`.includes(DISTINCTIVE), 'the key is not printed');
  assert.deepEqual(scanForSecrets(reports, [DISTINCTIVE]), [], 'no report holds the key');
});

test('a run after one stopped before its verdict (a target it could not reach) judges as ever', async () => {
  const cwd = mkdtempSync(join(dir, 'after-stop-'));
  const env = { KGATE_BASE_URL: '', KGATE_KEY: server.keys.full };
  const stopped = await runKgate(['fuzz', '--base-url', 'http://127.0.0.1:9', '--json'], { cwd, env });
  assert.equal(stopped.code, 2, stopped.stderr);
  const after = await runKgate(
    [
      'fuzz',
      '--seed',
      '1',
      '--items',
      'input:evaluateGet:expr:upper-case',
      '--base-url',
      `${server.url}/faults/evaluate-uppercase-boolean-rejected`,
      '--json',
    ],
    { cwd, env },
  );
  assert.equal(after.code, 1, `${after.stdout}\n${after.stderr}`);
  const result = JSON.parse(after.stdout) as { verdict: string; findings: { check: string }[] };
  assert.equal(result.verdict, 'fail');
  assert.ok(result.findings.some((finding) => finding.check === 'positive-input-accepted'));
});
