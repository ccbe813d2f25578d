// test-runner: long (whole gates through Debian's nginx with limit_req, HAProxy, Varnish and Apache)
// The deployment's envelope as real front servers and caches make it: Debian's nginx with
// `limit_req` at its stock status (503 and an HTML page) and with `limit_req_status 429`, Varnish
// with its stock configuration (caching by URL alone) and keyed on the subscription key, Apache's
// mod_cache the same two ways (its hits say only `Age: 0`), and nginx
// cutting request lines at 4 KB. Each must give the verdict it deserves, named once, where it is:
// a front's rate limit is one failure of rate-limit-signalled naming the front and the rate, and
// every other check of the limited operation is judged on real answers; a cache serving a keyed
// answer to anyone fails auth-required on every GET, named from its headers; envelope.json agrees
// with what the run measured and is valid against its schema.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type ReferenceServer, startReferenceServer } from '../reference/index.ts';
import {
  missingBinaries,
  type RealServer,
  startApache,
  startHaproxy,
  startNginx,
  startVarnish,
} from '../scripts/real-servers.ts';
import { envelopeIn, summaryIn } from '../scripts/run-folder-left.ts';
import { NO_PROXY_ENV, type ProcessResult, RUN_ALONE_ENV, referenceKeyEnv, runKgate } from '../scripts/run-process.ts';

const skipNginx = missingBinaries(['nginx']);
const skipVarnish = missingBinaries(['varnishd']);
const skipHaproxy = missingBinaries(['haproxy']);
const skipApache = missingBinaries(['apache2']);

let server: ReferenceServer;
let reports: string;
const started: RealServer[] = [];

before(async () => {
  if (skipNginx && skipVarnish && skipHaproxy && skipApache) return;
  server = await startReferenceServer({ quiet: true });
  reports = mkdtempSync(join(tmpdir(), 'kgate-envelope-'));
});
after(async () => {
  for (const front of started) await front.stop();
  await server?.close();
  if (reports) rmSync(reports, { recursive: true, force: true });
});

let runs = 0;
async function kgate(args: string[]): Promise<ProcessResult & { dir: string }> {
  const dir = join(reports, `run-${++runs}`);
  const result = await runKgate(['conform', ...args, '--report-dir', dir], {
    env: {
      ...RUN_ALONE_ENV,
      ...referenceKeyEnv(server.keys),
    },
    timeoutMs: 300_000,
  });
  return { ...result, dir };
}

/** `kgate probe rate-limit` of answer search through the front at `url`, for at most `maxDuration` (the process given `timeoutMs`), with --json. */
async function probeAnswerSearch(
  url: string,
  maxDuration: string,
  timeoutMs: number,
): Promise<{ dir: string; run: ProcessResult }> {
  const dir = join(reports, `probe-${++runs}`);
  const run = await runKgate(
    [
      'probe',
      'rate-limit',
      '--operation',
      'answerSearch',
      '--base-url',
      url,
      '--max-duration',
      maxDuration,
      '--report-dir',
      dir,
      '--json',
    ],
    { env: { KGATE_BASE_URL: '', ...NO_PROXY_ENV, KGATE_KEY: server.keys.full }, timeoutMs },
  );
  return { dir, run };
}

const ANSWER_SEARCH = 'GET /answersearch/v7.0/search';

