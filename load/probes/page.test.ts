// The pages of kgate probe, from a probe's result: the verdict is its problems, the banner names the
// limit found, and the steps (rate limit) or the search (body limit) are on the page.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { renderPage } from '../../page/page.ts';
import type { BodyLimitProbeResult } from './body-limit.ts';
import { bodyLimitPage, rateLimitPage } from './page.ts';
import type { RateLimitProbeResult } from './rate-limit.ts';

const RUN = { target: 'http://127.0.0.1:8080', startedAt: '2026-12-07T16:00:00.000Z', durationMs: 9000 };

function rateLimit(problems: string[]): RateLimitProbeResult {
  return {
    operation: 'answerSearch',
    thresholdRps: 100,
    first429AtRate: 160,
    requests: 900,
    durationS: 9,
    waitSeconds: 1,
    messageSeconds: 1,
    retryAfterSeconds: null,
    recovered: true,
    throttledResponses: 120,
    invalid429: { count: problems.length, examples: problems.length > 0 ? ['{"oops":1}'] : [] },
    steps: [
      { phase: 'ramp', rate: 10, sent: 10, ok: 10, throttled: 0, other: 0 },
      { phase: 'ramp', rate: 160, sent: 160, ok: 100, throttled: 60, other: 0 },
      { phase: 'hold', rate: 160, sent: 640, ok: 400, throttled: 240, other: 0 },
      { phase: 'recovery', rate: 1, sent: 1, ok: 1, throttled: 0, other: 0 },
    ],
    signal: {
      status: 429,
      contentType: 'application/json',
      retryAfter: 'absent',
      conforms: true,
      signalledBy: 'the target',
    },
    problems,
  } as RateLimitProbeResult;
}

test('the rate-limit page: PASS with the limit in its headline and every step in its table; FAIL names its problems', () => {
  const clean = renderPage(rateLimitPage(rateLimit([]), RUN));
  assert.match(clean, /<header class="banner pass" id="verdict">/);
  assert.match(
    clean,
    /kgate probe rate-limit answerSearch: PASS<span class="headline"> \(100 requests\/s accepted, behaving as documented\)/,
  );
  assert.equal(
    (clean.match(/<tr[^>]*><th scope="row">(ramp|hold|recovery)<\/th>/g) ?? []).length,
    4,
    'one row per step',
  );
  const failing = renderPage(rateLimitPage(rateLimit(['3 throttled answers did not match the spec']), RUN));
  assert.match(failing, /<header class="banner fail" id="verdict">/);
  assert.match(failing, /1 problem: 100 requests\/s accepted/);
  assert.match(failing, /3 throttled answers did not match the spec/);
  assert.match(failing, /data-count="problems"><b>1<\/b>/);
});

test('the body-limit page: the limit and how it reads, one byte over, and the problems', () => {
  const result: BodyLimitProbeResult = {
    limitBytes: 1_000_000,
    requests: 24,
    overStatus: 500,
    overDetail: '500 text/html',
    overFrom: 'target',
    notes: [],
    healthyAfter: true,
    matches: '1 MB (1,000,000 bytes)',
    interval: [64, 2_097_152],
    durationS: 3,
    problems: ['one byte over the limit the target answered 500, not 400'],
  };
  const page = renderPage(bodyLimitPage(result, RUN));
  assert.match(page, /<header class="banner fail" id="verdict">/);
  assert.match(page, /1 problem: largest accepted body 1,000,000 bytes \(1 MB \(1,000,000 bytes\)\)/);
  assert.match(page, /one byte over the limit the target answered 500, not 400/);
  const clean = renderPage(
    bodyLimitPage({ ...result, overStatus: 400, overDetail: '400 application/json', problems: [] }, RUN),
  );
  assert.match(clean, /<header class="banner pass" id="verdict">/);
  assert.match(clean, /behaving as documented/);
});
