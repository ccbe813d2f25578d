// A stop from outside: SIGINT (Ctrl-C) or SIGTERM (a CI runner cancelling the job, `timeout`).
// Every process a command started is stopped (each registered its own way of stopping), the run's
// folder is marked interrupted (neither a verdict of the target nor a defect of kgate), one line
// says so, and kgate exits 130 or 143. A second signal while stopping exits at once.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { redactSecrets } from '../../config/redact.ts';
import { REPORT_HTML, renderPage } from '../../page/page.ts';

/** The exit code of a stop by signal: 128 plus the signal's number. */
export const SIGNAL_EXIT: Record<'SIGINT' | 'SIGTERM', number> = { SIGINT: 130, SIGTERM: 143 };

/** Longest wait for the started processes to stop before kgate exits anyway. */
export const STOP_GRACE_MS = 5_000;

let stoppedBy: 'SIGINT' | 'SIGTERM' | undefined;

/** The signal that is stopping kgate, if one is: after it, only the stop's own lines are printed. */
export function stopping(): 'SIGINT' | 'SIGTERM' | undefined {
  return stoppedBy;
}

/** What a stop needs of the command it interrupts. */
export interface StopPlan {
  /** `conform`, `drift live`: for the lines and the folder's summary. */
  command: string;
  /** The run's folder, once it exists. */
  reportDir(): string | undefined;
  /** The target in words, credentials masked. */
  target(): string | undefined;
  /** Stops what the command started (processes, servers); each is awaited up to STOP_GRACE_MS in all. */
  cleanups(): (() => Promise<void> | void)[];
  /** Aborted first: the command's own work stops taking new steps. */
  abort: AbortController;
}

/** The summary of an interrupted run, what its summary.json holds. */
export function interruptedSummary(
  plan: Pick<StopPlan, 'command'>,
  signal: 'SIGINT' | 'SIGTERM',
  startedAt: Date,
  target: string | undefined,
): Record<string, unknown> {
  return {
    command: plan.command,
    verdict: 'interrupted',
    exitCode: SIGNAL_EXIT[signal],
    interrupted: {
      signal,
      afterMs: Date.now() - startedAt.getTime(),
      reason: `stopped by ${signal} before a verdict: neither a verdict of the target nor a defect of kgate`,
    },
    ...(target ? { target } : {}),
    startedAt: startedAt.toISOString(),
  };
}

/** Writes summary.json, summary.md and report.html of an interrupted run into its folder. */
export function writeInterrupted(dir: string, summary: Record<string, unknown>): void {
  const { command, interrupted, target } = summary as {
    command: string;
    interrupted: { signal: string; afterMs: number; reason: string };
    target?: string;
  };
  const seconds = (interrupted.afterMs / 1000).toFixed(1);
  writeFileSync(join(dir, 'summary.json'), `${redactSecrets(JSON.stringify(summary, null, 2))}\n`);
  writeFileSync(
    join(dir, 'summary.md'),
    redactSecrets(
      `# kgate ${command}: INTERRUPTED\n\n${target ? `Target: ${target}\n\n` : ''}Stopped by ${interrupted.signal} after ${seconds} s, before a verdict: neither a verdict of the target nor a defect of kgate. Run it again for a verdict.\n`,
    ),
  );
  writeFileSync(
    join(dir, REPORT_HTML),
    redactSecrets(
      renderPage({
        tool: `kgate ${command}`,
        verdict: 'info',
        word: 'INTERRUPTED',
        headline: `stopped by ${interrupted.signal} after ${seconds} s, before a verdict`,
        ...(target ? { target } : {}),
        counts: [],
        sections: [
          {
            id: 'interrupted',
            title: 'Interrupted',
            intro: `${interrupted.reason}. Every process the run started was stopped; run it again for a verdict.`,
          },
        ],
      }),
    ),
  );
}

/**
 * Installs the handlers of SIGINT and SIGTERM for one command's run; returns the function that
 * removes them (the run ended on its own). On a signal: the command's work is aborted, what it
 * started is stopped, its folder is marked interrupted (when it has one), one line is printed on
 * stderr, and the process exits 130 (SIGINT) or 143 (SIGTERM).
 */
export function installStops(plan: StopPlan): () => void {
  const startedAt = new Date();
  const onSignal = (signal: 'SIGINT' | 'SIGTERM') => {
    if (stoppedBy) process.exit(SIGNAL_EXIT[signal]);
    stoppedBy = signal;
    const say = (line: string) => process.stderr.write(`${redactSecrets(line)}\n`);
    say(`kgate ${plan.command}: ${signal}: stopping every process this run started`);
    plan.abort.abort(new Error(`stopped by ${signal}`));
    // Last started, first stopped: the processes of a run end before the scratch folder they write
    // into goes, which would otherwise come back under a worker still writing its pace.
    const pending = [...plan.cleanups()].reverse();
    const runOne = async (cleanup: () => Promise<void> | void) => {
      try {
        await cleanup();
      } catch {
        // A process that is already gone needs no stopping.
      }
    };
    const inOrder = (async () => {
      for (let next = pending.shift(); next; next = pending.shift()) await runOne(next);
    })();
    const grace = new Promise((resolve) => setTimeout(resolve, STOP_GRACE_MS).unref());
    void Promise.race([inOrder, grace]).then(async () => {
      // What the grace left waiting is started all the same, and given a moment before the exit.
      await Promise.race([
        Promise.all(pending.splice(0).map(runOne)),
        new Promise((resolve) => setTimeout(resolve, 200).unref()),
      ]);
      const dir = plan.reportDir();
      if (dir) {
        try {
          writeInterrupted(dir, interruptedSummary(plan, signal, startedAt, plan.target()));
          say(`kgate ${plan.command}: INTERRUPTED by ${signal}: no verdict; ${join(dir, REPORT_HTML)} says so`);
        } catch (error) {
          say(
            `kgate ${plan.command}: INTERRUPTED by ${signal}: no verdict (the run's folder ${dir} could not be marked: ${(error as Error).message})`,
          );
        }
      } else say(`kgate ${plan.command}: INTERRUPTED by ${signal} before anything was judged`);
      process.exit(SIGNAL_EXIT[signal]);
    });
  };
  const onInt = () => onSignal('SIGINT');
  const onTerm = () => onSignal('SIGTERM');
  process.on('SIGINT', onInt);
  process.on('SIGTERM', onTerm);
  return () => {
    process.off('SIGINT', onInt);
    process.off('SIGTERM', onTerm);
  };
}
