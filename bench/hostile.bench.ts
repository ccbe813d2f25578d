// kgate against hostile and misbehaving targets: peak memory and wall time of `kgate conform`
// against a target whose evaluate sends hostile bodies (deep nesting, 300 MB, a gzip bomb,
// 300,000 entities), each beside a clean run of the same command measured in the same bench.
// Memory is read from /proc for every process of the run (the CLI, Playwright, its workers).
// Target: no process of a run above 400 MB, whatever the target sends; memory against a hostile
// body within 1.5 x a clean run's.
// Then the gate's wall time against a target that closes every connection after each answer (on
// every operation; kgate opens a new connection per request), as a ratio to the clean run.
// Target: within 1.2 x.
// KGATE_BENCH_HOSTILE (comma-separated behaviours) picks the behaviours; default all of them.
import { mkdirSync, writeFileSync } from 'node:fs';
import { type HostileBehaviour, startHostileTarget } from '../contracts/hostile-target.ts';
import { startReferenceServer } from '../reference/index.ts';
import { watchMemory } from '../scripts/process-memory.ts';
import { runKgate } from '../scripts/run-process.ts';

const MEMORY_LIMIT_MB = 400;
const CLOSING_RATIO_TARGET = 1.2;
const BODIES: HostileBehaviour[] = ['deep-nesting', 'huge-body', 'gzip-bomb', 'many-entities'];
const chosen = process.env.KGATE_BENCH_HOSTILE?.split(',').filter(Boolean) as HostileBehaviour[] | undefined;

interface Measured {
  behaviour: HostileBehaviour;
  exitCode: number | null;
  seconds: number;
  peakProcessMb: number;
  peakTreeMb: number;
}

const reference = await startReferenceServer({ quiet: true });
const MB = 1024 * 1024;

async function measure(behaviour: HostileBehaviour, path?: string): Promise<Measured> {
  const target = await startHostileTarget({ upstream: reference.url, behaviour, path });
  let watch: ReturnType<typeof watchMemory> | undefined;
  const started = performance.now();
  const run = await runKgate(['conform', '--base-url', target.url, '--timeout', '2000', '--generate', '0', '--json'], {
    env: {
      KGATE_BASE_URL: '',
      GITHUB_STEP_SUMMARY: '',
      KGATE_KEY: reference.keys.full,
      KGATE_KEY_UNSUBSCRIBED: reference.keys.academicOnly,
      KGATE_KEY_EXHAUSTED: reference.keys.exhausted,
      KGATE_KEY_UNSUBSCRIBED_COVERS: 'academic',
      KGATE_CONFORM_OPTIONS: JSON.stringify({ reportDir: 'reports/bench/hostile' }),
    },
    timeoutMs: 300_000,
    onSpawn: (pid) => {
      watch = watchMemory(pid, 100);
    },
  });
  const seconds = (performance.now() - started) / 1000;
  const memory = watch!.stop();
  await target.close();
  return {
    behaviour,
    exitCode: run.code,
    seconds: Number(seconds.toFixed(1)),
    peakProcessMb: Math.round(memory.peakProcess / MB),
    peakTreeMb: Math.round(memory.peakTree / MB),
  };
}

const clean = await measure('none');
const rows = [clean];
for (const behaviour of chosen ?? BODIES) rows.push(await measure(behaviour));
const closing = await measure('keep-alive-then-close', '*');
await reference.close();

console.log('behaviour             exit  seconds  x clean  peak/process  x clean  peak/tree');
for (const row of rows) {
  console.log(
    `${row.behaviour.padEnd(20)}  ${String(row.exitCode).padStart(4)}  ${row.seconds.toFixed(1).padStart(7)}  ${(row.seconds / clean.seconds).toFixed(2).padStart(7)}  ${`${row.peakProcessMb} MB`.padStart(12)}  ${(row.peakProcessMb / clean.peakProcessMb).toFixed(2).padStart(7)}  ${`${row.peakTreeMb} MB`.padStart(9)}`,
  );
}
const worst = Math.max(...rows.map((row) => row.peakProcessMb));
const memoryMet = worst < MEMORY_LIMIT_MB;
console.log(`worst process peak ${worst} MB (target < ${MEMORY_LIMIT_MB} MB): ${memoryMet ? 'met' : 'MISSED'}`);
const closingRatio = closing.seconds / clean.seconds;
const closingMet = closing.exitCode === 0 && closingRatio <= CLOSING_RATIO_TARGET;
console.log(
  `every connection closed after each answer: exit ${closing.exitCode}, ${closing.seconds} s, x${closingRatio.toFixed(2)} a clean run (target <= ${CLOSING_RATIO_TARGET}, gate passing): ${closingMet ? 'met' : 'MISSED'}`,
);
mkdirSync('reports/bench', { recursive: true });
writeFileSync(
  'reports/bench/hostile.json',
  `${JSON.stringify({ rows, worstProcessMb: worst, memoryMet, closing, closingRatio, closingMet }, null, 2)}\n`,
);
process.exit(memoryMet && closingMet ? 0 : 1);
