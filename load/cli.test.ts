import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { parseLoadArgs } from '../cli/commands/load.ts';
import { parseProbeArgs } from '../cli/commands/probe.ts';
import { UsageError } from '../cli/door/args.ts';
import { main } from '../cli/main.ts';
import { type ReferenceServer, startReferenceServer } from '../reference/index.ts';
import { type ProcessResult, runKgate } from '../scripts/run-process.ts';
import { peakRate, scenarioDurationS } from './scenarios.ts';

const reportDir = mkdtempSync(join(tmpdir(), 'kgate-load-cli-'));
after(() => rmSync(reportDir, { recursive: true, force: true }));

async function runMain(
  argv: string[],
  env: Record<string, string | undefined> = {},
): Promise<{ code: number; stderr: string[] }> {
  const stderr: string[] = [];
  const original = console.error;
  const saved: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(env)) {
    saved[name] = process.env[name];
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  console.error = (...args: unknown[]) => stderr.push(args.join(' '));
  try {
    return { code: await main(argv), stderr };
  } finally {
    console.error = original;
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  }
}

function kgate(args: string[], env: Record<string, string> = {}): Promise<ProcessResult> {
  return runKgate(args, { env: { KGATE_BASE_URL: '', KGATE_KEY: '', CI: '1', ...env } });
}

describe('kgate load options', () => {
  const errors = [
    { given: [], want: /missing scenario name/ },
    { given: ['nightly'], want: /unknown scenario 'nightly'/ },
    { given: ['smoke', 'extra'], want: /unexpected argument 'extra'/ },
    {
      given: ['smoke', '--max-rps', 'fast'],
      want: /option --max-rps takes a number of requests per second from 0\.001 to 100000, or 'max', got 'fast' \(not a number\)/,
    },
    { given: ['smoke', '--max-rps', '0'], want: /option --max-rps takes .*, got '0' \(out of range\)/ },
    { given: ['smoke', '--rate', '0'], want: /option --rate takes .*, got '0' \(out of range\)/ },
    { given: ['smoke', '--rate', '5', '--max-rps', '6'], want: /option --rate is the old name of --max-rps/ },
    {
      given: ['smoke', '--duration', '10x'],
      want: /option --duration takes a duration with a unit, ms, s, m or h \(such as 500ms, 10s, 2m\)/,
    },
    {
      given: ['smoke', '--duration', '100000'],
      want: /option --duration takes .*, got '100000' \(a bare number has no unit: write 100000ms or 100000s\)/,
    },
    { given: ['smoke', '--duration', '25h'], want: /option --duration takes .*, got '25h' \(25h: above 24h\)/ },
    { given: ['smoke', '--connections', '0'], want: /option --connections takes a whole number of connections/ },
    {
      given: ['smoke', '--validate-share', '150'],
      want: /option --validate-share takes a percentage of responses from 0 to 100/,
    },
    {
      given: ['smoke', '--base-url', 'ftp://127.0.0.1'],
      want: /option --base-url takes an absolute http or https URL/,
    },
    { given: ['smoke', '--bogus'], want: /unknown option --bogus/ },
  ];
  for (const { given, want } of errors) {
    test(`kgate load ${given.join(' ')} is refused: ${want.source}`, () => {
      assert.throws(
        () => parseLoadArgs(given),
        (error: unknown) => error instanceof UsageError && want.test(error.message),
      );
    });
  }

  const valid = [
    {
      given: ['spike', '--max-rps', '600', '--duration', '18s'],
      want: { peak: 600, durationS: 18, validateShare: 0.01, maxRate: undefined },
    },
    {
      given: ['steady', '--validate-share', '2.5%', '--connections', '8'],
      want: { peak: 50, durationS: 30, validateShare: 0.025, maxRate: undefined },
    },
    {
      given: ['steady', '--max-rps', 'max', '--duration', '5s'],
      want: { peak: 50, durationS: 5, validateShare: 0.01, maxRate: 5 },
    },
  ];
  for (const { given, want } of valid) {
    test(`kgate load ${given.join(' ')} plans ${JSON.stringify(want)}`, () => {
      const args = parseLoadArgs(given);
      if (want.maxRate === undefined) assert.equal(Math.round(peakRate(args.scenario)), want.peak);
      assert.equal(Math.round(scenarioDurationS(args.scenario)), want.durationS);
      assert.equal(args.scenario.validateShare, want.validateShare);
      assert.equal(args.maxRateDurationS, want.maxRate);
    });
  }

  test('a bad option prints one line naming it and exits 2', async () => {
    const { code, stderr } = await runMain(['load', 'smoke', '--connections', 'lots']);
    assert.equal(code, 2);
    assert.equal(stderr.length, 1);
    assert.match(stderr[0]!, /--connections/);
  });
});

