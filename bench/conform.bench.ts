// What the conformance gate costs, against what it sends. Interleaved in rounds, so that a machine
// busier in one minute than the next weighs on every row alike, with the wall time and the CPU
// time of every process of the run (the CLI, Playwright's runner, its workers: /proc's times of
// waited-for children):
// - the full gate on the embedded default (`kgate conform` as a clone runs it: a build of its
//   sources, scripts/runtime-build.mjs; the reference server in the CLI);
// - a one-check run, the baseline (`kgate conform --checks response-matches-spec --generate 0`:
//   Playwright start, server start, one request per operation and a few for test data);
// - the full gate against a reference server in another process (`kgate serve`), whose own CPU is
//   read apart, so that kgate's CPU per request sent is its own;
// - the same two embedded runs compiled, as the installed package runs them (dist/, built first by
//   `npm run build`, no tsx);
// - the same two embedded runs as a clone ran them before it ran a build: the sources through tsx,
//   no compiled code kept (KGATE_FROM_SOURCES=1, KGATE_COMPILE_CACHE=off);
// - Playwright alone: as many empty tests as the run against the server in another process, in one
//   group per operation, started as kgate starts Playwright (the same workers, compile cache and
//   environment), with no reporter: the floor Playwright's runner and workers put under any run of
//   the suite, sending nothing.
// Targets: the full gate within 1.5 x a one-check run (wall); a one-check run within 3 s; kgate's
// own CPU per request under 3 ms against a server in another process.
// Then the fault sweep (clean server + every fault; target < 5 minutes), and real `kgate conform`
// runs against the faults the sweep estimated slowest (and a hanging target, with the default
// deadline), each over a clean run of the same command: no run against a fault takes more than
// twice a clean one.
// KGATE_BENCH_CONFORM_ROUNDS (default 3) rounds; medians are reported. KGATE_BENCH_CONFORM_SWEEP=0
// leaves out the sweep and the runs against faults.
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { runSweep } from '../proof/fault-sweep.ts';
import { startReferenceServer } from '../reference/index.ts';
import { workersOf } from '../run/selection.ts';
import { processCpuSeconds } from '../scripts/process-cpu.ts';
import { referenceKeyEnv } from '../scripts/run-process.ts';
import { conform, median, playwrightAlone, ROOT, serveApart, type Timed } from './conform-runs.ts';

const ROUNDS = Number(process.env.KGATE_BENCH_CONFORM_ROUNDS ?? 3);
const WITH_SWEEP = process.env.KGATE_BENCH_CONFORM_SWEEP !== '0';
const FULL_OVER_ONE_CHECK_TARGET = 1.5;
const ONE_CHECK_TARGET_S = 3;
const CPU_PER_REQUEST_TARGET_MS = 3;
const SWEEP_TARGET_S = 300;
const ONE_CHECK = ['--checks', 'response-matches-spec', '--generate', '0'];

const build = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/build.ts'], { cwd: ROOT, encoding: 'utf8' });
if (build.status !== 0) throw new Error(`npm run build failed:\n${build.stderr}`);
const apart = await serveApart();
const apartKeys = referenceKeyEnv(apart.keys);

const rows = {
  full: [] as Timed[],
  oneCheck: [] as Timed[],
  external: [] as (Timed & { serverCpuSeconds: number })[],
  fullCompiled: [] as Timed[],
  oneCheckCompiled: [] as Timed[],
  fullSources: [] as Timed[],
  oneCheckSources: [] as Timed[],
  playwrightAlone: [] as Timed[],
};
/** How a clone ran before it ran a build of its sources: the sources through tsx, no compiled code kept. */
const AS_BEFORE = { KGATE_FROM_SOURCES: '1', KGATE_COMPILE_CACHE: 'off' };
try {
  for (let round = 0; round < ROUNDS; round++) {
    // Each round in another order, so that no row always follows the same one.
    const runs: (() => Promise<void>)[] = [
      async () => {
        rows.full.push(await conform([]));
      },
      async () => {
        rows.oneCheck.push(await conform(ONE_CHECK));
      },
      async () => {
        const serverBefore = processCpuSeconds(apart.child.pid!);
        const run = await conform(['--base-url', apart.url], apartKeys);
        rows.external.push({ ...run, serverCpuSeconds: processCpuSeconds(apart.child.pid!) - serverBefore });
      },
      async () => {
        rows.fullCompiled.push(await conform([], {}, 'compiled'));
      },
      async () => {
        rows.oneCheckCompiled.push(await conform(ONE_CHECK, {}, 'compiled'));
      },
      async () => {
        rows.fullSources.push(await conform([], AS_BEFORE));
      },
      async () => {
        rows.oneCheckSources.push(await conform(ONE_CHECK, AS_BEFORE));
      },
      // Last in the first round: as many tests as the run against the server in another process had.
      async () => {
        rows.playwrightAlone.push(await playwrightAlone(rows.external[0]!.tests));
      },
    ];
    for (let i = 0; i < runs.length; i++) await runs[(i + round) % runs.length]!();
  }
} finally {
  apart.child.kill();
}

