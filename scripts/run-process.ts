// Runs a command to its end and hands back its exit code and output, for tests that drive kgate
// (or k6, or a small script) as a user would: in a process of its own.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** This checkout's root. */
export const ROOT = fileURLToPath(new URL('..', import.meta.url));

export interface ProcessResult {
  /** The exit code; null when the process was killed (by `timeoutMs` among others). */
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface RunProcessOptions {
  cwd?: string;
  /** The whole environment of the process (default: this process's). */
  env?: NodeJS.ProcessEnv;
  /** Killed after this long, so that a hung process fails its test instead of holding the run (default 120 s). */
  timeoutMs?: number;
  /** Called with the process id once it started (to measure it while it runs). */
  onSpawn?: (pid: number) => void;
  /** Where its standard error goes: kept in the result (default), or this process's, or nowhere. */
  stderr?: 'keep' | 'inherit' | 'ignore';
}

/** Runs `command` with `args` asynchronously (a server in the calling process keeps answering meanwhile). */
export function runProcess(command: string, args: string[], options: RunProcessOptions = {}): Promise<ProcessResult> {
  const stderrTo = options.stderr ?? 'keep';
  const child = spawn(command, args, {
    cwd: options.cwd,
    env: options.env ?? process.env,
    stdio: ['pipe', 'pipe', stderrTo === 'keep' ? 'pipe' : stderrTo],
  });
  if (child.pid !== undefined) options.onSpawn?.(child.pid);
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    stdout += chunk.toString('utf8');
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const killer = setTimeout(() => child.kill(), options.timeoutMs ?? 120_000);
  return new Promise((resolve, reject) => {
    child.on('error', (error) => {
      clearTimeout(killer);
      reject(error);
    });
    child.on('close', (code) => {
      clearTimeout(killer);
      resolve({ code, stdout, stderr });
    });
  });
}

/**
 * Runs this checkout's `kgate` with `args`, from `cwd` (default: the checkout's root), in this
 * process's environment with `env` laid over it.
 */
export function runKgate(
  args: string[],
  options: { cwd?: string; env?: Record<string, string>; timeoutMs?: number; onSpawn?: (pid: number) => void } = {},
): Promise<ProcessResult> {
  return runProcess(process.execPath, [join(ROOT, 'bin/kgate.mjs'), ...args], {
    cwd: options.cwd ?? ROOT,
    env: { ...process.env, ...options.env },
    timeoutMs: options.timeoutMs,
    onSpawn: options.onSpawn,
  });
}

/**
 * The key variables for a run against a reference server: its three keys, so that no check is
 * skipped for want of one, the unsubscribed one covering academic search (as the server gives it).
 */
export function referenceKeyEnv(keys: {
  full: string;
  academicOnly: string;
  exhausted: string;
}): Record<string, string> {
  return {
    KGATE_KEY: keys.full,
    KGATE_KEY_UNSUBSCRIBED: keys.academicOnly,
    KGATE_KEY_EXHAUSTED: keys.exhausted,
    KGATE_KEY_UNSUBSCRIBED_COVERS: 'academic',
  };
}

/** An environment without any proxy of the one the tests run in: a run names its own, or none. */
export const NO_PROXY_ENV = {
  HTTPS_PROXY: '',
  https_proxy: '',
  HTTP_PROXY: '',
  http_proxy: '',
  ALL_PROXY: '',
  all_proxy: '',
  NO_PROXY: '',
  no_proxy: '',
};

/**
 * An environment that takes nothing of the one the tests run in: no base URL, no options, no proxy,
 * no CI job summary to write into; a run names its own target, options and proxy, or has none.
 */
export const RUN_ALONE_ENV = {
  KGATE_BASE_URL: '',
  GITHUB_STEP_SUMMARY: '',
  KGATE_CONFORM_OPTIONS: '',
  ...NO_PROXY_ENV,
};
