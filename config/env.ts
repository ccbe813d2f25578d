/**
 * The one place kgate reads its environment variables; but for KGATE_COMPILE_CACHE and
 * XDG_CACHE_HOME, which config/compile-cache.cjs reads before any TypeScript loads (where compiled
 * code is kept between runs).
 */
export interface HarnessEnv {
  /** KGATE_BASE_URL: the target; unset means the embedded reference server. */
  baseUrl?: string;
  /** KGATE_KEY: a subscription key subscribed to every API. */
  key?: string;
  /** KGATE_AGAINST_KEY: kgate compare's key of the current deployment (default: KGATE_KEY). */
  againstKey?: string;
  /** KGATE_KEY_UNSUBSCRIBED: a valid key without a subscription to some API. */
  keyUnsubscribed?: string;
  /** KGATE_KEY_EXHAUSTED: a key whose call volume quota is used up. */
  keyExhausted?: string;
  /** KGATE_KEY_UNSUBSCRIBED_COVERS: the APIs the unsubscribed key is subscribed to (comma-separated, or none). */
  keyUnsubscribedCovers?: string;
  /** GITHUB_STEP_SUMMARY: a file the conformance summary is appended to. */
  githubStepSummary?: string;
  /** CI: set by CI systems; progress lines are plainer there. */
  ci: boolean;
  /** DISPLAY or WAYLAND_DISPLAY: a graphical session a browser can open in (Linux and other X11/Wayland systems). */
  display: boolean;
  /** KGATE_CONFORM_OPTIONS: non-secret conformance run settings (JSON) that `kgate conform` hands to Playwright. */
  conformOptions?: string;
  /** KGATE_K6: the k6 binary the project's tests run the bundled scripts with (default ../shared/tools/k6, then PATH). */
  k6Binary?: string;
  /** KGATE_REQUIRE_K6: set in a CI that has k6, so that a missing binary fails the k6 tests instead of skipping them. */
  requireK6: boolean;
  /** KGATE_SWEEP_FAULTS: the fault sweep test judges only these faults (comma-separated names; the clean run is whole). */
  sweepFaults?: string[];
  /** KGATE_CPU_PROF_DIR: Playwright's runner and workers of a conform run write V8 CPU profiles there (scripts/cpu-profile.ts). */
  cpuProfDir?: string;
  /**
   * KGATE_FROM_SOURCES=1: a clone runs its TypeScript sources through tsx, not a build of them
   * (bin/kgate.mjs, run/run.ts); stack traces then name the sources.
   */
  fromSources: boolean;
  /**
   * KGATE_REQUEST_HEADERS: set by `kgate conform` for its Playwright processes: the headers every
   * request carries, resolved (JSON; secret: it may hold credentials, as KGATE_KEY does).
   */
  requestHeaders?: string;
  /** KGATE_RUN_ID: set by the suite's global setup for its workers, naming the run's shared test data (run/discovery-share.ts). */
  runId?: string;
  /**
   * The forward proxies, as curl reads them: https_proxy / HTTPS_PROXY for https targets,
   * http_proxy / HTTP_PROXY for http targets, all_proxy / ALL_PROXY for both (the lower-case
   * variable wins when both are set), each with the name it came from; no_proxy / NO_PROXY lists
   * the hosts that bypass them.
   */
  proxies: {
    https?: { url: string; source: string };
    http?: { url: string; source: string };
    all?: { url: string; source: string };
    noProxy?: string;
  };
}

/** The first of the named variables that is set and not blank, with its name. */
function firstSet(env: NodeJS.ProcessEnv, names: string[]): { url: string; source: string } | undefined {
  for (const name of names) {
    const value = env[name];
    if (value && value.trim() !== '') return { url: value.trim(), source: name };
  }
  return undefined;
}

/**
 * The NODE_EXTRA_CA_CERTS of a `kgate conform` run, for the workers only (run/run.ts): the
 * global setup hands it on to them as NODE_EXTRA_CA_CERTS.
 */
export const WORKER_EXTRA_CA_VARIABLE = 'KGATE_WORKER_EXTRA_CA_CERTS';

