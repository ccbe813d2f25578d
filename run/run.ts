import { spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { compileCacheFolder } from '../config/compile-cache.cjs';
import { readEnv, WORKER_EXTRA_CA_VARIABLE } from '../config/env.ts';
import { CODE_ROOT, MODULE_EXT, type ModuleExt } from '../config/runtime.ts';
import type { Keys } from '../contracts/api.ts';
import type { AddedHeader } from '../http/headers.ts';
import { RUN_REPORT_FILES } from '../reporting/run-reports.ts';
import { type RunSummary, SUMMARY_FILES, type TestRecord } from '../reporting/summary.ts';
import { type ConformOptions, newScratchDir } from './options.ts';
import { playwrightPlan } from './selection.ts';

const PLAYWRIGHT_CLI = createRequire(import.meta.url).resolve('@playwright/test/cli');

/**
 * The code Playwright's processes run: the running code's own (the package's dist/, a clone's
 * build), or, when the caller runs from a clone's TypeScript sources (the project's tests, the
 * fault sweep), the clone's build of them (scripts/runtime-build.mjs), as `kgate` itself runs;
 * the sources themselves under KGATE_FROM_SOURCES=1.
 */
async function suiteCode(): Promise<{ root: string; ext: ModuleExt }> {
  if (MODULE_EXT === '.js' || readEnv().fromSources) return { root: CODE_ROOT, ext: MODULE_EXT };
  const { cloneBuild } = await import('../scripts/runtime-build.mjs');
  return { root: await cloneBuild(), ext: '.js' };
}

/** One Playwright run of the suite. */
export interface SuiteRun {
  /** The target; unset only in a sweep, where each project carries its own. */
  baseUrl?: string;
  keys: Keys;
  options: ConformOptions;
  /** Extra Playwright arguments (--grep, --shard). */
  playwrightArgs?: string[];
  /** The forward proxies of the run's route (secret: they may hold credentials) and what bypasses them; none: direct. */
  proxies?: { https?: string; http?: string; noProxy: string[] };
  /** The headers of every request (the User-Agent, the user's; secret: they may hold credentials); none: none added. */
  headers?: AddedHeader[];
  /** Called once Playwright's runner is started: the embedded server builds its corpora while it loads. */
  onSpawn?: () => void;
  /** Aborted when the run must stop (a signal): Playwright's runner and every worker are stopped. */
  signal?: AbortSignal;
}

/** The variables a worker reads its proxies from (config/env.ts): only the run's own reach it. */
const PROXY_VARIABLES = [
  'https_proxy',
  'HTTPS_PROXY',
  'http_proxy',
  'HTTP_PROXY',
  'all_proxy',
  'ALL_PROXY',
  'no_proxy',
  'NO_PROXY',
];

/** What a run produced: Playwright's exit code and the reporter's summary (absent if Playwright failed to start). */
export interface SuiteResult {
  playwrightExitCode: number;
  summary?: RunSummary;
  /** Every test's record, as the reporter wrote them (absent if Playwright failed to start). */
  records?: TestRecord[];
  /** Playwright's own output when the run was quiet and no summary was written, for diagnosis. */
  output: string;
}

/**
 * Whether a run's workers may open TLS: its target or a proxy is https, or the targets are its
 * projects' own (a sweep).
 */
function mayUseTls(run: SuiteRun): boolean {
  if (run.baseUrl === undefined) return true;
  return [run.baseUrl, run.proxies?.https, run.proxies?.http].some((url) => url?.startsWith('https:'));
}

/**
 * What every Playwright process kgate starts runs with, whatever the run: no CA bundle (the global
 * setup hands it to the workers that need it), Playwright's HTML report server never opened,
 * compiled code imported without Playwright's transpiling loader, and the compile cache's folder
 * (config/compile-cache.cjs: the runner and its workers keep their compiled code there).
 */
function playwrightEnv(ext: ModuleExt, compileCache: string | undefined, from: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...from };
  delete env.NODE_EXTRA_CA_CERTS;
  // Playwright's own HTML report server would wait for a person; never open it.
  env.PW_TEST_HTML_REPORT_OPEN = 'never';
  // Compiled code (the package's dist/, a clone's build) is plain JavaScript: Playwright's processes
  // import it as Node does, without the loader thread Playwright's transpiling loader runs.
  if (ext === '.js') env.PW_DISABLE_TS_ESM = '1';
  if (compileCache) env.KGATE_COMPILE_CACHE = compileCache;
  else delete env.KGATE_COMPILE_CACHE;
  return env;
}

