import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { CHROMIUM, launchChromium } from '../scripts/chromium.ts';
import { renderCompare, writeCompareReports } from './report.ts';
import { CANDIDATE_COLOUR, CURRENT_COLOUR, comparePage, contrastOnWhite } from './report-html.ts';
import { type CompareResult, type Difference, groupDifferences, type LatencySamples } from './run.ts';
import { judgeLatency } from './stats.ts';
import { comparePhrase } from './words.ts';

const dir = mkdtempSync(join(tmpdir(), 'kgate-compare-report-'));
const htmlPath = join(dir, 'report.html');

/** Latencies around `median`, deterministic. */
function samples(n: number, median: number, offset: number): number[] {
  return Array.from({ length: n }, (_, i) => median * (0.8 + 0.4 * (((i * 7 + offset) % n) / n)));
}

before(() => {
  const slow: LatencySamples = {
    operation: 'GET /academic/v1.0/evaluate',
    candidate: samples(30, 45, 1),
    current: samples(30, 5, 2),
  };
  const alike: LatencySamples = {
    operation: 'GET /eventknowledge/v1.0/hotevents',
    candidate: samples(30, 4, 3),
    current: samples(30, 4, 4),
  };
  const latency = [slow, alike].map((entry, i) => ({
    operation: entry.operation,
    operationId: i === 0 ? 'evaluateGet' : 'hotEvents',
    ...judgeLatency(entry.candidate, entry.current),
    errors: { candidate: 0, current: 0 },
  }));
  const result: CompareResult = {
    command: 'compare',
    verdict: 'fail',
    exitCode: 1,
    candidate: 'http://127.0.0.1:1/faults/x',
    current: 'http://127.0.0.1:1',
    seed: 1,
    requests: { compared: 80, repeated: 30, confirmed: 0, sent: 300 },
    differences: [
      {
        operation: 'GET /answersearch/v7.0/search',
        operationId: 'answerSearch',
        pointer: '/webPages/value/*',
        kind: 'order',
        candidate: 'https://a.test/1',
        current: 'https://a.test/2',
        seenIn: 3,
        example: {
          request: 'answerSearch: second page',
          pointer: '/webPages/value/0',
          candidateCurl:
            "curl -sS -H 'Ocp-Apim-Subscription-Key: ***' 'http://127.0.0.1:1/faults/x/answersearch/v7.0/search?q=a'",
          currentCurl: "curl -sS -H 'Ocp-Apim-Subscription-Key: ***' 'http://127.0.0.1:1/answersearch/v7.0/search?q=a'",
        },
      },
    ],
    noise: [
      {
        operation: 'GET /answersearch/v7.0/search',
        pointer: '/webPages/value/*/dateLastCrawled',
        numeric: false,
        spread: 0,
        absolute: 0,
        seen: 4,
      },
    ],
    ignored: 12,
    latency,
    threshold: { percent: 10, ms: 5 },
    operations: [],
    durationMs: 1000,
  };
  Object.defineProperty(result, 'samples', { value: [slow, alike], enumerable: false });
  writeCompareReports(result, dir);
});
after(() => rmSync(dir, { recursive: true, force: true }));

