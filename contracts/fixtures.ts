import { test as base, type TestInfo } from '@playwright/test';
import { readEnv } from '../config/env.ts';
import { redactSecrets, registerSecret } from '../config/redact.ts';
import { Api, type ApiSettings, type Operation, TargetBroken } from './api.ts';
import { getCheck } from './checks/index.ts';
import { type Check, type CheckContext, failureOf } from './checks/registry.ts';
import { Discovery } from './discovery.ts';
import { CheckFailure, type Failure } from './failure.ts';
import { closeIdleSockets } from './http.ts';
import { type ConformOptions, readConformOptions } from './options.ts';

/** Per-project target settings (a fault sweep runs one project per fault). */
export interface TargetOption {
  /** Base URL; unset means KGATE_BASE_URL (set by the global setup for the embedded server). */
  baseUrl?: string;
  /** Per-request deadline for this project, in milliseconds. */
  timeoutMs?: number;
}

/** What every worker shares: the run settings, and the data discovered from each target it meets. */
export interface Kgate {
  options: ConformOptions;
  /** Request settings of the run's own target (the sweep overrides baseUrl and timeoutMs per test). */
  settings: Omit<ApiSettings, 'baseUrl'> & { baseUrl?: string };
  /** The discovery of a target, shared by every test of this worker that meets it. */
  discovery(settings: ApiSettings): Discovery;
}

/** Attachment name under which a test's failure object is stored for the reporters. */
export const FAILURE_ATTACHMENT = 'kgate-failure';
/** Annotation type of a warning (a `warn` check that failed without --strict). */
export const WARNING_ANNOTATION = 'kgate-warning';
/** Annotation type of a failure recorded without failing the Playwright test (fault sweeps: keeps workers alive). */
export const RECORDED_FAILURE_ANNOTATION = 'kgate-failed';

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
      const discoveries = new Map<string, Discovery>();
      await use({
        options,
        settings: {
          baseUrl: env.baseUrl?.replace(/\/+$/, ''),
          keys: { full: env.key, unsubscribed: env.keyUnsubscribed, exhausted: env.keyExhausted },
          timeoutMs: options.timeoutMs,
          maxBytes: options.maxBytes,
          disabledChecks: new Set(options.excludeChecks ?? []),
          breakerDir: options.reportDir,
        },
        discovery(settings) {
          const found = discoveries.get(settings.baseUrl) ?? new Discovery(new Api(settings));
          discoveries.set(settings.baseUrl, found);
          return found;
        },
      });
      closeIdleSockets();
    },
    { scope: 'worker' },
  ],
  api: async ({ kgate, kgateTarget }, use) => {
    const baseUrl = kgateTarget.baseUrl ?? kgate.settings.baseUrl;
    if (!baseUrl) throw new Error('no target: set KGATE_BASE_URL, or let the global setup start the reference server');
    await use(new Api({ ...kgate.settings, baseUrl, timeoutMs: kgateTarget.timeoutMs ?? kgate.settings.timeoutMs }));
  },
  data: async ({ kgate, api }, use) => {
    await use(kgate.discovery(api.settings));
  },
});

/** Runs one check against one operation inside the current test, turning its failure into the reported object. */
export async function runCheck(
  check: Check,
  op: Operation,
  fixtures: { api: Api; data: Discovery; kgate: Kgate },
  testInfo: TestInfo,
): Promise<void> {
  const { api, data, kgate } = fixtures;
  const fail = (
    title: string,
    detail: { received: string; documented: string; pointer?: string },
    response?: Parameters<CheckContext['fail']>[2],
  ): never => {
    throw new CheckFailure(failureOf(check.id, op.label, title, detail, response));
  };
  const ctx: CheckContext = {
    op,
    api,
    data,
    keys: { full: api.has('full'), unsubscribed: api.has('unsubscribed'), exhausted: api.has('exhausted') },
    unsubscribedGroups: kgate.options.unsubscribedGroups,
    timeoutMs: api.settings.timeoutMs,
    step: (title, body) => test.step(title, body),
    skip(reason) {
      test.skip(true, reason);
      throw new Error(reason);
    },
    fail,
    expect(condition, title, detail, response) {
      if (!condition) fail(title, detail(), response);
    },
  };
  try {
    await check.run!(ctx);
  } catch (error) {
    if (error instanceof TargetBroken) ctx.skip(error.message);
    if (!(error instanceof CheckFailure)) throw error;
    // A target may echo the key in a body (an error message naming it): redact before anything is reported.
    const failure = JSON.parse(
      redactSecrets(JSON.stringify(error.failure.check ? error.failure : { ...error.failure, check: check.id })),
    ) as Failure;
    await testInfo.attach(FAILURE_ATTACHMENT, { body: JSON.stringify(failure), contentType: 'application/json' });
    if (getCheck(failure.check)?.severity === 'warn' && !kgate.options.strict) {
      testInfo.annotations.push({ type: WARNING_ANNOTATION, description: failure.check });
      return;
    }
    if (kgate.options.sweep) {
      testInfo.annotations.push({ type: RECORDED_FAILURE_ANNOTATION, description: failure.check });
      return;
    }
    const reported = new CheckFailure(failure);
    reported.stack = reported.message;
    throw reported;
  }
}
