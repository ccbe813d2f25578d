import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { TestInfo } from '@playwright/test';
import * as playwright from '@playwright/test';
import { readEnv } from '../config/env.ts';
import { redactSecrets, registerSecret } from '../config/redact.ts';
import { CODE_ROOT, MODULE_EXT } from '../config/runtime.ts';
import {
  Api,
  type ApiSettings,
  DeadlineReached,
  FrontServerRefused,
  notRunDeadline,
  notRunGivenUp,
  notRunThrottled,
  type Operation,
  ResponseUnusable,
  requestsSent,
  TargetBroken,
  Throttled,
} from '../contracts/api.ts';
import { CHECK_IDS, FIXTURE_CHECKS, GENERATIVE_CHECK_IDS } from '../contracts/checks/index.ts';
import { type Check, type CheckContext, failureOf, RATE_LIMIT_TAG, SkipCheck } from '../contracts/checks/registry.ts';
import { CheckFailure, excerpt, type Failure, formatFailure } from '../contracts/failure.ts';
import { judgedKeyOf } from '../contracts/generative/phase.ts';
import { PROPERTY_CHECKS } from '../contracts/properties/index.ts';
import { DataUnavailable } from '../contracts/test-data.ts';
import { mergeTimings, type OperationTimings } from '../contracts/timings.ts';
import { closeIdleSockets, configureNetwork } from '../http/client.ts';
import { type FrontLimits, hasFrontLimits } from '../http/front-limits.ts';
import { configureHeaders } from '../http/headers.ts';
import { networkSettings, proxySecrets } from '../http/network.ts';
import { hasObservations, type Observations } from '../http/observations.ts';
import { sharedRunPace } from '../http/pacing.ts';
import { AdaptivePace } from '../http/throttle.ts';
import { applyOverride, severityOf } from '../reporting/severity.ts';
import { Discovery } from './discovery.ts';
import { SharedDiscovery } from './discovery-share.ts';
import { type ConformOptions, OTHERS_ENDED_FILE, readConformOptions, runHeaders, scratchOf } from './options.ts';
import { DEFERRED_CHECKS, notPlanned, plansCoverage, refusedItems, relationPlanned, targetsOf } from './plan.ts';

/** Per-project target settings (a fault sweep runs one project per fault). */
export interface TargetOption {
  /** Base URL; unset means KGATE_BASE_URL (set by the global setup for the embedded server). */
  baseUrl?: string;
  /** Per-request deadline for this project, in milliseconds. */
  timeoutMs?: number;
  /** Who shares the breaker (see ApiSettings.breakerScope); default the base URL. */
  breakerScope?: string;
}

/** What every worker shares: the run settings, and the data discovered from each target it meets. */
export interface Kgate {
  options: ConformOptions;
  /** Request settings of the run's own target (the sweep overrides baseUrl and timeoutMs per test). */
  settings: Omit<ApiSettings, 'baseUrl'> & { baseUrl?: string };
  /** The discovery of a target, shared by every test of this worker that meets it. */
  discovery(settings: ApiSettings): Discovery;
  /** Requests this worker's discoveries have sent so far. */
  discoveryRequests(): number;
  /** The latencies of test data discovery since the last call, per operation (each test takes what it caused). */
  takeDiscoveryTimings(): OperationTimings;
  /**
   * What the properties found in the answers of the discovery of a target (`baseUrl`) since the
   * last call: the test that caused them reports them (a sweep meets many targets in one worker).
   */
  takeDiscoveryFindings(baseUrl: string): Failure[];
  /** The invariants that judged the answers of a target's discovery since the last call (see TestOutcome.judged). */
  takeDiscoveryJudged(baseUrl: string): string[];
  /** Values shared by the tests of this worker (see CheckContext.shared). */
  shared: Map<string, Promise<unknown>>;
}

/** Description of the `fail` annotation of a test whose check failed (see runCheck). */
export const FAILED_CHECK_ANNOTATION =
  'kgate: this check FAILED against the target (see summary.md); marked as an expected failure so that Playwright keeps its worker';

