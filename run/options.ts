import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { type HarnessEnv, readEnv } from '../config/env.ts';
import { registerSecret } from '../config/redact.ts';
import { fullRound } from '../contracts/generative/cases.ts';
import { type AddedHeader, credentialSecrets, headerSecrets } from '../http/headers.ts';
import { OPERATION_IDS } from '../openapi/spec.ts';

/** One target of a fault sweep: a Playwright project of its own. */
export interface SweepTarget {
  /** Project name: the fault name, or `clean`. */
  name: string;
  baseUrl: string;
  /** The tests to run against it, as `<operation label> <check id>`; absent: every test. */
  tests?: string[];
  /** Per-request deadline for this target, in milliseconds. */
  timeoutMs?: number;
  /** Whether the `@rate-limit` tests run against it. */
  rateLimit?: boolean;
  /** False: the generative tests do not run against it (the fixed battery alone). */
  generate?: boolean;
}

/** A Playwright project as a run's plan carries it: its selection as regular expression sources. */
export interface PlannedProject {
  name: string;
  /** The folder of its test file, relative to the configuration; none: the configuration's (run/). */
  testDir?: string;
  testMatch: string;
  grep?: string[];
  grepInvert?: string[];
  teardown?: string;
}

/**
 * What Playwright runs, worked out before it starts (`playwrightPlan` in selection.ts) and handed to
 * its configuration, so that the configuration (which Playwright's runner and every worker load)
 * loads none of the suite's modules.
 */
export interface PlaywrightPlan {
  workers: number;
  /** Playwright's per-test time limit. */
  timeoutMs: number;
  projects: PlannedProject[];
  /** The rate-limit tests are in the run's own project, declared last, and wait for every other test to end. */
  rateLimitLast: boolean;
}

