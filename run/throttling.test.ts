// test-runner: long (whole gates against throttling targets, one that throttles until --max-duration)
// Throttling however a deployment signals it, through the CLI: a limiter in front that answers
// 503 with an HTML page and an HTTP-date Retry-After (repeatable under a slower pace: throttling,
// retried, never judged), a server whose 503 is its own fault (persistent at every pace: judged, a
// failure), a target that throttles everything forever (ends within --max-duration, every test
// not run: throttled), and --with-rate-limit beside --max-rps and --max-rps-by-path.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type ReferenceServer, startReferenceServer } from '../reference/index.ts';
import { envelopeIn, summaryIn } from '../scripts/run-folder-left.ts';
import { type ProcessResult, RUN_ALONE_ENV, referenceKeyEnv, runKgate } from '../scripts/run-process.ts';

let server: ReferenceServer;
let reports: string;
const servers: Server[] = [];

before(async () => {
  server = await startReferenceServer({ quiet: true });
  reports = mkdtempSync(join(tmpdir(), 'kgate-throttling-'));
});
after(async () => {
  for (const item of servers) await new Promise((resolve) => item.close(resolve));
  await server?.close();
  if (reports) rmSync(reports, { recursive: true, force: true });
});

let runs = 0;
async function kgate(args: string[], embedded = false): Promise<ProcessResult & { dir: string; ms: number }> {
  const dir = join(reports, `run-${++runs}`);
  const started = Date.now();
  const result = await runKgate(['conform', ...args, '--report-dir', dir], {
    env: {
      ...RUN_ALONE_ENV,
      ...(embedded ? { KGATE_KEY: '' } : referenceKeyEnv(server.keys)),
    },
    timeoutMs: 240_000,
  });
  return { ...result, dir, ms: Date.now() - started };
}

/** Listens on 127.0.0.1 and resolves the base URL. */
async function listen(item: Server): Promise<string> {
  servers.push(item);
  await new Promise<void>((resolve) => item.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(item.address() as AddressInfo).port}`;
}

/**
 * A limiter in front of the reference server: answer search gets one request through every
 * `intervalMs`, and the others a 503 HTML page saying, as an HTTP-date, when to come back.
 */
function limiter(intervalMs: number): Server {
  let next = 0;
  const upstream = new URL(server.url);
  return createServer((req, res) => {
    if (req.url?.startsWith('/answersearch/')) {
      const now = Date.now();
      if (now < next) {
        res.writeHead(503, {
          'content-type': 'text/html',
          'retry-after': new Date(next + 1000).toUTCString(),
          server: 'kgate-test-limiter',
        });
        res.end('<html><body><h1>503 Service Temporarily Unavailable</h1></body></html>');
        req.resume();
        return;
      }
      next = now + intervalMs;
    }
    const forward = httpRequest(
      { host: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    req.pipe(forward);
  });
}

describe('throttling through the CLI', { concurrency: true }, () => {
  test('a limiter answering 503 text/html with an HTTP-date Retry-After: retried, never judged; the gate passes with the limit noted and in envelope.json', async () => {
    const base = await listen(limiter(150));
    const run = await kgate([
      '--base-url',
      base,
      '--checks',
      'response-matches-spec,content-type-is-json,body-is-json,auth-required,paging-is-consistent,paging-respects-size',
      '--generate',
      '0',
    ]);
    assert.equal(run.code, 0, `${run.stdout}\n${run.stderr}`);
    const target = summaryIn(run.dir).targets[0]!;
    assert.deepEqual(target.failures, []);
    assert.deepEqual(target.skips, []);
    const note = target.notes.find((text) => text.startsWith('GET /answersearch/v7.0/search throttled: '));
    assert.ok(note, target.notes.join('\n'));
    assert.match(
      note,
      /503 text\/html with Retry-After as an HTTP-date from a front server \(Server: kgate-test-limiter\)/,
    );
    const envelope = envelopeIn(run.dir);
    const limit = envelope.rateLimits.find((item) => item.path === '/answersearch/v7.0/search');
    assert.equal(limit?.status, 503);
    assert.equal(limit?.retryAfter, 'http-date');
    assert.equal(limit?.conforms, false);
  });

  test('a server whose 503 is its own fault (answersearch-503-unavailable): persistent at every pace, judged as the answer: response-matches-spec fails, nothing outside answer search does', async () => {
    const run = await kgate(['--base-url', `${server.url}/faults/answersearch-503-unavailable`]);
    assert.equal(run.code, 1, `${run.stdout}\n${run.stderr}`);
    const target = summaryIn(run.dir).targets[0]!;
    const failed = new Set(target.failures.map((failure) => `${failure.check} ${failure.operation}`));
    assert.ok(failed.has('response-matches-spec GET /answersearch/v7.0/search'), [...failed].join('\n'));
    assert.deepEqual(
      target.failures.filter((failure) => failure.operation !== 'GET /answersearch/v7.0/search'),
      [],
      'one defect: only answer search fails',
    );
    assert.ok(target.failures.every((failure) => !failure.title.startsWith('not run')));
    assert.ok(
      target.notes.some((note) =>
        /^GET \/answersearch\/v7\.0\/search answered 503 application\/json without Retry-After at every pace kgate slowed to, and nothing got through: a server failing, not throttling/.test(
          note,
        ),
      ),
      target.notes.join('\n'),
    );
  });

  test('a target that throttles everything forever ends within --max-duration, every test not run: throttled, failing the gate', async () => {
    const base = await listen(
      createServer((req, res) => {
        req.resume();
        res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '1' });
        res.end(
          JSON.stringify({ error: { statusCode: 429, message: 'Rate limit is exceeded. Try again in 1 seconds.' } }),
        );
      }),
    );
    const run = await kgate(['--base-url', base, '--max-duration', '60s']);
    assert.equal(run.code, 1, `${run.stdout}\n${run.stderr}`);
    assert.ok(run.ms < 60_000 + 30_000, `ended in ${run.ms} ms`);
    const target = summaryIn(run.dir).targets[0]!;
    assert.equal(target.counts.passed, 0);
    assert.equal(target.counts.skipped, 0, JSON.stringify(target.skips.slice(0, 3)));
    assert.ok(target.counts.failed > 100);
    const titles = new Set([...target.failures, ...target.warnings].map((failure) => failure.title));
    assert.deepEqual(
      [...titles].filter((title) => title !== 'not run: throttled' && title !== 'not run: deadline'),
      [],
    );
    assert.ok(titles.has('not run: throttled'));
    assert.match(run.stdout, /Not run: (deadline, )?throttled \(\d+ cells, each failing the gate\)/);
  });

  test('--with-rate-limit composes with --max-rps and --max-rps-by-path: the bursts go unpaced, the rest is paced', async () => {
    const run = await kgate(
      [
        '--with-rate-limit',
        '--max-rps',
        '40',
        '--max-rps-by-path',
        '/academic/v1.0/evaluate=10',
        '--checks',
        'rate-limit-signalled,paging-respects-size',
        '--generate',
        '0',
      ],
      true,
    );
    assert.equal(run.code, 0, `${run.stdout}\n${run.stderr}`);
    const target = summaryIn(run.dir).targets[0]!;
    assert.equal(target.matrix['GET /answersearch/v7.0/search']!['rate-limit-signalled'], 'pass');
    assert.equal(target.matrix['GET /urlpreview/v7.0/search']!['rate-limit-signalled'], 'pass');
    assert.equal(target.matrix['GET /academic/v1.0/evaluate']!['paging-respects-size'], 'pass');
  });
});