describe('a rate limit at the front: Debian nginx limit_req at 5 r/s on answer search', { skip: skipNginx }, () => {
  const cases = [
    {
      given: { status: undefined },
      want: /by a front server \(Server: nginx\/[\d.]+\) that answers 503 text\/html without Retry-After$/,
    },
    {
      given: { status: 429 },
      want: /by a front server \(Server: nginx\/[\d.]+\) that answers 429 text\/html without Retry-After$/,
    },
  ];
  for (const { given, want } of cases) {
    test(`limit_req${given.status ? ` with limit_req_status ${given.status}` : ' at its stock status'}: one failure of rate-limit-signalled naming nginx and the rate; every other check of answer search judged on real answers`, async () => {
      const front = await startNginx({
        upstream: server.url,
        gzip: false,
        limitReq: { path: '/answersearch/', rate: '5r/s', burst: 5, nodelay: true, status: given.status },
      });
      started.push(front);
      const run = await kgate(['--base-url', front.url, '--with-rate-limit']);
      assert.equal(run.code, 1, `${run.stdout}\n${run.stderr}`);
      const target = summaryIn(run.dir).targets[0]!;
      // Exactly one finding: the front's limit, on rate-limit-signalled of answer search.
      assert.equal(target.failures.length, 1, JSON.stringify(target.failures, null, 2));
      const [failure] = target.failures;
      assert.equal(failure!.check, 'rate-limit-signalled');
      assert.equal(failure!.operation, ANSWER_SEARCH);
      assert.match(failure!.received, /^answer search is rate limited at about [\d.]+ requests\/s /);
      assert.match(failure!.received, want);
      const rate = Number(/about ([\d.]+) requests/.exec(failure!.received)![1]);
      assert.ok(rate >= 2.5 && rate <= 10, `the rate found (${rate}/s) is about the 5 r/s configured`);
      assert.match(failure!.documented, /429 with the seconds to wait/);
      assert.deepEqual(target.warnings, []);
      assert.deepEqual(target.skips, [], 'no test skipped');
      // Every other cell of answer search was judged, on real answers, and passed.
      for (const [check, cell] of Object.entries(target.matrix[ANSWER_SEARCH]!))
        assert.equal(cell, check === 'rate-limit-signalled' ? 'fail' : 'pass', `${check} on answer search`);
      assert.ok(
        front.accessLog().some((line) => line.startsWith(`${given.status ?? 503} `)),
        'nginx did throttle the run',
      );
      const envelope = envelopeIn(run.dir);
      const limit = envelope.rateLimits.find((item) => item.path === '/answersearch/v7.0/search')!;
      assert.equal(limit.status, given.status ?? 503);
      assert.equal(limit.contentType, 'text/html');
      assert.equal(limit.retryAfter, 'absent');
      assert.equal(limit.conforms, false);
      assert.equal(limit.rps, rate);
      assert.match(limit.signalledBy, /nginx/);
      const preview = envelope.rateLimits.find((item) => item.path === '/urlpreview/v7.0/search')!;
      assert.equal(preview.conforms, true, 'URL preview is limited by the interface itself, behind nginx');
    });
  }
});

describe("a rate limit at the front that counts its refusals: Debian HAProxy's stick table at 5/s on answer search", {
  skip: skipHaproxy,
}, () => {
  test('one failure of rate-limit-signalled naming the 429 without Retry-After and the rate let through, within 30 % of the 5/s configured', async () => {
    const front = await startHaproxy({
      upstream: server.url,
      limit: { kind: 'rate', perSecond: 5, path: '/answersearch/' },
    });
    started.push(front);
    const run = await kgate(['--base-url', front.url, '--with-rate-limit']);
    assert.equal(run.code, 1, `${run.stdout}\n${run.stderr}`);
    const target = summaryIn(run.dir).targets[0]!;
    assert.equal(target.failures.length, 1, JSON.stringify(target.failures, null, 2));
    const [failure] = target.failures;
    assert.equal(failure!.check, 'rate-limit-signalled');
    assert.equal(failure!.operation, ANSWER_SEARCH);
    assert.match(
      failure!.received,
      /^answer search is rate limited at about [\d.]+ requests\/s .*that answers 429 text\/html without Retry-After$/,
    );
    const rate = Number(/about ([\d.]+) requests/.exec(failure!.received)![1]);
    assert.ok(Math.abs(rate - 5) <= 5 * 0.3, `the rate let through (${rate}/s) is within 30 % of the 5/s configured`);
    for (const [check, cell] of Object.entries(target.matrix[ANSWER_SEARCH]!))
      assert.equal(cell, check === 'rate-limit-signalled' ? 'fail' : 'pass', `${check} on answer search`);
    const limit = envelopeIn(run.dir).rateLimits.find((item) => item.path === '/answersearch/v7.0/search')!;
    assert.equal(limit.rps, rate);
    assert.equal(limit.status, 429);
  });

  test('kgate probe rate-limit reads the rate below the limit (within 30 % of 5/s), not the 0/s it lets through while pressed', async () => {
    const front = await startHaproxy({
      upstream: server.url,
      limit: { kind: 'rate', perSecond: 5, path: '/answersearch/' },
    });
    started.push(front);
    const { dir, run } = await probeAnswerSearch(front.url, '40s', 90_000);
    assert.equal(run.code, 1, `${run.stdout}\n${run.stderr}`);
    const result = JSON.parse(run.stdout) as { thresholdRps: number; measuredBelow?: boolean; problems: string[] };
    assert.equal(result.measuredBelow, true, 'measured below the limit');
    assert.ok(Math.abs(result.thresholdRps - 5) <= 5 * 0.3, `the rate let through: ${result.thresholdRps}/s`);
    const envelope = envelopeIn(dir);
    assert.equal(envelope.rateLimits[0]?.rps, result.thresholdRps);
    assert.match(envelope.rateLimits[0]?.how ?? '', /counts its refusals/);
  });
});

