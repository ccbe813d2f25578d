// What the one door costs the gate: `kgate conform` against a reference server in another process,
// through a proxy that counts what the target received, at the commit before the door (the parent of
// the commit that added cli/door/door.ts) and at this checkout, in interleaved rounds, each round in
// the other order. What must hold: the target receives as many requests as before but for the
// preflight's few (at most four), and the run takes as long (wall time after / before), with the
// same verdict. KGATE_BENCH_DOOR_BEFORE: the commit before; KGATE_BENCH_DOOR_ROUNDS (default 3):
// rounds, medians reported, after one warm-up run each.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startArrivalsProxy } from '../scripts/arrivals-proxy.ts';
import { referenceKeyEnv } from '../scripts/run-process.ts';
import { kgateJson, median, ROOT, serveApart } from './conform-runs.ts';

const ROUNDS = Number(process.env.KGATE_BENCH_DOOR_ROUNDS ?? 3);
const git = (...args: string[]) => execFileSync('git', ['-C', ROOT, ...args], { encoding: 'utf8' }).trim();
const added = git('log', '--diff-filter=A', '--format=%H', '--', 'cli/door/door.ts').split('\n').pop() ?? '';
const before = process.env.KGATE_BENCH_DOOR_BEFORE ?? (added ? git('rev-parse', `${added}^`) : '');
if (!before) {
  console.error('bench door: no commit added cli/door/door.ts; name the one before it in KGATE_BENCH_DOOR_BEFORE');
  process.exit(2);
}
const scratch = mkdtempSync(join(tmpdir(), 'kgate-bench-door-'));
const folder = join(scratch, 'before');
git('worktree', 'add', '--detach', folder, before);
symlinkSync(join(ROOT, 'node_modules'), join(folder, 'node_modules'));

const apart = await serveApart();
let arrived = 0;
const proxy = await startArrivalsProxy(apart.url, () => arrived++);
const keys = referenceKeyEnv(apart.keys);

/** One gate of a checkout against the counted target: its wall time, what the target received, its verdict. */
async function gate(root: string) {
  const from = arrived;
  const run = await kgateJson(['bin/kgate.mjs', 'conform', '--base-url', proxy.url], {
    cwd: root,
    env: { ...keys, KGATE_CONFORM_OPTIONS: JSON.stringify({ reportDir: join(scratch, 'reports') }) },
    stderr: 'ignore',
  });
  return { seconds: run.seconds, received: arrived - from, verdict: String(run.json.verdict), exitCode: run.exitCode };
}

const rows = { before: [] as Awaited<ReturnType<typeof gate>>[], after: [] as Awaited<ReturnType<typeof gate>>[] };
try {
  await gate(folder);
  await gate(ROOT);
  for (let round = 0; round < ROUNDS; round++) {
    const pair = [async () => rows.before.push(await gate(folder)), async () => rows.after.push(await gate(ROOT))];
    for (const step of round % 2 === 0 ? pair : pair.reverse()) await step();
  }
} finally {
  proxy.close();
  apart.child.kill();
  git('worktree', 'remove', '--force', folder);
  rmSync(scratch, { recursive: true, force: true });
}
const of = (list: typeof rows.before) => ({
  wallS: Number(median(list.map((run) => run.seconds)).toFixed(2)),
  received: list.map((run) => run.received),
  verdicts: [...new Set(list.map((run) => `${run.verdict} (exit ${run.exitCode})`))],
});
const result = {
  bench: 'door',
  before: { commit: before.slice(0, 10), ...of(rows.before) },
  after: { commit: git('rev-parse', '--short=10', 'HEAD'), ...of(rows.after) },
  wallRatio: Number((median(rows.after.map((r) => r.seconds)) / median(rows.before.map((r) => r.seconds))).toFixed(2)),
  receivedMore: median(rows.after.map((r) => r.received)) - median(rows.before.map((r) => r.received)),
};
console.log(JSON.stringify(result, null, 2));
mkdirSync(join(ROOT, 'reports', 'bench'), { recursive: true });
writeFileSync(join(ROOT, 'reports', 'bench', 'door.json'), `${JSON.stringify(result, null, 2)}\n`);