/**
 * Type of the annotation that carries a test's outcome (a TestOutcome, as JSON) to the reporter.
 * An annotation travels in the message that ends the test; an attachment would be a step of its own
 * (a captured call stack) and a message of its own, per test.
 */
export const OUTCOME_ANNOTATION = 'kgate-outcome';

/** What one test found, as the reporter reads it from the test's attachment. */
export interface TestOutcome {
  /** Every finding of the test: the check's own, and the fixture's on each operation it called. */
  findings: Failure[];
  /** Operation ids the test read, directly or through discovered data. */
  reads: string[];
  /** Notes for the run summary. */
  notes: string[];
  /** Why the check could not judge, when it was skipped. */
  skipped?: string;
  /** The test only carried other checks' findings (see CheckContext.carry): its own cell stays empty. */
  carrier?: boolean;
  /** `<check> <operation label>` of every invariant that judged an answer carrying what it reads, in this test or discovery for it. */
  judged?: string[];
  /**
   * Requests the test sent, those test data discovery sent for it (the first test of a worker to
   * need an item pays for it), and the discovery items it used.
   */
  requests?: {
    test: number;
    discovery: number;
    data: string[];
    /** The test's own requests by operation label (discovery's not counted). */
    byOperation?: Record<string, number>;
    retries?: Record<string, number>;
    /** Requests a front server refused for their size, and the longest that got through (http/front-limits.ts). */
    front?: FrontLimits;
    /** What the answers said of the envelope: versions, servers, caches, throttling (http/observations.ts). */
    observed?: Observations;
  };
  /** The same requests (the test's and discovery's for it) per operation, with their latencies. */
  timings?: OperationTimings;
  /** The coverage items the test's answers judged (contracts/coverage), sorted. */
  items?: string[];
  /** Open items the target refused (a 4xx to the class alone), sorted. */
  refused?: string[];
  /** For each cell the test's generated answers judged, the items of the first case that did (see EngineResult). */
  judgedBy?: Record<string, string[]>;
  /** The test sent nothing: the operation's generated requests had judged its cell already (run/plan.ts). */
  deferred?: boolean;
}

/**
 * The test type the suite builds on: Playwright's test without its browser fixtures, which kgate
 * never uses (requests go through its own client). The browser test sets up two fixtures of its own
 * around every test, each a step whose call stack Playwright captures and source-maps, which
 * profiles of a run put at about a third of a worker's time. `_baseTest` is the test type Playwright
 * builds its browser test from; should a release stop exporting it, the browser test serves.
 */
const base: typeof playwright.test =
  (playwright as unknown as { _baseTest?: typeof playwright.test })._baseTest ?? playwright.test;

/**
 * The suite's test object. `api` sends every request and validates every response against the
 * spec; `data` is the test data discovered from the target. `kgateTarget` (a test option) points
 * a describe block at another target: the fault sweep runs every fault in one worker pool that way.
 */
