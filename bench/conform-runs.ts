// The runs the conformance benches time (bench/conform.bench.ts, bench/node-lines.bench.ts): a
// `kgate conform` run, Playwright alone with empty tests, a reference server in a process of its own;
// and what the other benches share with them: any `kgate ... --json` run timed, and the median.
// Each run's CPU time is that of every process of it (the CLI, Playwright's runner, its workers:
// /proc's times of waited-for children).
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { OPERATIONS } from '../openapi/spec.ts';
import { playwrightCommand } from '../run/run.ts';
import { workersOf } from '../run/selection.ts';
import { waitedChildrenCpuSeconds } from '../scripts/process-cpu.ts';
import { runProcess } from '../scripts/run-process.ts';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** One timed run. */
export interface Timed {
  seconds: number;
  cpuSeconds: number;
  exitCode: number | null;
  tests: number;
  requests: number;
}

/** The CLI of this checkout: a build of its sources (as `npm start`), or the compiled dist/. */
export type Cli = 'sources' | 'compiled';

/**
 * Runs `kgate conform --json ARGS` of the checkout at `root` (default this one) to its end with
 * `node` (default this process's), reports going to its reports/bench/conformance.
 */
export async function conform(
  args: string[],
  env: Record<string, string> = {},
  cli: Cli = 'sources',
  node: string = process.execPath,
  root: string = ROOT,
): Promise<Timed> {
  const entry =
    cli === 'sources'
      ? ['bin/kgate.mjs']
      : [
          '--input-type=module',
          '-e',
          "const { main } = await import('./dist/cli/main.js'); process.exitCode = await main(process.argv.slice(1));",
        ];
  const { seconds, cpuSeconds, exitCode, json } = await kgateJson([...entry, 'conform', ...args], {
    env: { KGATE_CONFORM_OPTIONS: JSON.stringify({ reportDir: 'reports/bench/conformance' }), ...env },
    node,
    cwd: root,
  });
  // No summary: the run failed, which its exit code shows.
  const summary = json as { requests?: number; targets?: { tests: { total: number } }[] };
  return {
    seconds,
    cpuSeconds,
    exitCode,
    tests: summary.targets?.[0]?.tests.total ?? 0,
    requests: summary.requests ?? 0,
  };
}

/** One timed `kgate ... --json`: what it printed, and what it cost. */
export interface KgateRun {
  seconds: number;
  /** The CPU time of every process of the run (/proc's times of waited-for children). */
  cpuSeconds: number;
  exitCode: number | null;
  /** The one object `--json` printed, or {} when it printed none (the exit code shows why). */
  json: Record<string, unknown>;
}

/**
 * Runs `node ENTRY... --json` (ENTRY `bin/kgate.mjs` and its arguments, or any other start of the
 * CLI) from `cwd` (default this checkout) to its end, or for an hour at most, with no base URL or CI
 * job summary inherited (these runs never land in a real CI job summary) and `env` over that; its
 * standard error as `stderr` says (default this process's, so that its progress shows).
 */
export async function kgateJson(
  entry: string[],
  options: { cwd?: string; env?: Record<string, string>; node?: string; stderr?: 'inherit' | 'ignore' } = {},
): Promise<KgateRun> {
  const cpuBefore = waitedChildrenCpuSeconds();
  const started = performance.now();
  const { code, stdout } = await runProcess(options.node ?? process.execPath, [...entry, '--json'], {
    cwd: options.cwd ?? ROOT,
    env: { ...process.env, KGATE_BASE_URL: '', GITHUB_STEP_SUMMARY: '', ...options.env },
    stderr: options.stderr ?? 'inherit',
    timeoutMs: 3_600_000,
  });
  let json: Record<string, unknown> = {};
  try {
    json = JSON.parse(stdout) as Record<string, unknown>;
  } catch {
    // No result: the exit code shows the run failed.
  }
  return {
    seconds: (performance.now() - started) / 1000,
    cpuSeconds: waitedChildrenCpuSeconds() - cpuBefore,
    exitCode: code,
    json,
  };
}

/** Where the Playwright-alone runs keep their suite and configuration (inside the clone, so that `@playwright/test` resolves). */
const ALONE_DIR = `${ROOT}reports/bench/playwright-alone`;

/**
 * Playwright alone: `tests` empty tests in one group per operation, handed to the workers the gate
 * would use as playwright.config.ts hands them (fully parallel), started as kgate starts Playwright,
 * no reporter; run by `node` (default this process's), its compile cache in `compileCache` when
 * given (the folder kgate itself would use on that Node).
 */
export async function playwrightAlone(
  tests: number,
  node: string = process.execPath,
  compileCache?: string,
): Promise<Timed> {
  mkdirSync(ALONE_DIR, { recursive: true });
  const groups = OPERATIONS.length;
  writeFileSync(
    `${ALONE_DIR}/alone.spec.mjs`,
    [
      "import * as playwright from '@playwright/test';",
      '// The test type the suite builds on (run/fixtures.ts).',
      'const test = playwright._baseTest ?? playwright.test;',
      `for (let group = 0; group < ${groups}; group++)`,
      "  test.describe('operation ' + group, () => {",
      "    test.describe.configure({ mode: 'default' });",
      `    for (let index = group; index < ${tests}; index += ${groups}) test('check ' + index, async () => {});`,
      '  });',
      '',
    ].join('\n'),
  );
  const config = `${ALONE_DIR}/playwright.config.mjs`;
  writeFileSync(
    config,
    `export default ${JSON.stringify({ testDir: ALONE_DIR, testMatch: 'alone.spec.mjs', fullyParallel: true, workers: workersOf({}), reporter: 'null', outputDir: `${ALONE_DIR}/test-results` })};\n`,
  );
  const command = await playwrightCommand(config);
  const env = compileCache ? { ...command.env, KGATE_COMPILE_CACHE: compileCache } : command.env;
  const cpuBefore = waitedChildrenCpuSeconds();
  const started = performance.now();
  const child = spawn(node, command.args, { cwd: command.cwd, env, stdio: 'ignore' });
  const exitCode = await new Promise<number | null>((resolve) => child.on('close', resolve));
  return {
    seconds: (performance.now() - started) / 1000,
    cpuSeconds: waitedChildrenCpuSeconds() - cpuBefore,
    exitCode,
    tests,
    requests: 0,
  };
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** The keys `kgate serve --json` prints. */
export type ServedKeys = { full: string; academicOnly: string; exhausted: string };

/**
 * A reference server in a process of its own (`kgate serve`, with any of its options), as a
 * deployment would be; resolves once it listens.
 */
export async function serveApart(
  options: string[] = [],
): Promise<{ child: ChildProcess; url: string; keys: ServedKeys }> {
  const child = spawn(process.execPath, ['bin/kgate.mjs', 'serve', '--json', ...options], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const line = await new Promise<string>((resolve, reject) => {
    let buffered = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      buffered += chunk.toString('utf8');
      if (buffered.includes('\n')) resolve(buffered.slice(0, buffered.indexOf('\n')));
    });
    child.on('exit', (code) => reject(new Error(`kgate serve exited with ${code} before listening`)));
  });
  const { url, keys } = JSON.parse(line) as { url: string; keys: ServedKeys };
  return { child, url, keys };
}
