import { readFileSync } from 'node:fs';
import { GENERATIVE_CHECK_IDS, getCheck } from '../contracts/checks/index.ts';
import { allocate } from '../contracts/generative/cases.ts';
import { OPERATION_IDS, OPERATIONS } from '../openapi/spec.ts';
import { DISCOVERY_NEEDS, DISCOVERY_REQUESTS, type DiscoveryItem } from './discovery.ts';
import { type ConformOptions, DEFAULT_GENERATE } from './options.ts';

/**
 * Requests each test sent in a run against the embedded reference server (one worker, the default
 * generative phase), measured
 * by `npm run docs:requests` and kept fresh by `request-budget.test.ts`; what `kgate conform`
 * announces before it starts. A real target's data can change a few counts (a shorter list pages
 * in fewer requests), so the announcement says "about".
 */
export const REQUEST_BUDGET_PATH = new URL('./request-budget.json', import.meta.url);

/** One test the suite will run. */
export interface SelectedTest {
  project: string;
  operation: string;
  check: string;
}

/** What one test sent. */
export interface TestBudget {
  /** Requests the test sent itself. */
  requests: number;
  /** The discovery items it used (each worker fetches an item once, for the first test that needs it). */
  data: string[];
  /** The coverage items its answers judged (contracts/coverage): what the plan leaves to it. */
  items?: string[];
  /** Open items the reference server refused (a 4xx to the class alone): the plan sends them alone. */
  refused?: string[];
  /** A generative test's: for each cell its answers judged, the items of the first case that did. */
  judgedBy?: Record<string, string[]>;
  /** Requests by path where some went to another operation's path than the test's own. */
  paths?: Record<string, number>;
  /**
   * What the test sends when it runs in full: in a run without a plan (`--generate N`, `--generate 0`)
   * where the planned run sent `requests` (fewer: its generated requests judged the cell first).
   */
  alone?: number;
  /** The test data it uses when it runs in full, where that differs from `data`. */
  aloneData?: string[];
}

/** The measured table. */
export interface RequestBudget {
  /** How the table was measured. */
  measured: string;
  /** `<operation label> <check id>` -> what the test sent. */
  tests: Record<string, TestBudget>;
}

/** The most requests test data discovery sends in one worker that needs every item (without 429 retries). */
export const DISCOVERY_MAX_REQUESTS = Object.values(DISCOVERY_REQUESTS).reduce((sum, cost) => sum + cost.most, 0);
/**
 * Requests a draw (`--generate N`) sends per generated case, its relations, chains and shrinking
 * included: 576 for the 493 cases of one round against the reference server, before the plan.
 */
export const DRAW_REQUESTS_PER_CASE = 576 / 493;

/** The most requests one rate-limit test sends: a burst of at most 1000, then one after the stated wait. */
export const RATE_LIMIT_TEST_MAX_REQUESTS = 1001;

let budget: RequestBudget | undefined;

/** The committed table. */
export function requestBudget(): RequestBudget {
  budget ??= JSON.parse(readFileSync(REQUEST_BUDGET_PATH, 'utf8')) as RequestBudget;
  return budget;
}

/** The key of a test in the table. */
export function budgetKey(test: Pick<SelectedTest, 'operation' | 'check'>): string {
  return `${test.operation} ${test.check}`;
}

/** What a run is expected to send. */
export interface RequestEstimate {
  tests: number;
  /** Requests of the selected tests, as measured on the reference server. */
  testRequests: number;
  /** Of which the rate-limit tests' bursts (they stop at the first 429: up to RATE_LIMIT_TEST_MAX_REQUESTS each). */
  rateLimitRequests: number;
  /** Discovery: each item the tests need, fetched once per worker that runs such a test; first candidates serving, and every fallback tried. */
  discovery: { typical: number; max: number };
  /** testRequests plus typical and most discovery. */
  total: { typical: number; max: number };
  /** testRequests by the path of each test's operation (a test that also reads another operation counts on its own). */
  byPath: Record<string, number>;
}

/** The keys a run was given beside KGATE_KEY: a check that needs one that was not given sends nothing. */
export interface KeysGiven {
  unsubscribed: boolean;
  exhausted: boolean;
}

/** Whether a test needs a key the run was not given (it then skips itself and sends nothing). */
export function needsMissingKey(check: string, keys: KeysGiven): boolean {
  return (
    (check === 'auth-requires-subscription' && !keys.unsubscribed) ||
    (check === 'quota-exhausted-is-403' && !keys.exhausted)
  );
}