export const test = base.extend<{ kgateTarget: TargetOption; api: Api; data: Discovery }, { kgate: Kgate }>({
  kgateTarget: [{}, { option: true }],
  kgate: [
    // biome-ignore lint/correctness/noEmptyPattern: Playwright reads a fixture's dependencies from this pattern; it has none.
    async ({}, use) => {
      const env = readEnv();
      const options = readConformOptions();
      for (const key of [env.key, env.keyUnsubscribed, env.keyExhausted]) registerSecret(key);
      // The run's route, as the CLI resolved it: proxies from the variables it set, TLS files from the options.
      const file = (value: string | undefined, source: string) => (value ? { value, source } : undefined);
      // The embedded reference server runs on this machine: never through a proxy.
      const network = networkSettings({
        environment: options.embedded ? {} : env.proxies,
        caFile: file(options.network?.caFile, 'caFile'),
        clientCert: file(options.network?.clientCert, 'clientCert'),
        clientKey: file(options.network?.clientKey, 'clientKey'),
      });
      for (const proxy of [network.proxy?.https, network.proxy?.http])
        for (const secret of proxy ? proxySecrets(proxy) : []) registerSecret(secret);
      configureNetwork(network);
      // The headers of every request (the User-Agent, the user's), as the CLI resolved them.
      configureHeaders(runHeaders(env));
      const discoveries = new Map<string, Discovery>();
      const discoveryApis: Api[] = [];
      await use({
        options,
        settings: {
          baseUrl: env.baseUrl?.replace(/\/+$/, ''),
          keys: { full: env.key, unsubscribed: env.keyUnsubscribed, exhausted: env.keyExhausted },
          timeoutMs: options.timeoutMs,
          maxBytes: options.maxBytes,
          disabledChecks: new Set(options.excludeChecks ?? []),
          // The breaker's files and the shared test data live in the run's scratch folder, not its reports.
          breakerDir: scratchOf(options),
          strict: options.strict,
          pace: sharedRunPace(scratchOf(options), options.maxRps, options.maxRpsByPath, options.maxRequests),
          throttle: new AdaptivePace(scratchOf(options)),
          deadlineAt: options.deadlineAt,
          latencyBudgetMs: options.latencyBudgetMs,
          severity: options.severity,
          propertyChecks: new Set(
            CHECK_IDS.filter(
              (id) =>
                PROPERTY_CHECKS.has(id) &&
                (!options.checks || options.checks.includes(id)) &&
                !options.excludeChecks?.includes(id),
            ),
          ),
        },
        discovery(settings) {
          const key = `${settings.breakerScope ?? ''} ${settings.baseUrl}`;
          let found = discoveries.get(key);
          if (!found) {
            const api = new Api({ ...settings, judge: false, readsSlowOperations: true });
            discoveryApis.push(api);
            const shared =
              settings.breakerDir && env.runId ? SharedDiscovery.of(settings.breakerDir, env.runId, key) : undefined;
            found = new Discovery(api, shared);
            discoveries.set(key, found);
          }
          return found;
        },
        discoveryRequests: () => requestsSent(discoveryApis),
        takeDiscoveryTimings() {
          const taken: OperationTimings = {};
          for (const api of discoveryApis) {
            mergeTimings(taken, api.timings);
            for (const operation of Object.keys(api.timings)) delete api.timings[operation];
          }
          return taken;
        },
        takeDiscoveryFindings(baseUrl) {
          // A discovery fixture judges nothing but the properties: its findings are theirs.
          return discoveryApis
            .filter((api) => api.settings.baseUrl === baseUrl)
            .flatMap((api) => api.findings.splice(0));
        },
        takeDiscoveryJudged(baseUrl) {
          const apis = discoveryApis.filter((api) => api.settings.baseUrl === baseUrl);
          const taken = apis.flatMap((api) => [...api.judged]);
          for (const api of apis) api.judged.clear();
          return taken;
        },
        shared: new Map(),
      });
      closeIdleSockets();
    },
    // No step of their own (box 'self'): each step is two messages to the runner per test, and Playwright's reports need none.
    { scope: 'worker', box: 'self' },
  ],
  api: [
    async ({ kgate, kgateTarget }, use) => {
      const baseUrl = kgateTarget.baseUrl ?? kgate.settings.baseUrl;
      if (!baseUrl)
        throw new Error('no target: set KGATE_BASE_URL, or let the global setup start the reference server');
      await use(
        new Api({
          ...kgate.settings,
          baseUrl,
          timeoutMs: kgateTarget.timeoutMs ?? kgate.settings.timeoutMs,
          ...(kgateTarget.breakerScope ? { breakerScope: kgateTarget.breakerScope } : {}),
        }),
      );
    },
    { box: 'self' },
  ],
  data: [
    async ({ kgate, api }, use) => {
      await use(kgate.discovery(api.settings).forTest(api.reads, api.dataUsed));
    },
    { box: 'self' },
  ],
});

/**
 * Runs one check against one operation inside the current test and reports what it found.
 *
 * One defect, one failure: the findings of the request fixture are reported on the operation that
 * answered, under the fixture check, and fail only that operation's `response-matches-spec` test;
 * any other test goes on with the data, or is skipped naming the root cause when it cannot judge
 * (discovery found no data, an answer was unusable, the target stopped answering). A test fails in
 * Playwright only for a finding of its own cell; everything else travels in its outcome attachment,
 * from which the reporter builds the operation x check matrix.
 */
