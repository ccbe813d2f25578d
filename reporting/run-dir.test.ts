import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { createRunDir, KEPT_RUNS, LATEST, newRunId } from './run-dir.ts';

const base = mkdtempSync(join(tmpdir(), 'kgate-runs-'));
after(() => rmSync(base, { recursive: true, force: true }));

test('run ids sort by time and differ between runs started at once', () => {
  const cases = [
    { given: new Date('2026-11-23T05:12:33.042Z'), want: /^20261123-051233-042-[0-9a-f]{4}$/ },
    { given: new Date('2027-01-02T00:00:00.000Z'), want: /^20270102-000000-000-[0-9a-f]{4}$/ },
  ];
  for (const { given, want } of cases) assert.match(newRunId(given), want);
  const same = new Date();
  const ids = new Set(Array.from({ length: 50 }, () => newRunId(same)));
  assert.ok(ids.size > 40, 'ids of the same millisecond differ by their random part');
});

test('each run gets its own folder, latest points at the newest, and old runs are pruned', () => {
  const dirs = Array.from({ length: KEPT_RUNS + 3 }, (_, i) =>
    createRunDir(base, new Date(Date.UTC(2026, 10, 23, 5, 0, i))),
  );
  assert.equal(new Set(dirs).size, dirs.length, 'no two runs share a folder');
  assert.equal(readlinkSync(join(base, LATEST)), dirs.at(-1)!.split('/').pop(), 'latest names the newest run');
  const kept = readdirSync(base).filter((name) => /^\d{8}-/.test(name));
  assert.equal(kept.length, KEPT_RUNS, `only the newest ${KEPT_RUNS} runs are kept`);
  assert.ok(!existsSync(dirs[0]!), 'the oldest run folder is gone');
  assert.ok(existsSync(dirs.at(-1)!), 'the new run folder exists');
});

test('folders that are not runs are never pruned', () => {
  const other = join(base, 'keep-me');
  mkdirSync(other, { recursive: true });
  for (let i = 0; i < KEPT_RUNS + 1; i++) createRunDir(base);
  assert.ok(existsSync(other), 'a folder the user put there stays');
});