/** Node's arguments for Playwright's runner on `code`, before the runner's own. */
function playwrightNodeArgs(code: { root: string }, compileCache: string | undefined, profileDir?: string): string[] {
  return [
    ...(compileCache ? ['--require', join(code.root, 'config', 'compile-cache-preload.cjs')] : []),
    ...(profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : []),
    PLAYWRIGHT_CLI,
  ];
}

/**
 * Playwright's runner started as runSuite starts it (the same code, Node arguments, compile cache and
 * environment), on a configuration of the caller's: the bench runs Playwright alone this way, the
 * floor under what a run of the suite costs.
 */
export async function playwrightCommand(
  configFile: string,
): Promise<{ args: string[]; env: NodeJS.ProcessEnv; cwd: string }> {
  const code = await suiteCode();
  const compileCache = compileCacheFolder();
  return {
    args: [...playwrightNodeArgs(code, compileCache), 'test', '--config', configFile],
    env: playwrightEnv(code.ext, compileCache, process.env),
    cwd: code.root,
  };
}

/**
 * The environment of a run's Playwright runner (and, through it, its workers): this process's,
 * with the run's options, target, keys, proxies and compile cache folder, for code of extension
 * `ext`, and none of the proxies or extra CA certificates it does not need.
 */
export function suiteEnv(
  run: SuiteRun,
  reportDir: string,
  ext: ModuleExt,
  compileCache: string | undefined,
  from: NodeJS.ProcessEnv = process.env,
): NodeJS.ProcessEnv {
  // The bundle NODE_EXTRA_CA_CERTS names: Node reads and parses it as any process starts (about 70 ms
  // of CPU for a system's bundle on the 2-core machine), whether or not it ever opens TLS. The
  // runner never does, and the workers only towards an https target or proxy: the runner starts
  // without it (playwrightEnv), and its global setup hands it to the workers that may need it.
  const extraCa = from.NODE_EXTRA_CA_CERTS;
  const env = playwrightEnv(ext, compileCache, {
    ...from,
    KGATE_CONFORM_OPTIONS: JSON.stringify({
      ...run.options,
      reportDir,
      plan: run.options.plan ?? playwrightPlan(run.options, ext),
    }),
    KGATE_BASE_URL: run.baseUrl ?? '',
    KGATE_KEY: run.keys.full ?? '',
    KGATE_KEY_UNSUBSCRIBED: run.keys.unsubscribed ?? '',
    KGATE_KEY_EXHAUSTED: run.keys.exhausted ?? '',
    KGATE_REQUEST_HEADERS: run.headers ? JSON.stringify(run.headers) : '',
    FORCE_COLOR: run.options.playwrightReporter && process.stderr.isTTY ? '1' : '0',
  });
  for (const name of PROXY_VARIABLES) delete env[name];
  if (run.proxies?.https) env.https_proxy = run.proxies.https;
  if (run.proxies?.http) env.http_proxy = run.proxies.http;
  if (run.proxies && run.proxies.noProxy.length > 0) env.no_proxy = run.proxies.noProxy.join(',');
  delete env[WORKER_EXTRA_CA_VARIABLE];
  if (extraCa && mayUseTls(run)) env[WORKER_EXTRA_CA_VARIABLE] = extraCa;
  return env;
}

/** How long after the run's deadline a Playwright run that has not ended is stopped. */
export const STOP_GRACE_MS = 60_000;

/** Runs the Playwright suite in a child process with the target, keys and options in its environment. */
export async function runSuite(run: SuiteRun): Promise<SuiteResult> {
  // Reports land where the user runs kgate, never inside the installed package.
  const reportDir = resolve(run.options.reportDir);
  const code = await suiteCode();
  // Reports an earlier run left in the folder must not answer for this one.
  for (const file of Object.values(RUN_REPORT_FILES)) rmSync(join(reportDir, file), { force: true });
  // What the run needs only while it runs lives outside its report folder, and goes when it ends,
  // however it ends (a failure, the deadline's stop).
  const scratchDir = run.options.scratchDir ?? newScratchDir(reportDir);
  try {
    return await runIn({ ...run, options: { ...run.options, scratchDir } }, reportDir, code);
  } finally {
    rmSync(scratchDir, { recursive: true, force: true });
  }
}

