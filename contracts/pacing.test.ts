import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { SharedPace } from './pacing.ts';

const dir = mkdtempSync(join(tmpdir(), 'kgate-pace-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** Gaps between consecutive slots, in milliseconds. */
function gaps(slots: number[]): number[] {
  const sorted = [...slots].sort((a, b) => a - b);
  return sorted.slice(1).map((slot, index) => slot - sorted[index]!);
}

test('two paces on one file hand out slots one interval apart, whichever asks', () => {
  const file = join(dir, 'shared.pace');
  const [a, b] = [new SharedPace(file, 50), new SharedPace(file, 50)];
  const slots = Array.from({ length: 20 }, (_, index) => (index % 3 === 0 ? a : b).reserve());
  assert.ok(
    gaps(slots).every((gap) => gap >= 20 - 1e-6),
    `every gap at least 20 ms: ${gaps(slots).join(', ')}`,
  );
  assert.ok(slots[19]! - slots[0]! >= 19 * 20 - 1e-6, 'twenty slots span nineteen intervals');
});

test('an idle stretch does not let a burst catch up', async () => {
  const pace = new SharedPace(join(dir, 'idle.pace'), 20);
  pace.reserve();
  await new Promise((resolve) => setTimeout(resolve, 200));
  const burst = Array.from({ length: 5 }, () => pace.reserve());
  assert.ok(burst[0]! >= Date.now() - 50, 'the first slot after the pause is now, not in the past');
  assert.ok(
    gaps(burst).every((gap) => gap >= 50 - 1e-6),
    `the burst is spaced: ${gaps(burst).join(', ')}`,
  );
});

test('processes sharing the file never get slots closer than the interval', async () => {
  const file = join(dir, 'processes.pace');
  const module = new URL('./pacing.ts', import.meta.url).href;
  const script = `import { SharedPace } from ${JSON.stringify(module)};
const pace = new SharedPace(${JSON.stringify(file)}, 200);
const slots = [];
for (let i = 0; i < 25; i++) slots.push(pace.reserve());
console.log(JSON.stringify(slots));`;
  const outputs = await Promise.all(
    Array.from(
      { length: 3 },
      () =>
        new Promise<number[]>((resolve, reject) => {
          const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script]);
          let out = '';
          child.stdout.on('data', (chunk: Buffer) => {
            out += chunk.toString('utf8');
          });
          child.on('error', reject);
          child.on('close', (code) =>
            code === 0 ? resolve(JSON.parse(out) as number[]) : reject(new Error(`child exit ${code}`)),
          );
        }),
    ),
  );
  const slots = outputs.flat();
  assert.equal(new Set(slots).size, 75, 'every slot is handed out once');
  assert.ok(
    gaps(slots).every((gap) => gap >= 5 - 1e-6),
    `every gap at least 5 ms: ${Math.min(...gaps(slots))}`,
  );
});

test('continueIn keeps the next free slot when the pace moves to the run folder', () => {
  const pace = new SharedPace(join(dir, 'preflight.pace'), 10);
  const first = pace.reserve();
  pace.continueIn(join(dir, 'run', '.pace'));
  const worker = new SharedPace(join(dir, 'run', '.pace'), 10);
  assert.ok(worker.reserve() - first >= 100 - 1e-6, 'a worker waits one interval after the preflight');
});
