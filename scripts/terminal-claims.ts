// What a command's terminal output claims, for the tests that hold it to the verdict: every count
// it states next to a word the verdicts count with (passed, failed, findings, changes, differences,
// problems...) must be the verdict's own, and no line may name a source file of kgate or list
// tests one by one (Playwright's list reporter: `[12/180] ... run/declare-tests.ts:13:5 ...`).
import assert from 'node:assert/strict';
import type { CompareResult } from '../compare/run.ts';
import { causeCounts, groupByCause } from '../drift/findings.ts';
import type { HistoryReport } from '../drift/history.ts';
import type { LiveResult } from '../drift/live.ts';
import type { LoadSummary } from '../load/report.ts';
import type { FuzzResult } from '../reporting/fuzz-page.ts';
import type { RunSummary } from '../reporting/summary.ts';

/**
 * The counts a verdict states, by the word that names them; a word a command's verdict does not
 * count is absent. Where a run reports two scopes by one word (drift live with --history: the run's
 * changes and the history's), each is given.
 */
export type VerdictCounts = Partial<Record<CountWord, number | number[]>>;

/** How each count word is written next to its number. A count that ends in `so far` is progress, not a claim. */
const PATTERNS = {
  passed: /(\d[\d,]*) passed\b/g,
  failed: /(\d[\d,]*) failed\b/g,
  skipped: /(\d[\d,]*) skipped\b/g,
  warnings: /(\d[\d,]*) warning(?!s? so far)s?\b/g,
  known: /(\d[\d,]*) known\b/g,
  flaky: /(\d[\d,]*) flaky\b/g,
  'did not run': /(\d[\d,]*) did not run\b/g,
  findings: /(\d[\d,]*) finding(?!s? so far|\(s\) so far)/g,
  changes: /(\d[\d,]*) changes?\b/g,
  new: /(\d[\d,]*) new\b/g,
  failing: /(\d[\d,]*) failing\b/g,
  places: /\bat (\d[\d,]*) places?\b/g,
  differences: /(\d[\d,]*) difference(?!s? set aside|\(s\) set aside)/g,
  regressions: /(\d[\d,]*) latency regression(?:s|\(s\))?/g,
  breached: /(\d[\d,]*) of \d+ thresholds? breached/g,
  problems: /(\d[\d,]*) problems?\b/g,
} as const;

/** A word the verdicts count with. */
export type CountWord = keyof typeof PATTERNS;

/** One line that claims a count the verdict does not give. */
export interface Contradiction {
  line: string;
  word: CountWord;
  claimed: number;
  /** The verdict's count, or undefined: this command's verdict counts nothing by that word. */
  verdict: number | number[] | undefined;
}

/** Every line of `output` that claims a count other than the verdict's (or one the verdict does not count). */
export function contradictions(output: string, verdict: VerdictCounts): Contradiction[] {
  const found: Contradiction[] = [];
  for (const line of output.split(/\r?\n|\r/)) {
    for (const [word, pattern] of Object.entries(PATTERNS) as [CountWord, RegExp][]) {
      for (const match of line.matchAll(pattern)) {
        const claimed = Number(match[1]!.replace(/,/g, ''));
        const given = verdict[word];
        if (!(Array.isArray(given) ? given : [given]).includes(claimed))
          found.push({ line, word, claimed, verdict: given });
      }
    }
  }
  return found;
}

/** A source file of kgate (or any script) named in output, with or without a line number. */
const SOURCE_PATH = /(?<=^|[\s(['"])\/?(?:[\w@.-]+\/)*[\w@.-]+\.(?:ts|tsx|mts|cts|js|mjs|cjs)\b(?::\d+)*/g;

/** The source paths named in output (`run/declare-tests.ts:13:5`, a stack frame's file). */
export function sourcePaths(output: string): string[] {
  return [...output.matchAll(SOURCE_PATH)].map((match) => match[0]);
}

/** Lines that list tests one by one, as Playwright's own reporters do (`[12/180] ... › check`, `✓  3 ...`). */
export function testLines(output: string): string[] {
  return output
    .split(/\r?\n|\r/)
    .filter((line) => /^\s*\[\d+\/\d+\]/.test(line) || /\s›\s/.test(line) || /^Running \d+ tests? using/.test(line));
}

/** The counts a conformance run's verdict gives: its cells. */
export function conformVerdict(summary: RunSummary): VerdictCounts {
  const { passed, failed, warned, skipped, known } = summary.targets[0]!.counts;
  return { passed, failed, warnings: warned, skipped, ...(known !== undefined ? { known } : {}) };
}

/** The counts a fuzz run's verdict gives: findings that fail it, and warnings. */
export function fuzzVerdict(result: FuzzResult): VerdictCounts {
  const failing = result.findings.filter((finding) => (finding.level ?? 'fail') === 'fail').length;
  return { findings: failing, warnings: result.findings.length - failing };
}

/** The counts of a live drift run (drift.json): its changes and places, and with --history the history's. */
export function driftVerdict(result: LiveResult & { history?: HistoryReport }): VerdictCounts {
  const causes = result.summary.causes ?? causeCounts(groupByCause(result.findings));
  const { history } = result;
  return {
    changes: history ? [causes.total, history.changes.length] : causes.total,
    failing: causes.new,
    known: causes.known,
    places: history ? [result.summary.findings, history.findings.length] : result.summary.findings,
    ...(history ? { new: history.changeCounts.new, flaky: history.changeCounts.flaky } : {}),
  };
}

/** The counts of a comparison: differences (by cause), their places, latency regressions. */
export function compareVerdict(result: CompareResult): VerdictCounts {
  return {
    differences: result.causes,
    places: result.differences.length,
    regressions: result.latency.filter((item) => item.regression).length,
  };
}

/** The counts of a load run: thresholds breached. */
export function loadVerdict(summary: LoadSummary): VerdictCounts {
  return { breached: summary.verdicts.filter((verdict) => verdict.status === 'fail').length };
}

/**
 * Holds a command's output (stdout and stderr) to its verdict: a `kgate <command>: PASS|FAIL` line
 * with the exit code's word, no count other than the verdict's, no source path of kgate, no test
 * listed one by one, none of `secrets`.
 */
export function assertAgrees(
  name: string,
  run: { code: number | null; stdout: string; stderr: string },
  want: { code: 0 | 1; verdict: VerdictCounts; secrets: string[] },
): void {
  const output = `${run.stdout}\n${run.stderr}`;
  assert.equal(run.code, want.code, `${name}: exit code\n${output}`);
  const word = want.code === 0 ? 'PASS' : 'FAIL';
  const lines = output.split('\n').filter((line) => /^kgate [a-z -]+: (PASS|FAIL)\b/.test(line));
  assert.ok(lines.length > 0, `${name}: a verdict line\n${output}`);
  for (const line of lines) assert.match(line, new RegExp(`: ${word}\\b`), `${name}: the exit code's word`);
  assert.deepEqual(contradictions(output, want.verdict), [], `${name}: counts\n${output}`);
  assert.deepEqual(sourcePaths(output), [], `${name}: source paths`);
  assert.deepEqual(testLines(output), [], `${name}: test lines`);
  for (const secret of want.secrets) assert.equal(output.includes(secret), false, `${name}: a key is never printed`);
}
