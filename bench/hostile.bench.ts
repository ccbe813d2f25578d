// kgate against hostile and misbehaving targets: peak memory and wall time of `kgate conform`
// against a target whose evaluate sends hostile bodies (deep nesting, 300 MB, a gzip bomb,
// 300,000 entities), each beside a clean run of the same command measured in the same bench.
// Memory is read from /proc for every process of the run (the CLI, Playwright, its workers).
// Target: no process of a run above 400 MB, whatever the target sends; memory against a hostile
// body within 1.5 x a clean run's.
// Then the gate's wall time against a target that closes every connection after each answer (on
// every operation; kgate opens a new connection per request), as a ratio to the clean run.
// Target: within 1.2 x.
// Then the hangs, at the default 10 s deadline, each on evaluate only (both methods): headers that
// never come, a body a byte a second, a body of 1 KB every 20 ms that never ends, 1xx answers
// forever, the head a byte at a time, a body shorter than its Content-Length on an open
// connection (the first request to meet each is the search for test data), and an evaluate
// answering validly in 8 s. Each run's wall time is a ratio to a clean run at the same deadline,
// measured in this bench. Target: within 2 x the clean run plus one deadline; the gate fails each.
// KGATE_BENCH_HOSTILE (comma-separated behaviours) picks the behaviours; default all of them.
import { mkdirSync, writeFileSync } from 'node:fs';
import { HANGING_BEHAVIOURS, type HostileBehaviour, startHostileTarget } from '../proof/hostile-target.ts';
import { startReferenceServer } from '../reference/index.ts';
import { DEFAULT_TIMEOUT_MS } from '../run/options.ts';
import { watchMemory } from '../scripts/process-memory.ts';
import { referenceKeyEnv, runKgate } from '../scripts/run-process.ts';

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

async function measure(
  behaviour: HostileBehaviour,
  path?: string,
  timeoutMs = 2_000,
  generate: string[] = ['--generate', '0'],
): Promise<Measured> {
  const target = await startHostileTarget({ upstream: reference.url, behaviour, path });
  let watch: ReturnType<typeof watchMemory> | undefined;
  const started = performance.now();
  const run = await runKgate(
    ['conform', '--base-url', target.url, '--timeout', `${timeoutMs}ms`, ...generate, '--json'],
    {
      env: {
        KGATE_BASE_URL: '',
        GITHUB_STEP_SUMMARY: '',
        ...referenceKeyEnv(reference.keys),
        KGATE_CONFORM_OPTIONS: JSON.stringify({ reportDir: 'reports/bench/hostile' }),
      },
      timeoutMs: 300_000,
      onSpawn: (pid) => {
        watch = watchMemory(pid, 100);
      },
    },
  );
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
for (const behaviour of (chosen ?? BODIES).filter((name) => !HANGING_BEHAVIOURS.includes(name)))
  rows.push(await measure(behaviour));
const closing = await measure('keep-alive-then-close', '*');
// The hangs, as a user meets them: the default deadline and the whole gate (generative phase included).
const HANGS: HostileBehaviour[] = [...HANGING_BEHAVIOURS, 'slow-answer'];
const hangs = (chosen ?? HANGS).filter((name) => HANGS.includes(name));
const hangClean = hangs.length > 0 ? await measure('none', undefined, DEFAULT_TIMEOUT_MS, []) : undefined;
const hangRows: Measured[] = [];
for (const behaviour of hangs) hangRows.push(await measure(behaviour, undefined, DEFAULT_TIMEOUT_MS, []));
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
const bound = hangClean ? (2 * hangClean.seconds + DEFAULT_TIMEOUT_MS / 1000) / hangClean.seconds : 0;
if (hangClean) {
  console.log(
    `\nhangs and slowness on evaluate, ${DEFAULT_TIMEOUT_MS / 1000} s deadline, whole gate: clean run ${hangClean.seconds} s (exit ${hangClean.exitCode}); target <= x${bound.toFixed(2)} (2 x clean + one deadline), exit 1`,
  );
  console.log('behaviour             exit  seconds  x clean  met');
}
const hangMet = hangRows.every((row) => row.exitCode === 1 && row.seconds / hangClean!.seconds <= bound);
for (const row of hangRows) {
  const ratio = row.seconds / hangClean!.seconds;
  console.log(
    `${row.behaviour.padEnd(20)}  ${String(row.exitCode).padStart(4)}  ${row.seconds.toFixed(1).padStart(7)}  ${ratio.toFixed(2).padStart(7)}  ${row.exitCode === 1 && ratio <= bound ? 'met' : 'MISSED'}`,
  );
}
mkdirSync('reports/bench', { recursive: true });
writeFileSync(
  'reports/bench/hostile.json',
  `${JSON.stringify({ rows, worstProcessMb: worst, memoryMet, closing, closingRatio, closingMet, hangClean, hangRows, hangBound: bound, hangMet }, null, 2)}\n`,
);
process.exit(memoryMet && closingMet && hangMet ? 0 : 1);
