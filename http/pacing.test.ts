// test-runner: alone (it measures the gaps between requests in milliseconds of real time)
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { runProcess } from '../scripts/run-process.ts';
import { RunPace, runPace, SharedPace } from './pacing.ts';

const dir = mkdtempSync(join(tmpdir(), 'kgate-pace-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** Gaps between consecutive claims, in milliseconds. */
function gaps(claims: number[]): number[] {
  const sorted = [...claims].sort((a, b) => a - b);
  return sorted.slice(1).map((claim, index) => claim - sorted[index]!);
}

test('two paces on one file let requests go one interval apart, whichever asks', async () => {
  const file = join(dir, 'shared.pace');
  const [a, b] = [new SharedPace(file, 100), new SharedPace(file, 100)];
  const claims = await Promise.all(Array.from({ length: 12 }, (_, index) => (index % 3 === 0 ? a : b).wait()));
  assert.ok(
    gaps(claims).every((gap) => gap >= 10),
    `every gap at least 10 ms: ${gaps(claims).join(', ')}`,
  );
  assert.equal(new Set(claims).size, 12, 'every request has its own slot');
});

test('a slot is claimed only when its time has come, and an idle stretch does not let a burst catch up', async () => {
  const pace = new SharedPace(join(dir, 'idle.pace'), 20);
  assert.ok(pace.claim().at !== undefined, 'the first request goes at once');
  const early = pace.claim();
  assert.ok(
    early.at === undefined && early.retryInMs > 0 && early.retryInMs <= 51,
    'the next waits for its time (the interval and the clock margin)',
  );
  await new Promise((resolve) => setTimeout(resolve, 200));
  const burst = await Promise.all(Array.from({ length: 4 }, () => pace.wait()));
  assert.ok(
    gaps(burst).every((gap) => gap >= 50),
    `after the pause, still one interval apart: ${gaps(burst).join(', ')}`,
  );
});

test('processes sharing the file never claim slots closer than the interval', async () => {
  const file = join(dir, 'processes.pace');
  const module = new URL('./pacing.ts', import.meta.url).href;
  const script = `import { SharedPace } from ${JSON.stringify(module)};
const pace = new SharedPace(${JSON.stringify(file)}, 200);
const claims = [];
for (let i = 0; i < 20; i++) claims.push(await pace.wait());
console.log(JSON.stringify(claims));`;
  const outputs = await Promise.all(
    Array.from({ length: 3 }, async () => {
      const { code, stdout, stderr } = await runProcess(process.execPath, [
        '--import',
        'tsx',
        '--input-type=module',
        '-e',
        script,
      ]);
      assert.equal(code, 0, stderr);
      return JSON.parse(stdout) as number[];
    }),
  );
  const claims = outputs.flat();
  assert.equal(claims.length, 60, 'every request of every process went');
  assert.ok(
    gaps(claims).every((gap) => gap >= 5),
    `every gap at least 5 ms: ${Math.min(...gaps(claims))}`,
  );
});

test('continueIn keeps the time of the next slot when the pace moves to the run folder', async () => {
  const pace = new SharedPace(join(dir, 'preflight.pace'), 10);
  const first = await pace.wait();
  pace.continueIn(join(dir, 'run', '.pace'));
  const worker = new SharedPace(join(dir, 'run', '.pace'), 10);
  assert.ok((await worker.wait()) - first >= 100, 'a worker waits one interval after the preflight');
});

test('a wait stopped by its signal ends at once and claims no slot', async () => {
  // Slots 2 s apart: the waits compared below differ by seconds, a margin no loaded machine eats.
  const pace = new SharedPace(join(dir, 'stopped.pace'), 0.5);
  const first = await pace.wait();
  const stop = new AbortController();
  const stopped = pace.wait(stop.signal);
  setTimeout(() => stop.abort(), 50);
  const started = Date.now();
  assert.equal(await stopped, undefined, 'no slot claimed');
  assert.ok(Date.now() - started < 1_000, 'it ends when stopped, not at its slot 2 s later');
  // The slot it waited for is the next waiter's: one interval after the first, not two.
  const next = await pace.wait();
  assert.ok(next - first >= 2_000 && next - first < 4_000, `the next slot ${next - first} ms after the first`);
});

test('a request that leaves late pushes the next slot one interval past the time it left', async () => {
  const pace = new SharedPace(join(dir, 'late.pace'), 20);
  const claimed = await pace.wait();
  // It claimed its slot, then left 300 ms later (a loaded machine, a new connection).
  await new Promise((resolve) => setTimeout(resolve, 300));
  const left = Date.now();
  pace.sent();
  const next = await pace.wait();
  assert.ok(
    next - left >= 50,
    `the next slot ${next - left} ms after the late request left, ${next - claimed} ms after its claim`,
  );
});

test('a run pace holds each limited path to its own rate and every request to the run rate', async () => {
  const run = join(dir, 'by-path');
  // Two processes' views of one run: the worker's paces read the same files.
  const [a, b] = [new RunPace(run, 100, { '/slow': 10 }), new RunPace(run, 100, { '/slow': 10 })];
  // Each request is stamped with the time it claimed its run slot: what the pace decides. The
  // time it then leaves is the machine's (a loaded one may hold a process back between the two);
  // sent() keeps the next claim one interval after a late one (below).
  const stamp = async (pace: RunPace, path: string) => {
    const at = (await pace.wait(path))!;
    pace.sent(path);
    return { path, at };
  };
  const sent = await Promise.all(
    Array.from({ length: 12 }, (_, index) => stamp(index % 2 === 0 ? a : b, index % 3 === 0 ? '/slow' : '/fast')),
  );
  const slow = sent.filter((item) => item.path === '/slow').map((item) => item.at);
  const all = sent.map((item) => item.at);
  assert.ok(
    gaps(slow).every((gap) => gap >= 100),
    `requests to /slow at least 100 ms apart: ${gaps(slow).join(', ')}`,
  );
  assert.equal(new Set(all).size, 12, 'every request claimed a slot of the run');
  assert.ok(
    gaps(all).every((gap) => gap >= 10),
    `every request at least 10 ms from the last: ${gaps(all).join(', ')}`,
  );
  // The fast path is not held to the slow path's rate: its four requests of the first slow
  // interval go while /slow waits.
  const fast = sent.filter((item) => item.path === '/fast').map((item) => item.at);
  assert.ok(
    Math.min(...gaps(fast)) < 100,
    `requests to /fast closer than /slow's interval somewhere: ${gaps(fast).join(', ')}`,
  );
});

test('a run pace moves with its next slots, and runPace is none when nothing limits the run', async () => {
  const preflight = join(dir, 'preflight-run');
  const pace = runPace(preflight, undefined, { '/slow': 10 })!;
  await pace.wait('/slow');
  const first = Date.now();
  pace.sent('/slow');
  pace.continueIn(join(dir, 'moved-run'));
  assert.ok(!existsSync(preflight), 'the preflight folder is gone once its pace has moved');
  const worker = new RunPace(join(dir, 'moved-run'), undefined, { '/slow': 10 });
  await worker.wait('/slow');
  assert.ok(Date.now() - first >= 95, 'the worker waits one interval after the preflight on that path');
  assert.equal(runPace(dir, undefined, {}), undefined);
  assert.equal(runPace(dir, undefined), undefined);
});
