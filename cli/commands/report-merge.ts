import { appendFileSync } from 'node:fs';
import { readEnv } from '../../config/env.ts';
import { redactSecrets } from '../../config/redact.ts';
import { findRunFolders, MergeError, mergeRuns, mergeVerdictLine, readRunFolder } from '../../reporting/merge.ts';
import { createRunDir } from '../../reporting/run-dir.ts';
import { writeRunReports } from '../../reporting/run-reports.ts';
import { renderTerminalSummary } from '../../reporting/summary.ts';
import { DEFAULT_REPORT_DIR } from '../../run/options.ts';
import { EXIT, intOption, parseCommandArgs, stringOption, UsageError } from '../args.ts';
import type { Command } from '../command.ts';

const USAGE = `usage: kgate report merge DIR... [--report-dir OUT] [--expect-shards N] [--json]

Merges the run folders of one sharded run (kgate conform --shard I/N on each machine) into one
verdict, with every report a single run writes (report.html, summary.md, summary.json, junit.xml,
tests.json, run.json), judged from the shards' test records: the counts are those of the same run unsharded.
Each DIR is a run folder, or a folder holding run folders (as actions/download-artifact writes them).

  --report-dir      write the merged reports to OUT (default: a new ${DEFAULT_REPORT_DIR}/<run-id>/)
  --expect-shards   the number of shards to expect where the folders carry no total (all of them
                    missing); when they do, it must agree with them
  --json            print one JSON result object instead of the summary

Refused (exit 2, one line naming the difference): runs of different targets, specs, kgate versions,
seeds, check selections or baselines, shards of different splits, two copies of one shard.
A missing shard fails the merged verdict ("shard 2 of 4 missing").
exit codes: 0 the merged run passes, 1 it fails (a check failed or a shard is missing), 2 bad usage`;

/** `kgate report merge`: one verdict from the run folders of a sharded run. */
export const command: Command = {
  usage: USAGE,
  async run(argv) {
    const { values, positionals } = parseCommandArgs(
      argv,
      { 'report-dir': { type: 'string' }, 'expect-shards': { type: 'string' }, json: { type: 'boolean' } },
      'report merge',
    );
    if (positionals.length === 0)
      throw new UsageError('kgate report merge: takes the run folders of the shards (DIR...); got none');
    const expectShards = intOption(values, 'expect-shards', { min: 1, max: 1000 });
    const out = stringOption(values, 'report-dir');
    if (out !== undefined && out.trim() === '')
      throw new UsageError('option --report-dir takes a folder path, got an empty string');
    let merged: ReturnType<typeof mergeRuns>;
    try {
      const folders = findRunFolders(positionals).map(readRunFolder);
      // The folders are read before the new one is made: a new run folder may retire old ones.
      merged = mergeRuns(folders, { expectShards, reportDir: out ?? '' });
    } catch (error) {
      if (error instanceof MergeError) throw new UsageError(`kgate report merge: ${error.message}`);
      throw error;
    }
    const reportDir = out ?? createRunDir(DEFAULT_REPORT_DIR);
    merged.run.reportDir = reportDir;
    const { markdown } = writeRunReports(merged.run, merged.checks, {
      dir: reportDir,
      records: merged.records,
      meta: merged.meta,
    });
    const env = readEnv();
    if (env.githubStepSummary) appendFileSync(env.githubStepSummary, `${markdown}\n`);
    if (values.json === true) {
      console.log(redactSecrets(JSON.stringify({ command: 'report merge', ...merged.run })));
    } else {
      console.log(redactSecrets(renderTerminalSummary(merged.run)));
      console.log(
        `kgate report merge: ${mergeVerdictLine(merged.run)} (reports in ${reportDir}/: report.html, summary.md, summary.json, junit.xml)`,
      );
    }
    return merged.run.exitCode === 0 ? EXIT.ok : EXIT.failed;
  },
};