export async function runCheck(
  check: Check,
  op: Operation,
  fixtures: { api: Api; data: Discovery; kgate: Kgate },
  testInfo: TestInfo,
): Promise<void> {
  const { api, data, kgate } = fixtures;
  api.ownCheck = check.id;
  const strict = kgate.options.strict;
  const discoveredBefore = kgate.discoveryRequests();
  const own: Failure[] = [];
  const extra: Failure[] = [];
  const notes: string[] = kgate.options.network?.description
    ? [`requests went through this route: ${kgate.options.network.description}`]
    : [];
  let skipped: string | undefined;
  /** The test could not judge for want of an answer (its own, or its data's): a given-up operation's test is not run. */
  let unanswered = false;
  let carrier = false;
  let deferred = false;
  const fail = (
    title: string,
    detail: { received: string; documented: string; pointer?: string },
    response?: Parameters<CheckContext['fail']>[2],
  ): never => {
    throw new CheckFailure(failureOf(check.id, op.label, title, detail, response));
  };
  // Steps are reported at the check's own file (checks/<id>.ts), whichever helper took them.
  const playwrightSteps = Boolean(kgate.options.playwrightReporter || kgate.options.playwrightReport);
  const location = { file: join(CODE_ROOT, 'contracts', 'checks', `${check.id}${MODULE_EXT}`), line: 1, column: 1 };
  const ctx: CheckContext = {
    op,
    api,
    data,
    keys: { full: api.has('full'), unsubscribed: api.has('unsubscribed'), exhausted: api.has('exhausted') },
    unsubscribedGroups: kgate.options.unsubscribedGroups,
    timeoutMs: api.settings.timeoutMs,
    // Steps are shown only by Playwright's own reporters and reports, which a run has on request
    // (--playwright-reporter, --playwright-report): otherwise a step would be two messages to the
    // runner for nothing. With a location given, Playwright records the step without capturing and
    // source-mapping a call stack.
    step: playwrightSteps ? (title, body) => test.step(title, body, { location }) : (_title, body) => body(),
    skip(reason) {
      throw new SkipCheck(reason);
    },
    fail,
    expect(condition, title, detail, response) {
      if (!condition) fail(title, detail(), response);
    },
    warn(title, detail, response) {
      own.push({ ...failureOf(check.id, op.label, title, detail, response), level: strict ? 'fail' : 'warn' });
    },
    note(text) {
      notes.push(text);
    },
    carry() {
      carrier = true;
    },
    report(finding) {
      const level =
        finding.level ?? (severityOf(check, kgate.options.severity) === 'warn' && !strict ? 'warn' : 'fail');
      own.push({ ...finding, level, origin: finding.origin ?? 'check' });
    },
    generate: {
      cases: kgate.options.generate,
      seed: kgate.options.seed,
      checks: GENERATIVE_CHECK_IDS.filter(
        (id) =>
          (!kgate.options.checks || kgate.options.checks.includes(id)) && !kgate.options.excludeChecks?.includes(id),
      ),
      properties: CHECK_IDS.filter(
        (id) =>
          (!kgate.options.checks || kgate.options.checks.includes(id)) && !kgate.options.excludeChecks?.includes(id),
      ),
      ...(plansCoverage(kgate.options)
        ? {
            targets: targetsOf(kgate.options, op.operationId),
            refused: refusedItems(kgate.options),
            // A budgeted plan runs only the relations whose cells it holds: the others would cost requests it did not plan.
            relationsOff: CHECK_IDS.filter((id) => !relationPlanned(kgate.options, op.operationId, id)),
          }
        : {}),
      // A seed line sends its case again to this target; the embedded server is the one a bare line judges.
      ...(kgate.options.embedded || kgate.options.sweep || !api.settings.baseUrl
        ? {}
        : { target: api.settings.baseUrl }),
    },
    shared<T>(key: string, make: () => Promise<T>): Promise<T> {
      let value = kgate.shared.get(key) as Promise<T> | undefined;
      if (!value) {
        value = make();
        kgate.shared.set(key, value);
      }
      return value;
    },
  };
  try {
    if (check.tag === RATE_LIMIT_TAG && kgate.options.plan?.rateLimitLast) {
      // A burst would make other tests' answers 429: it waits for every other test of the operations
      // the rate-limit tests burst to end (the interface rate-limits only those).
      const waitMs = Math.max(10_000, testInfo.timeout - OTHERS_WAIT_MARGIN_MS);
      if (!(await afterOthers(scratchOf(kgate.options), waitMs)))
        notes.push(
          `${check.id} on ${op.label} started after waiting ${Math.round(waitMs / 1000)} s for the other tests, before all had ended`,
        );
    }
    // A budgeted plan leaves some cells out: their tests send nothing and the cell is not judged.
    const left = notPlanned(kgate.options, op.operationId, check.id);
    if (left) throw new SkipCheck(left);
    if (!(await judgedAlready(check, op, api, kgate))) await check.run!(ctx);
    else {
      deferred = true;
      // What the check reads is read for it by the generated requests that judged its cell.
      for (const id of check.reads?.(op) ?? []) api.reads.add(id);
    }
  } catch (error) {
    if (error instanceof CheckFailure) {
      const severity = severityOf(check, kgate.options.severity);
      own.push({ ...error.failure, level: severity === 'warn' && !strict ? 'warn' : 'fail', origin: 'check' });
    } else if (error instanceof DeadlineReached) {
      own.push(notRunDeadline(check.id, op.label));
    } else if (error instanceof SkipCheck) {
      skipped = error.message;
    } else if (error instanceof TargetBroken) {
      skipped = error.message;
      unanswered = true;
    } else if (error instanceof DataUnavailable) {
      skipped = `not judged, no test data: ${error.message}`;
      unanswered = true;
      extra.push(...error.findings);
    } else if (error instanceof ResponseUnusable) {
      skipped = `not judged: ${error.message}`;
      unanswered = true;
    } else if (error instanceof FrontServerRefused) {
      skipped = error.message;
    } else if (error instanceof Throttled) {
      skipped = error.message;
      unanswered = true;
    } else {
      own.push(harnessError(check.id, op.label, error));
    }
  }
  // A test that could not judge its own operation because kgate gave up on it (a hang, broken
  // answers, slowness) fails as not run: skipping it would let the target pass what it was not given.
  // A test skipped for another operation (one it reads) stays skipped with the reason.
  // A carrier's own check was not selected: it has no cell to fail.
  const givenUp = unanswered && !carrier ? api.givenUpOn(op) : undefined;
  // Throttled throughout, its own path or the one its data comes from: nothing could be judged, and that fails.
  const throttledOut =
    unanswered && !carrier && givenUp === undefined
      ? (api.throttledOutOn(op) ?? (skipped ? THROTTLED_DATA.exec(skipped)?.[1] : undefined))
      : undefined;
  if (givenUp !== undefined || throttledOut !== undefined) {
    const level = severityOf(check, kgate.options.severity) === 'warn' && !strict ? 'warn' : 'fail';
    own.push(
      givenUp !== undefined
        ? notRunGivenUp(check.id, op.label, givenUp, level)
        : notRunThrottled(check.id, op.label, throttledOut!, level),
    );
    skipped = undefined;
  }
  // A target may echo the key in a body (an error message naming it): redact before anything is reported.
  // Severity overrides weigh every finding, whoever found it (the fixture, discovery, a generated request).
  const found = [...api.findings, ...kgate.takeDiscoveryFindings(api.settings.baseUrl), ...extra, ...own].map(
    (finding) => applyOverride(finding, kgate.options.severity, strict),
  );
  const findings = JSON.parse(redactSecrets(JSON.stringify(found))) as Failure[];
  const requests = {
    test: api.requestCount,
    discovery: kgate.discoveryRequests() - discoveredBefore,
    data: [...api.dataUsed].sort(),
    ...(Object.keys(api.timings).length > 0
      ? {
          byOperation: Object.fromEntries(
            Object.entries(api.timings).map(([label, timing]) => [label, timing.requests]),
          ),
        }
      : {}),
    ...(Object.keys(api.retries).length > 0 ? { retries: api.retries } : {}),
    ...(hasFrontLimits(api.front) ? { front: api.front } : {}),
    ...(hasObservations(api.observed) ? { observed: api.observed } : {}),
  };
  const timings = mergeTimings(mergeTimings({}, api.timings), kgate.takeDiscoveryTimings());
  const outcome: TestOutcome = {
    findings,
    reads: [...api.reads].sort(),
    notes,
    skipped,
    ...(carrier ? { carrier } : {}),
    ...judgedOf(api, kgate),
    requests,
    timings,
    ...(api.judgedItems.size > 0 ? { items: [...api.judgedItems].sort() } : {}),
    ...(api.refusedItems.size > 0 ? { refused: [...api.refusedItems].sort() } : {}),
    ...(Object.keys(api.judgedBy).length > 0 ? { judgedBy: api.judgedBy } : {}),
    ...(deferred ? { deferred } : {}),
  };
  testInfo.annotations.push({ type: OUTCOME_ANNOTATION, description: JSON.stringify(outcome) });
  const ownFailures = findings.filter(
    (finding) =>
      finding.level !== 'warn' &&
      finding.operation === op.label &&
      (finding.check === check.id || (check.kind === 'fixture' && FIXTURE_CHECKS.has(finding.check))),
  );
  if (ownFailures.length > 0) {
    // Playwright replaces a worker after every unexpected failure (about 1.5 s each, and the new
    // worker discovers its test data again). A failed check is the expected outcome of judging a
    // broken target, not a broken test run, so it is marked as such: the test still fails with
    // the failure as its error, the worker is kept, and the reporter fails the run from the
    // matrix (FAILED_CHECK_ANNOTATION marks the test in Playwright's own reports).
    test.fail(true, FAILED_CHECK_ANNOTATION);
    const reported = new CheckFailure(ownFailures[0]!);
    reported.stack = ownFailures.map(formatFailure).join('\n\n');
    throw reported;
  }
  if (skipped !== undefined && ownFailures.length === 0) test.skip(true, skipped);
}

