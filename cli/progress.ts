// Long commands are never silent: a line on stderr at least every PROGRESS_EVERY_MS, whatever the
// target does (a hung target stops a command's own progress events, never this timer), with
// --json too, since stdout then carries one JSON object and nothing else.

/** How often a long-running command writes its progress line to stderr, at least. */
export const PROGRESS_EVERY_MS = 10_000;

/** `12 min 30 s`, `45 s`. */
export function humanDuration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  return s < 60 ? `${s} s` : `${Math.floor(s / 60)} min${s % 60 ? ` ${s % 60} s` : ''}`;
}

/** `, about 40 s left` from work done of total over the time so far; empty until something is done. */
export function timeLeft(elapsedMs: number, done: number, total: number): string {
  return done > 0 && total > done ? `, about ${humanDuration((elapsedMs / done) * (total - done))} left` : '';
}

/**
 * Writes `line()` to `stream` every `everyMs` until the returned function is called. `skip()` lets a
 * command that prints its own progress leave out a beat when it printed recently.
 */
export function heartbeat(
  line: () => string,
  options: { stream?: NodeJS.WritableStream; everyMs?: number; skip?: () => boolean } = {},
): () => void {
  const stream = options.stream ?? process.stderr;
  const timer = setInterval(() => {
    if (!options.skip?.()) stream.write(`${line()}\n`);
  }, options.everyMs ?? PROGRESS_EVERY_MS);
  timer.unref();
  return () => clearInterval(timer);
}
