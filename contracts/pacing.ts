import { mkdirSync, readFileSync, rmdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/** Something every request of a run waits on before it is sent. */
export interface RequestPace {
  /** Resolves when the next request may be sent. */
  wait(): Promise<void>;
}

/** File in a run's report folder through which its processes share the pace. */
export const PACE_FILE = '.pace';
/** A lock older than this was left by a process that died while holding it. */
const STALE_LOCK_MS = 2_000;

const sleepArray = new Int32Array(new SharedArrayBuffer(4));

/** Blocks this thread for `ms` (the lock is held for microseconds; a short blocking wait is simplest). */
function pause(ms: number): void {
  Atomics.wait(sleepArray, 0, 0, ms);
}

/**
 * A pace of at most `rps` requests per second, shared by every process of a run (the CLI's
 * preflight and all Playwright workers) through one small file: each request reserves the next
 * free slot, one interval after the previous one, under a lock (an exclusive `mkdir`), and waits
 * for it. Slots are handed out in order, so no two requests of the run are closer than 1/rps
 * whichever process sends them, and an idle stretch never lets a burst catch up.
 */
export class SharedPace implements RequestPace {
  readonly intervalMs: number;

  constructor(
    public file: string,
    readonly rps: number,
  ) {
    this.intervalMs = 1000 / rps;
  }

  /** Moves the pace to another file, keeping its next free slot (the CLI's preflight hands over to the run's folder). */
  continueIn(file: string): void {
    let next = '0';
    try {
      next = readFileSync(this.file, 'utf8');
      rmSync(this.file, { force: true });
    } catch {
      // No request was paced yet.
    }
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, next);
    this.file = file;
  }

  /** Reserves the next slot and waits for it. */
  async wait(): Promise<void> {
    const delay = this.reserve() - Date.now();
    if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay));
  }

  /** Takes the next free slot (epoch milliseconds) and moves the free slot one interval on. */
  reserve(): number {
    mkdirSync(dirname(this.file), { recursive: true });
    const lock = `${this.file}.lock`;
    this.lock(lock);
    try {
      let next = 0;
      try {
        next = Number(readFileSync(this.file, 'utf8')) || 0;
      } catch {
        // First request of the run: no slot taken yet.
      }
      const slot = Math.max(Date.now(), next);
      writeFileSync(this.file, String(slot + this.intervalMs));
      return slot;
    } finally {
      rmdirSync(lock);
    }
  }

  private lock(lock: string): void {
    for (;;) {
      try {
        mkdirSync(lock);
        return;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
      try {
        if (Date.now() - statSync(lock).mtimeMs > STALE_LOCK_MS) rmdirSync(lock);
      } catch {
        // Released meanwhile.
      }
      pause(1);
    }
  }
}

const paces = new Map<string, SharedPace>();

/** The process's pace for a run's file (one object per file, so every Api of a worker shares it). */
export function sharedPace(file: string, rps: number): SharedPace {
  const key = `${file} ${rps}`;
  let pace = paces.get(key);
  if (!pace) {
    pace = new SharedPace(file, rps);
    paces.set(key, pace);
  }
  return pace;
}
