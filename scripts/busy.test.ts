// scripts/busy.ts runs a command beside CPU-bound processes: they spin while it runs, they are gone
// when it ends, and its exit code is the script's.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { test } from 'node:test';
import { ROOT, runProcess } from './run-process.ts';

/** A command that reads, after a quarter of a second, how much CPU each hog has taken, and exits 3. */
const WATCH = `
const pids = process.env.KGATE_BUSY_HOGS.split(',').map(Number);
const cpu = (pid) => { const f = require('node:fs').readFileSync('/proc/' + pid + '/stat', 'utf8').split(') ')[1].split(' '); return Number(f[11]) + Number(f[12]); };
setTimeout(() => { console.log(JSON.stringify({ pids, ticks: pids.map(cpu) })); process.exit(3); }, 250);
`;

test('the command runs beside spinning hogs, which end with it; its exit code is the script’s', async () => {
  const run = await runProcess(
    process.execPath,
    ['--import', 'tsx', 'scripts/busy.ts', '--hogs', '2', process.execPath, '-e', WATCH],
    {
      cwd: ROOT,
    },
  );
  assert.equal(run.code, 3, run.stderr);
  const { pids, ticks } = JSON.parse(run.stdout) as { pids: number[]; ticks: number[] };
  assert.equal(pids.length, 2, 'two hogs');
  for (const tick of ticks) assert.ok(tick > 0, `each hog was spinning: ${ticks.join(', ')} ticks`);
  for (const pid of pids) assert.ok(!existsSync(`/proc/${pid}`), `hog ${pid} is gone`);
  assert.match(run.stderr, /busy: 2 CPU-bound process\(es\) beside/);
  assert.match(run.stderr, /exited 3 after/);
});

test('a wrong --hogs or no command is refused, exit 2', async () => {
  for (const args of [['--hogs', 'many', 'true'], []]) {
    const run = await runProcess(process.execPath, ['--import', 'tsx', 'scripts/busy.ts', ...args], { cwd: ROOT });
    assert.equal(run.code, 2, run.stderr);
    assert.match(run.stderr, /^busy: (--hogs must be|usage)/);
  }
});
