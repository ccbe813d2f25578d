import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { redactSecrets } from '../config/redact.ts';
import type { Check } from './checks/registry.ts';
import { renderJunit } from './junit.ts';
import { RUN_FILE, type RunMeta } from './run-meta.ts';
import { type RunSummary, renderSummary, SUMMARY_FILES, type TestRecord } from './summary.ts';

/**
 * Writes every report of a conformance run into `dir` from its summary and test records:
 * summary.md, junit.xml, tests.json, summary.json and run.json. The reporter of a run and
 * `kgate report merge` both write through here, so a merged run gets the same reports as a
 * single one. Returns the Markdown summary (key masked).
 */
export function writeRunReports(
  dir: string,
  run: RunSummary,
  records: readonly TestRecord[],
  checks: readonly Check[],
  meta?: RunMeta,
): string {
  const markdown = redactSecrets(renderSummary(run, checks));
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, SUMMARY_FILES.markdown), `${markdown}\n`);
  writeFileSync(join(dir, SUMMARY_FILES.junit), redactSecrets(renderJunit(run, checks)));
  writeFileSync(join(dir, SUMMARY_FILES.tests), `${redactSecrets(JSON.stringify(records))}\n`);
  if (meta) writeFileSync(join(dir, RUN_FILE), `${redactSecrets(JSON.stringify(meta, null, 2))}\n`);
  // summary.json last: its presence says the run's reports are complete (runSuite and the action read it).
  writeFileSync(join(dir, SUMMARY_FILES.json), `${redactSecrets(JSON.stringify(run, null, 2))}\n`);
  return markdown;
}