/** Reads the harness settings from the given environment (process.env by default). */
export function readEnv(env: NodeJS.ProcessEnv = process.env): HarnessEnv {
  const nonEmpty = (value: string | undefined) => (value && value.trim() !== '' ? value : undefined);
  return {
    baseUrl: nonEmpty(env.KGATE_BASE_URL),
    key: nonEmpty(env.KGATE_KEY),
    againstKey: nonEmpty(env.KGATE_AGAINST_KEY),
    keyUnsubscribed: nonEmpty(env.KGATE_KEY_UNSUBSCRIBED),
    keyExhausted: nonEmpty(env.KGATE_KEY_EXHAUSTED),
    keyUnsubscribedCovers: nonEmpty(env.KGATE_KEY_UNSUBSCRIBED_COVERS),
    githubStepSummary: nonEmpty(env.GITHUB_STEP_SUMMARY),
    ci: Boolean(nonEmpty(env.CI)),
    display: Boolean(nonEmpty(env.DISPLAY) ?? nonEmpty(env.WAYLAND_DISPLAY)),
    conformOptions: nonEmpty(env.KGATE_CONFORM_OPTIONS),
    k6Binary: nonEmpty(env.KGATE_K6),
    requireK6: Boolean(nonEmpty(env.KGATE_REQUIRE_K6)),
    sweepFaults: nonEmpty(env.KGATE_SWEEP_FAULTS)
      ?.split(',')
      .map((name) => name.trim())
      .filter(Boolean),
    cpuProfDir: nonEmpty(env.KGATE_CPU_PROF_DIR),
    fromSources: env.KGATE_FROM_SOURCES === '1',
    runId: nonEmpty(env.KGATE_RUN_ID),
    requestHeaders: nonEmpty(env.KGATE_REQUEST_HEADERS),
    proxies: {
      https: firstSet(env, ['https_proxy', 'HTTPS_PROXY']),
      http: firstSet(env, ['http_proxy', 'HTTP_PROXY']),
      all: firstSet(env, ['all_proxy', 'ALL_PROXY']),
      noProxy: firstSet(env, ['no_proxy', 'NO_PROXY'])?.url,
    },
  };
}

/** The default environment variable of each key role (a configuration file's keyVariables may name others). */
export const KEY_VARIABLES = {
  full: 'KGATE_KEY',
  unsubscribed: 'KGATE_KEY_UNSUBSCRIBED',
  exhausted: 'KGATE_KEY_EXHAUSTED',
} as const;

/**
 * The keys of a run: KGATE_KEY* when set, else the variables a configuration file names (the
 * environment's own kgate variables win over the file). Also says which named variables were empty.
 */
export function readKeys(
  names: Partial<Record<keyof typeof KEY_VARIABLES, string>> = {},
  env: NodeJS.ProcessEnv = process.env,
): { keys: Partial<Record<keyof typeof KEY_VARIABLES, string>>; unset: string[] } {
  const keys: Partial<Record<keyof typeof KEY_VARIABLES, string>> = {};
  const unset: string[] = [];
  for (const role of Object.keys(KEY_VARIABLES) as (keyof typeof KEY_VARIABLES)[]) {
    const named = names[role];
    const value = [env[KEY_VARIABLES[role]], named ? env[named] : undefined].find((v) => v && v.trim() !== '');
    if (value) keys[role] = value;
    else if (named) unset.push(named);
  }
  return { keys, unset };
}

/**
 * The keys of `kgate compare`: the candidate's from KGATE_KEY, else the variable `keyVariables.full`
 * names; the current deployment's from KGATE_AGAINST_KEY, else the variable `keyVariables.against`
 * names, else the candidate's. Also says which named variables were empty.
 */
export function readCompareKeys(
  names: { full?: string; against?: string } = {},
  env: NodeJS.ProcessEnv = process.env,
): { candidate?: string; current?: string; unset: string[] } {
  const pick = (own: string, named: string | undefined) =>
    [env[own], named ? env[named] : undefined].find((value) => value && value.trim() !== '');
  const candidate = pick(KEY_VARIABLES.full, names.full);
  const against = pick('KGATE_AGAINST_KEY', names.against);
  const unset = [
    ...(candidate === undefined && names.full ? [names.full] : []),
    ...(against === undefined && names.against ? [names.against] : []),
  ];
  return { candidate, current: against ?? candidate, unset };
}
