// Runs the kgate CLI in the test's own process, with what it prints captured (for CLI tests that need no child process).
import { main } from '../cli/main.ts';

/** Runs kgate with console output captured. */
export async function kgateInProcess(argv: string[]): Promise<{ code: number; out: string[]; err: string[] }> {
  const out: string[] = [];
  const err: string[] = [];
  const log = console.log;
  const error = console.error;
  console.log = (...parts: unknown[]) => out.push(parts.join(' '));
  console.error = (...parts: unknown[]) => err.push(parts.join(' '));
  try {
    return { code: await main(argv), out, err };
  } finally {
    console.log = log;
    console.error = error;
  }
}
