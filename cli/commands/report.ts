import { spawn } from 'node:child_process';
import { existsSync, lstatSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { readEnv } from '../../config/env.ts';
import { maskUrl } from '../../config/redact.ts';
import { REPORT_HTML } from '../../page/page.ts';
import { isRunId, REPORTS_DIR, RUN_KINDS, runIdTime } from '../../reporting/run-dir.ts';
import { EXIT, option, parseCommandArgs, UsageError } from '../door/args.ts';
import type { Command } from '../door/command.ts';
import { JSON_USAGE, printJson } from '../door/output.ts';
import { MERGE_OPTIONS, MERGE_USAGE } from './report-merge-usage.ts';

/** Runs listed when --limit is not given. */
const DEFAULT_LIMIT = 20;

const USAGE = `usage: kgate report [DIR | RUN] [--kind KIND] [--limit N] [--no-open] [--json]
       kgate report merge DIR... [--report-dir OUT] [--expect-shards N] [--json]

Lists the runs found under DIR, newest first, every kind of run kgate writes (${RUN_KINDS.join(', ')}):
when each started (UTC), its kind, its verdict (PASS, FAIL, INTERRUPTED for a run a signal stopped,
or ERROR for one that gave no verdict), its report page and its target (credentials masked). Then prints where the
page of the latest run is, and opens it in a browser where one can be opened.
DIR (default ./${REPORTS_DIR}) is a reports folder, the folder of one kind of run (${REPORTS_DIR}/load) or
one run's folder. RUN names one run by its id (20261128T103942Z-f719, or its first characters)
under ./${REPORTS_DIR}: its page is the one printed and opened.

  --kind      list only the runs of this kind (${RUN_KINDS.join(', ')})
  --limit     list at most N runs (default ${DEFAULT_LIMIT}; 0 lists every one)
  --no-open   only print where the page is
  --json      print one JSON object: { latest, runs } after "command", "verdict" and "exitCode"
              (never opens a browser); each run { kind, id, dir, report, verdict, startedAt,
              target }; a stop (no such folder, no run) too
${JSON_USAGE}

The page is opened with xdg-open (open on macOS) only in a desktop session: never in CI (CI set),
nor on Linux without DISPLAY or WAYLAND_DISPLAY.
kgate report merge makes one verdict of the run folders of a sharded kgate conform --shard I/N run
(kgate report merge --help tells more).
exit codes: 0 a run was found, 2 bad usage or no run under DIR`;

/** The options of `kgate report`. */
const OPTIONS = {
  kind: option.choice(RUN_KINDS),
  limit: option.whole(0, 100_000, 'runs'),
  'no-open': option.flag(),
  json: option.flag(),
};

/** One run as `kgate report` lists it. */
export interface FoundRun {
  /** conformance, fuzz, drift, compare, load, merge; or the name of the folder it was found in. */
  kind: string;
  /** Its folder's name: the run id. */
  id: string;
  /** The run's folder. */
  dir: string;
  /** Its report.html; absent when the run stopped before writing it. */
  report?: string;
  /** pass or fail as its summary says; interrupted when a signal stopped it; error when it gave no verdict (no summary, or one saying so). */
  verdict: 'pass' | 'fail' | 'error' | 'interrupted';
  /** When it started (ISO 8601, UTC): its id's time, else its summary's, else its folder's. */
  startedAt: string;
  /** The target it judged, credentials masked (compare: the candidate against the current deployment). */
  target?: string;
}

/** The summary file of each kind, read for its verdict and target. */
const SUMMARY_FILES = ['summary.json', 'drift.json'] as const;

type Summary = Record<string, unknown> & {
  verdict?: unknown;
  passed?: unknown;
  kind?: unknown;
  command?: unknown;
  baseUrl?: unknown;
  embedded?: unknown;
  summary?: { new?: number };
  target?: { baseUrl?: unknown; embedded?: unknown };
  candidate?: unknown;
  current?: unknown;
};

function readSummary(dir: string): { file: string; summary: Summary } | undefined {
  for (const file of SUMMARY_FILES) {
    const path = join(dir, file);
    if (!existsSync(path)) continue;
    try {
      return { file, summary: JSON.parse(readFileSync(path, 'utf8')) as Summary };
    } catch {
      return undefined;
    }
  }
  return undefined;
}

/** The kind of run a summary belongs to, by what it holds. */
function kindOf(file: string, summary: Summary): string | undefined {
  if (file === 'drift.json' || summary.kind === 'drift-live') return 'drift';
  if ('scenario' in summary && 'plan' in summary) return 'load';
  if ('candidate' in summary && 'current' in summary) return 'compare';
  if ('shards' in summary && summary.shards) return 'merge';
  if (Array.isArray(summary.targets)) return 'conformance';
  if ('seed' in summary && 'cases' in summary) return 'fuzz';
  if (typeof summary.command === 'string' && summary.command.startsWith('probe')) return 'probe';
  return undefined;
}

/** The verdict a summary states: its verdict word, a load run's `passed`, a drift run's new findings. */
function verdictOf(summary: Summary): FoundRun['verdict'] {
  if (summary.verdict === 'pass' || summary.verdict === 'fail' || summary.verdict === 'interrupted')
    return summary.verdict;
  if (typeof summary.passed === 'boolean') return summary.passed ? 'pass' : 'fail';
  if (summary.kind === 'drift-live') return (summary.summary?.new ?? 0) > 0 ? 'fail' : 'pass';
  return 'error';
}

/** The target a summary names, masked. */
function targetOf(summary: Summary): string | undefined {
  const embedded = summary.embedded === true || summary.target?.embedded === true;
  const url = summary.baseUrl ?? summary.target?.baseUrl;
  if (typeof url === 'string') return `${maskUrl(url)}${embedded ? ' (embedded reference server)' : ''}`;
  if (typeof summary.candidate === 'string' && typeof summary.current === 'string')
    return `${maskUrl(summary.candidate)} against ${maskUrl(summary.current)}`;
  return undefined;
}

/** Whether a folder is one run's: it holds a report page or a summary. */
function isRunFolder(dir: string): boolean {
  return existsSync(join(dir, REPORT_HTML)) || SUMMARY_FILES.some((file) => existsSync(join(dir, file)));
}

/**
 * One run folder as listed. `folderKind` is the name of the folder it was found in: its kind when it
 * is a kind's folder (`reports/load`, or one holding run folders such as reports/conformance-sweep),
 * else the kind is read from what the summary holds.
 */
export function readRun(dir: string, folderKind?: string, kindFolder = false): FoundRun {
  const read = readSummary(dir);
  const id = basename(resolve(dir));
  const known = kindFolder || (RUN_KINDS as readonly string[]).includes(folderKind ?? '');
  const kind = (known ? folderKind : read && kindOf(read.file, read.summary)) ?? folderKind ?? 'run';
  const report = join(dir, REPORT_HTML);
  const started =
    runIdTime(id) ??
    (typeof read?.summary.startedAt === 'string' ? new Date(read.summary.startedAt) : undefined) ??
    statSync(dir).mtime;
  return {
    kind,
    id,
    dir,
    ...(existsSync(report) ? { report } : {}),
    verdict: read ? verdictOf(read.summary) : 'error',
    startedAt: Number.isNaN(started.getTime()) ? statSync(dir).mtime.toISOString() : started.toISOString(),
    ...(read && targetOf(read.summary) ? { target: targetOf(read.summary) } : {}),
  };
}

function subfolders(dir: string): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  return names.filter((name) => {
    const path = join(dir, name);
    try {
      return !lstatSync(path).isSymbolicLink() && statSync(path).isDirectory();
    } catch {
      return false;
    }
  });
}