describe('kgate probe rate-limit through nginx limit_req', { skip: skipNginx }, () => {
  test('reports the accepted rate, the signal (503 text/html, no Retry-After, nginx) and that it does not conform; envelope.json says the same', async () => {
    const front = await startNginx({
      upstream: server.url,
      gzip: false,
      limitReq: { path: '/answersearch/', rate: '5r/s', burst: 5, nodelay: true },
    });
    started.push(front);
    const { dir, run } = await probeAnswerSearch(front.url, '20s', 60_000);
    assert.equal(run.code, 1, `${run.stdout}\n${run.stderr}`);
    const result = JSON.parse(run.stdout) as {
      thresholdRps: number;
      signal: { status: number; contentType: string; retryAfter: string; conforms: boolean; signalledBy: string };
      problems: string[];
    };
    assert.ok(result.thresholdRps >= 2.5 && result.thresholdRps <= 10, `accepted ${result.thresholdRps}/s`);
    assert.deepEqual(
      { ...result.signal, signalledBy: result.signal.signalledBy.replace(/nginx\/[\d.]+/, 'nginx') },
      {
        status: 503,
        contentType: 'text/html',
        retryAfter: 'absent',
        conforms: false,
        signalledBy: 'a front server (Server: nginx)',
      },
    );
    assert.ok(
      result.problems.some((problem) =>
        /^the limit is signalled 503 text\/html without Retry-After by a front server/.test(problem),
      ),
      result.problems.join('; '),
    );
    const envelope = envelopeIn(dir);
    assert.equal(envelope.command, 'probe rate-limit');
    assert.equal(envelope.rateLimits[0]?.rps, result.thresholdRps);
    assert.equal(envelope.rateLimits[0]?.status, 503);
  });
});