/** Non-secret settings of one conformance run; keys travel separately in KGATE_KEY*. */
export interface ConformOptions {
  /** Observed-only properties (warnings) fail the gate. */
  strict: boolean;
  /** Deadline of each request, in milliseconds. */
  timeoutMs: number;
  /** Largest response body read, in bytes. */
  maxBytes: number;
  /** Run the `@rate-limit` tests (bursts of traffic). */
  rateLimit: boolean;
  /** The target is the embedded reference server (its key roles are known exactly). */
  embedded: boolean;
  /** Groups the unsubscribed key is known not to be subscribed to. */
  unsubscribedGroups?: string[];
  /** Only these checks run (--checks). */
  checks?: string[];
  /** These checks do not run, and the fixture does not apply them (--exclude-checks). */
  excludeChecks?: string[];
  /** Folder this run's reports are written to (its own: concurrent runs never share one). */
  reportDir: string;
  /**
   * Folder of what the run needs only while it runs (the progress file, the signal the rate-limit
   * tests wait for, the test data its workers share, the pace, the breaker's files, Playwright's
   * output folder): under the OS temp folder, named for the run, removed when the run ends, so the
   * report folder holds reports only. Absent (an older caller): the report folder.
   */
  scratchDir?: string;
  /** Worker processes. */
  workers?: number;
  /**
   * The Playwright process prints nothing (kgate's CLI prints the progress and the summary, and so do
   * --json and the sweep); unset, as in a plain `npx playwright test`, the reporter prints kgate's
   * terminal summary at the end.
   */
  quiet: boolean;
  /** Also show one of Playwright's own terminal reporters (--playwright-reporter), for debugging the suite. */
  playwrightReporter?: PlaywrightReporter;
  /** Targets of a fault sweep; when set, one project per target replaces the single target. */
  sweep?: SweepTarget[];
  /** A JSON file holding `sweep` (a sweep's targets are too large for an environment variable). */
  sweepFile?: string;
  /** Per-check severity overrides of the configuration file (`off` ones are in excludeChecks). */
  severity?: Record<string, 'fail' | 'warn'>;
  /** At most this many requests per second, over every request of the run and all its workers. */
  maxRps?: number;
  /** At most this many requests per second to a path (the spec's, GET and POST alike), over the whole run. */
  maxRpsByPath?: Record<string, number>;
  /** Conformance baseline (absolute path): its known failures do not fail the gate. */
  baselineFile?: string;
  /** Rewrite baselineFile from this run's failures before judging. */
  updateBaseline?: boolean;
  /** Generated requests in the generative phase, over every operation (0: no generative phase). */
  generate: number;
  /**
   * `--generate N` given: a draw of N generated requests in rounds, as kgate sent them before it
   * planned coverage; otherwise the generative phase sends the plan (run/plan.ts).
   */
  draw?: boolean;
  /** The run's coverage plan (run/plan.ts, written by the CLI); absent: every item once. */
  planFile?: string;
  /** --ledger: the coverage ledger (run/ledger.ts) the reporter updates with what the run judged. */
  ledgerFile?: string;
  /** Seed of the generated requests. */
  seed: number;
  /** Also write Playwright's own HTML and JSON reports, for debugging, into PLAYWRIGHT_DEBUG_DIR. */
  playwrightReport?: boolean;
  /** Playwright's --grep of the run, as given (recorded in run.json: shards of one run share it). */
  grep?: string;
  /** This run's shard (--shard I/N): only the last shard runs the @rate-limit tests, so a merged run has them once. */
  shard?: { current: number; total: number };
  /** --max-duration: the whole run's time limit, in milliseconds. */
  maxDurationMs?: number;
  /** --max-requests: at most this many requests over the whole run (every process, retries and probes included). */
  maxRequests?: number;
  /** When the run must end (epoch ms, from maxDurationMs at the CLI's start): later tests are reported as not run. */
  deadlineAt?: number;
  /** latencyBudgetMs of the configuration file: per path of the spec, the longest an answer may take. */
  latencyBudgetMs?: Record<string, number>;
  /** envelope of the configuration file: bounds on what the run measures (a bound broken fails the run). */
  envelopeBounds?: { urlLimitMin?: number; p95MsMax?: Record<string, number>; p99MsMax?: Record<string, number> };
  /** The run's Playwright projects, workers and test time limit (set by runSuite). */
  plan?: PlaywrightPlan;
  /**
   * The run's TLS files and its route in words (no secret: the proxies travel to the workers in
   * their https_proxy / http_proxy / no_proxy variables, as the keys travel in KGATE_KEY*).
   */
  network?: { caFile?: string; clientCert?: string; clientKey?: string; description?: string };
}

/** Playwright's terminal reporters --playwright-reporter can show (their counts are tests, not the verdict). */
export const PLAYWRIGHT_REPORTERS = ['list', 'line', 'dot'] as const;
/** One of PLAYWRIGHT_REPORTERS. */
export type PlaywrightReporter = (typeof PLAYWRIGHT_REPORTERS)[number];

/** Subfolder of a run's reports where --playwright-report puts Playwright's own reports. */
export const PLAYWRIGHT_DEBUG_DIR = 'playwright-debug';

/** Generated requests in the gate unless --generate says otherwise: one round, every kind of case once on every operation. */
export const DEFAULT_GENERATE = fullRound(OPERATION_IDS);
/** Seed of the generated requests unless --seed says otherwise: the gate is the same on every run. */
export const DEFAULT_SEED = 1;

/** Deadline of one request unless --timeout says otherwise. */
export const DEFAULT_TIMEOUT_MS = 10_000;
/** Response bodies above this size are abandoned (a 100 MB body must not reach JSON.parse). */
export const DEFAULT_MAX_BYTES = 8 * 1024 * 1024;
/** Where `kgate conform` writes its reports: one folder per run below it, and a `latest` link. */
export const DEFAULT_REPORT_DIR = 'reports/conformance';

/** File in the run's scratch folder where the reporter keeps tests done, of total, and requests sent, for the CLI's progress line. */
export const PROGRESS_FILE = '.progress.json';

