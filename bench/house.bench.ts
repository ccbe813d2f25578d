// The project's own tests before and after a change that moves code between rooms: by default the
// commit that moved the Playwright run to run/, the report writers to reporting/ and the self-proof
// to proof/ (the newest commit whose subject starts `refactor(house)`) against its parent. Each
// commit is checked out into a temporary folder of its own (`git worktree`, its dependencies
// installed from the npm cache), and its whole suite (`scripts/test.ts`, the fault sweep included)
// run there, the two in turn, each round in the other order. What must hold: the same outcome (the
// same tests pass, fail and skip, by name, wherever their file now lives; the sweep's verdict on every
// fault the same, with the same checks tripped) and no slower (the whole suite and the sweep's own
// time, after / before, in the same rounds).
// KGATE_BENCH_HOUSE_BEFORE, KGATE_BENCH_HOUSE_AFTER: the two commits; KGATE_BENCH_HOUSE_ROUNDS
// (default 1): rounds, medians reported.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { ROOT } from './conform-runs.ts';

const ROUNDS = Number(process.env.KGATE_BENCH_HOUSE_ROUNDS ?? 1);
const git = (...args: string[]) => execFileSync('git', ['-C', ROOT, ...args], { encoding: 'utf8' }).trim();

const after =
  process.env.KGATE_BENCH_HOUSE_AFTER ??
  git('log', '-1', '--format=%H', '--grep=^refactor(house)', '--regexp-ignore-case');
if (!after) {
  console.error('bench house: no commit whose subject starts refactor(house); name one in KGATE_BENCH_HOUSE_AFTER');
  process.exit(2);
}
const before = process.env.KGATE_BENCH_HOUSE_BEFORE ?? git('rev-parse', `${after}^`);

/** What one whole run of the suite showed. */
interface SuiteRun {
  commit: string;
  seconds: number;
  exitCode: number;
  totals: string;
  /** Test name -> outcome, for every test the run reported (a name met twice is counted). */
  tests: Map<string, string>;
  /** Fault or variation -> its sweep line without the timing: the verdict, tests and what tripped. */
  sweep: Map<string, string>;
  sweepSeconds?: number;
}

const scratch = mkdtempSync(join(tmpdir(), 'kgate-bench-house-'));
// The tests read the interface's shared files beside the checkout, as they do beside this one.
const shared = join(dirname(ROOT), 'shared');
if (existsSync(shared)) symlinkSync(shared, join(scratch, 'shared'));

function checkout(commit: string, name: string): string {
  const folder = join(scratch, name);
  git('worktree', 'add', '--detach', folder, commit);
  console.log(`bench house: ${name} = ${commit.slice(0, 10)}, installing its dependencies`);
  execFileSync('npm', ['ci', '--prefer-offline', '--no-audit', '--no-fund', '--silent'], {
    cwd: folder,
    stdio: 'inherit',
  });
  return folder;
}

/** Runs the whole suite in a checkout and reads its outcome from what it printed. */
function suite(folder: string, commit: string): Promise<SuiteRun> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/test.ts'], {
      cwd: folder,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, FORCE_COLOR: '0', NO_COLOR: '1' },
    });
    const chunks: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => chunks.push(chunk));
    child.on('error', reject);
    child.on('close', (code) => {
      const output = Buffer.concat(chunks).toString('utf8');
      writeFileSync(join(scratch, `${commit.slice(0, 10)}-${Date.now()}.log`), output);
      resolve({ commit, seconds: (performance.now() - started) / 1000, exitCode: code ?? 1, ...readOutcome(output) });
    });
  });
}

