import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { estimateRequests, generatedWithin } from '../../compare/run.ts';
import { scanForSecrets } from '../../proof/secret-scan.ts';
import { type ReferenceServer, startReferenceServer } from '../../reference/index.ts';
import { kgateInProcess } from '../../scripts/kgate-in-process.ts';
import { type ProcessResult, runKgate } from '../../scripts/run-process.ts';
import { UsageError } from '../door/args.ts';
import { parseCompareArgs } from './compare.ts';

/** A key no real deployment would use, so finding it anywhere is a leak. */
const DISTINCTIVE = 'kgate-compare-canary-7c2e9a0b4d1f3e58';

let server: ReferenceServer;
let dir: string;
before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'kgate-compare-cli-'));
  // The distinctive keys are the server's own too: a run with them judges, and its reports can leak them.
  const keys = join(dir, 'keys.json');
  writeFileSync(
    keys,
    JSON.stringify({
      keys: [
        { name: 'canary', key: DISTINCTIVE, subscriptions: 'all' },
        { name: 'canary2', key: `${DISTINCTIVE}-2`, subscriptions: 'all' },
      ],
    }),
  );
  server = await startReferenceServer({ quiet: true, rateLimit: 1e9, configFile: keys });
});
after(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The --max-requests that holds the battery and `generated` requests (and `samples` latency pairs). */
function budgetFor(generated: number, samples?: number): number {
  const latency = samples ? { samples, threshold: { percent: 10, ms: 5 } } : undefined;
  return estimateRequests({ requests: generated, latency }).current + 4;
}

/** Runs `kgate compare` in a child process (the reference server lives in this one). */
function compare(args: string[], env: Record<string, string> = {}, cwd?: string): Promise<ProcessResult> {
  return runKgate(['compare', ...args], {
    env: { KGATE_BASE_URL: '', KGATE_KEY: server.keys.full, KGATE_AGAINST_KEY: '', ...env },
    ...(cwd ? { cwd } : {}),
  });
}

test('bad usage is one line naming the option and the rule', async () => {
  const both = ['--base-url', 'http://127.0.0.1:1', '--against-url', 'http://127.0.0.1:2'];
  const cases: { given: string[]; want: RegExp }[] = [
    {
      given: ['--base-url', 'http://127.0.0.1:1', '--against-url', 'ftp://x'],
      want: /^option --against-url takes an absolute http or https URL .*got 'ftp:\/\/x' \(protocol 'ftp' is not http or https\)$/,
    },
    {
      given: [...both, '--requests', 'x'],
      want: /^option --requests takes a whole number of generated requests from 0/,
    },
    {
      given: [...both, '--max-requests', '0'],
      want: /^option --max-requests takes a whole number of requests from 1 to 1000000/,
    },
    { given: [...both, '--latency-samples', '30'], want: /^option --latency-samples needs --latency$/ },
    {
      given: [...both, '--latency', '--latency-samples', '2'],
      want: /^option --latency-samples takes a whole number of interleaved pairs per operation from 5/,
    },
    {
      given: [...both, '--latency', '--regression-percent', 'x'],
      want: /^option --regression-percent takes a number of percent/,
    },
    {
      given: [...both, '--latency', '--regression-ms', '12'],
      want: /^option --regression-ms takes a duration .*a bare number has no unit/,
    },
    { given: [...both, '--max-rps', '0'], want: /^option --max-rps takes a number of requests per second from 0.001/ },
    { given: [...both, '--report-dir', ''], want: /^option --report-dir takes a folder path/ },
    { given: [...both, 'extra'], want: /^unexpected argument 'extra'/ },
    { given: [...both, '--against'], want: /^unknown option --against: did you mean --against-url\?/ },
    { given: [...both, '--budget', '9'], want: /^unknown option --budget: kgate compare calls it --max-requests$/ },
  ];
  for (const { given, want } of cases) {
    assert.throws(
      () => parseCompareArgs(given),
      (error: unknown) => error instanceof UsageError && want.test(error.message) && !error.message.includes('\n'),
      given.join(' '),
    );
  }
  // What the door resolves: a target for each side, from a flag, the environment or the file.
  for (const { given, want } of [
    { given: ['--against-url', 'http://127.0.0.1:2'], want: /option --base-url is required/ },
    { given: ['--base-url', 'http://127.0.0.1:1'], want: /option --against-url is required/ },
    {
      given: [...both, '--max-requests', '60'],
      want: /option --max-requests: 60 requests to each deployment cannot hold the battery and the preflight; the smallest budget that does is \d+/,
    },
  ]) {
    const run = await kgateInProcess(['compare', ...given]);
    assert.equal(run.code, 2, given.join(' '));
    assert.match(run.err.at(-1) ?? '', want, given.join(' '));
  }
});

test('--max-requests holds the generated requests to what the battery leaves, and --requests is its old spelling', () => {
  const fit = generatedWithin(400, {}, 4);
  assert.ok('generated' in fit, JSON.stringify(fit));
  const generated = (fit as { generated: number }).generated;
  assert.ok(estimateRequests({ requests: generated }).current + 4 <= 400, 'the largest that fits, fits');
  assert.ok(estimateRequests({ requests: generated + 1 }).current + 4 > 400, 'one more does not');
  const old = parseCompareArgs([
    '--base-url',
    'http://127.0.0.1:1',
    '--against-url',
    'http://127.0.0.1:2',
    '--requests',
    '120',
  ]);
  assert.equal(
    old.options['max-requests'],
    estimateRequests({ requests: 120 }).current + 4,
    '--requests 120 reads as its budget',
  );
  assert.match(
    old.notes[0] ?? '',
    /^kgate compare: note: --requests is now --max-requests \(at most N requests to each deployment/,
  );
  const back = generatedWithin(old.options['max-requests']!, {}, 4) as { generated: number };
  assert.ok(back.generated >= 120, `the old count is sent: ${back.generated}`);
});

test('--json prints the verdict, the differences and the latency; exit 1 on a difference', async () => {
  const out = join(dir, 'json');
  const run = await compare([
    '--base-url',
    `${server.url}/faults/answersearch-offset-off-by-one`,
    '--against-url',
    server.url,
    '--max-requests',
    String(budgetFor(10, 5)),
    '--latency',
    '--latency-samples',
    '5',
    '--max-rps',
    '200',
    '--json',
    '--report-dir',
    out,
  ]);
  assert.equal(run.code, 1, run.stderr);
  const result = JSON.parse(run.stdout) as {
    verdict: string;
    differences: { operation: string; pointer: string; candidate: unknown; current: unknown }[];
    latency: {
      operation: string;
      candidate: { p50: number };
      current: { p99: number };
      ratio: number;
      interval: number[];
      regression: boolean;
    }[];
  };
  assert.equal(result.verdict, 'fail');
  assert.ok(result.differences.length > 0);
  for (const diff of result.differences) {
    assert.equal(diff.operation, 'GET /answersearch/v7.0/search');
    assert.ok('pointer' in diff && 'candidate' in diff && 'current' in diff, JSON.stringify(diff));
  }
  assert.equal(result.latency.length, 13);
  for (const item of result.latency) {
    assert.match(item.operation, /^(GET|POST) \//);
    assert.equal(typeof item.candidate.p50, 'number');
    assert.equal(typeof item.current.p99, 'number');
    assert.equal(typeof item.ratio, 'number');
    assert.equal(item.interval.length, 2);
    assert.equal(typeof item.regression, 'boolean');
  }
  for (const file of ['summary.md', 'summary.json', 'junit.xml', 'report.html'])
    assert.ok(existsSync(join(out, file)), file);
  assert.match(
    readFileSync(join(out, 'junit.xml'), 'utf8'),
    /<testsuite name="GET \/answersearch\/v7\.0\/search" tests="2" failures="1"/,
  );
  const html = readFileSync(join(out, 'report.html'), 'utf8');
  assert.ok(!/(src|href)=["']https?:/.test(html), 'the page loads nothing from the network');
  assert.equal((html.match(/<svg class="chart hist"/g) ?? []).length, 26, 'two histograms per operation');
});

test('alike deployments exit 0, reports go to reports/compare/<run-id>/ with a latest link', async () => {
  const cwd = mkdtempSync(join(dir, 'cwd-'));
  writeFileSync(join(cwd, 'kgate.config.json'), JSON.stringify({ againstUrl: server.url }));
  const run = await compare(['--base-url', server.url, '--max-requests', String(budgetFor(5))], {}, cwd);
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stdout, /Behaviour: alike on every operation\./);
  assert.match(
    run.stdout,
    /kgate compare: PASS: alike in \d+ requests compared; open .*reports\/compare\/\d{8}T\d{6}Z-[0-9a-f]{4}\/report\.html /,
  );
  const latest = realpathSync(join(cwd, 'reports', 'compare', 'latest'));
  assert.match(readFileSync(join(latest, 'summary.md'), 'utf8'), /^# kgate compare: PASS/);
});

test('an unreachable deployment exits 2 naming its option, and no key appears in output or reports', async () => {
  const down = await compare(['--base-url', server.url, '--against-url', 'http://127.0.0.1:9']);
  assert.equal(down.code, 2);
  assert.match(down.stderr, /^kgate compare: cannot reach http:\/\/127\.0\.0\.1:9 \(from --against-url\): /m);

  const reports = join(dir, 'secret');
  const leaky = await compare(
    [
      '--base-url',
      `${server.url}/faults/answersearch-offset-off-by-one`,
      '--against-url',
      server.url,
      '--max-requests',
      String(budgetFor(5)),
      '--report-dir',
      reports,
    ],
    { KGATE_KEY: DISTINCTIVE, KGATE_AGAINST_KEY: `${DISTINCTIVE}-2` },
  );
  assert.ok(leaky.code === 0 || leaky.code === 1, leaky.stderr);
  assert.ok(!`${leaky.stdout}${leaky.stderr}`.includes(DISTINCTIVE), 'the keys are not printed');
  assert.deepEqual(scanForSecrets(reports, [DISTINCTIVE]), [], 'no report holds a key');
});
