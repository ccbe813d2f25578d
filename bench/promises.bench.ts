// What judging every promise costs: the full gate (`kgate conform` on the embedded default: the
// fixed battery and the generative phase, with the properties that judge every list of every
// answer, the new check and the relations' requests) and `kgate fuzz` (cases per second), this
// checkout against the one it grew from, in one run: the sources of KGATE_BENCH_BEFORE (a git
// revision, default the merge-base with main) are extracted to a temporary folder beside the same
// node_modules, and the two are run in interleaved rounds (before, after; then after, before), so
// that a machine busier in one minute than the next weighs on both alike. Medians of
// KGATE_BENCH_PROMISES_ROUNDS (default 3) rounds; the wall time and the CPU time of every process
// of each run (/proc's times of waited-for children). Target: no cost beyond the noise, the after
// run within the spread of the before runs.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type KgateRun, kgateJson, median } from './conform-runs.ts';

const AFTER = fileURLToPath(new URL('..', import.meta.url));
const ROUNDS = Number(process.env.KGATE_BENCH_PROMISES_ROUNDS ?? 3);
const FUZZ_BUDGET = Number(process.env.KGATE_BENCH_PROMISES_FUZZ ?? 5_000);
const FUZZ_SEED = 20_261_128;

function git(...args: string[]): string {
  const run = spawnSync('git', args, { cwd: AFTER, encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`git ${args.join(' ')}: ${run.stderr}`);
  return run.stdout.trim();
}

/** The sources of `revision` in a temporary folder, beside this checkout's node_modules. */
function extract(revision: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'kgate-before-'));
  const archive = spawnSync('git', ['archive', '--format=tar', revision], { cwd: AFTER, maxBuffer: 1 << 30 });
  if (archive.status !== 0) throw new Error(`git archive ${revision}: ${archive.stderr}`);
  const untar = spawnSync('tar', ['-x', '-C', dir], { input: archive.stdout });
  if (untar.status !== 0) throw new Error(`tar: ${untar.stderr}`);
  symlinkSync(join(AFTER, 'node_modules'), join(dir, 'node_modules'));
  return dir;
}

/** `kgate <args> --json` from a checkout, its report in `reportDir`, timed, its process tree's CPU read. */
function kgate(root: string, args: string[], reportDir: string): Promise<KgateRun> {
  return kgateJson(['bin/kgate.mjs', ...args, '--report-dir', reportDir], {
    cwd: root,
    env: { KGATE_CONFORM_OPTIONS: '' },
    stderr: 'ignore',
  });
}
const spread = (values: number[]) => `${Math.min(...values).toFixed(2)} to ${Math.max(...values).toFixed(2)}`;

async function main(): Promise<void> {
  const revision = process.env.KGATE_BENCH_BEFORE ?? git('merge-base', 'HEAD', 'main');
  const before = extract(revision);
  const reports = mkdtempSync(join(tmpdir(), 'kgate-promises-bench-'));
  const sides = { before, after: AFTER } as const;
  type Side = keyof typeof sides;
  const gate: Record<Side, KgateRun[]> = { before: [], after: [] };
  const fuzz: Record<Side, KgateRun[]> = { before: [], after: [] };
  let runs = 0;
  try {
    console.log(
      `before: ${revision.slice(0, 12)} (extracted to ${before}); after: this checkout (${git('rev-parse', '--short', 'HEAD')} and its working tree)`,
    );
    // Warm-up: each side builds its sources once (bin/kgate.mjs) and fills the caches of the machine.
    for (const side of ['before', 'after'] as Side[])
      await kgate(
        sides[side],
        ['conform', '--checks', 'response-matches-spec', '--generate', '0'],
        join(reports, `warm-${side}`),
      );
    for (let round = 1; round <= ROUNDS; round++) {
      const order: Side[] = round % 2 === 1 ? ['before', 'after'] : ['after', 'before'];
      for (const side of order) {
        const run = await kgate(sides[side], ['conform'], join(reports, `gate-${side}-${runs++}`));
        if (run.exitCode !== 0)
          throw new Error(`${side}: the full gate did not pass the embedded server (exit ${run.exitCode})`);
        gate[side].push(run);
      }
      for (const side of order) {
        const run = await kgate(
          sides[side],
          ['fuzz', '--max-requests', String(FUZZ_BUDGET), '--seed', String(FUZZ_SEED), '--max-duration', '10m'],
          join(reports, `fuzz-${side}-${runs++}`),
        );
        if (run.exitCode !== 0)
          throw new Error(`${side}: kgate fuzz found something on the clean server (exit ${run.exitCode})`);
        fuzz[side].push(run);
      }
      const last = (side: Side) =>
        `gate ${gate[side].at(-1)!.seconds.toFixed(1)} s / ${gate[side].at(-1)!.cpuSeconds.toFixed(1)} s CPU / ${gate[side].at(-1)!.json.requests} requests, fuzz ${fuzz[side].at(-1)!.json.casesPerSecond} cases/s`;
      console.log(`round ${round}: before ${last('before')}; after ${last('after')}`);
    }
    const figures = (side: Side) => ({
      gateSeconds: median(gate[side].map((run) => run.seconds)),
      gateCpuSeconds: median(gate[side].map((run) => run.cpuSeconds)),
      gateRequests: median(gate[side].map((run) => Number(run.json.requests ?? 0))),
      fuzzCasesPerSecond: median(fuzz[side].map((run) => Number(run.json.casesPerSecond ?? 0))),
      gateSecondsSpread: spread(gate[side].map((run) => run.seconds)),
      fuzzSpread: spread(fuzz[side].map((run) => Number(run.json.casesPerSecond ?? 0))),
    });
    const result = {
      revision,
      rounds: ROUNDS,
      fuzzBudget: FUZZ_BUDGET,
      before: figures('before'),
      after: figures('after'),
    };
    const ratio = (key: 'gateSeconds' | 'gateCpuSeconds' | 'gateRequests' | 'fuzzCasesPerSecond') =>
      (result.after[key] / result.before[key]).toFixed(2);
    console.log(
      [
        `full gate wall: before ${result.before.gateSeconds.toFixed(1)} s (${result.before.gateSecondsSpread}), after ${result.after.gateSeconds.toFixed(1)} s (${result.after.gateSecondsSpread}): x${ratio('gateSeconds')}`,
        `full gate CPU: before ${result.before.gateCpuSeconds.toFixed(1)} s, after ${result.after.gateCpuSeconds.toFixed(1)} s: x${ratio('gateCpuSeconds')}`,
        `full gate requests: before ${result.before.gateRequests}, after ${result.after.gateRequests}: x${ratio('gateRequests')}`,
        `kgate fuzz: before ${result.before.fuzzCasesPerSecond} cases/s (${result.before.fuzzSpread}), after ${result.after.fuzzCasesPerSecond} cases/s (${result.after.fuzzSpread}): x${ratio('fuzzCasesPerSecond')}`,
      ].join('\n'),
    );
    mkdirSync(join(AFTER, 'reports', 'bench'), { recursive: true });
    writeFileSync(join(AFTER, 'reports', 'bench', 'promises.json'), `${JSON.stringify(result, null, 2)}\n`);
  } finally {
    rmSync(before, { recursive: true, force: true });
    rmSync(reports, { recursive: true, force: true });
  }
}

await main();
