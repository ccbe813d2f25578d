// The usage and options of `kgate report merge`, apart from its code so that `kgate report` can
// name them (its --help, the option tests) without loading the merge.
import { kindFolder } from '../../reporting/run-dir.ts';
import { option } from '../door/args.ts';
import { JSON_USAGE } from '../door/output.ts';
import { REPORT_DIR_OPTION, reportDirUsage } from '../door/run-folder.ts';

/** The usage text of `kgate report merge`. */
export const MERGE_USAGE = `usage: kgate report merge DIR... [--report-dir OUT] [--expect-shards N] [--json]

Merges the run folders of one sharded run (kgate conform --shard I/N on each machine) into one
verdict, with every report a single run writes (report.html, summary.md, summary.json, junit.xml,
tests.json, run.json), judged from the shards' test records: the counts are those of the same run unsharded.
Each DIR is a run folder, or a folder holding run folders (as actions/download-artifact writes them).

${reportDirUsage('merge', 16)}
  --expect-shards   the number of shards to expect where the folders carry no total (all of them
                    missing); when they do, it must agree with them
  --json            print one JSON object instead of the summary: the merged summary after
                    "command", "verdict" and "exitCode"; a stop (bad usage, folders that do not
                    merge) too
${JSON_USAGE}

Refused (exit 2, one line naming the difference): runs of different targets, specs, kgate versions,
seeds, check selections or baselines, shards of different splits, two copies of one shard.
A missing shard fails the merged verdict ("shard 2 of 4 missing").
Before run folders had one naming, a merged run went to reports/conformance/; it now goes to ${kindFolder('merge')}/.
exit codes: 0 the merged run passes, 1 it fails (a check failed or a shard is missing), 2 bad usage`;

/** The options of `kgate report merge`. */
export const MERGE_OPTIONS = {
  'report-dir': REPORT_DIR_OPTION,
  'expect-shards': option.whole(1, 1000, 'shards'),
  json: option.flag(),
};
