import { appendFileSync } from 'node:fs';
import { readEnv } from '../../config/env.ts';
import { redactSecrets } from '../../config/redact.ts';
import { findRunFolders, MergeError, mergeRuns, mergeVerdictLine, readRunFolder } from '../../reporting/merge.ts';
import { writeRunReports } from '../../reporting/run-reports.ts';
import { renderTerminalSummary } from '../../reporting/summary.ts';
import { EXIT, parseCommandArgs, UsageError } from '../door/args.ts';
import type { Command } from '../door/command.ts';
import { printJson } from '../door/output.ts';
import { runFolder } from '../door/run-folder.ts';
import { MERGE_OPTIONS, MERGE_USAGE } from './report-merge-usage.ts';

/** `kgate report merge`: one verdict from the run folders of a sharded run. */
export const command: Command = {
  usage: MERGE_USAGE,
  options: MERGE_OPTIONS,
  async run(argv) {
    const { positionals, options: given } = parseCommandArgs(argv, MERGE_OPTIONS, 'report merge');
    if (positionals.length === 0)
      throw new UsageError('takes the run folders of the shards (DIR...); got none', {
        command: 'report merge',
        rule: 'takes the run folders of the shards',
      });
    const expectShards = given['expect-shards'];
    const out = given['report-dir'];
    let merged: ReturnType<typeof mergeRuns>;
    try {
      const folders = findRunFolders(positionals).map(readRunFolder);
      // The folders are read before the new one is made: a new run folder may retire old ones.
      merged = mergeRuns(folders, { expectShards, reportDir: out ?? '' });
    } catch (error) {
      if (error instanceof MergeError)
        throw new UsageError(error.message, {
          command: 'report merge',
          rule: 'takes the run folders of one sharded run',
        });
      throw error;
    }
    const reportDir = runFolder(out, 'merge', 'report merge');
    merged.run.reportDir = reportDir;
    const { markdown } = writeRunReports(merged.run, merged.checks, {
      dir: reportDir,
      records: merged.records,
      meta: merged.meta,
    });
    const env = readEnv();
    if (env.githubStepSummary) appendFileSync(env.githubStepSummary, `${markdown}\n`);
    const code = merged.run.exitCode === 0 ? EXIT.ok : EXIT.failed;
    if (given.json === true) {
      printJson('report merge', code, merged.run);
    } else {
      console.log(redactSecrets(renderTerminalSummary(merged.run)));
      console.log(
        `kgate report merge: ${mergeVerdictLine(merged.run)} (reports in ${reportDir}/: report.html, summary.md, summary.json, junit.xml)`,
      );
    }
    return code;
  },
};
