// `kgate k6 bundle` makes scripts that k6 runs as is: each is checked for what a k6-operator
// ConfigMap and old k6 releases need, then run for a few seconds by a real k6 (v0.48 in
// ../shared/tools/, or KGATE_K6) against the reference server, with and without a key.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { accessSync, constants, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { readEnv } from '../config/env.ts';
import { type ReferenceServer, startReferenceServer } from '../reference/index.ts';
import { kgateVersion } from '../reporting/run-meta.ts';
import { missingBinaries, startNginx } from '../scripts/real-servers.ts';
import { startRecordingFront } from '../scripts/recording-front.ts';
import { ROOT, runKgate, runProcess } from '../scripts/run-process.ts';
import { bundleScenario, CONFIGMAP_LIMIT_BYTES, K6_SCENARIOS } from './k6-bundle.ts';
import type { LoadSummary } from './report.ts';
import { k6Thresholds, parseThreshold } from './threshold-rules.ts';

const dir = mkdtempSync(join(tmpdir(), 'kgate-k6-'));

/** The k6 to run the bundles with: KGATE_K6, else the project's ../shared/tools/k6, else k6 on PATH. */
function findK6(): string | undefined {
  const env = readEnv();
  for (const candidate of [env.k6Binary, join(ROOT, '..', 'shared', 'tools', 'k6')]) {
    if (!candidate) continue;
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // Not there: try the next.
    }
  }
  return spawnSync('k6', ['version'], { encoding: 'utf8' }).status === 0 ? 'k6' : undefined;
}

const K6 = findK6();
const MISSING_K6 =
  'NO k6 BINARY: the bundled scripts were NOT run under k6 (set KGATE_K6, put k6 on PATH, or provide ../shared/tools/k6; KGATE_REQUIRE_K6=1 makes this a failure)';

after(() => rmSync(dir, { recursive: true, force: true }));

