import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

/** Run folders kept under a report base folder; older ones are removed when a new run starts. */
export const KEPT_RUNS = 20;
/** A run folder changed this recently is never removed: another run may still be writing it. */
const BUSY_MS = 10 * 60_000;
/** Name of the link (or, where links are impossible, the file) naming the newest run folder. */
export const LATEST = 'latest';
/** The folder every command writes its run folders under, one folder per kind of run. */
export const REPORTS_DIR = 'reports';

/** The kinds of run, each the name of its folder under reports/ (`reports/load/<run-id>/`). */
export const RUN_KINDS = ['conformance', 'fuzz', 'drift', 'compare', 'load', 'merge', 'probe'] as const;
/** One kind of run. */
export type RunKind = (typeof RUN_KINDS)[number];

/** A run id: `20261128T103942Z-f719` (UTC date and time, 4 random hex digits). */
const RUN_ID = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z-[0-9a-f]{4}$/;
/** The run ids before there was one naming: `20261128-103524-766-0683` (conform, fuzz, compare). */
const OLD_RUN_ID = /^(\d{4})(\d{2})(\d{2})-(\d{2})(\d{2})(\d{2})-\d{3}-[0-9a-f]{4}$/;
/** The load run folders before there was one naming: `smoke-20261128T103819Z`. */
const OLD_LOAD_ID = /^[a-z][a-z0-9-]*-(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/;

/** A sortable, unique run id, the name of every run folder: `20261128T103942Z-f719` (UTC time, 4 random hex). */
export function newRunId(now = new Date()): string {
  const stamp = now
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');
  return `${stamp}-${randomBytes(2).toString('hex')}`;
}

/** Whether a folder name is a run id (the one naming, or an older one). */
export function isRunId(name: string): boolean {
  return RUN_ID.test(name) || OLD_RUN_ID.test(name) || OLD_LOAD_ID.test(name);
}

/** When the run named `name` started (its id's UTC time, to the second), or undefined for a name that is not a run id. */
export function runIdTime(name: string): Date | undefined {
  const match = RUN_ID.exec(name) ?? OLD_RUN_ID.exec(name) ?? OLD_LOAD_ID.exec(name);
  if (!match) return undefined;
  const [, y, mo, d, h, mi, s] = match.map(Number) as number[];
  return new Date(Date.UTC(y!, mo! - 1, d!, h!, mi!, s!));
}

/** The base folder of a kind's run folders: `reports/load`. */
export function kindFolder(kind: RunKind): string {
  return join(REPORTS_DIR, kind);
}

/**
 * Makes a folder and the folders above it that are missing, one at a time: unlike Node's recursive
 * mkdir, which on some file systems (/proc) keeps trying and never returns, each step that cannot
 * be made throws its own error (ENOENT, EACCES, ENOTDIR, EROFS).
 */
export function makeFolder(dir: string): void {
  const missing: string[] = [];
  for (let at = resolve(dir); !existsSync(at); at = dirname(at)) {
    missing.unshift(at);
    if (dirname(at) === at) break;
  }
  for (const folder of missing) mkdirSync(folder);
}

/**
 * Creates a fresh run folder `<base>/<run-id>/`, points `<base>/latest` at it and keeps only the
 * newest KEPT_RUNS run folders. Two runs started at once get two folders, so neither reads or
 * overwrites the other's reports. Returns the absolute path of the new folder.
 */
export function createRunDir(base: string, now = new Date()): string {
  const root = resolve(base);
  makeFolder(root);
  let id = newRunId(now);
  // Two runs started in the same second draw their random part again until the names differ.
  for (let tries = 0; ; tries++) {
    try {
      mkdirSync(join(root, id));
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || tries > 100) throw error;
      id = newRunId(now);
    }
  }
  const dir = join(root, id);
  pointLatest(root, id);
  const runs = readdirSync(root)
    .filter(isRunId)
    .sort((a, b) => (runIdTime(a)?.getTime() ?? 0) - (runIdTime(b)?.getTime() ?? 0) || a.localeCompare(b));
  // A folder changed in the last minutes may be another run's, still writing its reports (runs
  // started at once, a test suite's): it is left for a later run to prune.
  const busySince = Date.now() - BUSY_MS;
  for (const old of runs.slice(0, Math.max(0, runs.length - KEPT_RUNS))) {
    if (old === id) continue;
    try {
      if (statSync(join(root, old)).mtimeMs > busySince) continue;
    } catch {
      continue;
    }
    rmSync(join(root, old), { recursive: true, force: true });
  }
  return dir;
}

/** Replaces `<root>/latest` by a link to `id` atomically (a new link renamed over the old one). */
function pointLatest(root: string, id: string): void {
  const temporary = join(root, `.${LATEST}-${id}`);
  try {
    symlinkSync(id, temporary, 'dir');
    renameSync(temporary, join(root, LATEST));
  } catch {
    rmSync(temporary, { force: true });
    // A file system without links: a plain file naming the folder.
    try {
      writeFileSync(join(root, `${LATEST}.txt`), `${id}\n`);
    } catch {
      // The link is a convenience; the run's own folder is what matters.
    }
  }
}
