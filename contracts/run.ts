import { spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { connect } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Keys } from './api.ts';
import type { ConformOptions } from './options.ts';
import { type RunSummary, SUMMARY_FILES } from './summary.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
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
  /** Playwright's own output when the run was quiet and no summary was written, for diagnosis. */
  output: string;
}

/** Runs the Playwright suite in a child process with the target, keys and options in its environment. */
export async function runSuite(run: SuiteRun): Promise<SuiteResult> {
  const reportDir = join(ROOT, run.options.reportDir);
  rmSync(join(reportDir, SUMMARY_FILES.json), { force: true });
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
  const args = [PLAYWRIGHT_CLI, 'test', '--config', join(ROOT, 'playwright.config.ts'), ...(run.playwrightArgs ?? [])];
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env,
    stdio: run.options.quiet ? ['ignore', 'pipe', 'pipe'] : ['ignore', 'inherit', 'inherit'],
  });
  let output = '';
  const keep = (chunk: Buffer) => {
    if (output.length < 20_000) output += chunk.toString('utf8');
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const playwrightExitCode = await new Promise<number>((resolve) => {
    child.on('close', (code) => resolve(code ?? 1));
    child.on('error', () => resolve(1));
  });
  const summaryPath = join(reportDir, SUMMARY_FILES.json);
  const summary = existsSync(summaryPath) ? (JSON.parse(readFileSync(summaryPath, 'utf8')) as RunSummary) : undefined;
  return { playwrightExitCode, summary, output };
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
