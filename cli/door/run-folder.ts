// One meaning of --report-dir for every command that writes reports: the folder of this run's
// reports, exactly (created if needed). Without it, each command makes a new run folder under
// reports/<kind>/ (conformance, fuzz, drift, compare, load, merge), named by reporting/run-dir.ts.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { createRunDir, isRunId, kindFolder, makeFolder, type RunKind } from '../../reporting/run-dir.ts';
import { option, RuleBroken, type ValueSpec } from './args.ts';

/** The --report-dir option of every command that writes reports: a folder, or a path where one can be made. */
export const REPORT_DIR_OPTION: ValueSpec<string> = {
  ...option.path('folder'),
  parse: (raw) => {
    if (raw.trim() === '') throw new RuleBroken('an empty path');
    if (existsSync(raw) && !statSync(raw).isDirectory()) throw new RuleBroken('a file, not a folder');
    return raw;
  },
};

/** The usage line of --report-dir, for a command writing runs of `kind`, padded to `width`. */
export function reportDirUsage(kind: RunKind, width: number): string {
  return `  ${'--report-dir'.padEnd(width)} this run's reports go into DIR itself (created if needed; default: a new
  ${''.padEnd(width)} ${kindFolder(kind)}/<run-id>/, <run-id> such as 20261128T103942Z-f719)`;
}

/** Whether a folder holds run folders of earlier runs (what --report-dir named for load and drift live before it meant one run's folder). */
function holdsRunFolders(dir: string): boolean {
  try {
    return readdirSync(dir).some((name) => isRunId(name) && statSync(join(dir, name)).isDirectory());
  } catch {
    return false;
  }
}

/**
 * The folder of this run's reports: `given` (--report-dir) exactly, created if needed, else a new
 * run folder under reports/<kind>/. A given folder that holds earlier runs' folders gets a one-line
 * note on stderr: it is written into itself (kgate load and kgate drift live once made a run folder
 * inside --report-dir).
 */
export function runFolder(given: string | undefined, kind: RunKind, command: string): string {
  if (given === undefined) return createRunDir(kindFolder(kind));

  if (holdsRunFolders(given))
    console.error(
      `kgate ${command}: note: --report-dir is this run's own folder: the reports go into ${given} itself, beside the run folders there (leave --report-dir out for a new ${kindFolder(kind)}/<run-id>/)`,
    );
  if (!existsSync(given)) makeFolder(given);
  return given;
}
