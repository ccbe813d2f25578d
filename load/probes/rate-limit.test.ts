// test-runner: alone (it finds rate limits of up to 60 requests a second by the answers it gets)
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { validateResponse } from '../../openapi/validator.ts';
import type { ReferenceServer } from '../../reference/index.ts';
import { referenceServers } from '../../scripts/reference-servers.ts';
import type { ResponseValidator } from '../runner.ts';
import { probeRateLimit, secondsToWait } from './rate-limit.ts';

const validate: ResponseValidator = validateResponse;
const reference = referenceServers();

// Limits a loaded machine still sends past (the probe and the servers share this process). How close
// the probe comes at limits of 50 to 300 requests a second, within 10 %, is measured by
// `npm run bench -- probes` on a quiet machine; here 20 % is a loaded machine's margin.
describe('rate-limit probe against the reference server', { concurrency: true }, () => {
  const cases = [
    { given: { operation: 'answerSearch' as const, rateLimit: 20, maxRate: undefined }, want: 20 },
    { given: { operation: 'urlPreview' as const, rateLimit: 40, maxRate: undefined }, want: 40 },
    // The top rate is only a third above the limit: the bucket needs seconds to drain there.
    { given: { operation: 'answerSearch' as const, rateLimit: 60, maxRate: 80 }, want: 60 },
  ];
  for (const { given, want } of cases) {
    test(`${given.operation} limited to ${given.rateLimit}/s is found within 20 % in under 30 s`, async () => {
      const server = await reference({ rateLimit: given.rateLimit });
      const result = await probeRateLimit({
        baseUrl: server.url,
        key: server.keys.full,
        operation: given.operation,
        validate,
        maxRate: given.maxRate,
      });
      assert.ok(result.thresholdRps !== null, result.problems.join('; '));
      assert.ok(Math.abs(result.thresholdRps - want) <= want * 0.2, `found ${result.thresholdRps}/s, limit ${want}/s`);
      // Its own limit is 30 s; the last answers it waits for are a loaded machine's margin.
      assert.ok(result.durationS < 40, `took ${result.durationS} s`);
      assert.equal(result.invalid429.count, 0, result.invalid429.examples.join('; '));
      assert.ok(result.throttledResponses > 0);
      assert.ok(result.waitSeconds !== null && result.waitSeconds >= 1);
      assert.equal(result.messageSeconds, result.retryAfterSeconds);
      assert.equal(result.recovered, true);
      assert.deepEqual(result.problems, []);
      assert.ok(result.requests <= 10_000);
    });
  }
});

describe('rate-limit probe against faults', { concurrency: true }, () => {
  let server: ReferenceServer;
  let faults: string[] = [];
  before(async () => {
    server = await reference({ rateLimit: 20 });
    faults = ((await (await fetch(`${server.url}/faults`)).json()) as { name: string }[]).map((f) => f.name);
  });
  const cases = [
    { given: 'rate-limit-disabled', want: { threshold: null, problem: /no 429 \(nor any throttling\) up to/ } },
    { given: 'answersearch-429-no-seconds', want: { threshold: 20, problem: /does not state how many seconds/ } },
    { given: 'answersearch-429-wrong-shape', want: { threshold: 20, problem: /429 bodies do not match the spec/ } },
  ];
  for (const { given, want } of cases) {
    test(`${given}: ${want.problem.source}`, async () => {
      assert.ok(faults.includes(given), `fault ${given} is not in the catalogue`);
      const result = await probeRateLimit({
        baseUrl: `${server.url}/faults/${given}`,
        key: server.keys.full,
        operation: 'answerSearch',
        validate,
        maxRate: 320,
        maxDurationS: 12,
      });
      if (want.threshold === null) assert.equal(result.thresholdRps, null);
      else assert.ok(Math.abs((result.thresholdRps ?? 0) - want.threshold) <= want.threshold * 0.2);
      assert.ok(
        result.problems.some((p) => want.problem.test(p)),
        result.problems.join('; '),
      );
      // Its bound is 12 s; the last answers it waits for are a loaded machine's margin.
      assert.ok(result.durationS < 22, 'the probe stops by itself within its bounds');
    });
  }
  test('urlpreview-429-no-recovery: the target is reported as not recovered', async () => {
    const name = 'urlpreview-429-no-recovery';
    assert.ok(faults.includes(name), `fault ${name} is not in the catalogue`);
    const result = await probeRateLimit({
      baseUrl: `${server.url}/faults/${name}`,
      key: server.keys.full,
      operation: 'urlPreview',
      validate,
      maxRate: 320,
      maxDurationS: 15,
    });
    assert.equal(result.recovered, false);
    assert.ok(result.problems.some((p) => /still refuses/.test(p)));
  });
});

describe('rate-limit probe helpers', () => {
  const waits = [
    {
      given: { message: 'Rate limit is exceeded. Try again in 3 seconds.', header: '3' },
      want: { message: 3, retryAfter: 3 },
    },
    {
      given: { message: 'Rate limit is exceeded. Try again in 1 second.', header: undefined },
      want: { message: 1, retryAfter: null },
    },
    { given: { message: 'Rate limit is exceeded.', header: '2' }, want: { message: null, retryAfter: 2 } },
  ];
  for (const { given, want } of waits) {
    test(`seconds to wait from '${given.message}' and Retry-After ${given.header}`, () => {
      const body = JSON.stringify({ error: { statusCode: 429, message: given.message } });
      assert.deepEqual(secondsToWait(body, given.header), want);
    });
  }
});
