import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { runProcess } from '../scripts/run-process.ts';
import { SharedPace } from './pacing.ts';

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
  assert.ok(early.at === undefined && early.retryInMs > 0 && early.retryInMs <= 50, 'the next waits for its time');
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
