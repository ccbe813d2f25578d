import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { basename, join, relative, resolve } from 'node:path';
import { readEnv } from '../../config/env.ts';
import { REPORT_HTML } from '../../page/page.ts';
import { EXIT, parseCommandArgs, UsageError } from '../args.ts';
import type { Command } from '../command.ts';

const USAGE = `usage: kgate report [DIR] [--no-open] [--json]
       kgate report merge DIR... [--report-dir OUT] [--expect-shards N] [--json]

Prints where the latest report page (report.html) is, and opens it in a browser where one can be
opened. DIR (default ./reports) is a reports folder, the folder of one kind of run
(reports/conformance, reports/fuzz, reports/drift, reports/compare) or one run's folder. The latest run of each
kind is listed, and the newest of them is the one opened.

  --no-open   only print where the report is
  --json      print { latest, runs } as one JSON object (never opens a browser)

The page is opened with xdg-open (open on macOS) only in a desktop session: never in CI (CI set),
nor on Linux without DISPLAY or WAYLAND_DISPLAY.
kgate report merge makes one verdict of the run folders of a sharded kgate conform --shard I/N run
(kgate report merge --help tells more).
exit codes: 0 a report was found, 2 bad usage or no report under DIR`;

/** The kinds of run that write a report page, by their folder under reports/. */
export const REPORT_KINDS = { conformance: 'conformance', fuzz: 'fuzz', drift: 'drift', compare: 'compare' } as const;

/** The summary file beside each kind's report.html, read for its verdict. */
const SUMMARY_OF: Record<keyof typeof REPORT_KINDS, string> = {
  conformance: 'summary.json',
  fuzz: 'summary.json',
  drift: 'drift.json',
  compare: 'summary.json',
};

/** One run's report page as `kgate report` lists it. */
export interface FoundReport {
  kind: keyof typeof REPORT_KINDS | 'run';
  /** The run's folder. */
  dir: string;
  /** Its report.html. */
  report: string;
  verdict?: 'pass' | 'fail';
  /** When the page was written (ISO 8601). */
  writtenAt: string;
}

/**
 * Subcommands of `kgate report` (the first positional): each loads its own module. A first
 * positional that names none of them is the reports folder.
 */
const SUBCOMMANDS: Record<string, () => Promise<(argv: string[]) => Promise<number>>> = {
  merge: async () => (await import('./report-merge.ts')).command.run,
};

/** The verdict a run's summary file states: conformance and fuzz say it; drift fails on new findings. */
function verdictOf(dir: string, kind: FoundReport['kind']): FoundReport['verdict'] {
  for (const file of kind === 'run' ? ['summary.json', 'drift.json'] : [SUMMARY_OF[kind]]) {
    const path = join(dir, file);
    if (!existsSync(path)) continue;
    try {
      const summary = JSON.parse(readFileSync(path, 'utf8')) as {
        verdict?: string;
        kind?: string;
        summary?: { new?: number };
      };
      if (summary.verdict === 'pass' || summary.verdict === 'fail') return summary.verdict;
      if (summary.kind === 'drift-live') return (summary.summary?.new ?? 0) > 0 ? 'fail' : 'pass';
    } catch {}
  }
  return undefined;
}

function found(dir: string, kind: FoundReport['kind']): FoundReport | undefined {
  const report = join(dir, REPORT_HTML);
  if (!existsSync(report)) return undefined;
  return { kind, dir, report, verdict: verdictOf(dir, kind), writtenAt: statSync(report).mtime.toISOString() };
}

/** The newest run with a report page in a kind's folder: its `latest` link when that has one, else the newest by name. */
export function latestOfKind(folder: string, kind: FoundReport['kind']): FoundReport | undefined {
  const latest = join(folder, 'latest');
  if (existsSync(latest)) {
    const viaLink = found(realpathSync(latest), kind);
    if (viaLink) return viaLink;
  }
  let names: string[];
  try {
    names = readdirSync(folder);
  } catch {
    return undefined;
  }
  const runs = names
    .filter((name) => /^\d{8}/.test(name))
    .sort()
    .reverse();
  for (const name of runs) {
    const report = found(join(folder, name), kind);
    if (report) return report;
  }
  return undefined;
}

/** The latest report of each kind under `dir` (a reports folder, a kind's folder or one run's folder), newest first. */
export function findReports(dir: string): FoundReport[] {
  const own = found(dir, 'run');
  if (own) return [own];
  const kinds = Object.keys(REPORT_KINDS) as (keyof typeof REPORT_KINDS)[];
  const asKind = kinds.find((kind) => basename(resolve(dir)) === REPORT_KINDS[kind]);
  const reports = asKind
    ? [latestOfKind(dir, asKind)]
    : kinds.map((kind) => latestOfKind(join(dir, REPORT_KINDS[kind]), kind));
  return reports
    .filter((report): report is FoundReport => report !== undefined)
    .sort((a, b) => b.writtenAt.localeCompare(a.writtenAt));
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

/** `kgate report [DIR]`: where the latest report page is; opens it where a browser can be opened. */
export const command: Command = {
  usage: USAGE,
  async run(argv) {
    const [first, ...rest] = argv;
    if (first !== undefined && !first.startsWith('-')) {
      const subcommand = SUBCOMMANDS[first];
      if (subcommand) return (await subcommand())(rest);
    }
    const { values, positionals } = parseCommandArgs(
      argv,
      { 'no-open': { type: 'boolean' }, json: { type: 'boolean' } },
      'report',
    );
    if (positionals.length > 1)
      throw new UsageError(
        `kgate report: takes at most one folder, got ${positionals.length}: ${positionals.join(' ')}`,
      );
    const dir = positionals[0] ?? 'reports';
    if (!existsSync(dir) || !statSync(dir).isDirectory())
      throw new UsageError(`kgate report: no such folder '${dir}' (run kgate conform first, or name a reports folder)`);
    const reports = findReports(dir);
    if (values.json === true) {
      console.log(JSON.stringify({ command: 'report', latest: reports[0] ?? null, runs: reports }));
      return reports.length > 0 ? EXIT.ok : EXIT.usage;
    }
    if (reports.length === 0) {
      console.error(
        `kgate report: no ${REPORT_HTML} under ${dir} (kgate conform, kgate fuzz and kgate drift live write one per run)`,
      );
      return EXIT.usage;
    }
    for (const report of reports)
      console.log(
        `${report.kind.padEnd(12)} ${(report.verdict ?? '?').toUpperCase().padEnd(5)} ${report.writtenAt.slice(0, 19).replace('T', ' ')} UTC  ${shown(report.report)}`,
      );
    const latest = reports[0]!;
    console.log(`latest report: ${shown(latest.report)}`);
    if (values['no-open'] === true) return EXIT.ok;
    const opener = browserOpener(readEnv());
    if ('reason' in opener) {
      console.log(`not opened (${opener.reason}); open it in a browser, or from the CI artifact`);
      return EXIT.ok;
    }
    const problem = await openInBrowser(opener, resolve(latest.report));
    console.log(problem ? `could not open it (${problem})` : `opened with ${opener.command}`);
    return EXIT.ok;
  },
};