describe('a cache at the front: Debian Varnish', { skip: skipVarnish }, () => {
  const checks = ['--checks', 'auth-required,response-matches-spec', '--generate', '0'];

  test('stock (caching by URL alone): auth-required fails on every GET operation, the cache named from its headers', async () => {
    const cache = await startVarnish({ upstream: server.url, vcl: 'stock' });
    started.push(cache);
    const run = await kgate(['--base-url', cache.url, ...checks]);
    assert.equal(run.code, 1, `${run.stdout}\n${run.stderr}`);
    const target = summaryIn(run.dir).targets[0]!;
    const gets = Object.keys(target.matrix).filter((operation) => operation.startsWith('GET '));
    assert.equal(gets.length, 9);
    assert.deepEqual(
      target.failures.map((failure) => `${failure.check} ${failure.operation}`).sort(),
      gets.map((operation) => `auth-required ${operation}`).sort(),
      'auth-required fails on every GET operation, and nothing else fails',
    );
    for (const failure of target.failures) {
      assert.equal(failure.title, 'a cache in front serves the keyed answer to another key');
      assert.match(
        failure.received,
        /^status 200 from a cache in front of the interface \(.*X-Varnish: \d+ \d+.*Via: 1\.1 varnish/,
      );
    }
    for (const operation of Object.keys(target.matrix).filter((label) => label.startsWith('POST ')))
      assert.equal(target.matrix[operation]!['auth-required'], 'pass', `${operation}: Varnish passes POSTs on`);
    const envelope = envelopeIn(run.dir);
    assert.ok(envelope.infrastructure.cacheHeaders.includes('x-varnish'));
    assert.ok(envelope.infrastructure.cacheHits >= gets.length);
    assert.ok(envelope.infrastructure.via.some((via) => /varnish/i.test(via)));
  });

  test('keyed on the subscription key: auth-required passes, the cache and its hits are noted', async () => {
    const cache = await startVarnish({ upstream: server.url, vcl: 'keyed' });
    started.push(cache);
    const run = await kgate(['--base-url', cache.url, ...checks]);
    assert.equal(run.code, 0, `${run.stdout}\n${run.stderr}`);
    const target = summaryIn(run.dir).targets[0]!;
    assert.ok(
      target.notes.some((note) =>
        /^auth-required: a cache in front of the interface \((Age, )?X-Varnish.*Via: 1\.1 varnish.*\) keys its answers on the subscription key/.test(
          note,
        ),
      ),
      target.notes.join('\n'),
    );
    const envelope = envelopeIn(run.dir);
    assert.ok(envelope.infrastructure.cacheHits > 0, 'the keyed cache served some answers from its cache');
    assert.ok(
      target.notes.some((note) => new RegExp(`served ${envelope.infrastructure.cacheHits} of the answers`).test(note)),
      target.notes.join('\n'),
    );
  });
});

describe("a cache at the front: Debian Apache's mod_cache", { skip: skipApache }, () => {
  const checks = ['--checks', 'auth-required,response-matches-spec', '--generate', '0'];

  test('keyed by URL alone: auth-required fails on every GET operation, the hit (an Age, 0 within the second, and nothing else) named as the cache', async () => {
    const cache = await startApache({ upstream: server.url, cache: 'url' });
    started.push(cache);
    const run = await kgate(['--base-url', cache.url, ...checks]);
    assert.equal(run.code, 1, `${run.stdout}\n${run.stderr}`);
    const target = summaryIn(run.dir).targets[0]!;
    const gets = Object.keys(target.matrix).filter((operation) => operation.startsWith('GET '));
    assert.equal(gets.length, 9);
    assert.deepEqual(
      target.failures.map((failure) => `${failure.check} ${failure.operation}`).sort(),
      gets.map((operation) => `auth-required ${operation}`).sort(),
      'auth-required fails on every GET operation, and nothing else fails',
    );
    for (const failure of target.failures) {
      assert.equal(failure.title, 'a cache in front serves the keyed answer to another key');
      assert.match(failure.received, /^status 200 from a cache in front of the interface \(Age: \d+; Server: Apache\//);
    }
    const envelope = envelopeIn(run.dir);
    assert.ok(envelope.infrastructure.cacheHits >= gets.length, `${envelope.infrastructure.cacheHits} hits`);
    assert.ok(envelope.infrastructure.servers.some((name) => /^Apache\//.test(name)));
  });

  test('keyed on the subscription key (Vary): auth-required passes, the cache noted as keying its answers', async () => {
    const cache = await startApache({ upstream: server.url, cache: 'keyed' });
    started.push(cache);
    const run = await kgate(['--base-url', cache.url, ...checks]);
    assert.equal(run.code, 0, `${run.stdout}\n${run.stderr}`);
    const target = summaryIn(run.dir).targets[0]!;
    assert.ok(
      target.notes.some((note) =>
        /^auth-required: a cache in front of the interface \(Age\b.*Server: Apache\/.*\) keys its answers on the subscription key/.test(
          note,
        ),
      ),
      target.notes.join('\n'),
    );
    assert.ok(envelopeIn(run.dir).infrastructure.cacheHits > 0, 'the keyed cache served some answers from its cache');
  });
});

describe('envelope.json agrees with what the run measured', { skip: skipNginx }, () => {
  test('the reference server behind nginx cutting request lines at 4 KB: the URL limit, latencies, protocol and server as the run saw them', async () => {
    const front = await startNginx({ upstream: server.url, largeClientHeaderBuffers: '4 4k', gzip: false });
    started.push(front);
    const run = await kgate(['--base-url', front.url]);
    assert.equal(run.code, 0, `${run.stdout}\n${run.stderr}`);
    const summary = summaryIn(run.dir);
    const target = summary.targets[0]!;
    const envelope = envelopeIn(run.dir);
    assert.equal(envelope.command, 'conform');
    assert.equal(envelope.urlLimit.limitBytes, 4096);
    assert.equal(envelope.urlLimit.shortestRefused?.status, 414);
    assert.equal(envelope.urlLimit.shortestRefused?.contentType, 'text/html');
    assert.ok(envelope.urlLimit.shortestRefused!.bytes > 4096);
    assert.ok(envelope.urlLimit.longestPassed! <= 4096 && envelope.urlLimit.longestPassed! > 2048);
    // The note of the summary says the same limit.
    const note = target.notes.find((text) => /^GET requests over about 4 KB .* got 414 text\/html/.test(text));
    assert.ok(note, target.notes.join('\n'));
    assert.match(
      note,
      new RegExp(`the shortest ${envelope.urlLimit.shortestRefused!.bytes.toLocaleString('en-US')} bytes`),
    );
    // Latency: the same requests and percentiles as the summary's per-operation table.
    for (const stat of target.operations ?? []) {
      const figure = envelope.latency.operations.find((item) => item.operation === stat.operation)!;
      assert.equal(figure.samples, stat.requests, stat.operation);
      assert.equal(figure.p50Ms, stat.p50Ms, stat.operation);
      assert.equal(figure.p95Ms, stat.p95Ms, stat.operation);
      assert.ok(figure.p99Ms >= figure.p95Ms && figure.maxMs >= figure.p99Ms, stat.operation);
    }
    assert.equal(
      envelope.latency.operations.reduce((sum, figure) => sum + figure.samples, 0),
      summary.requests,
      'every request of the run is a latency sample',
    );
    assert.deepEqual(envelope.protocol.http, ['HTTP/1.1']);
    assert.deepEqual(envelope.protocol.tls, []);
    assert.ok(envelope.infrastructure.servers.some((name) => /^nginx\//.test(name)));
    assert.equal(envelope.bodyLimit?.shortestRefused?.status, 413, 'nginx refused the body over its 1m');
    // The page shows it.
    const page = readFileSync(join(run.dir, 'report.html'), 'utf8');
    assert.match(page, /The deployment&#39;s envelope|The deployment's envelope/);
    assert.match(page, /URL limit: about 4 KB/);
  });

  test('a bound of the configuration file the envelope breaks fails the gate, named in every report', async () => {
    const front = await startNginx({ upstream: server.url, largeClientHeaderBuffers: '4 4k', gzip: false });
    started.push(front);
    const config = join(reports, 'bounds.json');
    writeConfig(config, { envelope: { urlLimitMin: 8192, p95MsMax: { evaluate: 100000 } } });
    const run = await kgate([
      '--base-url',
      front.url,
      '--config',
      config,
      '--checks',
      'positive-input-accepted,no-server-error,negative-input-rejected',
    ]);
    assert.equal(run.code, 1, `${run.stdout}\n${run.stderr}`);
    const summary = summaryIn(run.dir);
    assert.equal(summary.verdict, 'fail');
    assert.equal(summary.envelopeBreaches?.length, 1);
    assert.match(
      summary.envelopeBreaches![0]!,
      /^urlLimitMin 8,192 bytes: a GET of [\d,]+ bytes was refused \(414 text\/html/,
    );
    assert.match(readFileSync(join(run.dir, 'summary.md'), 'utf8'), /Envelope bounds broken/);
    assert.match(readFileSync(join(run.dir, 'junit.xml'), 'utf8'), /kgate envelope bounds.*failures="1"/);
    assert.match(run.stdout, /envelope: {2}bound broken, urlLimitMin 8,192 bytes/);
    assert.deepEqual(envelopeIn(run.dir).breaches, summary.envelopeBreaches);
  });
});

function writeConfig(file: string, config: object): void {
  writeFileSync(file, JSON.stringify(config));
}
