import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { CHROMIUM, launchChromium } from '../scripts/chromium.ts';
import type { LoadSummary } from './report.ts';
import { runScenario } from './run-scenario.ts';
import { applyOverrides, SCENARIOS } from './scenarios.ts';

const dir = mkdtempSync(join(tmpdir(), 'kgate-load-report-'));
let summary: LoadSummary;
let htmlPath: string;
let summaryPath: string;

before(async () => {
  let n = 0;
  let searches = 0;
  // Answers 200, with every 4th answer search throttled and an occasional slow request.
  const server = createServer((req, res) => {
    n++;
    req.resume();
    res.setHeader('content-type', 'application/json; charset=utf-8');
    const throttled = req.url?.startsWith('/answersearch') === true && ++searches % 4 === 0;
    res.statusCode = throttled ? 429 : 200;
    setTimeout(
      () => res.end(throttled ? '{"error":{"statusCode":429,"message":"Try again in 1 seconds."}}' : '{"value":[]}'),
      n % 25 === 0 ? 30 : 1,
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const scenario = applyOverrides(SCENARIOS.smoke!, { rate: 60, durationS: 4 });
  const outcome = await runScenario(scenario, {
    baseUrl: url,
    key: 'report-test-key-1234',
    embedded: false,
    validate: (_op, status) => ({
      valid: status === 200,
      errors: status === 200 ? [] : [{ pointer: '', message: 'undocumented' }],
    }),
    reportDir: dir,
  });
  server.closeAllConnections();
  server.close();
  summary = outcome.summary;
  htmlPath = outcome.paths!.htmlPath;
  summaryPath = outcome.paths!.summaryPath;
});

after(() => rmSync(dir, { recursive: true, force: true }));

describe('load reports', () => {
  test('summary.json holds percentiles, throughput, statuses, thresholds and the timeline', () => {
    const written = JSON.parse(readFileSync(summaryPath, 'utf8')) as LoadSummary;
    assert.equal(written.scenario, 'smoke');
    assert.equal(written.plan.requestBudget, 240);
    assert.ok(written.result.latencyMs.p99 >= written.result.latencyMs.p50);
    assert.ok(written.result.throughputRps > 0);
    assert.ok((written.result.statuses['429'] ?? 0) > 0);
    assert.deepEqual(
      written.verdicts.map((v) => [v.id, v.status]),
      [
        ['p95-latency', 'pass'],
        ['p99-latency', 'pass'],
        ['error-rate', 'fail'],
        ['valid-share', 'fail'],
      ],
    );
    assert.equal(written.passed, false);
    assert.ok(written.result.timeline.length >= 4);
    assert.deepEqual(
      written.thresholds,
      ['*: p(95)<=500ms', '*: p(99)<=1000ms', '*: error_rate<=0%', '*: valid_share>=100%'].map((rule) => ({
        rule,
        source: 'scenario',
      })),
    );
    assert.equal(written.plan.validatePercent, 100);
    const ops = Object.values(written.result.operations);
    assert.equal(
      ops.reduce((sum, op) => sum + op.validated, 0),
      written.result.validation.checked,
      "each operation's validated answers add up to the run's",
    );
    assert.equal(written.mix.origin.kind, 'scenario');
    assert.ok(written.mix.comparison.largestGapPoints < 5, `mix sent as asked: ${JSON.stringify(written.mix)}`);
    const samples = JSON.parse(readFileSync(join(dir, 'latency-samples.json'), 'utf8')) as {
      operations: Record<string, { seen: number; atMs: number[]; latencyUs: number[] }>;
    };
    for (const [id, op] of Object.entries(written.result.operations)) {
      const kept = samples.operations[id]!;
      assert.equal(kept.seen, op.count, `${id}: the reservoir saw every latency`);
      assert.equal(kept.latencyUs.length, Math.min(op.count, 2048));
      assert.ok(kept.atMs.every((at) => at >= 0 && at < 10_000));
    }
    assert.doesNotMatch(readFileSync(summaryPath, 'utf8'), /report-test-key-1234/, 'the key never reaches a report');
  });

  test('report.html draws its charts in Chromium', {
    skip: !existsSync(CHROMIUM) && 'no /usr/bin/chromium',
  }, async () => {
    const browser = await launchChromium();
    try {
      const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
      const requests: string[] = [];
      page.on('request', (request) => requests.push(request.url()));
      await page.goto(pathToFileURL(htmlPath).href);
      for (const id of ['latency-chart', 'throughput-chart', 'status-chart']) {
        const box = await page.locator(`#${id}`).boundingBox();
        assert.ok(box && box.width > 300 && box.height > 100, `#${id} is drawn with a visible size`);
      }
      const points = await page.$$eval('#latency-chart .series', (groups) =>
        groups.map((g) => [
          g.getAttribute('data-series'),
          Number(g.getAttribute('data-points')),
          g.querySelectorAll('circle').length,
        ]),
      );
      assert.deepEqual(
        points.map(([name]) => name),
        ['p50', 'p95', 'p99'],
      );
      for (const [name, count, circles] of points) {
        assert.ok((count as number) >= 4 && circles === count, `${name}: ${count} points drawn`);
      }
      const pathLength = await page.$eval('#latency-chart .series path', (path) =>
        (path as unknown as { getTotalLength(): number }).getTotalLength(),
      );
      assert.ok(pathLength > 100, 'the p50 line has a visible length');
      const throughput = await page.$$eval('#throughput-chart .series', (groups) =>
        groups.map((g) => g.getAttribute('data-series')),
      );
      assert.deepEqual(throughput, ['sent', 'answered']);
      const bars = await page.$$eval('#status-chart rect.bar', (rects) =>
        rects.map((r) => [r.getAttribute('data-status'), r.getBoundingClientRect().width]),
      );
      assert.deepEqual(
        bars.map(([label]) => label),
        ['HTTP 200', 'HTTP 429'],
      );
      assert.ok(bars.every(([, width]) => (width as number) > 0));
      assert.match((await page.locator('#thresholds').textContent()) ?? '', /FAIL\s*every operation\s*error_rate<=0%/);
      assert.deepEqual(
        requests.filter((url) => !url.startsWith('file:')),
        [],
        'the page loads nothing from the network',
      );
      if (process.env.KGATE_REPORT_SCREENSHOT)
        await page.screenshot({ path: process.env.KGATE_REPORT_SCREENSHOT, fullPage: true });
    } finally {
      await browser.close();
    }
  });

  test('the rendered page names the scenario, its question and its verdict', () => {
    const html = readFileSync(htmlPath, 'utf8');
    assert.match(html, /<title>kgate load smoke: FAIL · http:\/\/127\.0\.0\.1:\d+<\/title>/);
    assert.ok(html.includes(summary.question));
    assert.doesNotMatch(
      html,
      /<link|\ssrc=|@import|url\(|https?:\/\/(?!127\.0\.0\.1|www\.w3\.org\/2000\/svg)[a-z]/i,
      'self-contained: no remote resource',
    );
    assert.equal((html.match(/<script>/g) ?? []).length, 1, 'one inline script, for the copy buttons');
  });
});