/** The run folders directly in `dir` (named by run id), read as runs of the folder's kind. */
function runsIn(dir: string): FoundRun[] {
  const kind = basename(resolve(dir));
  return subfolders(dir)
    .filter(isRunId)
    .map((name) => readRun(join(dir, name), kind, true));
}

/**
 * Every run under `dir`, newest first: `dir` itself when it is one run's folder (with the run folders
 * in it); the run folders in it when it is a kind's folder; else the run folders of every folder in it
 * (every kind of run).
 */
export function findRuns(dir: string): FoundRun[] {
  let runs: FoundRun[];
  if (isRunFolder(dir)) {
    // A run folder may hold another run's (the GitHub action's compare/ beside its conformance run).
    const nested = subfolders(dir).filter((name) => isRunFolder(join(dir, name)));
    runs = [readRun(dir, basename(dirname(resolve(dir)))), ...nested.map((name) => readRun(join(dir, name), name))];
  } else {
    const own = runsIn(dir);
    runs = own.length > 0 ? own : subfolders(dir).flatMap((name) => runsIn(join(dir, name)));
  }
  return runs.sort((a, b) => b.startedAt.localeCompare(a.startedAt) || b.id.localeCompare(a.id));
}

/** Whether a browser can be opened here, and if not, why. */
export function browserOpener(
  env: { ci: boolean; display: boolean },
  platform: NodeJS.Platform = process.platform,
): { command: string; args: string[] } | { reason: string } {
  if (env.ci) return { reason: 'CI is set' };
  if (platform === 'darwin') return { command: 'open', args: [] };
  if (platform === 'win32') return { command: 'cmd', args: ['/c', 'start', '""'] };
  if (!env.display) return { reason: 'no DISPLAY or WAYLAND_DISPLAY' };
  return { command: 'xdg-open', args: [] };
}

/** Starts the opener on a file without waiting for it; resolves to an error message if it could not start. */
function openInBrowser(opener: { command: string; args: string[] }, file: string): Promise<string | undefined> {
  return new Promise((done) => {
    const child = spawn(opener.command, [...opener.args, file], { detached: true, stdio: 'ignore' });
    child.once('error', (error) =>
      done(`${opener.command}: ${(error as NodeJS.ErrnoException).code ?? error.message}`),
    );
    child.once('spawn', () => {
      child.unref();
      done(undefined);
    });
  });
}