/** The tests' outcomes, the sweep's verdicts and the totals line from a run's output. */
export function readOutcome(output: string): Omit<SuiteRun, 'commit' | 'seconds' | 'exitCode'> {
  const totals = /^test: \d+ files, .*$/m.exec(output)?.[0] ?? 'no totals (the run did not end)';
  // The failure report at the end repeats the failed tests: each test is read once, above it.
  const report = output.indexOf('\n── failures of ');
  const body = report >= 0 ? output.slice(0, report) : output;
  const tests = new Map<string, string>();
  const sweep = new Map<string, string>();
  let sweepSeconds: number | undefined;
  for (const line of body.split('\n')) {
    // node's spec reporter: "✔ name (12ms)", "✖ name (3ms)", "﹣ name (1ms) # SKIP".
    const test = /^\s*([✔✖﹣])\s+(.*?)\s+\([\d.]+m?s\)(\s+# SKIP.*)?$/.exec(line);
    if (test) {
      let name = test[2]!;
      for (let n = 2; tests.has(name); n++) name = `${test[2]} #${n}`;
      tests.set(name, test[3] ? 'skip' : test[1] === '✔' ? 'pass' : 'fail');
    }
    const fault = /^(caught|MISSED|passes|FAILS)\s+(\S+)\s+(\S+)\s+(\d+) tests x[\d.]+ (want .*)$/.exec(line);
    if (fault) sweep.set(fault[3]!, `${fault[1]} ${fault[2]} ${fault[4]} tests ${fault[5]}`);
    const score = /^score: .* in ([\d.]+) s;/.exec(line);
    if (score) sweepSeconds = Number(score[1]);
  }
  return { tests, sweep, sweepSeconds, totals };
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

/** Entries of one map that the other lacks or holds differently. */
function differences(a: Map<string, string>, b: Map<string, string>): string[] {
  const out: string[] = [];
  for (const [key, value] of a) if (b.get(key) !== value) out.push(`${key}: ${value} -> ${b.get(key) ?? 'absent'}`);
  for (const [key, value] of b) if (!a.has(key)) out.push(`${key}: absent -> ${value}`);
  return out;
}

const runs: Record<'before' | 'after', SuiteRun[]> = { before: [], after: [] };
try {
  const folders = { before: checkout(before, 'before'), after: checkout(after, 'after') };
  for (let round = 0; round < ROUNDS; round++) {
    const order: ('before' | 'after')[] = round % 2 === 0 ? ['before', 'after'] : ['after', 'before'];
    for (const side of order) {
      const commit = side === 'before' ? before : after;
      console.log(`bench house: round ${round + 1}/${ROUNDS}, the suite ${side} (${commit.slice(0, 10)})`);
      const run = await suite(folders[side], commit);
      console.log(`  ${run.seconds.toFixed(1)} s, exit ${run.exitCode}; ${run.totals}`);
      runs[side].push(run);
    }
  }
} finally {
  for (const side of ['before', 'after'])
    if (existsSync(join(scratch, side))) git('worktree', 'remove', '--force', join(scratch, side));
}

const [firstBefore, firstAfter] = [runs.before[0]!, runs.after[0]!];
const testChanges = differences(firstBefore.tests, firstAfter.tests);
const sweepChanges = differences(firstBefore.sweep, firstAfter.sweep);
const seconds = (side: SuiteRun[]) => median(side.map((run) => run.seconds));
const sweepSeconds = (side: SuiteRun[]) => median(side.map((run) => run.sweepSeconds ?? Number.NaN));
const result = {
  before,
  after,
  rounds: ROUNDS,
  suite: {
    before: { seconds: seconds(runs.before), exitCode: firstBefore.exitCode, totals: firstBefore.totals },
    after: { seconds: seconds(runs.after), exitCode: firstAfter.exitCode, totals: firstAfter.totals },
    ratio: seconds(runs.after) / seconds(runs.before),
  },
  sweep: {
    before: sweepSeconds(runs.before),
    after: sweepSeconds(runs.after),
    ratio: sweepSeconds(runs.after) / sweepSeconds(runs.before),
    faults: firstAfter.sweep.size,
  },
  tests: { before: firstBefore.tests.size, after: firstAfter.tests.size, changes: testChanges },
  sweepChanges,
  logs: scratch,
};
mkdirSync(join(ROOT, 'reports', 'bench'), { recursive: true });
writeFileSync(join(ROOT, 'reports', 'bench', 'house.json'), `${JSON.stringify(result, null, 2)}\n`);

console.log(`\nbench house: ${before.slice(0, 10)} (before) and ${after.slice(0, 10)} (after), ${ROUNDS} round(s)`);
console.log(
  `  the whole suite: ${result.suite.before.seconds.toFixed(1)} s -> ${result.suite.after.seconds.toFixed(1)} s (x${result.suite.ratio.toFixed(2)}; target <= 1, not slower)`,
);
console.log(`    before: ${result.suite.before.totals}\n    after:  ${result.suite.after.totals}`);
console.log(
  `  the fault sweep: ${result.sweep.before.toFixed(1)} s -> ${result.sweep.after.toFixed(1)} s (x${result.sweep.ratio.toFixed(2)}), ${result.sweep.faults} faults judged`,
);
console.log(
  `  outcome: ${testChanges.length} test(s) of ${result.tests.after} changed their outcome or name, ${sweepChanges.length} sweep verdict(s) changed`,
);
for (const change of [...testChanges, ...sweepChanges].slice(0, 40)) console.log(`    ${change}`);
console.log(`  logs of each run: ${scratch}`);
