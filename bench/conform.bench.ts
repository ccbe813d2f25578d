// Conformance suite speed: the full `kgate conform` against the embedded reference server (server
// start included), against a baseline measured in the same run: `kgate conform --checks
// response-matches-spec` (Playwright start, server start and one request per operation), so the
// ratio shows what the checks themselves cost. Then the fault sweep (clean server + every fault),
// and real `kgate conform` runs against the faults the sweep estimated slowest (and the hanging
// target, with the default deadline), each timed against a clean run of the same command: the
// check on the sweep's estimate that no run against a fault takes more than twice a clean one.
// Targets (issues 4, 9 and 10): full suite, generative phase included, < 20 s on this machine with
// parallel workers (the same suite with --generate 0 is timed too); sweep < 5 minutes; a run
// against any fault <= 2 x a clean run.
// KGATE_BENCH_CONFORM_ROUNDS (default 2) rounds of each suite run; the median is reported.
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { runSweep } from '../contracts/fault-sweep.ts';
import { startReferenceServer } from '../reference/index.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const ROUNDS = Number(process.env.KGATE_BENCH_CONFORM_ROUNDS ?? 2);
const SUITE_TARGET_S = 20;
const SWEEP_TARGET_S = 300;

interface Timed {
  seconds: number;
  exitCode: number | null;
  tests: number;
}

function conform(args: string[], env: Record<string, string> = {}): Promise<Timed> {
  const started = performance.now();
  const child = spawn(process.execPath, ['bin/kgate.mjs', 'conform', '--json', ...args], {
    cwd: ROOT,
    // GITHUB_STEP_SUMMARY is cleared so these runs never land in a real CI job summary.
    env: {
      ...process.env,
      KGATE_BASE_URL: '',
      GITHUB_STEP_SUMMARY: '',
      KGATE_CONFORM_OPTIONS: JSON.stringify({ reportDir: 'reports/bench/conformance' }),
      ...env,
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
        tests = (JSON.parse(stdout) as { targets: { tests: { total: number } }[] }).targets[0]!.tests.total;
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
const fixedOnly: Timed[] = [];
for (let round = 0; round < ROUNDS; round++) {
  baseline.push(await conform(['--checks', 'response-matches-spec']));
  full.push(await conform([]));
  fixedOnly.push(await conform(['--generate', '0']));
}
const baselineS = median(baseline.map((run) => run.seconds));
const fullS = median(full.map((run) => run.seconds));
const fixedOnlyS = median(fixedOnly.map((run) => run.seconds));
console.log(
  `baseline (response-matches-spec only, ${baseline[0]!.tests} tests): ${baselineS.toFixed(1)} s (median of ${ROUNDS})`,
);
console.log(
  `full suite (${full[0]!.tests} tests, exit ${full.map((run) => run.exitCode).join('/')}): ${fullS.toFixed(1)} s = ${(fullS / baselineS).toFixed(2)} x baseline (target < ${SUITE_TARGET_S} s)`,
);
console.log(
  `fixed battery alone (--generate 0, ${fixedOnly[0]!.tests} tests): ${fixedOnlyS.toFixed(1)} s; the generative phase adds ${(fullS - fixedOnlyS).toFixed(1)} s`,
);

const sweep = await runSweep({ reportDir: 'reports/bench/conformance-sweep' });
const sweepS = sweep.durationMs / 1000;
console.log(
  `fault sweep: ${sweep.caught} / ${sweep.total} faults caught, clean ${sweep.clean?.verdict ?? 'missing'}: ${sweepS.toFixed(1)} s = ${(sweepS / baselineS).toFixed(1)} x baseline (target < ${SWEEP_TARGET_S} s)`,
);

// Real runs against the faults the sweep estimated slowest, and against a hanging target with the
// default deadline, each over a clean run of the same command against the same server.
const slowest = [...sweep.faults]
  .filter((verdict) => verdict.deviation !== 'hostile')
  .sort((a, b) => b.timeRatio - a.timeRatio)
  .slice(0, 3);
const server = await startReferenceServer({ quiet: true });
const keys = {
  KGATE_KEY: server.keys.full,
  KGATE_KEY_UNSUBSCRIBED: server.keys.academicOnly,
  KGATE_KEY_EXHAUSTED: server.keys.exhausted,
  KGATE_KEY_UNSUBSCRIBED_COVERS: 'academic',
};
const real: { fault: string; estimated: number; measured: number; seconds: number }[] = [];
let cleanRunS = 0;
try {
  const cleanRuns: number[] = [];
  for (let round = 0; round < ROUNDS; round++)
    cleanRuns.push((await conform(['--base-url', server.url], keys)).seconds);
  cleanRunS = median(cleanRuns);
  const hang = sweep.faults.find((verdict) => verdict.fault === 'hang');
  for (const verdict of [...slowest, ...(hang ? [hang] : [])]) {
    const run = await conform(['--base-url', `${server.url}/faults/${verdict.fault}`], keys);
    real.push({
      fault: verdict.fault,
      estimated: verdict.timeRatio,
      measured: run.seconds / cleanRunS,
      seconds: run.seconds,
    });
    console.log(
      `kgate conform against ${verdict.fault}: ${run.seconds.toFixed(1)} s = x${(run.seconds / cleanRunS).toFixed(2)} a clean run of ${cleanRunS.toFixed(1)} s (sweep estimate x${verdict.timeRatio.toFixed(2)}${verdict.fault === 'hang' ? '; the sweep uses a 2 s deadline, this run the default 10 s' : ''})`,
    );
  }
} finally {
  await server.close();
}
console.log(
  `worst estimated run against a fault (sweep): x${sweep.worstTimeRatio.ratio.toFixed(2)} (${sweep.worstTimeRatio.fault}; target <= 2)`,
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
      fixedBatteryOnlySeconds: fixedOnlyS,
      suiteTargetSeconds: SUITE_TARGET_S,
      suiteWithinTarget: fullS < SUITE_TARGET_S,
      sweepSeconds: sweepS,
      sweepTargetSeconds: SWEEP_TARGET_S,
      sweepWithinTarget: sweepS < SWEEP_TARGET_S,
      faultsCaught: sweep.caught,
      faults: sweep.total,
      worstEstimatedFaultRatio: sweep.worstTimeRatio,
      cleanRunSeconds: cleanRunS,
      realRunsAgainstFaults: real,
    },
    null,
    2,
  )}\n`,
);
