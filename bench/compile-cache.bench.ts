// Whether kgate's own loader hook (which handed V8 cached code of Playwright's CommonJS bundles beside
// Node's own compile cache) earned its keep: a one-check run (`kgate conform --checks
// response-matches-spec --generate 0`, embedded default) on Node 24 with the hook, at the commit
// before it went (the newest commit whose subject says the hook goes, its parent), against the same
// run without it (this checkout), in interleaved rounds, each round in the other order. The hook
// stays only if it saves more than 15 % of the run's wall time.
// KGATE_BENCH_HOOK_COMMIT: the commit with the hook; KGATE_BENCH_HOOK_ROUNDS (default 8): rounds,
// medians reported, after two warm-up runs each (the clone's build, each cache filled).
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { nodeLine } from '../scripts/node-line.mjs';
import { conform, median, ROOT, type Timed } from './conform-runs.ts';

const ROUNDS = Number(process.env.KGATE_BENCH_HOOK_ROUNDS ?? 8);
const KEEP_ABOVE = 0.15;
const ONE_CHECK = ['--checks', 'response-matches-spec', '--generate', '0'];
const git = (...args: string[]) => execFileSync('git', ['-C', ROOT, ...args], { encoding: 'utf8' }).trim();

const gone = git('log', '-1', '--format=%H', '--grep=compile-cache hook goes');
const withHook = process.env.KGATE_BENCH_HOOK_COMMIT ?? (gone ? git('rev-parse', `${gone}^`) : '');
if (!withHook) {
  console.error('bench compile-cache: no commit says the hook goes; name one with it in KGATE_BENCH_HOOK_COMMIT');
  process.exit(2);
}
const node = nodeLine(24);
const scratch = mkdtempSync(join(tmpdir(), 'kgate-bench-hook-'));
const folder = join(scratch, 'with-hook');
git('worktree', 'add', '--detach', folder, withHook);
// The same dependencies: the lock file is the same, and a clone's build lives under its own node_modules/.cache.
symlinkSync(join(ROOT, 'node_modules'), join(folder, 'node_modules'));

/** One one-check run of a checkout, its compile cache in a folder of its own per checkout. */
const run = (root: string, cache: string): Promise<Timed> =>
  conform(ONE_CHECK, { KGATE_COMPILE_CACHE: join(scratch, cache) }, 'sources', node, root);

const rows = { hook: [] as Timed[], native: [] as Timed[] };
try {
  for (let warm = 0; warm < 2; warm++) {
    await run(folder, 'hook');
    await run(ROOT, 'native');
  }
  for (let round = 0; round < ROUNDS; round++) {
    const pair = [
      async () => rows.hook.push(await run(folder, 'hook')),
      async () => rows.native.push(await run(ROOT, 'native')),
    ];
    for (const step of round % 2 === 0 ? pair : pair.reverse()) await step();
  }
} finally {
  git('worktree', 'remove', '--force', folder);
  rmSync(scratch, { recursive: true, force: true });
}
const of = (list: Timed[]) => ({
  wallS: median(list.map((t) => t.seconds)),
  cpuS: median(list.map((t) => t.cpuSeconds)),
  exits: [...new Set(list.map((t) => t.exitCode))],
});
const hook = of(rows.hook);
const native = of(rows.native);
const saved = 1 - hook.wallS / native.wallS;
const result = {
  bench: 'compile-cache',
  node: execFileSync(node, ['--version'], { encoding: 'utf8' }).trim(),
  withHook: { commit: withHook.slice(0, 10), ...hook },
  nodesCacheAlone: { commit: git('rev-parse', '--short=10', 'HEAD'), ...native },
  wallSaved: Number(saved.toFixed(3)),
  cpuSaved: Number((1 - hook.cpuS / native.cpuS).toFixed(3)),
  keepAbove: KEEP_ABOVE,
  verdict:
    saved > KEEP_ABOVE ? 'the hook saves enough to stay' : 'the hook goes: Node’s own cache alone is within 15 %',
};
console.log(JSON.stringify(result, null, 2));
mkdirSync(join(ROOT, 'reports', 'bench'), { recursive: true });
writeFileSync(join(ROOT, 'reports', 'bench', 'compile-cache.json'), `${JSON.stringify(result, null, 2)}\n`);
