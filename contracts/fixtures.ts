import { test as base, type TestInfo } from '@playwright/test';
import { registerSecret } from '../cli/redact.ts';
import { readEnv } from '../config/env.ts';
import { Api, type ApiSettings, type Operation } from './api.ts';
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

/** What every worker shares: the run settings and the data discovered from the target. */
export interface Kgate {
  options: ConformOptions;
  settings: ApiSettings;
  data: Discovery;
}

/** Attachment name under which a test's failure object is stored for the reporters. */
export const FAILURE_ATTACHMENT = 'kgate-failure';
/** Annotation type of a warning (a `warn` check that failed without --strict). */
export const WARNING_ANNOTATION = 'kgate-warning';

/** The suite's test object: `api` validates every response against the spec; `kgate` holds the discovered data. */
export const test = base.extend<{ api: Api }, { kgateTarget: TargetOption; kgate: Kgate }>({
  kgateTarget: [{}, { option: true, scope: 'worker' }],
  kgate: [
    async ({ kgateTarget }, use) => {
      const env = readEnv();
      const options = readConformOptions();
      const baseUrl = kgateTarget.baseUrl ?? env.baseUrl;
      if (!baseUrl) throw new Error('no target: set KGATE_BASE_URL or let the global setup start the reference server');
      for (const key of [env.key, env.keyUnsubscribed, env.keyExhausted]) registerSecret(key);
      const settings: ApiSettings = {
        baseUrl,
        keys: { full: env.key, unsubscribed: env.keyUnsubscribed, exhausted: env.keyExhausted },
        timeoutMs: kgateTarget.timeoutMs ?? options.timeoutMs,
        maxBytes: options.maxBytes,
        disabledChecks: new Set(options.excludeChecks ?? []),
      };
      await use({ options, settings, data: new Discovery(new Api(settings)) });
      closeIdleSockets();
    },
    { scope: 'worker' },
  ],
  api: async ({ kgate }, use) => {
    await use(new Api(kgate.settings));
  },
});

/** Runs one check against one operation inside the current test, turning its failure into the reported object. */
export async function runCheck(check: Check, op: Operation, api: Api, kgate: Kgate, testInfo: TestInfo): Promise<void> {
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
    data: kgate.data,
    keys: { full: api.has('full'), unsubscribed: api.has('unsubscribed'), exhausted: api.has('exhausted') },
    unsubscribedGroups: kgate.options.unsubscribedGroups,
    timeoutMs: kgate.settings.timeoutMs,
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
    if (!(error instanceof CheckFailure)) throw error;
    const failure: Failure = error.failure.check ? error.failure : { ...error.failure, check: check.id };
    await testInfo.attach(FAILURE_ATTACHMENT, { body: JSON.stringify(failure), contentType: 'application/json' });
    if (getCheck(failure.check)?.severity === 'warn' && !kgate.options.strict) {
      testInfo.annotations.push({ type: WARNING_ANNOTATION, description: failure.check });
      return;
    }
    const reported = new CheckFailure(failure);
    reported.stack = reported.message;
    throw reported;
  }
}