/** An item and every item it is derived from. */
export function withNeeds(item: DiscoveryItem, into: Set<DiscoveryItem>): Set<DiscoveryItem> {
  if (into.has(item)) return into;
  into.add(item);
  for (const need of DISCOVERY_NEEDS[item] ?? []) withNeeds(need, into);
  return into;
}

/**
 * Estimates the requests of the selected tests run by `workers` workers: the measured requests of
 * each test, plus discovery of every item they use: typically once per run from its first
 * candidate serving, at most once per worker that may run one of them with every fallback tried
 * (Playwright starts no more workers than there are tests; the rate-limit project, run after the
 * others, starts its own).
 */
export function estimateRequests(
  tests: readonly SelectedTest[],
  workers: number,
  table: RequestBudget = requestBudget(),
  generate: number = DEFAULT_GENERATE,
  draw = false,
  keys: KeysGiven = { unsubscribed: true, exhausted: true },
  generated?: (label: string) => Record<string, number> | undefined,
): RequestEstimate {
  // A test that needs a key the run was not given skips itself and sends nothing.
  tests = tests.filter((test) => !needsMissingKey(test.check, keys));
  // A deferred test sends nothing only where its operation's generated requests run beside it.
  const generating = new Set(
    tests
      .filter((test) => getCheck(test.check)?.kind === 'generative')
      .map((test) => `${test.project} ${test.operation}`),
  );
  let testRequests = 0;
  let rateLimitRequests = 0;
  const byPath: Record<string, number> = {};
  const users = new Map<string, Map<DiscoveryItem, number>>();
  const generativeSent = new Set<string>();
  // The table was measured with the planned generative phase; a draw (--generate N) and a run
  // without one (--generate 0) send the fixed tests in full.
  const planned = generate > 0 && !draw;
  const drawn = draw ? allocate(generate, OPERATION_IDS) : undefined;
  for (const test of tests) {
    const measured = table.tests[budgetKey(test)];
    const generative = getCheck(test.check)?.kind === 'generative';
    // An operation's generated requests are sent once, by the first of its generative tests to
    // run, whichever the table measured them under (the properties may run only one of them).
    const sent = `${test.project} ${test.operation}`;
    const operationId = OPERATIONS.find((op) => op.label === test.operation)?.operationId ?? '';
    const inFull = !generative && !(planned && generating.has(sent));
    // An operation sending only some intents of generated requests sends what `generated` says of them.
    const only = generative && !drawn && !generativeSent.has(sent) ? generated?.(test.operation) : undefined;
    const requests = !generative
      ? !inFull
        ? (measured?.requests ?? 0)
        : (measured?.alone ?? measured?.requests ?? 0)
      : generativeSent.has(sent)
        ? 0
        : drawn
          ? Math.round((drawn.get(operationId) ?? 0) * DRAW_REQUESTS_PER_CASE)
          : only
            ? Object.values(only).reduce((sum, n) => sum + n, 0)
            : GENERATIVE_CHECK_IDS.reduce(
                (sum, id) => sum + (table.tests[budgetKey({ operation: test.operation, check: id })]?.requests ?? 0),
                0,
              );
    if (generative) generativeSent.add(sent);
    testRequests += requests;
    const path = test.operation.slice(test.operation.indexOf(' ') + 1);
    // The rate-limit tests' bursts go unpaced (they exist to exceed a rate): no pace waits for them.
    if (!getCheck(test.check)?.tag) byPath[path] = (byPath[path] ?? 0) + requests;
    if (getCheck(test.check)?.tag) rateLimitRequests += measured?.requests ?? 0;
    const byItem = users.get(test.project) ?? new Map<DiscoveryItem, number>();
    users.set(test.project, byItem);
    const items = new Set<DiscoveryItem>();
    for (const item of (inFull ? measured?.aloneData : undefined) ?? measured?.data ?? [])
      if (item in DISCOVERY_REQUESTS) withNeeds(item as DiscoveryItem, items);
    for (const item of items) byItem.set(item, (byItem.get(item) ?? 0) + 1);
  }
  // Typically the first worker to need an item finds it for the whole run (discovery-share.ts); at
  // most each worker finds it itself, as one does when the finder leaves nothing in time.
  const discovery = { typical: 0, max: 0 };
  const found = new Set<DiscoveryItem>();
  for (const [project, byItem] of users) {
    const projectWorkers = project === 'rate-limit' ? 1 : workers;
    for (const [item, count] of byItem) {
      if (!found.has(item)) discovery.typical += DISCOVERY_REQUESTS[item].first;
      found.add(item);
      discovery.max += DISCOVERY_REQUESTS[item].most * Math.min(projectWorkers, count);
    }
  }
  return {
    tests: tests.length,
    testRequests,
    rateLimitRequests,
    discovery,
    total: { typical: testRequests + discovery.typical, max: testRequests + discovery.max },
    byPath,
  };
}

