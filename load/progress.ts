import type { SecondSnapshot } from './runner.ts';

/** One progress line: elapsed, current rate, p99 of the last second, failures so far. */
export function formatProgress(snapshot: SecondSnapshot, plannedS: number): string {
  const share = snapshot.totalSent === 0 ? 0 : (snapshot.totalFailed / snapshot.totalSent) * 100;
  return [
    `${snapshot.t.toFixed(0).padStart(4)}s/${plannedS}s`,
    `${String(snapshot.sent).padStart(5)} req/s`,
    `p99 ${snapshot.p99.toFixed(1).padStart(7)} ms`,
    `errors ${snapshot.totalFailed} (${share.toFixed(2)} %)`,
  ].join('  ');
}

/** Writes progress to a stream: one rewritten line on a terminal, a plain line every few seconds elsewhere. */
export class ProgressLine {
  private lastPlain = 0;

  constructor(
    private readonly stream: NodeJS.WriteStream,
    private readonly plannedS: number,
    private readonly interactive = Boolean(stream.isTTY),
    private readonly plainEveryS = 5,
  ) {}

  /** Shows one second's snapshot. */
  update(snapshot: SecondSnapshot): void {
    const line = formatProgress(snapshot, this.plannedS);
    if (this.interactive) {
      this.stream.write(`\r\x1b[2K${line}`);
    } else if (snapshot.t - this.lastPlain >= this.plainEveryS - 0.05) {
      this.lastPlain = snapshot.t;
      this.stream.write(`${line}\n`);
    }
  }

  /** Ends the rewritten line so later output starts on a fresh one. */
  done(): void {
    if (this.interactive) this.stream.write('\n');
  }
}
