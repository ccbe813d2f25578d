// Conformance suite speed: the full `kgate conform` against the embedded reference server (server
// start included), against a baseline measured in the same run: `kgate conform --checks
// response-matches-spec` (Playwright start, server start and one request per operation), so the
// ratio shows what the checks themselves cost. Then the fault sweep (clean server + every fault).
// Targets (issue 4): full suite < 20 s on this machine with parallel workers; sweep < 5 minutes.
// KGATE_BENCH_CONFORM_ROUNDS (default 2) rounds of each suite run; the median is reported.
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { runSweep } from '../contracts/fault-sweep.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const ROUNDS = Number(process.env.KGATE_BENCH_CONFORM_ROUNDS ?? 2);
const SUITE_TARGET_S = 20;
const SWEEP_TARGET_S = 300;

interface Timed {
  seconds: number;
  exitCode: number | null;
  tests: number;
}

function conform(args: string[]): Promise<Timed> {
  const started = performance.now();
  const child = spawn(process.execPath, ['bin/kgate.mjs', 'conform', '--json', ...args], {
    cwd: ROOT,
    // GITHUB_STEP_SUMMARY is cleared so these runs never land in a real CI job summary.
    env: {
      ...process.env,
      KGATE_BASE_URL: '',
      GITHUB_STEP_SUMMARY: '',
      KGATE_CONFORM_OPTIONS: JSON.stringify({ reportDir: 'reports/bench/conformance' }),
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let stdout = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString('utf8');
  });
  return new Promise((resolve) => {
    child.on('close', (exitCode) => {
      let tests = 0;
      try {
        const counts = (JSON.parse(stdout) as { targets: { counts: Record<string, number> }[] }).targets[0]!.counts;
        tests = Object.values(counts).reduce((sum, n) => sum + n, 0);
      } catch {
        tests = 0;
      }
      resolve({ seconds: (performance.now() - started) / 1000, exitCode, tests });
    });
  });
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

const baseline: Timed[] = [];
const full: Timed[] = [];
for (let round = 0; round < ROUNDS; round++) {
  baseline.push(await conform(['--checks', 'response-matches-spec']));
  full.push(await conform([]));
}
const baselineS = median(baseline.map((run) => run.seconds));
const fullS = median(full.map((run) => run.seconds));
console.log(
  `baseline (response-matches-spec only, ${baseline[0]!.tests} tests): ${baselineS.toFixed(1)} s (median of ${ROUNDS})`,
);
console.log(
  `full suite (${full[0]!.tests} tests, exit ${full.map((run) => run.exitCode).join('/')}): ${fullS.toFixed(1)} s = ${(fullS / baselineS).toFixed(2)} x baseline (target < ${SUITE_TARGET_S} s)`,
);

const sweep = await runSweep({ reportDir: 'reports/bench/conformance-sweep' });
const sweepS = sweep.durationMs / 1000;
console.log(
  `fault sweep: ${sweep.caught} / ${sweep.total} faults caught, clean ${sweep.clean?.verdict ?? 'missing'}: ${sweepS.toFixed(1)} s = ${(sweepS / baselineS).toFixed(1)} x baseline (target < ${SWEEP_TARGET_S} s)`,
);

mkdirSync(`${ROOT}reports/bench`, { recursive: true });
writeFileSync(
  `${ROOT}reports/bench/conform.json`,
  `${JSON.stringify(
    {
      rounds: ROUNDS,
      baselineSeconds: baselineS,
      fullSuiteSeconds: fullS,
      fullOverBaseline: fullS / baselineS,
      fullSuiteTests: full[0]!.tests,
      suiteTargetSeconds: SUITE_TARGET_S,
      suiteWithinTarget: fullS < SUITE_TARGET_S,
      sweepSeconds: sweepS,
      sweepTargetSeconds: SWEEP_TARGET_S,
      sweepWithinTarget: sweepS < SWEEP_TARGET_S,
      faultsCaught: sweep.caught,
      faults: sweep.total,
    },
    null,
    2,
  )}\n`,
);
