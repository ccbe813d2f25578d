import { mkdirSync, readdirSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** Run folders kept under a report base folder; older ones are removed when a new run starts. */
export const KEPT_RUNS = 20;
/** Name of the link (or, where links are impossible, the file) naming the newest run folder. */
export const LATEST = 'latest';
const RUN_ID = /^\d{8}-\d{6}-\d{3}-[0-9a-f]{4}$/;

/** A sortable, unique run id: `20261123-051233-042-4f2a` (UTC date, time, milliseconds, random). */
export function newRunId(now = new Date()): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace('T', '-').replace('.', '-').slice(0, 19);
  const random = Math.floor(Math.random() * 0x10000)
    .toString(16)
    .padStart(4, '0');
  return `${stamp}-${random}`;
}

/**
 * Creates a fresh run folder `<base>/<run-id>/`, points `<base>/latest` at it and keeps only the
 * newest KEPT_RUNS run folders. Two runs started at once get two folders, so neither reads or
 * overwrites the other's reports. Returns the absolute path of the new folder.
 */
export function createRunDir(base: string, now = new Date()): string {
  const root = resolve(base);
  mkdirSync(root, { recursive: true });
  const id = newRunId(now);
  const dir = join(root, id);
  mkdirSync(dir);
  pointLatest(root, id);
  const runs = readdirSync(root)
    .filter((name) => RUN_ID.test(name))
    .sort();
  for (const old of runs.slice(0, Math.max(0, runs.length - KEPT_RUNS))) {
    if (old !== id) rmSync(join(root, old), { recursive: true, force: true });
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
