import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { scanForSecrets } from '../../proof/secret-scan.ts';
import { type ReferenceServer, startReferenceServer } from '../../reference/index.ts';
import { startArrivalsProxy } from '../../scripts/arrivals-proxy.ts';
import { type ProcessResult, runKgate } from '../../scripts/run-process.ts';
import { UsageError } from '../args.ts';
import { parseFuzzArgs } from './fuzz.ts';

/** Requests of the CLI's key preflight (one per API) before a run against --base-url. */
const PREFLIGHT_REQUESTS = 4;

/** A key no real deployment would use, so finding it anywhere is a leak. */
const DISTINCTIVE = 'kgate-fuzz-canary-5b1e0c9d7a2f4e63';

let server: ReferenceServer;
let dir: string;
before(async () => {
  server = await startReferenceServer({ quiet: true, rateLimit: 1e9 });
  dir = mkdtempSync(join(tmpdir(), 'kgate-fuzz-cli-'));
});
after(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Runs `kgate fuzz` in a child process (the reference server lives in this one). */
function fuzz(args: string[], env: Record<string, string> = {}): Promise<ProcessResult> {
  return runKgate(['fuzz', ...args], { env: { KGATE_BASE_URL: '', KGATE_KEY: '', ...env } });
}

test('bad usage is one line naming the option and the rule', () => {
  const cases: { given: string[]; want: RegExp }[] = [
    { given: ['--budget', '0'], want: /^option --budget takes a whole number of generated requests from 1 to/ },
    {
      given: ['--operations', 'evaluate'],
      want: /^option --operations takes a comma-separated list of operation ids, got 'evaluate' \(unknown: 'evaluate'; did you mean/,
    },
    { given: ['--duration', 'forever'], want: /^option --duration takes a duration/ },
    { given: ['--max-rps', '0'], want: /^option --max-rps takes a number of requests per second from 0.1/ },
    { given: ['--seed', 'x'], want: /^option --seed takes a whole number/ },
    { given: ['--base-url', 'ftp://x'], want: /^option --base-url takes an absolute http or https URL/ },
    {
      given: ['--base-url', 'https://api.example.org', '--budget', '1001'],
      want: /^option --budget: 1001 requests to the non-loopback target api\.example\.org is more than 1000; lower --budget or pass --allow-remote$/,
    },
    { given: ['--report-dir', ''], want: /^option --report-dir takes a folder path/ },
    { given: ['extra'], want: /^unexpected argument 'extra'/ },
  ];
  for (const { given, want } of cases) {
    assert.throws(
      () => parseFuzzArgs(given),
      (error: unknown) => error instanceof UsageError && want.test(error.message) && !error.message.includes('\n'),
      given.join(' '),
    );
  }
});

test('a remote target takes the documented budget, and more with --allow-remote', () => {
  assert.equal(parseFuzzArgs(['--base-url', 'https://api.example.org', '--budget', '1000']).budget, 1000, 'up to 1000');
  assert.equal(
    parseFuzzArgs(['--base-url', 'https://api.example.org', '--budget', '9000', '--allow-remote']).budget,
    9000,
    '--allow-remote lifts it',
  );
  assert.equal(parseFuzzArgs(['--base-url', 'http://127.0.0.1:9', '--budget', '9000']).budget, 9000, 'loopback: any');
  const args = parseFuzzArgs(['--seed', '12', '--operations', 'hotEvents,evaluateGet', '--duration', '2m']);
  assert.deepEqual(
    [args.seed, args.operations, args.durationMs],
    [12, ['hotEvents', 'evaluateGet'], 120_000],
    'parsed',
  );
});

test('kgate fuzz passes the embedded reference server (exit 0) and fails a target with an input-triggered fault (exit 1)', async () => {
  const clean = await fuzz(['--budget', '300', '--seed', '3', '--json', '--report-dir', join(dir, 'clean')]);
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
      '--budget',
      '60',
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
        '--budget',
        '40',
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
    // As for kgate conform, the run's count leaves out the CLI's key preflight: one request per API.
    const counted = summary.requests;
    assert.equal(
      counted + PREFLIGHT_REQUESTS,
      arrived,
      'summary.json counts what the target received, but the preflight',
    );
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
  const unreachable = await fuzz(['--base-url', 'http://127.0.0.1:9', '--budget', '5']);
  assert.equal(unreachable.code, 2, 'unreachable');
  assert.match(unreachable.stderr, /cannot reach http:\/\/127\.0\.0\.1:9/, 'names the target');

  const reports = join(dir, 'secret');
  const leaky = await fuzz(
    [
      '--base-url',
      `${server.url}/faults/answersearch-long-query-500`,
      '--operations',
      'answerSearch',
      '--budget',
      '30',
      '--report-dir',
      reports,
    ],
    { KGATE_KEY: DISTINCTIVE },
  );
  assert.ok(!`${leaky.stdout}${leaky.stderr}`.includes(DISTINCTIVE), 'the key is not printed');
  assert.deepEqual(scanForSecrets(reports, [DISTINCTIVE]), [], 'no report holds the key');
});
