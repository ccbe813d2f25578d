// Runs a command on a busy machine: CPU-bound processes beside it for its whole run, one per core
// by default, as on a CI machine that other jobs share. `npm run test:busy` runs `npm test` so: the
// project's tests must hold there too: no test decides on a wall-clock budget a loaded machine
// misses (a timing property is measured in the bench, or given a margin this run proves).
//
// Usage: tsx scripts/busy.ts [--hogs N] CMD [ARGS...]
// Exits with the command's exit code. The command finds the hogs' process ids in KGATE_BUSY_HOGS.
import { type ChildProcess, spawn } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { processCpuSeconds } from './process-cpu.ts';

/** What a hog runs: a loop that never waits, at the priority of everything else. */
const SPIN = 'for (;;);';

/** Parses the arguments: the number of hogs and the command. */
function parseBusyArgs(args: string[]): { hogs: number; command: string[] } | { error: string } {
  let hogs = availableParallelism();
  let rest = args;
  if (rest[0] === '--hogs') {
    const value = Number(rest[1]);
    if (!Number.isInteger(value) || value < 0) return { error: `--hogs must be a whole number >= 0, got ${rest[1]}` };
    hogs = value;
    rest = rest.slice(2);
  }
  if (rest[0] === '--') rest = rest.slice(1);
  if (rest.length === 0) return { error: 'usage: tsx scripts/busy.ts [--hogs N] CMD [ARGS...]' };
  return { hogs, command: rest };
}

const parsed = parseBusyArgs(process.argv.slice(2));
if ('error' in parsed) {
  console.error(`busy: ${parsed.error}`);
  process.exit(2);
}
const hogs: ChildProcess[] = Array.from({ length: parsed.hogs }, () =>
  spawn(process.execPath, ['-e', SPIN], { stdio: 'ignore' }),
);
const pids = hogs.map((hog) => hog.pid!);
const stopHogs = () => {
  for (const hog of hogs) if (hog.exitCode === null && hog.signalCode === null) hog.kill('SIGKILL');
};
process.on('exit', stopHogs);
console.error(
  `busy: ${pids.length} CPU-bound process(es) beside \`${parsed.command.join(' ')}\` (pids ${pids.join(', ')})`,
);
const started = performance.now();
const child = spawn(parsed.command[0]!, parsed.command.slice(1), {
  stdio: 'inherit',
  env: { ...process.env, KGATE_BUSY_HOGS: pids.join(',') },
});
for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.on(signal, () => {
    child.kill(signal);
  });
const code = await new Promise<number>((resolve) => {
  child.on('close', (exitCode, signal) => resolve(exitCode ?? (signal ? 1 : 0)));
  child.on('error', (error) => {
    console.error(`busy: ${error.message}`);
    resolve(127);
  });
});
let hogSeconds = 0;
for (const pid of pids) {
  try {
    hogSeconds += processCpuSeconds(pid);
  } catch {
    // A hog that ended early (killed from outside) counts for nothing.
  }
}
await Promise.all(
  hogs.map((hog) =>
    hog.exitCode !== null || hog.signalCode !== null
      ? undefined
      : new Promise((resolve) => {
          hog.once('exit', resolve);
          hog.kill('SIGKILL');
        }),
  ),
);
const wall = (performance.now() - started) / 1000;
console.error(
  `busy: \`${parsed.command.join(' ')}\` exited ${code} after ${wall.toFixed(0)} s; the hogs took ${hogSeconds.toFixed(0)} s of CPU (${(hogSeconds / wall).toFixed(2)} cores)`,
);
process.exit(code);
