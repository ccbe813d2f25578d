import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { after, test } from 'node:test';
import { isRunId } from '../../reporting/run-dir.ts';
import { invalidValueOf, RuleBroken } from './args.ts';
import { REPORT_DIR_OPTION, runFolder } from './run-folder.ts';

const root = mkdtempSync(join(tmpdir(), 'kgate-run-folder-'));
after(() => rmSync(root, { recursive: true, force: true }));

/** runFolder with what it prints on stderr. */
function folder(given: string | undefined, cwd = root): { dir: string; notes: string[] } {
  const notes: string[] = [];
  const error = console.error;
  const here = process.cwd();
  console.error = (...parts: unknown[]) => notes.push(parts.join(' '));
  process.chdir(cwd);
  try {
    return { dir: runFolder(given, 'load', 'load'), notes };
  } finally {
    console.error = error;
    process.chdir(here);
  }
}

test('--report-dir is the run folder itself, created if needed; without it a new reports/<kind>/<run-id>/', () => {
  const given = join(root, 'given', 'deeper');
  assert.deepEqual(folder(given), { dir: given, notes: [] });
  assert.ok(existsSync(given), 'created');
  const made = folder(undefined);
  assert.ok(isRunId(basename(made.dir)), made.dir);
  assert.equal(made.dir, join(root, 'reports', 'load', basename(made.dir)));
  assert.deepEqual(made.notes, []);
});

test('a --report-dir that holds earlier run folders (its old meaning for load and drift live) gets one note', () => {
  const parent = join(root, 'old-parent');
  mkdirSync(join(parent, '20261128T103942Z-f719'), { recursive: true });
  const { dir, notes } = folder(parent);
  assert.equal(dir, parent);
  assert.equal(notes.length, 1);
  assert.match(
    notes[0]!,
    /^kgate load: note: --report-dir is this run's own folder: the reports go into .*old-parent itself/,
  );
});

test('--report-dir takes a folder path: not empty, not a file', () => {
  const file = join(root, 'a-file');
  writeFileSync(file, '');
  for (const [given, want] of [
    ['', 'an empty path'],
    [file, 'a file, not a folder'],
  ] as const)
    assert.throws(
      () => REPORT_DIR_OPTION.parse(given),
      (error: unknown) => error instanceof RuleBroken && error.message === want,
    );
  assert.equal(invalidValueOf(REPORT_DIR_OPTION), '');
  assert.equal(REPORT_DIR_OPTION.parse(join(root, 'new')), join(root, 'new'));
});