const shown = (path: string) => {
  const rel = relative(process.cwd(), path);
  return rel && !rel.startsWith('..') ? rel : path;
};

/** One run as a line of the listing: when, kind, verdict, page (or folder), target. */
export function runLine(run: FoundRun): string {
  const when = `${run.startedAt.slice(0, 19).replace('T', ' ')} UTC`;
  const page = run.report ? shown(run.report) : `${shown(run.dir)}/ (no report page)`;
  return `${when}  ${run.kind.padEnd(11)} ${run.verdict.toUpperCase().padEnd(5)}  ${page}${run.target ? `  ${run.target}` : ''}`;
}

/** The runs whose id starts with `name` under the reports folder: what `kgate report RUN` names. */
function runsNamed(name: string): FoundRun[] {
  return findRuns(REPORTS_DIR).filter((run) => run.id.startsWith(name));
}

/** The subcommands of `kgate report`, each loading its code only when run. */
const SUBCOMMANDS = { merge: { usage: MERGE_USAGE, options: MERGE_OPTIONS } };

/** `kgate report [DIR|RUN]`: the runs found, newest first; the page of the latest (or the named one), opened where a browser can be. */
export const command: Command = {
  usage: USAGE,
  options: OPTIONS,
  subcommands: SUBCOMMANDS,
  async run(argv) {
    const [first, ...rest] = argv;
    if (first === 'merge') return (await import('./report-merge.ts')).command.run(rest);
    const { positionals, options: given } = parseCommandArgs(argv, OPTIONS, 'report');
    if (positionals.length > 1)
      throw new UsageError(`takes at most one folder or run, got ${positionals.length}: ${positionals.join(' ')}`, {
        argument: positionals[1],
        rule: 'takes at most one folder or run',
      });
    const named = positionals[0];
    let runs: FoundRun[];
    let chosen: FoundRun | undefined;
    if (named !== undefined && !(existsSync(named) && statSync(named).isDirectory())) {
      const matches = isRunIdStart(named) ? runsNamed(named) : [];
      if (matches.length === 0)
        throw new UsageError(
          `no such folder or run '${named}' (name a reports folder, a run's folder, or a run id found under ./${REPORTS_DIR})`,
          { argument: named, rule: 'takes a folder or a run id' },
        );
      if (matches.length > 1)
        throw new UsageError(
          `'${named}' names ${matches.length} runs (${matches
            .slice(0, 5)
            .map((run) => `${run.kind}/${run.id}`)
            .join(', ')}${matches.length > 5 ? ', ...' : ''}): give more of the id`,
          { argument: named, rule: 'names one run' },
        );
      runs = matches;
      chosen = matches[0];
    } else {
      const dir = named ?? REPORTS_DIR;
      if (!existsSync(dir) || !statSync(dir).isDirectory())
        throw new UsageError(`no such folder '${dir}' (run kgate conform first, or name a reports folder)`, {
          argument: dir,
          rule: 'takes a folder that exists',
        });
      runs = findRuns(dir).filter((run) => given.kind === undefined || run.kind === given.kind);
      if (runs.length === 0)
        throw new UsageError(
          `no run under ${dir}${given.kind ? ` of kind ${given.kind}` : ''} (kgate conform, fuzz, drift live, compare, load and report merge each write one run folder)`,
          { argument: dir, rule: 'takes a folder holding runs' },
        );
      chosen = runs.find((run) => run.report) ?? runs[0];
    }
    const limit = given.limit ?? DEFAULT_LIMIT;
    const listed = limit === 0 ? runs : runs.slice(0, limit);
    if (given.json === true) {
      printJson('report', EXIT.ok, {
        latest: chosen ?? null,
        runs: listed,
        ...(listed.length < runs.length ? { more: runs.length - listed.length } : {}),
      });
      return EXIT.ok;
    }
    for (const run of listed) console.log(runLine(run));
    if (listed.length < runs.length)
      console.log(`(${runs.length - listed.length} older run(s) not listed; --limit 0 lists every one)`);
    if (!chosen?.report) {
      console.log(`no report page in ${shown(chosen!.dir)}: the run stopped before writing it`);
      return EXIT.ok;
    }
    console.log(
      `${named !== undefined && chosen === runs[0] && runs.length === 1 ? 'report' : 'latest report'}: ${shown(chosen.report)}`,
    );
    if (given['no-open'] === true) return EXIT.ok;
    const opener = browserOpener(readEnv());
    if ('reason' in opener) {
      console.log(`not opened (${opener.reason}); open it in a browser, or from the CI artifact`);
      return EXIT.ok;
    }
    const problem = await openInBrowser(opener, resolve(chosen.report));
    console.log(problem ? `could not open it (${problem})` : `opened with ${opener.command}`);
    return EXIT.ok;
  },
};

/** Whether a word could start a run id (digits first): what `kgate report RUN` looks up. */
function isRunIdStart(name: string): boolean {
  return /^\d{4,}/.test(name);
}
