import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { claimFile } from '../contracts/api.ts';

/** What the worker that found an item left for the others: the item, why there is none, or that it could not say. */
export type SharedItem = { value: unknown } | { unavailable: string } | { failed: true };

/** How often a worker waiting for another's item looks for it. */
const POLL_MS = 20;
/** The folders of a run's shared test data start with this, then the run's id. */
const FOLDER_PREFIX = '.discovery-';
/** Folders of earlier runs older than this are removed when a run starts in the same folder. */
const KEEP_MS = 60 * 60 * 1000;

/**
 * A new run's id, for the suite's global setup to hand its workers (KGATE_RUN_ID). It removes the
 * shared test data of earlier runs that used the same folder an hour ago or more; a run beside it
 * in the folder keeps its own, under its own id.
 */
export function newDiscoveryRun(runDir: string): string {
  const now = Date.now();
  for (const name of existsSync(runDir) ? readdirSync(runDir) : []) {
    if (!name.startsWith(FOLDER_PREFIX)) continue;
    const path = join(runDir, name);
    try {
      if (now - statSync(path).mtimeMs >= KEEP_MS) rmSync(path, { recursive: true, force: true });
    } catch {
      // Removed meanwhile.
    }
  }
  return randomBytes(6).toString('hex');
}

/**
 * Test data one worker of a run found, for the run's other workers: a file per item in the run
 * folder (as the transport breaker keeps its state), under a folder per target. The first worker
 * to need an item claims it with an exclusive file and finds it; the others wait for what it
 * writes, so a run finds each item once, not once per worker.
 */
export class SharedDiscovery {
  private constructor(private readonly dir: string) {}

  /** The store of one target (`scope`: the breaker scope and base URL) of the run `runId` in its folder `runDir`. */
  static of(runDir: string, runId: string, scope: string): SharedDiscovery {
    const id = createHash('sha1').update(scope).digest('hex').slice(0, 12);
    return new SharedDiscovery(join(runDir, `${FOLDER_PREFIX}${runId}-${id}`));
  }

  /** The item as another worker left it, if it has. */
  read(name: string): SharedItem | undefined {
    try {
      return JSON.parse(readFileSync(join(this.dir, `${name}.json`), 'utf8')) as SharedItem;
    } catch {
      return undefined;
    }
  }

  /** True for the one worker of the run that claims `name` first. */
  claim(name: string): boolean {
    return claimFile(join(this.dir, `${name}.claim`));
  }

  /** Leaves the item for the others, whole: written aside and renamed into place. */
  write(name: string, item: SharedItem): void {
    const file = join(this.dir, `${name}.json`);
    const temporary = `${file}.${process.pid}.tmp`;
    writeFileSync(temporary, JSON.stringify(item));
    renameSync(temporary, file);
  }

  /** The item once the claiming worker has left it, or undefined at `until` (epoch ms). */
  async wait(name: string, until: number): Promise<SharedItem | undefined> {
    for (;;) {
      const item = this.read(name);
      if (item || Date.now() >= until) return item;
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  }
}