/**
 * Whether the operation's generated requests, sent earlier in this worker, already judged the
 * cell of a deferred check (run/plan.ts): its fixed test then sends nothing, and the cell is the
 * properties' verdict on those answers (their findings travel with the generative tests).
 */
async function judgedAlready(check: Check, op: Operation, api: Api, kgate: Kgate): Promise<boolean> {
  if (!DEFERRED_CHECKS.has(check.id) || !plansCoverage(kgate.options)) return false;
  const judged = kgate.shared.get(judgedKeyOf(api.settings)) as Promise<Set<string>> | undefined;
  return (await judged)?.has(`${check.id} ${op.label}`) === true;
}
/** A skip for want of test data, or of another operation's answer, that a path throttled throughout kept from coming: its cause. */
const THROTTLED_DATA =
  /^(?:not judged, no test data|not run: throttled): (the target throttled .*?)(?:; no generated|$)/;

/** Of a rate-limit test's time limit, what waiting for the other tests leaves it for its own burst. */
const OTHERS_WAIT_MARGIN_MS = 20_000;

/**
 * Resolves true once the reporter has written OTHERS_ENDED_FILE (every other test of the operations
 * the rate-limit tests burst has ended), false after `ms` without it (a run whose reporter is not kgate's).
 */
async function afterOthers(scratchDir: string, ms: number): Promise<boolean> {
  const file = join(scratchDir, OTHERS_ENDED_FILE);
  const until = Date.now() + ms;
  while (!existsSync(file)) {
    if (Date.now() >= until) return false;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return true;
}

/** A failure of kgate itself while running a check: reported on the check's cell, never counted as a catch. */
function harnessError(check: string, operation: string, error: unknown): Failure {
  const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return {
    check,
    operation,
    title: 'the check could not run to completion',
    received: excerpt(message.replace(/\u001b\[[0-9;]*m/g, ''), 400),
    documented: 'the check runs to completion (this is a defect of kgate, not of the target)',
    origin: 'error',
  };
}

/** The invariants that judged answers this test (or discovery for it) received, if any. */
function judgedOf(api: Api, kgate: Kgate): { judged?: string[] } {
  const judged = [...new Set([...api.judged, ...kgate.takeDiscoveryJudged(api.settings.baseUrl)])].sort();
  return judged.length > 0 ? { judged } : {};
}