describe('kgate probe options', () => {
  const errors = [
    { given: [], want: /missing probe name/ },
    { given: ['latency'], want: /unknown probe 'latency'/ },
    { given: ['rate-limit'], want: /option --operation is required/ },
    {
      given: ['rate-limit', '--operation', 'evaluateGet'],
      want: /option --operation takes one of answerSearch, urlPreview, got 'evaluateGet'/,
    },
    {
      given: ['rate-limit', '--operation', 'urlPreview', '--max-rps', '0'],
      want: /option --max-rps takes a number of requests per second from 0\.001 to 100000/,
    },
    {
      given: ['rate-limit', '--operation', 'urlPreview', '--max-rate', '0'],
      want: /option --max-rate takes a number of requests per second from 0\.001/,
    },
    { given: ['rate-limit', '--operation', 'urlPreview', '--max-duration', '25h'], want: /option --max-duration/ },
    { given: ['body-limit', '--max-requests', '50'], want: /option --max-requests belongs to kgate probe rate-limit/ },
  ];
  for (const { given, want } of errors) {
    test(`kgate probe ${given.join(' ')} is refused: ${want.source}`, () => {
      assert.throws(
        () => parseProbeArgs(given),
        (error: unknown) => error instanceof UsageError && want.test(error.message),
      );
    });
  }
});

describe('remote targets are refused without --allow-remote', () => {
  const cases = [
    {
      given: { argv: ['load', 'smoke', '--base-url', 'http://192.0.2.10:8080'], env: {} },
      want: /non-loopback target 192\.0\.2\.10:8080 without --allow-remote/,
    },
    {
      given: { argv: ['probe', 'body-limit', '--base-url', 'https://api.example.com'], env: {} },
      want: /api\.example\.com without --allow-remote/,
    },
    {
      given: { argv: ['load', 'smoke'], env: { KGATE_BASE_URL: 'http://10.0.0.5' } },
      want: /10\.0\.0\.5 without --allow-remote/,
    },
  ];
  for (const { given, want } of cases) {
    test(`kgate ${given.argv.join(' ')} ${JSON.stringify(given.env)}`, async () => {
      const { code, stderr } = await runMain(given.argv, given.env);
      assert.equal(code, 2);
      assert.equal(stderr.length, 1);
      assert.match(stderr[0]!, want);
    });
  }
});

describe('kgate load end to end', () => {
  let reference: ReferenceServer;
  after(() => reference?.close());

  test('smoke against the reference server: plan first, JSON summary, reports, exit code from the thresholds', async () => {
    reference = await startReferenceServer({ quiet: true });
    const run = await kgate(
      ['load', 'smoke', '--duration', '2s', '--json', '--base-url', reference.url, '--report-dir', reportDir],
      {
        KGATE_KEY: reference.keys.full,
      },
    );
    assert.match(
      run.stderr,
      /open model: 5 req\/s for 2 s, request budget 10, at most 5 in flight, validating 100 % of responses/,
    );
    assert.doesNotMatch(run.stdout + run.stderr, new RegExp(reference.keys.full), 'the key is never printed');
    const summary = JSON.parse(run.stdout) as {
      command: string;
      verdict: string;
      passed: boolean;
      reportDir: string;
      result: { sent: number; validation: { checked: number } };
      reports: { htmlPath: string; summaryPath: string };
    };
    assert.deepEqual([summary.command, summary.verdict], ['load', summary.passed ? 'pass' : 'fail']);
    assert.equal(summary.reports.htmlPath, join(reportDir, 'report.html'), '--report-dir is the run folder itself');
    assert.equal(summary.result.sent, 10);
    assert.equal(summary.result.validation.checked, 10);
    assert.equal(run.code, summary.passed ? 0 : 1, run.stderr);
    assert.ok(existsSync(summary.reports.htmlPath) && existsSync(summary.reports.summaryPath));
  });

  test('a breached threshold exits 1 and is named', async () => {
    const server = createServer((req, res) => {
      req.resume();
      res.statusCode = 503;
      res.end('{}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const run = await kgate(
        [
          'load',
          'steady',
          '--max-rps',
          '20',
          '--duration',
          '1s',
          '--validate-share',
          '0',
          '--base-url',
          url,
          '--report-dir',
          reportDir,
        ],
        { KGATE_KEY: 'kgate-test-key-0000' },
      );
      assert.equal(run.code, 1, run.stderr);
      assert.match(run.stderr, /threshold breached: every operation error_rate<=1% \(measured 100 %\)/);
      assert.match(run.stdout, /FAIL\s+every operation error_rate<=1%: measured 100 %/);
    } finally {
      server.close();
    }
  });

  test('an unreachable target exits 2 before any load', async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    await new Promise((resolve) => server.close(resolve));
    const run = await kgate(['load', 'smoke', '--base-url', `http://127.0.0.1:${port}`, '--report-dir', reportDir], {
      KGATE_KEY: 'kgate-test-key-0000',
    });
    assert.equal(run.code, 2);
    assert.match(run.stderr, /cannot reach http:\/\/127\.0\.0\.1:\d+ \(from --base-url\)/);
  });
});