describe('kgate k6 bundle', () => {
  for (const name of K6_SCENARIOS) {
    test(`${name}: one file, only k6 modules imported, ES2015 syntax, fits a ConfigMap`, async () => {
      const script = await bundleScenario(name);
      const imports = [...script.matchAll(/^\s*import\s[^'"]*['"]([^'"]+)['"]/gm)].map((match) => match[1]);
      assert.deepEqual([...new Set(imports)].sort(), ['k6', 'k6/http'], 'no relative or Node import left');
      assert.doesNotMatch(
        script,
        /\brequire\(|\?\?|\?\.[a-zA-Z_$[(]/,
        'no require, no ?? or ?. (k6 0.4x rejects them)',
      );
      assert.ok(Buffer.byteLength(script) < CONFIGMAP_LIMIT_BYTES, `${Buffer.byteLength(script)} bytes < 1 MiB`);
      assert.match(script, /^\/\/ kgate k6 script, scenario '/, 'it says what it is');
      assert.match(script, /export\s*\{[^}]*\boptions\b[^}]*\}/, 'it exports the k6 options');
    });
  }

  test('the CLI writes the same script to --out, and names a bad scenario in one line', () => {
    const out = join(dir, 'steady.js');
    const written = spawnSync(process.execPath, [join(ROOT, 'bin/kgate.mjs'), 'k6', 'bundle', 'steady', '--out', out], {
      encoding: 'utf8',
    });
    assert.equal(written.status, 0, written.stderr);
    assert.match(written.stderr, /steady written to .*steady\.js \(\d+ bytes\)/);
    const bad = spawnSync(process.execPath, [join(ROOT, 'bin/kgate.mjs'), 'k6', 'bundle', 'stress'], {
      encoding: 'utf8',
    });
    assert.equal(bad.status, 2, 'bad usage');
    assert.equal(
      bad.stderr.trim(),
      "kgate k6 bundle: needs a scenario: one of smoke, steady, spike, soak, got 'stress'",
    );
    return bundleScenario('steady').then((script) => assert.equal(readFileSync(out, 'utf8'), script, 'same text'));
  });
});

describe('the bundles under a real k6', { concurrency: false }, () => {
  let server: ReferenceServer;
  before(async () => {
    if (!K6 && readEnv().requireK6) throw new Error(MISSING_K6);
    if (!K6) console.warn(`\n*** ${MISSING_K6} ***\n`);
    server = await startReferenceServer({ quiet: true });
  });
  after(async () => {
    await server?.close();
  });

  /** Runs a bundle for a few seconds; returns k6's exit code and which thresholds it crossed. */
  async function runK6(
    name: string,
    key?: string,
    baseUrl = server.url,
    extra: Record<string, string> = {},
    bundleArgs: string[] = [],
  ): Promise<{ code: number | null; crossed: string[]; all: string[]; output: string }> {
    const script = join(dir, `${name}-${bundleArgs.length}.js`);
    const summary = join(dir, `${name}-${key ? 'key' : 'nokey'}-${Date.now()}-summary.json`);
    const bundled = spawnSync(
      process.execPath,
      [join(ROOT, 'bin/kgate.mjs'), 'k6', 'bundle', name, '--out', script, ...bundleArgs],
      { encoding: 'utf8' },
    );
    assert.equal(bundled.status, 0, bundled.stderr);
    // A short, light version of the scenario: 3 s at 20/s peak, every answer checked.
    const vars = { BASE_URL: baseUrl, DURATION_S: '3', RATE: '20', CONNECTIONS: '20', VALIDATE_PERCENT: '100' };
    const args = ['run', '--quiet', '--no-color', '--summary-export', summary, script];
    for (const [variable, value] of Object.entries({ ...vars, ...(key ? { KGATE_KEY: key } : {}), ...extra }))
      args.splice(1, 0, '-e', `${variable}=${value}`);
    const { code, stdout, stderr } = await runProcess(K6!, args, { env: { PATH: process.env.PATH, HOME: dir } });
    const metrics = (
      JSON.parse(readFileSync(summary, 'utf8')) as { metrics: Record<string, { thresholds?: Record<string, boolean> }> }
    ).metrics;
    // In k6's summary export a threshold's value is true when it was crossed (failed).
    const thresholds = Object.entries(metrics).flatMap(([metric, value]) =>
      Object.entries(value.thresholds ?? {}).map(([expression, crossed]) => ({
        id: `${metric} ${expression}`,
        crossed,
      })),
    );
    return {
      code,
      crossed: thresholds.filter((t) => t.crossed).map((t) => t.id),
      all: thresholds.map((t) => t.id),
      output: stdout + stderr,
    };
  }

  for (const name of K6_SCENARIOS) {
    test(`${name}.js runs under k6 against the reference server and meets its thresholds`, async (t) => {
      if (!K6) return t.skip(MISSING_K6);
      const { code, crossed, all, output } = await runK6(name, server.keys.full);
      assert.equal(code, 0, `k6 exit code: ${output}`);
      assert.deepEqual(crossed, [], 'no threshold crossed');
      for (const metric of ['http_req_duration', 'http_req_failed', 'dropped_iterations', 'checks'])
        assert.ok(
          all.some((id) => id.startsWith(`${metric} `)),
          `the ${metric} threshold was evaluated: ${all.join(', ')}`,
        );
    });
  }

  test('smoke.js through nginx at a path prefix: every request reaches the deployment under /api/', async (t) => {
    if (!K6) return t.skip(MISSING_K6);
    const missing = missingBinaries(['nginx']);
    if (missing) return t.skip(missing);
    const front = await startNginx({ upstream: server.url, prefix: '/api/' });
    try {
      const { code, crossed, output } = await runK6('smoke', server.keys.full, front.url);
      assert.equal(code, 0, `k6 exit code: ${output}`);
      assert.deepEqual(crossed, [], 'no threshold crossed');
      const lines = front.accessLog();
      assert.ok(lines.length >= 50, `${lines.length} requests reached nginx`);
      assert.deepEqual(
        lines.filter((line) => !/^200 \d+ "(GET|POST) \/api\/\S+ HTTP\/1\.1"$/.test(line)),
        [],
        'every request (setup included) went under /api/ and was answered 200 by the deployment',
      );
    } finally {
      await front.stop();
    }
  });

  test("smoke.js sends KGATE_HEADERS, kgate's User-Agent and BASE_URL's credentials as Basic on every request", async (t) => {
    if (!K6) return t.skip(MISSING_K6);
    const front = await startRecordingFront(server.url);
    try {
      const withCredentials = front.url.replace('http://', 'http://k6-user:k6-Pa55@');
      const { code, crossed, output } = await runK6('smoke', server.keys.full, withCredentials, {
        KGATE_HEADERS: JSON.stringify({ 'X-Tenant': 'acme', 'X-Api-Token': 'Bearer tok-k6' }),
      });
      assert.equal(code, 0, `k6 exit code: ${output}`);
      assert.deepEqual(crossed, [], 'no threshold crossed');
      assert.ok(front.seen.length >= 20, `${front.seen.length} requests reached the front`);
      const basic = `Basic ${Buffer.from('k6-user:k6-Pa55').toString('base64')}`;
      const wrong = front.seen.filter(
        (request) =>
          request.headers.authorization !== basic ||
          request.headers['x-tenant'] !== 'acme' ||
          request.headers['x-api-token'] !== 'Bearer tok-k6' ||
          request.headers['user-agent'] !== `kgate/${kgateVersion()} (k6)` ||
          request.headers['ocp-apim-subscription-key'] !== server.keys.full,
      );
      assert.deepEqual(
        wrong.slice(0, 2).map((request) => request.headers),
        [],
        'every request (setup included) carried them',
      );
      // A value with a line break stops the script before any request is sent.
      front.clear();
      const refused = await runProcess(
        K6,
        [
          'run',
          '--quiet',
          '--no-color',
          '-e',
          `BASE_URL=${front.url}`,
          '-e',
          'KGATE_HEADERS={"X-Tenant":"a\\r\\nInjected: 1"}',
          join(dir, 'smoke-0.js'),
        ],
        { env: { PATH: process.env.PATH, HOME: dir } },
      );
      assert.notEqual(refused.code, 0, 'the script stops');
      assert.match(
        refused.stdout + refused.stderr,
        /KGATE_HEADERS: the value of X-Tenant must be a string of visible characters/,
      );
      assert.equal(front.seen.length, 0, 'nothing was sent');
    } finally {
      await front.close();
    }
  });

  test("a bundle with the team's thresholds breaches and passes under k6 where kgate load does", async (t) => {
    if (!K6) return t.skip(MISSING_K6);
    // GET evaluate answered 40 ms late (the fault catalogue's evaluate-slow-40ms), everything else as ever.
    const config = join(dir, 'team.config.json');
    writeFileSync(
      config,
      JSON.stringify({
        load: {
          thresholds: {
            evaluateGet: ['p(50)<40ms', 'valid_share>=100%'],
            evaluatePost: 'p(50)<40ms',
            interpretGet: ['p(50)<40ms', 'error_rate<=0%'],
            '*': 'p(99)<10s',
          },
        },
      }),
    );
    for (const [target, breached] of [
      [`${server.url}/faults/evaluate-slow-40ms`, ['evaluateGet: p(50)<40ms']],
      [server.url, []],
    ] as const) {
      const k6 = await runK6('smoke', server.keys.full, target, { DURATION_S: '4' }, ['--config', config]);
      // Asynchronously: the reference server answers from this process meanwhile.
      const kgate = await runKgate(
        [
          'load',
          'smoke',
          '--base-url',
          target,
          '--max-rps',
          '20',
          '--duration',
          '4s',
          '--config',
          config,
          '--report-dir',
          join(dir, `kgate-${breached.length}`),
          '--json',
        ],
        { env: { KGATE_KEY: server.keys.full, KGATE_BASE_URL: '', CI: '1' }, timeoutMs: 90_000 },
      );
      const judged = JSON.parse(kgate.stdout) as LoadSummary;
      const failed = judged.verdicts.filter((v) => v.status === 'fail').map((v) => v.rule);
      assert.deepEqual(failed, breached, `kgate load against ${target}`);
      assert.equal(kgate.code, breached.length > 0 ? 1 : 0, kgate.stderr);
      // The same rules, as k6 names them: what kgate breached is what k6 crossed, no more.
      const want = failed.flatMap((rule) =>
        Object.entries(k6Thresholds([parseThreshold(rule)], 0)).flatMap(([metric, list]) =>
          list.map((expression) => `${metric} ${expression}`),
        ),
      );
      assert.deepEqual(k6.crossed, want, `k6 against ${target}: ${k6.output}`);
      assert.equal(k6.code, breached.length > 0 ? 99 : 0, k6.output);
      for (const metric of [
        'http_req_duration{name:evaluateGet}',
        'http_req_duration{name:evaluatePost}',
        'checks{operation:evaluateGet}',
        'http_req_failed{name:interpretGet}',
      ])
        assert.ok(
          k6.all.some((id) => id.startsWith(`${metric} `)),
          `k6 judged ${metric}: ${k6.all.join(', ')}`,
        );
    }
  });

  test("a bundle with the team's recorded traffic (--mix-from) sends its operations and inputs under k6, never its key", async (t) => {
    if (!K6) return t.skip(MISSING_K6);
    const RECORDED_KEY = 'k6har0recorded0key000000000000000';
    const queries = ['web mining', 'latent semantic', 'search engines'];
    const entries = [
      ...Array.from(
        { length: 80 },
        (_, i) => `/academic/v1.0/interpret?query=${encodeURIComponent(queries[i % 3]!)}&count=5`,
      ),
      ...Array.from({ length: 20 }, () => '/academic/v1.0/calchistogram?expr=Y%3D2012&attributes=Y'),
    ].map((path) => ({
      request: {
        method: 'GET',
        url: `https://api.example.org${path}&subscription-key=${RECORDED_KEY}`,
        headers: [{ name: 'Ocp-Apim-Subscription-Key', value: RECORDED_KEY }],
      },
      response: { status: 200, headers: [], content: { mimeType: 'application/json', text: '{}' } },
    }));
    const har = join(dir, 'recorded.har');
    writeFileSync(har, JSON.stringify({ log: { version: '1.2', entries } }));
    const front = await startRecordingFront(server.url);
    try {
      // Each arrival draws its request: at 80/s for 4 s, some 300 draws put interpret's share within
      // 0.1 of 0.8 by about four standard errors (at 20/s, 60 draws left it outside one run in ten).
      const { code, crossed, output } = await runK6(
        'smoke',
        server.keys.full,
        front.url,
        { DURATION_S: '4', RATE: '80' },
        ['--mix-from', har],
      );
      assert.equal(code, 0, `k6 exit code: ${output}`);
      assert.deepEqual(crossed, [], 'no threshold crossed');
      const script = readFileSync(join(dir, 'smoke-2.js'), 'utf8');
      assert.ok(!script.includes(RECORDED_KEY), 'the recorded key is not in the script');
      assert.match(script, /^\/\/ Mix: 2 operations, 4 distinct requests/m, 'the header names the mix');
      const seen = front.seen.map((request) => new URL(request.target, 'http://x'));
      assert.ok(seen.length >= 30, `${seen.length} requests reached the front`);
      const interprets = seen.filter((url) => url.pathname.endsWith('/interpret'));
      const histograms = seen.filter((url) => url.pathname.endsWith('/calchistogram'));
      assert.equal(interprets.length + histograms.length, seen.length, 'only the recorded operations');
      const share = interprets.length / seen.length;
      console.error(`k6 --mix-from: ${seen.length} requests, interpret's share ${share.toFixed(3)}`);
      assert.ok(Math.abs(share - 0.8) <= 0.1, `interpret's share ${share} (recorded 0.8)`);
      assert.deepEqual(
        [...new Set(interprets.map((url) => url.searchParams.get('query')))].sort(),
        [...queries].sort(),
      );
      assert.ok(
        front.seen.every(
          (request) =>
            request.headers['ocp-apim-subscription-key'] === server.keys.full && !request.target.includes(RECORDED_KEY),
        ),
        'the run sends its own key, never the recorded one',
      );
    } finally {
      await front.close();
    }
  });

  test('without a key the same script fails its thresholds (k6 exit code 99)', async (t) => {
    if (!K6) return t.skip(MISSING_K6);
    const { code, crossed, output } = await runK6('steady');
    assert.equal(code, 99, `k6 exits 99 when thresholds fail: ${output}`);
    assert.ok(crossed.includes('http_req_failed rate<=0.01'), `the error rate is crossed: ${crossed.join(', ')}`);
    assert.ok(crossed.includes('checks rate>=0.99'), `the checks are crossed: ${crossed.join(', ')}`);
  });
});
