import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { Api } from '../contracts/api.ts';
import { DISCOVERY_REQUESTS, DISCOVERY_SOURCES, Discovery, type DiscoveryItem } from './discovery.ts';
import { readConformOptions } from './options.ts';
import {
  DISCOVERY_MAX_REQUESTS,
  defaultMaxDurationMs,
  describeEstimate,
  estimateRequests,
  type RequestBudget,
  requestBudget,
  testTimeoutMs,
} from './request-budget.ts';
import { playwrightPlan, selectedTests } from './selection.ts';

/**
 * A target on which every discovery item needs its last candidate: few interpretations, few web
 * pages, events only on the last fixed date, and each related entity with one event.
 */
function stingyTarget() {
  let requests = 0;
  const server = createServer((req, res) => {
    requests++;
    const url = new URL(req.url ?? '/', 'http://x');
    res.setHeader('content-type', 'application/json; charset=utf-8');
    const path = url.pathname;
    const authors = [{ AuN: 'ada lovelace' }, { AuN: 'grace hopper' }];
    if (path.endsWith('/evaluate'))
      return res.end(
        JSON.stringify({
          expr: 'e',
          entities: [
            { Ti: 't1', AA: authors },
            { Ti: 't2', AA: authors },
          ],
        }),
      );
    if (path.endsWith('/interpret')) return res.end(JSON.stringify({ query: 'q', interpretations: [{}] }));
    if (path.endsWith('/search'))
      return res.end(JSON.stringify({ _type: 'SearchResponse', webPages: { value: [{ url: 'https://x.org/' }] } }));
    if (path.endsWith('/hotevents')) {
      const events =
        url.searchParams.get('date') === '2021-03-15'
          ? [{ eventId: 'e1', relatedEntities: ['a', 'b', 'c', 'd', 'e'] }]
          : [];
      return res.end(JSON.stringify({ value: events }));
    }
    if (path.endsWith('/relatedevents')) return res.end(JSON.stringify({ value: [{ eventId: 'e1' }] }));
    res.statusCode = 404;
    res.end('{}');
  });
  return { server, count: () => requests };
}

test('discovery sends DISCOVERY_REQUESTS.most per item when every fallback is needed, DISCOVERY_MAX_REQUESTS in all', async () => {
  const { server, count } = stingyTarget();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const api = new Api({
      baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      keys: { full: 'k' },
      timeoutMs: 5_000,
      maxBytes: 1024 * 1024,
      disabledChecks: new Set(),
      judge: false,
    });
    const discovery = new Discovery(api);
    for (const item of Object.keys(DISCOVERY_SOURCES) as DiscoveryItem[]) {
      // In this order every item finds the items it is derived from already fetched: what it sends is its own.
      const before = count();
      await (discovery[item] as () => Promise<unknown>).call(discovery);
      assert.equal(count() - before, DISCOVERY_REQUESTS[item].most, `${item} takes every fallback`);
    }
    assert.equal(count(), DISCOVERY_MAX_REQUESTS, 'every fallback of every item taken: the most discovery sends');
    assert.equal(api.requestCount, count(), 'the Api counts what the target received');
    assert.equal(
      DISCOVERY_MAX_REQUESTS,
      Object.values(DISCOVERY_REQUESTS).reduce((sum, cost) => sum + cost.most, 0),
      'the total is the sum of the items',
    );
  } finally {
    server.close();
  }
});

const TABLE: RequestBudget = {
  measured: 'test',
  tests: {
    'GET /a auth-required': { requests: 2, data: [] },
    'GET /a paging-is-consistent': { requests: 4, data: ['papers'] },
    'GET /b paging-is-consistent': { requests: 4, data: ['interpretQuery'] },
    'GET /b rate-limit-signalled': { requests: 150, data: ['answerQuery'] },
  },
};