/** Renders a duration in seconds as `4 min 40 s`. */
function duration(seconds: number): string {
  const s = Math.ceil(seconds);
  return s < 60 ? `${s} s` : `${Math.floor(s / 60)} min${s % 60 ? ` ${s % 60} s` : ''}`;
}

/** The least time the run's paces need for the requests the estimate holds, in seconds (0 unpaced). */
export function pacedSeconds(
  estimate: RequestEstimate,
  maxRps?: number,
  maxRpsByPath: Record<string, number> = {},
): number {
  return Math.max(
    0,
    ...(maxRps ? [estimate.total.typical / maxRps] : []),
    ...Object.entries(maxRpsByPath).map(([path, rps]) => (estimate.byPath[path] ?? 0) / rps),
  );
}

/**
 * The run time limit when neither --max-duration nor maxDuration says one: ten minutes (a clean
 * unpaced run takes well under two against a deployment that answers within a second) plus twice
 * the time the announced estimate says the pace needs. A target that answers slowly cannot hold a
 * pipeline for hours by default.
 */
export function defaultMaxDurationMs(
  estimate: RequestEstimate,
  maxRps?: number,
  maxRpsByPath?: Record<string, number>,
): number {
  return 600_000 + 2 * Math.ceil(pacedSeconds(estimate, maxRps, maxRpsByPath)) * 1000;
}

/** The line `kgate conform` prints before it starts. */
export function describeEstimate(
  estimate: RequestEstimate,
  maxRps?: number,
  maxRpsByPath: Record<string, number> = {},
): string {
  const span = ({ typical, max }: { typical: number; max: number }) =>
    typical === max ? `${typical}` : `${typical} to ${max}`;
  const burst =
    estimate.rateLimitRequests > 0
      ? ` (${estimate.rateLimitRequests} of them in rate-limit bursts, which stop at the first 429: at most ${RATE_LIMIT_TEST_MAX_REQUESTS} each)`
      : '';
  const discovery = estimate.discovery.max === 0 ? 'none' : span(estimate.discovery);
  // The run lasts at least as long as the slowest of its paces needs for the requests it holds.
  const limits = [
    ...(maxRps
      ? [
          {
            rule: `at most ${maxRps} request(s)/s`,
            seconds: (estimate.total.typical - estimate.rateLimitRequests) / maxRps,
          },
        ]
      : []),
    ...Object.entries(maxRpsByPath).map(([path, rps]) => ({
      rule: `${path} at most ${rps}/s`,
      seconds: (estimate.byPath[path] ?? 0) / rps,
    })),
  ];
  const paced =
    limits.length > 0
      ? `; ${limits.map((limit) => limit.rule).join(', ')}: at least ${duration(Math.max(...limits.map((limit) => limit.seconds)))}`
      : '';
  return `kgate conform: ${estimate.tests} tests will send about ${span(estimate.total)} requests: ${estimate.testRequests} by the tests${burst}, ${discovery} to find test data${paced}`;
}

/**
 * Playwright's per-test time limit: a minute, plus, when the run is paced, the time the most
 * request-hungry test needs when every worker competes for the same slots of the slowest pace
 * (--max-rps, or the rate of a path under --max-rps-by-path).
 */
export function testTimeoutMs(
  pace: Pick<ConformOptions, 'maxRps' | 'maxRpsByPath'>,
  workers: number,
  table: RequestBudget = requestBudget(),
): number {
  const rates = [pace.maxRps, ...Object.values(pace.maxRpsByPath ?? {})].filter((rate): rate is number => !!rate);
  if (rates.length === 0) return 60_000;
  // The rate-limit tests' bursts go unpaced (--with-rate-limit beside a pace): no slot to wait for.
  const paced = Object.entries(table.tests).filter(([key]) => !getCheck(key.split(' ').pop()!)?.tag);
  const most = Math.max(0, ...paced.map(([, test]) => Math.max(test.requests, test.alone ?? 0)));
  return 60_000 + Math.ceil(((most + DISCOVERY_MAX_REQUESTS) * workers * 1000) / Math.min(...rates));
}
