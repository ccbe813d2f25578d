import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readlinkSync, rmSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { createRunDir, isRunId, KEPT_RUNS, LATEST, newRunId, runIdTime } from './run-dir.ts';

const base = mkdtempSync(join(tmpdir(), 'kgate-runs-'));
after(() => rmSync(base, { recursive: true, force: true }));

test('run ids are <UTC yyyymmddThhmmssZ>-<4 hex>, sort by time and differ between runs started at once', () => {
  const cases = [
    { given: new Date('2026-11-23T05:12:33.042Z'), want: /^20261123T051233Z-[0-9a-f]{4}$/ },
    { given: new Date('2027-01-02T00:00:00.000Z'), want: /^20270102T000000Z-[0-9a-f]{4}$/ },
  ];
  for (const { given, want } of cases) assert.match(newRunId(given), want);
  const same = new Date();
  const ids = new Set(Array.from({ length: 50 }, () => newRunId(same)));
  assert.ok(ids.size > 40, 'ids of the same second differ by their random part');
  const times = ['2026-11-23T05:12:33Z', '2026-11-23T05:12:34Z', '2026-12-01T00:00:00Z'].map((at) =>
    newRunId(new Date(at)),
  );
  assert.deepEqual([...times].sort(), times, 'names sort by time');
});

test('a run id, and the older ones, say when the run started', () => {
  const cases: { given: string; want: string | undefined }[] = [
    { given: '20261128T103942Z-f719', want: '2026-11-28T10:39:42.000Z' },
    { given: '20261128-103524-766-0683', want: '2026-11-28T10:35:24.000Z' },
    { given: 'smoke-20261128T103819Z', want: '2026-11-28T10:38:19.000Z' },
    { given: 'latest', want: undefined },
    { given: 'keep-me', want: undefined },
    { given: '20261128T103942Z-f7191', want: undefined },
  ];
  for (const { given, want } of cases) {
    assert.equal(runIdTime(given)?.toISOString(), want, given);
    assert.equal(isRunId(given), want !== undefined, given);
  }
});

/** Makes a run folder look untouched for an hour (not another run's, busy writing its reports). */
const settled = (dir: string) => utimesSync(dir, new Date(Date.now() - 3_600_000), new Date(Date.now() - 3_600_000));

test('each run gets its own folder, latest points at the newest, and old runs are pruned', () => {
  const dirs = Array.from({ length: KEPT_RUNS + 3 }, (_, i) => {
    const dir = createRunDir(base, new Date(Date.UTC(2026, 10, 23, 5, 0, i)));
    settled(dir);
    return dir;
  });
  assert.equal(new Set(dirs).size, dirs.length, 'no two runs share a folder');
  assert.equal(readlinkSync(join(base, LATEST)), dirs.at(-1)!.split('/').pop(), 'latest names the newest run');
  const kept = readdirSync(base).filter(isRunId);
  assert.equal(kept.length, KEPT_RUNS, `only the newest ${KEPT_RUNS} runs are kept`);
  assert.ok(!existsSync(dirs[0]!), 'the oldest run folder is gone');
  assert.ok(existsSync(dirs.at(-1)!), 'the new run folder exists');
});

test('a run folder changed in the last minutes is never pruned: another run may still be writing it', () => {
  const busy = mkdtempSync(join(tmpdir(), 'kgate-run-dir-busy-'));
  const dirs = Array.from({ length: KEPT_RUNS + 3 }, (_, i) =>
    createRunDir(busy, new Date(Date.UTC(2026, 10, 23, 6, 0, i))),
  );
  assert.ok(
    dirs.every((dir) => existsSync(dir)),
    'every fresh folder stays',
  );
  rmSync(busy, { recursive: true, force: true });
});

test('run folders named the older way are pruned as the oldest', () => {
  const old = join(base, '20201123-050000-000-abcd');
  mkdirSync(old);
  settled(old);
  createRunDir(base);
  assert.ok(!existsSync(old), 'an old-named run older than the kept ones is removed');
});

test('folders that are not runs are never pruned', () => {
  const other = join(base, 'keep-me');
  mkdirSync(other, { recursive: true });
  for (let i = 0; i < KEPT_RUNS + 1; i++) createRunDir(base);
  assert.ok(existsSync(other), 'a folder the user put there stays');
});