describe('report.html of a comparison', () => {
  test('its colours pass WCAG AA on white', () => {
    for (const colour of [CANDIDATE_COLOUR, CURRENT_COLOUR])
      assert.ok(contrastOnWhite(colour) >= 4.5, `${colour}: ${contrastOnWhite(colour)}`);
  });

  test('is self-contained: nothing loaded from elsewhere, no script but the inline one of the copy buttons', () => {
    const html = readFileSync(htmlPath, 'utf8');
    assert.doesNotMatch(html, /<link|\ssrc=|@import|url\(|(src|href)=["']?https?:/i);
    assert.equal((html.match(/<script>/g) ?? []).length, 1, 'one inline script');
    assert.match(html, /<title>kgate compare: FAIL · http:\/\/127\.0\.0\.1:1\/faults\/x<\/title>/);
  });

  test("draws both sides' latency histograms side by side per operation in Chromium, and prints", {
    skip: !existsSync(CHROMIUM) && 'no /usr/bin/chromium',
  }, async () => {
    const browser = await launchChromium();
    try {
      const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
      const requests: string[] = [];
      page.on('request', (request) => requests.push(request.url()));
      await page.goto(pathToFileURL(htmlPath).href);
      for (const operation of ['GET /academic/v1.0/evaluate', 'GET /eventknowledge/v1.0/hotevents']) {
        const section = page.locator(`section[data-operation="${operation}"]`);
        const candidate = await section.locator('svg[data-side="candidate"]').boundingBox();
        const current = await section.locator('svg[data-side="current"]').boundingBox();
        assert.ok(candidate && current && candidate.width > 200 && candidate.height > 80, `${operation}: drawn`);
        assert.ok(
          Math.abs(candidate.y - current.y) < 1 && current.x > candidate.x + candidate.width - 1,
          'side by side',
        );
        for (const side of ['candidate', 'current']) {
          const bars = await section.locator(`svg[data-side="${side}"] rect.bar`).count();
          assert.ok(bars > 0, `${operation} ${side}: bars drawn`);
        }
      }
      assert.match(
        (await page.locator('section[data-operation="GET /academic/v1.0/evaluate"]').textContent()) ?? '',
        /REGRESSION/,
      );
      assert.match(
        (await page.locator('section[data-operation="GET /eventknowledge/v1.0/hotevents"]').textContent()) ?? '',
        /alike/,
      );
      await page.emulateMedia({ media: 'print' });
      assert.ok(
        await page.locator('pre', { hasText: 'Ocp-Apim-Subscription-Key: ***' }).first().isVisible(),
        'the curl lines print',
      );
      const pdf = await page.pdf({ format: 'A4' });
      assert.ok(pdf.length > 10_000, `printed: ${pdf.length} bytes`);
      assert.deepEqual(
        requests.filter((url) => !url.startsWith('file:')),
        [],
        'the page loads nothing from the network',
      );
    } finally {
      await browser.close();
    }
  });
});

describe('differences by cause', () => {
  const diff = (operation: string, operationId: string, pointer = '/requestId'): Difference => ({
    operation,
    operationId,
    pointer,
    kind: 'absent-in-current',
    candidate: 'r',
    current: null,
    seenIn: 2,
    example: {
      request: `${operationId}: success`,
      pointer,
      candidateCurl: `curl -sS 'http://127.0.0.1:1/faults/x/${operationId}'`,
      currentCurl: `curl -sS 'http://127.0.0.1:1/${operationId}'`,
    },
  });
  const differences = [
    diff('GET /academic/v1.0/evaluate', 'evaluateGet'),
    diff('POST /academic/v1.0/evaluate', 'evaluatePost'),
    diff('GET /academic/v1.0/evaluate', 'evaluateGet', '/aborted'),
  ];

  test('the same pointer and kind on two operations is one difference with two places', () => {
    const groups = groupDifferences(differences);
    assert.deepEqual(
      groups.map((group) => [group.pointer, group.places.length]),
      [
        ['/requestId', 2],
        ['/aborted', 1],
      ],
    );
    const result = {
      ...JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')),
      differences,
      causes: groups.length,
      latency: [],
    } as CompareResult;
    assert.match(comparePhrase(result), /^2 differences at 3 places$/);
    const terminal = renderCompare(result);
    assert.match(terminal, /^Behaviour: 2 differences at 3 places$/m);
    assert.match(terminal, /^\/requestId: new in the candidate on 2 operations \(4 request\(s\)\)$/m);
    const page = comparePage(result, []);
    const cards = page.sections.find((section) => section.id === 'differences')!.findings!;
    assert.deepEqual(
      cards.map((card) => card.places!.length),
      [2, 1],
    );
    assert.deepEqual(
      page.counts.map((chip) => [chip.label, chip.value]),
      [
        ['differences', 2],
        ['places', 3],
        ['set aside as noise', 12],
      ],
    );
  });
});