/**
 * File the reporter writes in the run's scratch folder once every test of the operations the rate-limit
 * tests burst, but those, has ended: what they wait for before they burst (see
 * PlaywrightPlan.rateLimitLast).
 */
export const OTHERS_ENDED_FILE = '.others-ended';

/** The reference server's academic-only key is not subscribed to these groups. */
export const REFERENCE_UNSUBSCRIBED_GROUPS = ['answerSearch', 'urlPreview', 'eventKnowledge'];

/** Reads the run settings from KGATE_CONFORM_OPTIONS; a run without them (plain `npx playwright test`) gets defaults. */
export function readConformOptions(
  raw = readEnv().conformOptions,
  hasBaseUrl = Boolean(readEnv().baseUrl),
): ConformOptions {
  const given = raw ? (JSON.parse(raw) as Partial<ConformOptions>) : {};
  const embedded = given.embedded ?? !hasBaseUrl;
  return {
    strict: given.strict ?? false,
    timeoutMs: given.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    maxBytes: given.maxBytes ?? DEFAULT_MAX_BYTES,
    rateLimit: given.rateLimit ?? embedded,
    embedded,
    unsubscribedGroups: given.unsubscribedGroups ?? (embedded ? REFERENCE_UNSUBSCRIBED_GROUPS : undefined),
    checks: given.checks,
    excludeChecks: given.excludeChecks,
    reportDir: given.reportDir ?? DEFAULT_REPORT_DIR,
    scratchDir: given.scratchDir,
    workers: given.workers,
    quiet: given.quiet ?? false,
    sweep:
      given.sweep ??
      (given.sweepFile ? (JSON.parse(readFileSync(given.sweepFile, 'utf8')) as SweepTarget[]) : undefined),
    sweepFile: given.sweepFile,
    severity: given.severity,
    maxRps: given.maxRps,
    maxRpsByPath: given.maxRpsByPath,
    baselineFile: given.baselineFile,
    updateBaseline: given.updateBaseline,
    generate: given.generate ?? DEFAULT_GENERATE,
    draw: given.draw,
    planFile: given.planFile,
    ledgerFile: given.ledgerFile,
    seed: given.seed ?? DEFAULT_SEED,
    playwrightReport: given.playwrightReport,
    playwrightReporter: given.playwrightReporter,
    grep: given.grep,
    shard: given.shard,
    maxDurationMs: given.maxDurationMs,
    maxRequests: given.maxRequests,
    deadlineAt: given.deadlineAt,
    latencyBudgetMs: given.latencyBudgetMs,
    envelopeBounds: given.envelopeBounds,
    plan: given.plan,
    network: given.network,
  };
}

/**
 * The headers every request of the run carries (KGATE_REQUEST_HEADERS, set by `kgate conform`),
 * with their secret values and the credentials of the base URL registered for masking; none for a
 * run without them (a plain `npx playwright test`).
 */
export function runHeaders(env: HarnessEnv = readEnv()): AddedHeader[] {
  const headers = env.requestHeaders ? (JSON.parse(env.requestHeaders) as AddedHeader[]) : [];
  for (const header of headers) for (const secret of headerSecrets(header)) registerSecret(secret);
  try {
    if (env.baseUrl) for (const secret of credentialSecrets(new URL(env.baseUrl))) registerSecret(secret);
  } catch {
    // Not a URL: the run fails on it elsewhere, loudly.
  }
  return headers;
}

/** The folder of a run's scratch (ConformOptions.scratchDir): its own, else the report folder. */
export function scratchOf(options: Pick<ConformOptions, 'scratchDir' | 'reportDir'>): string {
  return options.scratchDir ?? options.reportDir;
}

/** A new scratch folder for the run whose reports go to `reportDir`: under the OS temp folder, named for the run. */
export function newScratchDir(reportDir: string): string {
  return mkdtempSync(join(tmpdir(), `kgate-run-${basename(resolve(reportDir))}-`));
}