test('estimateRequests adds each test, and each item discovered once per run, at most once per worker that may need it', () => {
  const at = (operation: string, check: string, project = 'conformance') => ({ project, operation, check });
  const cases: {
    given: { tests: ReturnType<typeof at>[]; workers: number };
    want: { testRequests: number; discovery: { typical: number; max: number } };
  }[] = [
    {
      given: { tests: [at('GET /a', 'auth-required')], workers: 2 },
      want: { testRequests: 2, discovery: { typical: 0, max: 0 } },
    },
    {
      given: { tests: [at('GET /a', 'paging-is-consistent')], workers: 4 },
      want: { testRequests: 4, discovery: { typical: 1, max: 1 } },
    },
    {
      // interpretQuery needs authors, which needs papers: 1 + 1 for the run; at most, once per
      // worker (1 + 5 for the one test of each that needs them).
      given: { tests: [at('GET /a', 'paging-is-consistent'), at('GET /b', 'paging-is-consistent')], workers: 2 },
      want: { testRequests: 8, discovery: { typical: 2, max: 7 } },
    },
    {
      // The rate-limit project runs after the others, in a worker of its own.
      given: { tests: [at('GET /b', 'rate-limit-signalled', 'rate-limit')], workers: 2 },
      want: { testRequests: 150, discovery: { typical: 1, max: 3 } },
    },
  ];
  for (const { given, want } of cases) {
    const got = estimateRequests(given.tests, given.workers, TABLE);
    assert.deepEqual({ testRequests: got.testRequests, discovery: got.discovery }, want, JSON.stringify(given));
  }
  const line = describeEstimate(estimateRequests([at('GET /a', 'paging-is-consistent')], 2, TABLE), 0.5);
  assert.match(
    line,
    /1 tests will send about 5 requests: 4 by the tests, 1 to find test data; at most 0\.5 request\(s\)\/s: at least 10 s$/,
  );
  // A path's own pace holds that path's requests: the run lasts at least as long as its slowest pace needs.
  const two = estimateRequests([at('GET /a', 'paging-is-consistent'), at('GET /b', 'paging-is-consistent')], 2, TABLE);
  assert.deepEqual(two.byPath, { '/a': 4, '/b': 4 });
  assert.match(
    describeEstimate(two, 1, { '/b': 0.1 }),
    /; at most 1 request\(s\)\/s, \/b at most 0\.1\/s: at least 40 s$/,
  );
  assert.match(describeEstimate(two, undefined, { '/a': 2 }), /; \/a at most 2\/s: at least 2 s$/);
});

test('selectedTests selects what the Playwright projects select', () => {
  const options = (over: object) => ({ ...readConformOptions('{}', true), ...over });
  const cases: { given: { options: object; grep?: string }; want: { tests: number; projects: string[] } }[] = [
    // 162 tests of the fixed battery and 39 of the generative phase (three checks on each of 13 operations).
    { given: { options: {} }, want: { tests: 201, projects: ['conformance'] } },
    { given: { options: { generate: 0 } }, want: { tests: 162, projects: ['conformance'] } },
    { given: { options: { rateLimit: true } }, want: { tests: 203, projects: ['conformance'] } },
    {
      given: { options: { rateLimit: true, shard: { current: 2, total: 2 } } },
      want: { tests: 203, projects: ['conformance', 'rate-limit'] },
    },
    { given: { options: { checks: ['auth-required'] } }, want: { tests: 13, projects: ['conformance'] } },
    { given: { options: { excludeChecks: ['auth-required'] } }, want: { tests: 188, projects: ['conformance'] } },
    { given: { options: {}, grep: 'GET /academic/v1.0/evaluate' }, want: { tests: 18, projects: ['conformance'] } },
    { given: { options: { checks: ['body-is-json'] } }, want: { tests: 13, projects: ['conformance'] } },
  ];
  for (const { given, want } of cases) {
    const tests = selectedTests(options(given.options) as never, given.grep);
    assert.deepEqual(
      { tests: tests.length, projects: [...new Set(tests.map((item) => item.project))] },
      want,
      JSON.stringify(given),
    );
  }
});

