// Long commands are never silent, and their progress suits where they run: on a terminal, one
// line on stderr rewritten in place every second; in CI or a pipe, a line at least every
// PROGRESS_EVERY_MS that the log keeps. Whatever the target does (a hung target stops a command's
// own progress events, never this timer), with --json too, since stdout then carries one JSON
// object and nothing else. Progress never lists tests or source files: it counts.
import { readEnv } from '../../config/env.ts';

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

/** How often the live line on a terminal is rewritten. */
export const LIVE_EVERY_MS = 1_000;

/** True where progress is a live line: the stream is a terminal and CI is not set. */
export function isInteractive(stream: NodeJS.WritableStream = process.stderr): boolean {
  return Boolean((stream as NodeJS.WriteStream).isTTY) && !readEnv().ci;
}

/**
 * Shows `line()` until the returned function is called: on a terminal (`interactive`, default
 * isInteractive(stream)) one line rewritten every LIVE_EVERY_MS and cleared at the end, so the
 * summary that follows starts on a clean line; elsewhere heartbeat()'s periodic lines.
 */
export function progressDisplay(
  line: () => string,
  options: { stream?: NodeJS.WritableStream; everyMs?: number; skip?: () => boolean; interactive?: boolean } = {},
): () => void {
  const stream = options.stream ?? process.stderr;
  if (!(options.interactive ?? isInteractive(stream))) return heartbeat(line, options);
  const columns = (stream as NodeJS.WriteStream).columns || 120;
  const draw = () => stream.write(`\r\x1b[2K${line().slice(0, Math.max(20, columns - 1))}`);
  draw();
  const timer = setInterval(draw, LIVE_EVERY_MS);
  timer.unref();
  let stopped = false;
  return () => {
    if (stopped) return;
    stopped = true;
    clearInterval(timer);
    stream.write('\r\x1b[2K');
  };
}
