import { spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { connect } from 'node:net';
import { join, resolve } from 'node:path';
import { CODE_ROOT, MODULE_EXT } from '../config/runtime.ts';
import { sendHttp, TransportError } from '../http/client.ts';
import type { Keys } from './api.ts';
import type { ConformOptions } from './options.ts';
import type { RequestPace } from './pacing.ts';
import { RUN_REPORT_FILES } from './run-reports.ts';
import { type RunSummary, SUMMARY_FILES, type TestRecord } from './summary.ts';

const PLAYWRIGHT_CLI = createRequire(import.meta.url).resolve('@playwright/test/cli');

/** One Playwright run of the suite. */
export interface SuiteRun {
  /** The target; unset only in a sweep, where each project carries its own. */
  baseUrl?: string;
  keys: Keys;
  options: ConformOptions;
  /** Extra Playwright arguments (--grep, --shard). */
  playwrightArgs?: string[];
}

/** What a run produced: Playwright's exit code and the reporter's summary (absent if Playwright failed to start). */
export interface SuiteResult {
  playwrightExitCode: number;
  summary?: RunSummary;
  /** Every test's record, as the reporter wrote them (absent if Playwright failed to start). */
  records?: TestRecord[];
  /** Playwright's own output when the run was quiet and no summary was written, for diagnosis. */
  output: string;
}

/** How long after the run's deadline a Playwright run that has not ended is stopped. */
export const STOP_GRACE_MS = 60_000;

/** Runs the Playwright suite in a child process with the target, keys and options in its environment. */
export async function runSuite(run: SuiteRun): Promise<SuiteResult> {
  // Reports land where the user runs kgate, never inside the installed package.
  const reportDir = resolve(run.options.reportDir);
  // Reports an earlier run left in the folder must not answer for this one.
  for (const file of Object.values(RUN_REPORT_FILES)) rmSync(join(reportDir, file), { force: true });
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    KGATE_CONFORM_OPTIONS: JSON.stringify({ ...run.options, reportDir }),
    KGATE_BASE_URL: run.baseUrl ?? '',
    KGATE_KEY: run.keys.full ?? '',
    KGATE_KEY_UNSUBSCRIBED: run.keys.unsubscribed ?? '',
    KGATE_KEY_EXHAUSTED: run.keys.exhausted ?? '',
    FORCE_COLOR: process.stdout.isTTY && !run.options.quiet ? '1' : '0',
  };
  // Playwright's own HTML report server would wait for a person; never open it.
  env.PW_TEST_HTML_REPORT_OPEN = 'never';
  const args = [
    PLAYWRIGHT_CLI,
    'test',
    '--config',
    join(CODE_ROOT, `playwright.config${MODULE_EXT}`),
    ...(run.playwrightArgs ?? []),
  ];
  const child = spawn(process.execPath, args, {
    cwd: CODE_ROOT,
    env,
    stdio: run.options.quiet ? ['ignore', 'pipe', 'pipe'] : ['ignore', 'inherit', 'inherit'],
  });
  let output = '';
  const keep = (chunk: Buffer) => {
    if (output.length < 20_000) output += chunk.toString('utf8');
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  // The workers stop sending at the run's deadline and the reporter writes the reports; should
  // Playwright itself not end within a minute of it, it is stopped, so no run outlives its limit by more.
  const stopAt = run.options.deadlineAt === undefined ? undefined : run.options.deadlineAt + STOP_GRACE_MS - Date.now();
  const stopper = stopAt === undefined ? undefined : setTimeout(() => child.kill('SIGKILL'), Math.max(stopAt, 0));
  const playwrightExitCode = await new Promise<number>((resolve) => {
    child.on('close', (code) => resolve(code ?? 1));
    child.on('error', () => resolve(1));
  });
  clearTimeout(stopper);
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

/** Resolves when a TCP connection to the URL's host and port opens; rejects with the reason otherwise. */
export function checkReachable(baseUrl: string, timeoutMs = 5_000): Promise<void> {
  const url = new URL(baseUrl);
  const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
  return new Promise((resolve, reject) => {
    const socket = connect({ host: url.hostname, port });
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no TCP connection to ${url.hostname}:${port} within ${timeoutMs} ms`));
    }, timeoutMs);
    socket.once('connect', () => {
      clearTimeout(timer);
      socket.end();
      resolve();
    });
    socket.once('error', (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      reject(new Error(`${error.code ?? 'error'} connecting to ${url.hostname}:${port}`));
    });
  });
}

/** One cheap request per API, for the key preflight. */
const PREFLIGHT_PATHS = [
  `/academic/v1.0/evaluate?expr=${encodeURIComponent('Y>1900')}&count=1`,
  '/answersearch/v7.0/search?q=kgate&mkt=en-US&count=1',
  `/urlpreview/v7.0/search?q=${encodeURIComponent('https://www.example.com/')}`,
  `/eventknowledge/v1.0/hotevents?date=${new Date().toISOString().slice(0, 10)}&$top=1`,
];

/**
 * Asks each API one cheap question with the key. Resolves to a reason when every answer is 401:
 * the key is refused everywhere, so a run would only report that, once per check; a usage problem
 * to fix before the gate can say anything. Anything else (an answer, no answer within 2 s)
 * resolves undefined and the suite judges it.
 */
export async function keyRefusedEverywhere(
  baseUrl: string,
  key: string,
  pace?: RequestPace,
): Promise<string | undefined> {
  const statuses = await Promise.all(
    PREFLIGHT_PATHS.map(async (path) => {
      const paced = path.split('?')[0]!;
      await pace?.wait(paced);
      try {
        const response = await sendHttp({
          method: 'GET',
          url: `${baseUrl}${path}`,
          headers: { 'Ocp-Apim-Subscription-Key': key },
          // Short: a target that does not answer here is judged (quickly) by the suite itself.
          timeoutMs: 2_000,
          onSent: pace && (() => pace.sent(paced)),
          beforeRetry: pace && (() => pace.wait(paced)),
          maxBytes: 1024 * 1024,
        });
        return response.status;
      } catch (error) {
        if (error instanceof TransportError) return undefined;
        throw error;
      }
    }),
  );
  return statuses.every((status) => status === 401)
    ? `every API answered 401 to the key (${PREFLIGHT_PATHS.length} requests)`
    : undefined;
}
