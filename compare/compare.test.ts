// test-runner: alone (latency runs must find a 40 ms slowdown and no difference between equal targets)
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type ReferenceServer, startReferenceServer } from '../reference/index.ts';
import { type CompareResult, type CompareSettings, CompareUnreachable, estimateRequests, runCompare } from './run.ts';

// The proofs of kgate compare, against reference servers: two identical deployments compare equal
// (behaviour and latency), and each release fault is reported on its operation and nowhere else.

let current: ReferenceServer;
let candidate: ReferenceServer;
before(async () => {
  [current, candidate] = await Promise.all([
    startReferenceServer({ quiet: true, rateLimit: 1e9 }),
    startReferenceServer({ quiet: true, rateLimit: 1e9 }),
  ]);
});
after(async () => {
  await Promise.all([current.close(), candidate.close()]);
});

const ANSWER_SEARCH = 'GET /answersearch/v7.0/search';
const GET_EVALUATE = 'GET /academic/v1.0/evaluate';

/** A small comparison: the battery, second pages and 20 generated requests. */
function compare(
  candidateUrl: string,
  currentUrl: string,
  extra: Partial<CompareSettings> = {},
): Promise<CompareResult> {
  return runCompare({
    candidate: { baseUrl: candidateUrl, key: candidate.keys.full },
    current: { baseUrl: currentUrl, key: current.keys.full },
    requests: 20,
    seed: 1,
    timeoutMs: 10_000,
    maxBytes: 5_000_000,
    ...extra,
  });
}

/** One line per difference, for assertion messages. */
function brief(result: CompareResult): string {
  return result.differences.map((diff) => `${diff.operation} ${diff.pointer} ${diff.kind}`).join('; ') || 'none';
}

describe('kgate compare against reference servers', () => {
  test('two identical deployments compare equal', async () => {
    const result = await compare(candidate.url, current.url);
    assert.equal(result.differences.length, 0, brief(result));
    assert.deepEqual([result.verdict, result.exitCode], ['pass', 0]);
    assert.equal(result.operations.length, 13, 'every operation was compared');
    assert.ok(result.requests.compared >= 60, `requests compared: ${result.requests.compared}`);
    assert.equal(result.requests.compared, estimateRequests({ requests: 20 }).compared, 'the announced count');
    assert.ok(result.requests.sent >= estimateRequests({ requests: 20 }).current, 'at least the announced requests');
    assert.ok(result.requests.repeated >= 26, `every operation repeated at least twice: ${result.requests.repeated}`);
    assert.deepEqual(result.noise, [], 'a deterministic deployment has no noise');
  });

  test('identical deployments show no latency regression over several runs', async () => {
    // Three runs on a shared machine: the interleaved schedule and the 10 % and 5 ms threshold keep
    // the machine's own jitter from reading as a regression.
    for (let run = 1; run <= 3; run++) {
      const result = await compare(candidate.url, current.url, {
        requests: 0,
        maxRps: 100,
        seed: run,
        latency: { samples: 20, threshold: { percent: 10, ms: 5 } },
      });
      const regressions = result.latency.filter((item) => item.regression).map((item) => item.operation);
      assert.deepEqual(
        regressions,
        [],
        `run ${run}: ${JSON.stringify(result.latency.filter((item) => item.regression))}`,
      );
      assert.equal(result.latency.length, 13, 'every operation measured');
      assert.ok(
        result.latency.every((item) => item.candidate.count >= 18 && item.current.count >= 18),
        'pairs',
      );
      assert.equal(result.verdict, 'pass', brief(result));
    }
  });

  test("a release that shifts one operation's pages is reported on that operation only", async () => {
    const result = await compare(`${candidate.url}/faults/answersearch-offset-off-by-one`, current.url);
    assert.equal(result.exitCode, 1);
    assert.deepEqual([...new Set(result.differences.map((diff) => diff.operation))], [ANSWER_SEARCH], brief(result));
    const shifted = result.differences.find((diff) => diff.pointer === '/webPages/value/*');
    assert.ok(shifted, `the page holds other results: ${brief(result)}`);
    assert.equal(shifted.kind, 'order');
    assert.match(
      shifted.example.candidateCurl,
      /faults\/answersearch-offset-off-by-one\/answersearch\/v7\.0\/search\?.*offset=/,
    );
    assert.match(shifted.example.currentCurl, /^curl -sS -H 'Ocp-Apim-Subscription-Key: \*\*\*' /, 'key masked');
  });

  test('an operation slowed by 40 ms is a latency regression there and nowhere else', async () => {
    const result = await compare(`${candidate.url}/faults/evaluate-slow-40ms`, current.url, {
      requests: 0,
      maxRps: 100,
      latency: { samples: 20, threshold: { percent: 10, ms: 5 } },
    });
    assert.equal(result.differences.length, 0, `answers alike: ${brief(result)}`);
    const regressions = result.latency.filter((item) => item.regression);
    assert.deepEqual(
      regressions.map((item) => item.operation),
      [GET_EVALUATE],
      JSON.stringify(result.latency.map((item) => [item.operation, item.ratio, item.interval])),
    );
    const slow = regressions[0]!;
    assert.ok(slow.candidate.p50 - slow.current.p50 >= 30, `about 40 ms slower: ${JSON.stringify(slow)}`);
    assert.ok(slow.interval[0] > 1, 'significant');
    assert.deepEqual([result.verdict, result.exitCode], ['fail', 1]);
  });

  test('deployments whose answers carry run-to-run noise compare equal, and the noise is listed', async () => {
    const noisy = (server: ReferenceServer) => `${server.url}/faults/answersearch-run-to-run-noise`;
    const result = await compare(noisy(candidate), noisy(current));
    assert.equal(result.differences.length, 0, brief(result));
    assert.equal(result.verdict, 'pass');
    assert.ok(result.ignored > 0, 'differences were set aside as noise');
    const learned = result.noise.map((entry) => `${entry.operation} ${entry.pointer}`);
    assert.ok(learned.includes(`${ANSWER_SEARCH} /webPages/value/*/dateLastCrawled`), learned.join('; '));
    assert.ok(
      result.noise.every((entry) => entry.operation === ANSWER_SEARCH),
      learned.join('; '),
    );
  });

  test('noise on the current deployment hides no real change of the candidate', async () => {
    // The candidate shifts pages; the current deployment is noisy: the shift is still reported.
    const result = await compare(
      `${candidate.url}/faults/answersearch-offset-off-by-one`,
      `${current.url}/faults/answersearch-run-to-run-noise`,
    );
    assert.ok(
      result.differences.some((diff) => diff.operation === ANSWER_SEARCH && diff.pointer === '/webPages/value/*'),
      brief(result),
    );
  });

  test('a candidate that answers nothing is named within a few deadlines', async () => {
    const started = performance.now();
    await assert.rejects(
      compare(`${candidate.url}/faults/hang`, current.url, { timeoutMs: 1_000 }),
      (error: unknown) =>
        error instanceof CompareUnreachable &&
        /^the candidate deployment .*faults\/hang answered none of 3 requests$/.test(error.message),
    );
    // Three deadlines at most; the rest is a loaded machine's margin, far from waiting without end.
    assert.ok(performance.now() - started < 15_000, `stopped after ${Math.round(performance.now() - started)} ms`);
  });
});
