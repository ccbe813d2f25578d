import { mkdirSync, readFileSync, rmdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

/** Something every request of a run waits on before it is sent. */
export interface RequestPace {
  /**
   * Resolves when the next request to `path` (the spec's path, such as `/academic/v1.0/evaluate`)
   * may be sent; once `signal` is aborted (the request will not be sent), at once, without claiming
   * a slot.
   */
  wait(path: string, signal?: AbortSignal): Promise<unknown>;
  /** Says that the request to `path` actually left (it may leave later than it claimed its slot). */
  sent(path: string): void;
  /** Whether every request claims one of a request budget (--max-requests): what can wait is then asked one at a time. */
  readonly counted?: boolean;
}

/** File in a run's report folder through which its processes share the pace. */
export const PACE_FILE = '.pace';

/** The pace file of one path's own rate (`.pace-academic-v1.0-evaluate`). */
function pathPaceFile(dir: string, path: string): string {
  return join(dir, `${PACE_FILE}${path.replace(/[^A-Za-z0-9.]+/g, '-')}`);
}
/**
 * Added to every interval: Date.now() counts whole milliseconds, so a slot claimed at a reading of
 * `t` may really be taken at up to `t + 1`; one more millisecond keeps two requests a full
 * interval apart in real time, and so under the rate in every second at the target.
 */
const CLOCK_MARGIN_MS = 1;
/** A lock older than this was left by a process that died while holding it. */
const STALE_LOCK_MS = 2_000;

const sleepArray = new Int32Array(new SharedArrayBuffer(4));

/** Blocks this thread for `ms` (the lock is held for microseconds; a short blocking wait is simplest). */
function pause(ms: number): void {
  Atomics.wait(sleepArray, 0, 0, ms);
}

/**
 * A pace of at most `rps` requests per second, shared by every process of a run (the CLI's
 * preflight and all Playwright workers) through one small file holding the earliest time the
 * next request may go. A request claims its slot only when it is about to be sent: under a lock
 * (an exclusive `mkdir`) it reads that time, and if it has come, moves it one interval past now
 * and goes; otherwise it sleeps until then and tries again. So no two requests of the run leave
 * closer than 1/rps whichever process sends them, a request that woke late pushes the next one
 * back instead of bunching up with it, and an idle stretch never lets a burst catch up.
 */
export class SharedPace implements RequestPace {
  readonly intervalMs: number;

  constructor(
    public file: string,
    readonly rps: number,
  ) {
    this.intervalMs = 1000 / rps + CLOCK_MARGIN_MS;
  }

  /** Moves the pace to another file, keeping the time of the next slot (the CLI's preflight hands over to the run's folder). */
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

  /**
   * Waits for a slot and claims it; resolves to the time it was claimed (epoch milliseconds), or to
   * undefined, claiming none, once `signal` is aborted.
   */
  wait(): Promise<number>;
  wait(signal: AbortSignal | undefined): Promise<number | undefined>;
  async wait(signal?: AbortSignal): Promise<number | undefined> {
    for (;;) {
      if (signal?.aborted) return undefined;
      const claimed = this.claim();
      if (claimed.at !== undefined) return claimed.at;
      await sleep(claimed.retryInMs, undefined, { signal }).catch(() => {});
    }
  }

  /**
   * Pushes the next slot to one interval after now, if it is earlier: a request can leave some
   * milliseconds after its claim (a busy event loop, a new connection), and the next one must
   * still keep its distance from it at the target.
   */
  sent(): void {
    this.withLock(() => {
      const now = Date.now();
      if (this.next() < now + this.intervalMs) writeFileSync(this.file, String(now + this.intervalMs));
    });
  }

  /** Claims the slot if its time has come (`at`), else says how long until it comes. */
  claim(): { at: number; retryInMs?: undefined } | { at?: undefined; retryInMs: number } {
    return this.withLock(() => {
      const next = this.next();
      const now = Date.now();
      if (now < next) return { retryInMs: Math.max(1, Math.ceil(next - now)) };
      writeFileSync(this.file, String(now + this.intervalMs));
      return { at: now };
    });
  }

  /** The number the file holds (0 before the first request). */
  protected read(): number {
    return this.next();
  }

  /** Runs `body` holding the file's lock. */
  protected withLock<T>(body: () => T): T {
    return withFileLock(this.file, body);
  }

  /** The earliest time the next request may go (0 before the first). */
  private next(): number {
    try {
      return Number(readFileSync(this.file, 'utf8')) || 0;
    } catch {
      return 0;
    }
  }
}

/**
 * Runs `body` holding `file`'s lock, which every process of a run sees: a folder `FILE.lock` beside
 * it; one older than STALE_LOCK_MS was left by a process that died holding it, and is taken over.
 */
export function withFileLock<T>(file: string, body: () => T): T {
  mkdirSync(dirname(file), { recursive: true });
  const lock = `${file}.lock`;
  for (;;) {
    try {
      mkdirSync(lock);
      break;
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
  try {
    return body();
  } finally {
    rmdirSync(lock);
  }
}

/** A request not sent: the run's request budget (--max-requests) is spent. */
export class RequestBudgetSpent extends Error {
  override name = 'RequestBudgetSpent';
}

/** File in a run's report folder counting the requests its processes claimed against --max-requests. */
export const REQUEST_COUNT_FILE = '.requests';

/**
 * At most `max` requests over every process of a run (the preflight, discovery, retries and probes
 * included): each request claims one, under the same kind of lock as a pace, before it is sent; once
 * none is left, a request is not sent (RequestBudgetSpent).
 */
export class RequestCap extends SharedPace {
  constructor(
    file: string,
    readonly max: number,
  ) {
    super(file, 1);
  }

  /** Claims one request of the budget, or throws RequestBudgetSpent when none is left. */
  claimOne(): void {
    this.withLock(() => {
      const used = this.read();
      if (used >= this.max)
        throw new RequestBudgetSpent(`not sent: the run's request budget (--max-requests ${this.max}) is spent`);
      writeFileSync(this.file, String(used + 1));
    });
  }

  /** Requests claimed so far. */
  used(): number {
    return this.read();
  }
}

/**
 * The pace of a run: at most `maxRps` requests per second over every request, and at most the
 * rate `byPath` gives a path over the requests to that path (GET and POST alike), for targets
 * that limit some operations more than others. A request waits for its path's slot, then for the
 * run's; each is a SharedPace in the run's folder, so every process of the run keeps both.
 */
export class RunPace implements RequestPace {
  private readonly whole: SharedPace | undefined;
  private readonly paths: Map<string, SharedPace>;
  /** --max-requests: every request claims one before it waits for its slots. */
  readonly cap: RequestCap | undefined;
  readonly counted: boolean;

  constructor(
    private dir: string,
    maxRps: number | undefined,
    byPath: Record<string, number> = {},
    maxRequests?: number,
  ) {
    this.whole = maxRps ? new SharedPace(join(dir, PACE_FILE), maxRps) : undefined;
    this.paths = new Map(
      Object.entries(byPath).map(([path, rps]) => [path, new SharedPace(pathPaceFile(dir, path), rps)]),
    );
    this.cap = maxRequests !== undefined ? new RequestCap(join(dir, REQUEST_COUNT_FILE), maxRequests) : undefined;
    this.counted = this.cap !== undefined;
  }

  /**
   * Waits for the path's slot, then for the run's; resolves to the time the last of them was
   * claimed (epoch milliseconds), undefined once `signal` is aborted. With a request budget, the
   * request first claims one of the run's count (RequestBudgetSpent when none is left).
   */
  async wait(path: string, signal?: AbortSignal): Promise<number | undefined> {
    if (signal?.aborted) return undefined;
    this.cap?.claimOne();
    const own = await this.paths.get(path)?.wait(signal);
    if (signal?.aborted) return undefined;
    return this.whole ? this.whole.wait(signal) : own;
  }

  sent(path: string): void {
    this.paths.get(path)?.sent();
    this.whole?.sent();
  }

  /** Moves every pace to another folder, keeping the time of each next slot (see SharedPace.continueIn). */
  continueIn(dir: string): void {
    this.whole?.continueIn(join(dir, PACE_FILE));
    for (const [path, pace] of this.paths) pace.continueIn(pathPaceFile(dir, path));
    this.cap?.continueIn(join(dir, REQUEST_COUNT_FILE));
    this.removeFolder();
    this.dir = dir;
  }

  /** Removes the pace files (of a run that ends before it starts). */
  remove(): void {
    for (const pace of [this.whole, ...this.paths.values(), this.cap]) if (pace) rmSync(pace.file, { force: true });
    this.removeFolder();
  }

  /** Removes the folder if nothing else is in it (the preflight's own folder, once its pace has moved). */
  private removeFolder(): void {
    try {
      rmdirSync(this.dir);
    } catch {
      // Not empty (a run's report folder), or never created.
    }
  }
}

/** A run's pace, or undefined when nothing limits it. */
export function runPace(
  dir: string,
  maxRps: number | undefined,
  byPath?: Record<string, number>,
  maxRequests?: number,
): RunPace | undefined {
  return maxRps || Object.keys(byPath ?? {}).length > 0 || maxRequests !== undefined
    ? new RunPace(dir, maxRps, byPath, maxRequests)
    : undefined;
}

const paces = new Map<string, RunPace | undefined>();

/** The process's pace for a run's folder (one object per folder and rates, so every Api of a worker shares it). */
export function sharedRunPace(
  dir: string,
  maxRps: number | undefined,
  byPath?: Record<string, number>,
  maxRequests?: number,
): RunPace | undefined {
  const key = JSON.stringify([dir, maxRps, byPath, maxRequests]);
  if (!paces.has(key)) paces.set(key, runPace(dir, maxRps, byPath, maxRequests));
  return paces.get(key);
}