test('the committed table has a row for every test the suite can run', () => {
  const all = selectedTests({ ...readConformOptions('{}', true), rateLimit: true });
  const table = requestBudget();
  const missing = all.filter((item) => table.tests[`${item.operation} ${item.check}`] === undefined);
  assert.deepEqual(missing, [], 'run npm run docs:requests after adding a check');
  assert.equal(Object.keys(table.tests).length, all.length, 'no row for a test that no longer exists');
});

test('under --max-rps a test has time for its requests when every worker competes for the slots', () => {
  assert.equal(testTimeoutMs({}, 2, TABLE), 60_000, 'unpaced: a minute');
  // The hungriest paced test sends 4, discovery at most 22: 26 requests, times 2 workers, at 1/s.
  assert.equal(testTimeoutMs({ maxRps: 1 }, 2, TABLE), 60_000 + 52_000);
  // A path's own pace, slower than the run's, sets the limit.
  assert.equal(
    testTimeoutMs({ maxRps: 2, maxRpsByPath: { '/academic/v1.0/calchistogram': 0.5 } }, 2, TABLE),
    60_000 + 104_000,
  );
});

test('the default run time limit is ten minutes plus twice the time the paces need for the estimate', () => {
  const estimate = estimateRequests(selectedTests(readConformOptions('{}', true)), 2);
  const evaluate = estimate.byPath['/academic/v1.0/evaluate'] ?? 0;
  const cases = [
    { given: defaultMaxDurationMs(estimate), want: 600_000 },
    { given: defaultMaxDurationMs(estimate, 1), want: 600_000 + 2 * Math.ceil(estimate.total.typical) * 1000 },
    {
      given: defaultMaxDurationMs(estimate, undefined, { '/academic/v1.0/evaluate': 0.5 }),
      want: 600_000 + 2 * Math.ceil(evaluate / 0.5) * 1000,
    },
  ];
  for (const { given, want } of cases) assert.equal(given, want);
  assert.ok(evaluate > 0);
});

test('a fault sweep, its targets given by file, is planned as one sweep project with no rate-limit barrier', () => {
  const options = { ...readConformOptions('{}', true), sweepFile: '/nowhere/sweep-targets.json', rateLimit: true };
  const plan = playwrightPlan(options);
  assert.deepEqual(
    plan.projects.map((project) => project.name),
    ['sweep'],
  );
  assert.equal(plan.rateLimitLast, false, 'a sweep declares its rate-limit tests among the others');
  assert.equal(playwrightPlan({ ...options, sweepFile: undefined }).rateLimitLast, true, 'an unsharded run with them');
});

test('the estimate counts what runs: a deferred check sends its own requests where no generated request judges its cell, and a check needing a key not given sends nothing', () => {
  const options = { ...readConformOptions('{}', true), rateLimit: false, embedded: false };
  const table = requestBudget();
  const only = selectedTests({ ...options, checks: ['response-matches-spec'] });
  const alone = estimateRequests(only, 1, table);
  assert.equal(
    alone.testRequests,
    only.reduce((sum, test) => sum + (table.tests[`${test.operation} ${test.check}`]?.alone ?? 0), 0),
    'each test in full: no generated request of its operation runs beside it',
  );
  assert.ok(alone.testRequests > 0 && alone.discovery.typical > 0, 'with the test data it then needs');
  const every = selectedTests(options);
  const withKeys = estimateRequests(every, 2, table);
  const without = estimateRequests(every, 2, table, undefined, false, { unsubscribed: false, exhausted: false });
  const keyed = every.filter((test) => ['auth-requires-subscription', 'quota-exhausted-is-403'].includes(test.check));
  assert.equal(without.tests, withKeys.tests - keyed.length, 'the tests needing those keys send nothing');
  assert.equal(
    withKeys.testRequests - without.testRequests,
    keyed.reduce((sum, test) => sum + (table.tests[`${test.operation} ${test.check}`]?.requests ?? 0), 0),
  );
});