/** runSuite in the run's folders: Playwright's runner started, awaited, and its reports read. */
async function runIn(run: SuiteRun, reportDir: string, code: { root: string; ext: ModuleExt }): Promise<SuiteResult> {
  const compileCache = compileCacheFolder();
  const env = suiteEnv(run, reportDir, code.ext, compileCache);
  // Workers are forked with the runner's own Node arguments, so they write profiles and keep
  // compiled code too.
  const profileDir = readEnv().cpuProfDir;
  const args = [
    ...playwrightNodeArgs(code, compileCache, profileDir),
    'test',
    '--config',
    join(code.root, `playwright.config${code.ext}`),
    ...(run.playwrightArgs ?? []),
  ];
  // Playwright's output is kept for diagnosis, not shown: kgate prints the progress and the verdict.
  // Only --playwright-reporter shows it, on stderr (stdout keeps kgate's summary, or its JSON).
  // The runner leads a process group of its own, its workers in it: one signal to the group stops
  // them all (a stop of kgate's, the run's deadline), and a Ctrl-C at the terminal reaches kgate
  // alone, which stops the group itself.
  const child = spawn(process.execPath, args, {
    cwd: code.root,
    env,
    detached: process.platform !== 'win32',
    stdio:
      run.options.quiet || run.options.playwrightReporter
        ? ['ignore', 'pipe', 'pipe']
        : ['ignore', 'inherit', 'inherit'],
  });
  run.onSpawn?.();
  const stopGroup = (signal: NodeJS.Signals) => {
    try {
      if (child.pid !== undefined && process.platform !== 'win32') process.kill(-child.pid, signal);
      else child.kill(signal);
    } catch {
      // The group is gone already.
    }
  };
  let killer: NodeJS.Timeout | undefined;
  const stop = () => {
    stopGroup('SIGTERM');
    // A worker that does not end on SIGTERM within two seconds is killed.
    killer = setTimeout(() => stopGroup('SIGKILL'), 2_000);
  };
  if (run.signal?.aborted) stop();
  run.signal?.addEventListener('abort', stop, { once: true });
  let output = '';
  const keep = (chunk: Buffer) => {
    if (run.options.playwrightReporter) process.stderr.write(chunk);
    if (output.length < 20_000) output += chunk.toString('utf8');
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  // The workers stop sending at the run's deadline and the reporter writes the reports; should
  // Playwright itself not end within a minute of it, it is stopped, so no run outlives its limit by more.
  const stopAt = run.options.deadlineAt === undefined ? undefined : run.options.deadlineAt + STOP_GRACE_MS - Date.now();
  const stopper = stopAt === undefined ? undefined : setTimeout(() => stopGroup('SIGKILL'), Math.max(stopAt, 0));
  const playwrightExitCode = await new Promise<number>((resolve) => {
    child.on('close', (code) => resolve(code ?? 1));
    child.on('error', () => resolve(1));
  });
  // Stopped, the runner can end before its workers: the run ends when the last of its group has (the
  // killer above still armed), so that nothing of it writes into the run's folders afterwards.
  if (run.signal?.aborted && child.pid !== undefined) await groupGone(child.pid, 3_000);
  clearTimeout(stopper);
  clearTimeout(killer);
  run.signal?.removeEventListener('abort', stop);
  const read = <T>(name: string): T | undefined => {
    const path = join(reportDir, name);
    return existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as T) : undefined;
  };
  return {
    playwrightExitCode,
    summary: read<RunSummary>(SUMMARY_FILES.json),
    records: read<TestRecord[]>(SUMMARY_FILES.tests),
    output,
  };
}

/** Resolves once no process of the group `pgid` is left, or after `withinMs` (polled every 50 ms). */
async function groupGone(pgid: number, withinMs: number): Promise<void> {
  if (process.platform === 'win32') return;
  const until = Date.now() + withinMs;
  while (Date.now() < until) {
    try {
      process.kill(-pgid, 0);
    } catch {
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