const summary = (name: keyof typeof rows) => {
  const runs = rows[name];
  return {
    seconds: median(runs.map((run) => run.seconds)),
    cpuSeconds: median(runs.map((run) => run.cpuSeconds)),
    tests: runs[0]!.tests,
    requests: median(runs.map((run) => run.requests)),
    exitCodes: runs.map((run) => run.exitCode),
  };
};
const full = summary('full');
const oneCheck = summary('oneCheck');
const external = summary('external');
const fullCompiled = summary('fullCompiled');
const oneCheckCompiled = summary('oneCheckCompiled');
const fullSources = summary('fullSources');
const oneCheckSources = summary('oneCheckSources');
const alone = summary('playwrightAlone');
const aloneMsPerRequest = (alone.cpuSeconds / Math.max(1, external.requests)) * 1000;
const serverCpuSeconds = median(rows.external.map((run) => run.serverCpuSeconds));
const cpuPerRequestMs = median(rows.external.map((run) => (run.cpuSeconds / Math.max(1, run.requests)) * 1000));
const line = (label: string, row: ReturnType<typeof summary>) =>
  `${label.padEnd(46)} ${row.seconds.toFixed(1).padStart(5)} s wall ${row.cpuSeconds.toFixed(1).padStart(5)} s CPU  (${row.tests} tests, ${row.requests} requests, exit ${row.exitCodes.join('/')})`;
console.log(`medians of ${ROUNDS} interleaved rounds:`);
console.log(line('full gate, embedded default', full));
console.log(line('one-check run (baseline)', oneCheck));
console.log(line('full gate, server in another process', external));
console.log(line('full gate, embedded default, compiled', fullCompiled));
console.log(line('one-check run, compiled', oneCheckCompiled));
console.log(line('full gate, sources through tsx (as before)', fullSources));
console.log(line('one-check run, sources through tsx (as before)', oneCheckSources));
console.log(line(`Playwright alone (${alone.tests} empty tests, ${workersOf({})} workers)`, alone));
console.log(
  `full gate over a one-check run: ${(full.seconds / oneCheck.seconds).toFixed(2)} x wall, ${(full.cpuSeconds / oneCheck.cpuSeconds).toFixed(2)} x CPU (target <= ${FULL_OVER_ONE_CHECK_TARGET} x wall); compiled ${(fullCompiled.seconds / oneCheckCompiled.seconds).toFixed(2)} x wall`,
);
console.log(
  `one-check run: ${oneCheck.seconds.toFixed(1)} s, compiled ${oneCheckCompiled.seconds.toFixed(1)} s (target <= ${ONE_CHECK_TARGET_S} s)`,
);
console.log(
  `kgate's own CPU per request, server in another process: ${cpuPerRequestMs.toFixed(1)} ms (${external.cpuSeconds.toFixed(1)} s for ${external.requests} requests; the server itself ${serverCpuSeconds.toFixed(2)} s; target < ${CPU_PER_REQUEST_TARGET_MS} ms)`,
);
console.log(
  `of which Playwright alone: ${aloneMsPerRequest.toFixed(1)} ms a request (${alone.cpuSeconds.toFixed(1)} s: its runner and workers with as many empty tests); kgate above it: ${(cpuPerRequestMs - aloneMsPerRequest).toFixed(1)} ms`,
);

const figures: Record<string, unknown> = {
  rounds: ROUNDS,
  full,
  oneCheck,
  external: { ...external, serverCpuSeconds, cpuPerRequestMs },
  fullCompiled,
  oneCheckCompiled,
  fullSources,
  oneCheckSources,
  playwrightAlone: { ...alone, msPerExternalRequest: aloneMsPerRequest },
  fullOverOneCheckWall: full.seconds / oneCheck.seconds,
  fullOverOneCheckCpu: full.cpuSeconds / oneCheck.cpuSeconds,
  targets: {
    fullOverOneCheck: FULL_OVER_ONE_CHECK_TARGET,
    oneCheckSeconds: ONE_CHECK_TARGET_S,
    cpuPerRequestMs: CPU_PER_REQUEST_TARGET_MS,
  },
};

if (WITH_SWEEP) {
  const sweep = await runSweep({ reportDir: 'reports/bench/conformance-sweep' });
  const sweepS = sweep.durationMs / 1000;
  console.log(
    `fault sweep: ${sweep.caught} / ${sweep.total} faults caught, clean ${sweep.clean?.verdict ?? 'missing'}: ${sweepS.toFixed(1)} s (target < ${SWEEP_TARGET_S} s)`,
  );

  // Real runs against the faults the sweep estimated slowest, and against a hanging target with the
  // default deadline, each over a clean run of the same command against the same server.
  const slowest = [...sweep.faults]
    .filter((verdict) => verdict.deviation !== 'hostile')
    .sort((a, b) => b.timeRatio - a.timeRatio)
    .slice(0, 3);
  const server = await startReferenceServer({ quiet: true });
  const keys = referenceKeyEnv(server.keys);
  const real: { fault: string; estimated: number; measured: number; seconds: number }[] = [];
  let cleanRunS = 0;
  try {
    const cleanRuns: number[] = [];
    for (let round = 0; round < Math.min(ROUNDS, 2); round++)
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
  Object.assign(figures, {
    sweepSeconds: sweepS,
    sweepTargetSeconds: SWEEP_TARGET_S,
    sweepWithinTarget: sweepS < SWEEP_TARGET_S,
    faultsCaught: sweep.caught,
    faults: sweep.total,
    worstEstimatedFaultRatio: sweep.worstTimeRatio,
    cleanRunSeconds: cleanRunS,
    realRunsAgainstFaults: real,
  });
}

mkdirSync(`${ROOT}reports/bench`, { recursive: true });
writeFileSync(`${ROOT}reports/bench/conform.json`, `${JSON.stringify(figures, null, 2)}\n`);
